package runtime

import "time"

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

// ActivateRequest asks for jobs of one type.
type ActivateRequest struct {
	Type   string
	Worker string
	// User is the caller's user id ("" when the server runs without
	// authentication). Only the same user may act on the jobs.
	User string
	// MaxJobs caps the jobs returned (1..1000).
	MaxJobs int
	// LockDuration is how long the jobs stay locked to the worker.
	LockDuration time.Duration
	// RequestTimeout > 0 long-polls: the call waits up to this long for a
	// job to become activatable.
	RequestTimeout time.Duration
	// FetchVariables, when not nil, names the variables each job carries:
	// only those of them visible from its task (an empty list: none). Nil
	// carries every visible variable.
	FetchVariables []string
}

// JobView is an activated job as a worker sees it.
type JobView struct {
	// Key is the job's public key, "<wait id>.<mac>" (JobKey): the only
	// form in which the job routes accept it.
	Key string
	// LockToken is the secret that proves this activation holds the lock:
	// complete, fail, error and extend need it (JobHolder). The store keeps
	// only its hash, so it is shown once, here.
	LockToken  string
	Type       string
	InstanceID InstanceID
	NodeID     string
	Retries    int
	// Variables are the variables visible from the task's scope.
	Variables map[string]any
	// CustomHeaders are the job's static headers from the model
	// (zeebe:taskHeaders, an external task's camunda:properties); nil when
	// it has none.
	CustomHeaders map[string]string
	// Deadline is when the lock expires.
	Deadline time.Time
}

// JobHolder is what a caller presents to act on a job it activated: the
// lock token the activation answered and the caller's identity.
type JobHolder struct {
	// Token is JobView.LockToken of the activation.
	Token string
	// User is the caller's user id ("" without authentication); it must be
	// the user who activated the job.
	User string
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
}

// FailRequest reports a failed job.
type FailRequest struct {
	// Retries is the remaining retries; nil means one less than now.
	Retries *int
	// RetryBackoff delays the next activation; 0 means the default schedule
	// (1 s doubling per attempt up to 5 min, with jitter).
	RetryBackoff time.Duration
	ErrorMessage string
}

// TaskView is a user task as the inbox shows it.
type TaskView struct {
	ID              string
	InstanceID      InstanceID
	NodeID          string
	Name            string
	Assignee        string
	CandidateUsers  []string
	CandidateGroups []string
	CreatedAt       time.Time
	DueAt           time.Time
	// ProcessKey and ProcessVersion name the task's process version;
	// BusinessKey is its instance's ("" when none).
	ProcessKey     string
	ProcessVersion int
	BusinessKey    string
	// FormID is the id of the Camunda Form the task's element links ("":
	// none); Form reads it (with ProcessKey and ProcessVersion).
	FormID string
}
