package store

import (
	"time"
	"unicode/utf8"
)

// Wait kinds, as stored in WaitRow.Kind.
const (
	WaitJob        = "job"
	WaitTask       = "task"
	WaitTimer      = "timer"
	WaitMessage    = "message"
	WaitSignal     = "signal"
	WaitStartTimer = "start-timer" // a timer start event's schedule; InstanceID is empty
)

// WaitRow is the queryable copy of one wait of an instance: a job for
// workers, a user task, a timer, or a message or signal subscription. The
// engine owns the wait (it is part of the checkpoint); the row lets the
// runtime find it. Job lock columns are owned by the store's activation.
type WaitRow struct {
	// ID is the wait's key: the job key, task id, timer or subscription id.
	ID         string
	InstanceID InstanceID
	Kind       string
	// NodeID is the element that defines the wait (task, catch or boundary event).
	NodeID  string
	ScopeID string
	TrackID string
	// ProcessKey and ProcessVersion name the definition (for start timers
	// the definition to start).
	ProcessKey     string
	ProcessVersion int
	// Name is the job type, the message or signal name, or the task's name.
	Name string
	// CorrelationKey is a message subscription's key ("" = none).
	CorrelationKey string
	// DueAt is a timer's due time, a job's retry-not-before time, a task's
	// due date; zero when unset.
	DueAt time.Time
	// Retries is a job's remaining retries (0 = incident, not activatable).
	Retries int
	// ErrorMessage is the last failure text of a job.
	ErrorMessage    string
	Assignee        string
	CandidateUsers  []string
	CandidateGroups []string
	CreatedAt       time.Time
	// LockOwner and LockExpiresAt describe a job's activation (zero when not locked).
	LockOwner     string
	LockExpiresAt time.Time
	// LockUser is the user who activated the job ("" when the server runs
	// without authentication) and LockTokenHash the SHA-256 hash of the lock
	// token that activation handed out (nil when the job is not locked). An
	// expired lock keeps both until the job is activated again. The hash
	// must never be shown: the API's views leave it out.
	LockUser      string
	LockTokenHash []byte
	// TraceContext is a job's span context while tracing is on (the
	// telemetry package's text: traceparent, parent span, start), ""
	// otherwise. A replaced row keeps the stored one when this is "".
	TraceContext string
}

// TaskFilter selects user tasks. Empty fields match all; CandidateUser and
// CandidateGroup match tasks offered to that user or group.
type TaskFilter struct {
	Assignee       string
	CandidateUser  string
	CandidateGroup string
	InstanceID     InstanceID
	// OfferedTo, when set, keeps the tasks offered to this person: assigned
	// to them, or unassigned with them among the candidate users, one of
	// their groups among the candidate groups, or no candidates at all.
	// Authorization sets it for callers who may not read every process.
	OfferedTo *Actor
	// ProcessKey keeps the tasks of instances of this process key.
	ProcessKey string
	// Unassigned keeps the tasks nobody is assigned to.
	Unassigned bool
	// CandidateGroupsAny keeps the tasks with at least one of these among
	// their candidate groups.
	CandidateGroupsAny []string
	// DueBefore, when not zero, keeps the tasks with a due date before it.
	DueBefore time.Time
	// CreatedAfter and CreatedBefore bound the task's creation time: After
	// inclusive, Before exclusive; the zero time leaves that side open.
	CreatedAfter, CreatedBefore time.Time
	// Variables keeps the tasks whose instance's top-level variables meet
	// every filter, as InstanceFilter.Variables (each task's instance is
	// looked up by id and its variable by the index's primary key).
	Variables []VariableFilter
	// Order is the order of the list: TaskOrderOldest (the default),
	// TaskOrderNewest or TaskOrderDue.
	Order  TaskOrder
	Limit  int
	Offset int
}

// TaskOrder is an order of a task list.
type TaskOrder string

// The task orders. Ties are broken by creation time, then id, so that
// paging is stable.
const (
	// TaskOrderOldest lists the oldest task first.
	TaskOrderOldest TaskOrder = ""
	// TaskOrderNewest lists the newest task first.
	TaskOrderNewest TaskOrder = "newest"
	// TaskOrderDue lists by due date, the earliest first and tasks without
	// one last.
	TaskOrderDue TaskOrder = "due"
)

// Actor is the identity acting on a user task.
type Actor struct {
	User   string
	Groups []string
}

// JobLock is the lock Store.ActivateJobs puts on the jobs it hands out.
type JobLock struct {
	// Worker is the worker's name (LockOwner).
	Worker string
	// User is the activating caller's user id (LockUser).
	User string
	// Until is when the lock expires (LockExpiresAt).
	Until time.Time
	// TokenHashes are the SHA-256 hashes of fresh lock tokens, one for each
	// job the activation may lock: the store activates at most
	// len(TokenHashes) jobs, and the i-th of them (oldest first) gets
	// TokenHashes[i].
	TokenHashes [][]byte
	// Renew lets JobLocker.LockJob also lock a job whose live lock
	// Worker and User hold (a renewal, Camunda 7's lock); without it
	// only a job not locked or whose lock expired is locked, so two
	// fetches of the same worker never both lock a job. ActivateJobs
	// ignores it.
	Renew bool
}

// WaitPageFilter selects open waits for Store.WaitsPage. Kind is
// required; empty fields match all.
type WaitPageFilter struct {
	// Kind is the wait kind (WaitJob, WaitMessage, ...).
	Kind string
	// Name is the job type or the message name.
	Name string
	// ProcessKey keeps the waits of instances of this process key.
	ProcessKey string
	// ActivatableAt, when not zero, keeps the jobs activatable at that
	// time, as Store.ActivateJobs defines it: retries > 0, not backing off,
	// not locked or the lock expired.
	ActivatableAt time.Time
	// After is the cursor: the last row of the previous page (its ID and
	// CreatedAt); the zero row starts at the first.
	After WaitCursor
	// Limit caps the page (<= 0: 1000).
	Limit int
}

// WaitCursor is a position in the order of Store.WaitsPage.
type WaitCursor struct {
	ID        string
	CreatedAt time.Time
}

// CursorOf is the cursor just after row.
func CursorOf(row WaitRow) WaitCursor { return WaitCursor{ID: row.ID, CreatedAt: row.CreatedAt} }

// MaxWaitsPage is the largest page Store.WaitsPage returns.
const MaxWaitsPage = 1000

// JobErrorDetails are the error details of a job's last failure, written
// with the failure's step (StepRecord.JobErrorDetails).
type JobErrorDetails struct {
	// WaitID is the job's wait id.
	WaitID string
	// Details are the details ("" clears them), cut at
	// MaxJobErrorDetails bytes.
	Details string
}

// MaxJobErrorDetails caps the error details a job keeps
// (Store.SetJobErrorDetails): 64 KiB, room for a long stack trace.
const MaxJobErrorDetails = 64 << 10

// CapErrorDetails cuts details to at most MaxJobErrorDetails bytes, at a
// UTF-8 character boundary.
func CapErrorDetails(details string) string {
	if len(details) <= MaxJobErrorDetails {
		return details
	}
	cut := MaxJobErrorDetails
	for cut > 0 && !utf8.RuneStart(details[cut]) {
		cut--
	}
	return details[:cut]
}
