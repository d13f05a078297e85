package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
)

// InstanceID identifies a process instance across the whole engine.
type InstanceID string

// Instance statuses, as the API shows them.
//
// StatusRunning: active, no open incident of its own. StatusFailed: either
// stopped on at least one open incident (not ended: it goes on once every
// incident is retried) or — with an end time, State.Failure set — ended by
// an error it could not handle and handed to its caller (final).
// StatusCompleted and StatusTerminated (cancelled) are final.
const (
	StatusRunning    = "running"
	StatusCompleted  = "completed"
	StatusTerminated = "terminated"
	StatusFailed     = "failed"
)

// Resource is one uploaded file of a deployment.
type Resource struct {
	// Name is the file name as uploaded (e.g. "order.bpmn").
	Name string
	// Content is the verbatim bytes as uploaded.
	Content []byte
	// Hash is the hex SHA-256 of Content; identical content mints no new version.
	Hash string
	// Processes are the processes the resource declares, in document order.
	Processes []ProcessDecl
	// Decisions are the DMN decisions the resource declares, in document order.
	Decisions []ProcessDecl
}

// ProcessDecl names one process a resource declares.
type ProcessDecl struct {
	Key  string
	Name string
}

// DeploymentRecord is what the store persists for one deployment.
type DeploymentRecord struct {
	ID         string
	DeployedAt time.Time
	Resources  []Resource
	// DeployedBy is who deployed it (zero when nobody authenticated: a
	// server without authentication, or a deployment older than the
	// record): its models reach only what they may reach (runtime/reach.go).
	DeployedBy Deployer
}

// DefinitionRef names one registered definition version.
type DefinitionRef struct {
	Key     string
	Version int
}

// DefinitionRecord is one registered, immutable process definition version.
type DefinitionRecord struct {
	Key          string
	Version      int
	Name         string
	DeploymentID string
	ResourceName string
	// ResourceHash is the hash of the resource it was registered from.
	ResourceHash string
	// XML is the verbatim deployed document the process was read from.
	XML        []byte
	DeployedAt time.Time
}

// InstanceRow is the queryable summary of an instance.
type InstanceRow struct {
	ID InstanceID
	// Number is the instance's short number among the instances of its
	// process key (every version), 1, 2, 3… in start order: what people
	// read and search ("order-approval #1042"). The store assigns it when
	// it commits the step that creates the instance and sets it in the
	// committed StepRecord; a step that creates an instance leaves it 0.
	Number         int64
	ProcessKey     string
	ProcessVersion int
	Status         string
	BusinessKey    string
	// ParentID and ParentNodeID link a called child to its caller ("" when none).
	ParentID     InstanceID
	ParentNodeID string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// EndedAt is zero while the instance runs.
	EndedAt time.Time
	// Revision counts committed steps; it guards against lost updates.
	Revision int64
}

// FactRow is one history entry of an instance. Seq is assigned by the engine
// and strictly increases per instance.
type FactRow struct {
	Seq       int64
	At        time.Time
	Kind      string
	NodeID    string
	ScopePath string
	Detail    json.RawMessage
	// TrackID is the track the fact happened on, set by the step that
	// writes it and not kept in the history (History leaves it empty): it
	// pairs an element's activation with its end for the statistics'
	// durations (StatsOf).
	TrackID string
}

// IncidentFilter selects a page of incidents.
type IncidentFilter struct {
	// InstanceID selects one instance's incidents; "" the open ones of all.
	InstanceID InstanceID
	// OpenOnly leaves resolved incidents out.
	OpenOnly bool
	// After and AfterAt name the last incident of the previous page.
	After   string
	AfterAt time.Time
	// Limit bounds the page (0: no bound).
	Limit int
}

// IncidentRow is the queryable copy of an incident.
type IncidentRow struct {
	ID         string
	InstanceID InstanceID
	NodeID     string
	ScopeID    string
	Kind       string
	Message    string
	CreatedAt  time.Time
	// ResolvedAt is zero while the incident is open.
	ResolvedAt time.Time
	// ProcessKey and InstanceNumber are those of the incident's instance,
	// read with the incident (the instance row holds them; a step's
	// record leaves them empty).
	ProcessKey     string
	InstanceNumber int64
}

// StepRecord is everything one step of one instance writes. The store
// commits it all or nothing (docs/persistence.md#committing-a-step).
type StepRecord struct {
	// Instance is the instance row after the step; Instance.Revision is the new revision.
	Instance InstanceRow
	// PrevRevision is the revision the step was computed from; 0 means the
	// step creates the instance. A mismatch fails with ErrConflict.
	PrevRevision int64
	// Header is the encoded state header after the step (status, counters,
	// links: a few hundred bytes whatever the instance's size).
	Header []byte
	// Parts are the state parts the step created or changed, inserted or
	// replaced by (Kind, Key). A step that creates its instance lists all
	// of them. The store keeps their data opaque.
	Parts []Part
	// RemovedParts are the state parts the step removed.
	RemovedParts []PartRef
	// Facts are appended to the instance's history.
	Facts []FactRow
	// Incidents are inserted or updated by ID.
	Incidents []IncidentRow
	// Waits are inserted or replaced by ID; a replaced job loses its lock.
	// A WaitStartTimer row is a process's schedule, written without
	// instance (the step that a timer start fired re-arms it).
	Waits []WaitRow
	// RemovedWaits are wait ids to delete (completed, withdrawn, fired).
	RemovedWaits []string
	// CompletedTasks are the user tasks a person completed in the step,
	// kept for the inbox's list of completed tasks (CompletedTasks).
	CompletedTasks []CompletedTaskRow
	// Tokens are the instance's tokens the step created or moved, inserted
	// or replaced by track id; RemovedTokens are the track ids whose token
	// is gone (the track ended, or it now hosts a loop body and no longer
	// counts). Together they keep the store's token index (ElementCounts)
	// exact at the cost of what the step changed. A step that ends its
	// instance also drops every token it still has indexed.
	Tokens        []TokenRow
	RemovedTokens []string
	// Outbox is the after-commit work the step asks for, written in the
	// step's transaction (InstanceID and CreatedAt are the step's when
	// empty). CommitSteps sets each row's ID in place once it is written.
	Outbox []OutboxRow
	// Idempotency, when set, records the client's idempotency key in the
	// step's transaction. A key already recorded after ExpiredBefore fails
	// the step with ErrConflict; an older one is replaced.
	Idempotency *IdempotencyRow
	// LockGuard, when set, makes the step conditional on a job's lock: it
	// commits only if the job still holds the lock token the caller
	// presented (nobody activated it again since the runtime checked);
	// otherwise the commit fails with ErrLockLost.
	LockGuard *LockGuard
	// FiresStartTimer, when set, names the timer start schedule (a
	// WaitStartTimer wait) the step fires: the step commits only while
	// that wait exists and, on a store several nodes share, this node
	// holds its claim (ClusterStore.ClaimDueTimers); otherwise it fails
	// with ErrConflict. A schedule another node fired or took over
	// meanwhile thus starts nothing.
	FiresStartTimer string
	// BufferMessage, when set, stores a published message in the step's
	// transaction (the step that delivered it at publication); a live
	// duplicate fails the step with ErrDuplicateMessage
	// (MessageBufferStore.BufferMessage).
	BufferMessage *BufferedMessage
	// MessageTakes are the buffered messages the step correlated, each
	// recorded for its process key (MessageTake).
	MessageTakes []MessageTake
	// JobErrorDetails, when set, stores the error details of the job
	// failure the step records (as Store.SetJobErrorDetails does), after
	// the step's waits and in its transaction: no reader sees the new
	// error message with the old details, and a late write never
	// overwrites newer ones. A job the step ended keeps none.
	JobErrorDetails *JobErrorDetails
}

// TokenRow is one token of an instance as the store indexes it for
// counting: a live track and the element it stands on.
type TokenRow struct {
	TrackID string
	NodeID  string
}

// ElementCount is what stands at one element of a process version over
// all its running or failed instances.
type ElementCount struct {
	NodeID string
	// Tokens counts the tokens at the element (a track hosting a loop or
	// multi-instance body is not one: its iterations are).
	Tokens int
	// Incidents counts the open incidents raised at the element.
	Incidents int
}

// LockGuard names a job and the hash of the lock token it must still hold
// when a step that acts on it commits.
type LockGuard struct {
	WaitID    string
	TokenHash []byte
	// With CheckUser the job's lock must also have been taken by User (""
	// without authentication).
	CheckUser bool
	User      string
}

// IdempotencyRow is a client's idempotency key with what it did.
type IdempotencyRow struct {
	// Key is the scoped key ("start:order 7f3…", "message 7f3…").
	Key string
	// RequestHash is the SHA-256 of the request's canonical form.
	RequestHash [32]byte
	// InstanceID is the instance the request started or reached.
	InstanceID InstanceID
	// Answer is the JSON the runtime replays for a retry.
	Answer json.RawMessage
	// CreatedAt is when the key was recorded.
	CreatedAt time.Time
	// ExpiredBefore: a recorded key older than this counts as unused (the
	// idempotency window); writing one deletes a few such keys too.
	ExpiredBefore time.Time
}

// Part is one stored piece of an instance's state: a scope with its
// variables, a track, a wait, an incident, an ad-hoc region, a loop body,
// a body's input items or one iteration's result (the engine encodes and
// decodes it; Kind and Key name it, Ord orders the parts of a kind, Data is
// opaque to the store). A step writes only the parts it changed, so its
// cost follows the change, not the instance's size.
type Part = engine.Part

// PartRef names a part of an instance.
type PartRef = engine.PartRef

// Outbox kinds: the after-commit work of a step (see OutboxRow).
const (
	// OutboxSignal broadcasts a signal the step threw.
	OutboxSignal = "signal"
	// OutboxChildEnded hands an ended child's outcome to its caller.
	OutboxChildEnded = "child-ended"
	// OutboxCancelChild terminates a child whose call was withdrawn.
	OutboxCancelChild = "cancel-child"
)

// OutboxRow is one durable request for work after a step commits. The
// runtime performs it and deletes it once the work succeeded or became
// moot; a row left behind (crash, failed attempt) is performed again, so
// the work is done at least once.
type OutboxRow struct {
	// ID is assigned by the store, increasing in write order.
	ID         int64
	InstanceID InstanceID
	// Kind is one of the Outbox* constants.
	Kind string
	// Payload is the kind's JSON document.
	Payload   json.RawMessage
	CreatedAt time.Time
}

// StoredInstance is an instance row with its whole state: the header and
// every part, ordered by kind, then Ord.
type StoredInstance struct {
	InstanceRow
	Header []byte
	Parts  []Part
}

// LegacyInstance is an instance whose state is still one whole checkpoint
// of engine format 1 (written before states were stored as parts).
type LegacyInstance struct {
	InstanceRow
	Checkpoint []byte
}

// MaxListTotal is where ListInstances stops counting: a total of
// MaxListTotal+1 means "more than MaxListTotal" (an exact count would cost
// as much as the matches).
const MaxListTotal = 10_000

// InstanceFilter selects instances for listing. Empty fields match all.
type InstanceFilter struct {
	// Number selects the instances with that number (one per process key;
	// with ProcessKey, at most one).
	Number         int64
	ProcessKey     string
	ProcessVersion int
	Status         string
	BusinessKey    string
	ParentID       InstanceID
	// ProcessKeyPatterns, when not nil, keeps only instances whose process
	// key matches, in every clause, at least one pattern, where '*' matches
	// any run of characters ("order-*"); an empty clause matches nothing.
	// Authorization fills it with what the caller may read.
	ProcessKeyPatterns [][]string
	// Element keeps the instances with a token at that element (indexed by
	// the token index) or an open incident there: waiting or failed there.
	Element string
	// IncidentMessage keeps the instances with an open incident whose
	// message is exactly this text, or starts with it when
	// IncidentMessagePrefix is set.
	IncidentMessage       string
	IncidentMessagePrefix bool
	// Variables keeps the instances whose top-level (process-instance
	// scope) variables have all these values, exactly (see
	// VariableValueKey), looked up in the store's variable index.
	Variables []VariableFilter
	// CreatedAfter and CreatedBefore bound the creation time, EndedAfter
	// and EndedBefore the end time (an instance that has not ended has
	// none and matches no end bound): After is inclusive, Before
	// exclusive; the zero time leaves that side open.
	CreatedAfter, CreatedBefore time.Time
	EndedAfter, EndedBefore     time.Time
	// SortBy orders the list by a column other than the creation time:
	// one of the Sort* constants ("" is SortCreated). Ascending reverses
	// the order (newest first, or the largest first, by default). Ties
	// fall back to the creation time and the store's order, so paging
	// neither skips nor repeats; a sort other than SortCreated reads every
	// match to order them (the store caps nothing here: narrow the filter).
	SortBy    string
	Ascending bool
	// Limit caps the page size (the store caps it too); Offset skips rows.
	Limit  int
	Offset int
	// After is a keyset cursor: the ID of the last row of the previous
	// page. The page then starts right after that row in the list's order
	// (Offset still applies after it, normally 0). Unlike Offset, paging by
	// After costs the same on every page and neither skips nor repeats rows
	// when instances are created meanwhile. An After that names no stored
	// instance fails with ErrNotFound.
	After InstanceID
}

// The columns an instance list sorts by (InstanceFilter.SortBy).
const (
	SortCreated = "created"
	SortNumber  = "number"
	SortProcess = "process"
	SortStatus  = "status"
	SortEnded   = "ended"
)

// Store is the persistence the runtime needs. Implementations own their
// transactions. Errors: ErrNotFound for unknown ids, ErrConflict for a
// revision mismatch; anything else is internal.
type Store interface {
	// Deploy stores the deployment and registers every process and every
	// decision of its resources in one transaction. A process (decision)
	// whose latest version came from a resource with the same hash keeps
	// that version; any other gets the next version (1 for a new key). It
	// returns the registered refs in resource and document order:
	// processes, then decisions.
	Deploy(ctx context.Context, d DeploymentRecord) (processes, decisions []DefinitionRef, err error)
	// Definition returns one version of a key; version 0 means the latest.
	// ErrNotFound if absent.
	Definition(ctx context.Context, key string, version int) (DefinitionRecord, error)
	// LatestDefinitions returns the latest version of every key, ordered by key.
	LatestDefinitions(ctx context.Context) ([]DefinitionRecord, error)
	// DefinitionVersions returns every version of a key, ascending; ErrNotFound
	// if the key is unknown.
	DefinitionVersions(ctx context.Context, key string) ([]DefinitionRecord, error)

	// Decision, LatestDecisions and DecisionVersions mirror the process
	// lookups for decisions (the XML is the DMN document).
	Decision(ctx context.Context, key string, version int) (DefinitionRecord, error)
	// DeploymentResources returns the resources of a deployment whose
	// names end with ext ("" for all), by name.
	DeploymentResources(ctx context.Context, deploymentID, ext string) ([]Resource, error)
	// DeployedBy returns who deployed a deployment (the zero Deployer for
	// one recorded without); ErrNotFound for an unknown id.
	DeployedBy(ctx context.Context, deploymentID string) (Deployer, error)
	LatestDecisions(ctx context.Context) ([]DefinitionRecord, error)
	DecisionVersions(ctx context.Context, key string) ([]DefinitionRecord, error)

	// CommitSteps commits a batch of steps of distinct instances in one
	// transaction (group commit): all or nothing. On ErrConflict the caller
	// retries the steps one by one to find the culprit. It sets the ID of
	// every Outbox row of steps in place, and the Number of every instance
	// a step creates (PrevRevision 0): the next numbers of its process
	// key, handed out atomically in the commit, so no two instances of a
	// key share one (meaningful only on success).
	CommitSteps(ctx context.Context, steps []StepRecord) error
	// Instance returns an instance with its whole state; ErrNotFound if absent.
	Instance(ctx context.Context, id InstanceID) (StoredInstance, error)
	// InstanceRow returns the row of an instance without its state;
	// ErrNotFound if absent.
	InstanceRow(ctx context.Context, id InstanceID) (InstanceRow, error)
	// LegacyInstances returns at most limit instances whose state is still a
	// format-1 checkpoint, oldest first.
	LegacyInstances(ctx context.Context, limit int) ([]LegacyInstance, error)
	// ReplaceState writes the whole state of an instance as header and parts
	// (replacing any parts it had) without a step: the upgrade of a legacy
	// checkpoint. ErrConflict if the instance's revision is no longer
	// revision, ErrNotFound if it does not exist.
	ReplaceState(ctx context.Context, id InstanceID, revision int64, header []byte, parts []Part) error
	// ListInstances returns instance rows matching f, newest first (by
	// creation time; instances created at the same instant in the reverse
	// of the order the store received them), and the total number of
	// matches regardless of paging, counted up to MaxListTotal+1 (which
	// means "more than MaxListTotal"). The next
	// page's cursor (InstanceFilter.After) is the ID of the last row;
	// ErrNotFound if f.After names no instance.
	ListInstances(ctx context.Context, f InstanceFilter) ([]InstanceRow, int, error)
	// RunningInstances returns the rows of every running or failed (not
	// ended) instance, oldest first.
	RunningInstances(ctx context.Context) ([]InstanceRow, error)
	// History returns the facts of an instance with Seq > afterSeq in order,
	// at most limit (0 = no limit).
	History(ctx context.Context, id InstanceID, afterSeq int64, limit int) ([]FactRow, error)
	// Incidents lists incidents; an empty instance id lists all open ones.
	Incidents(ctx context.Context, id InstanceID, openOnly bool) ([]IncidentRow, error)
	// IncidentsPage lists incidents like Incidents, oldest first, after
	// the incident f.After (created at f.AfterAt), at most f.Limit.
	IncidentsPage(ctx context.Context, f IncidentFilter) ([]IncidentRow, error)
	// IncidentAncestry returns, for every instance with an open incident,
	// the instance itself (Depth 0) and each caller above it up to the root
	// of its call tree; with ids not nil only the rows whose AncestorID is
	// one of ids. It walks up from the open incidents, so its cost follows
	// their number and the trees' depth, never the size of the trees.
	IncidentAncestry(ctx context.Context, ids []InstanceID) ([]IncidentAncestor, error)
	// InstanceRows returns the rows of the instances ids that exist, in
	// one query (in no particular order); unknown ids are left out.
	InstanceRows(ctx context.Context, ids []InstanceID) ([]InstanceRow, error)
	// ElementCounts counts, over every running or failed instance of a
	// process version, the indexed tokens (StepRecord.Tokens) and the open
	// incidents at each element; elements with neither are absent. Its
	// cost follows the tokens and open incidents of that version, never
	// the size of the instances' states.
	ElementCounts(ctx context.Context, key string, version int) ([]ElementCount, error)
	// TokensPending returns at most limit instances (limit <= 0: all)
	// whose tokens are not indexed yet (the instances that were running
	// when the token index was added), in creation order.
	TokensPending(ctx context.Context, limit int) ([]InstanceID, error)
	// IndexTokens replaces every indexed token of an instance with tokens
	// and clears its pending mark (TokensPending), in one transaction,
	// provided the instance's revision is still revision: ErrConflict
	// otherwise, ErrNotFound for an unknown instance.
	IndexTokens(ctx context.Context, id InstanceID, revision int64, tokens []TokenRow) error

	// Wait returns one wait row by id; ErrNotFound if absent.
	Wait(ctx context.Context, id string) (WaitRow, error)
	// InstanceWaits returns the open waits of an instance, oldest first;
	// ErrNotFound for an unknown instance.
	InstanceWaits(ctx context.Context, id InstanceID) ([]WaitRow, error)
	// InstanceWaitsPage returns at most limit open waits of an instance
	// whose id follows after ("" from the first), by id (creation order);
	// ErrNotFound for an unknown instance.
	InstanceWaitsPage(ctx context.Context, id InstanceID, after string, limit int) ([]WaitRow, error)
	// WaitCounts returns how many waits of each kind are open.
	WaitCounts(ctx context.Context) (map[string]int, error)
	// SetJobErrorDetails stores the error details of the last failure of
	// the job with wait id id ("" clears them), at most
	// MaxJobErrorDetails bytes (longer details are cut there). ErrNotFound
	// for an unknown job.
	SetJobErrorDetails(ctx context.Context, id, details string) error
	// JobErrorDetails returns them ("" when there are none); ErrNotFound
	// for an unknown job.
	JobErrorDetails(ctx context.Context, id string) (string, error)
	// WaitsPage returns at most f.Limit open waits of kind f.Kind matching
	// f, oldest first (creation time, then id), after the cursor f.After
	// (the last row of the previous page). For jobs (with or without a
	// type) and message waits of a name, the stores read an index that
	// keeps creation order: a page reads the waits of that kind (and name)
	// from the cursor on until it is full, never the whole waits table,
	// and never sorts. The other conditions (process key, activatable) are
	// checked on those rows, so a page steps over the non-matching waits
	// of the kind and name. Other shapes (another kind, messages without a
	// name) read every wait: no caller pages them. It serves job listings,
	// filtered activation and message correlation, which must not stop at
	// some number of instances.
	WaitsPage(ctx context.Context, f WaitPageFilter) ([]WaitRow, error)
	// ActivateJobs locks up to len(lock.TokenHashes) activatable jobs of a
	// type with lock, oldest first, in one statement, and returns them in
	// that order: the i-th holds lock.TokenHashes[i]. Activatable: retries
	// > 0, DueAt zero or <= now, not locked or lock expired at now.
	ActivateJobs(ctx context.Context, jobType string, now time.Time, lock JobLock) ([]WaitRow, error)
	// NextJobAvailable returns the earliest time after now at which a job of
	// the type becomes activatable (retry backoff or lock expiry), if any.
	NextJobAvailable(ctx context.Context, jobType string, now time.Time) (time.Time, bool, error)
	// ExtendJobLock moves the lock of a job to until, provided it still
	// holds the token whose hash is tokenHash and has not expired at now.
	// ErrNotFound for an unknown key, ErrConflict otherwise.
	ExtendJobLock(ctx context.Context, key string, tokenHash []byte, now, until time.Time) error
	// ServerSecret returns the secret stored under name, storing fresh
	// first (durably) if there is none: the first caller's bytes win, and
	// every later call, after a restart too, returns them.
	ServerSecret(ctx context.Context, name string, fresh []byte) ([]byte, error)
	// Tasks lists user-task waits matching f, oldest first, and the total.
	Tasks(ctx context.Context, f TaskFilter) ([]WaitRow, int, error)
	// CompletedTasks returns a page of the completed user tasks matching f,
	// the latest completion first (ties: task id descending), and the
	// total count regardless of paging.
	CompletedTasks(ctx context.Context, f CompletedTaskFilter) ([]CompletedTaskRow, int, error)
	// DueTimers returns timer and start-timer waits with DueAt <= now, earliest first, at most limit.
	DueTimers(ctx context.Context, now time.Time, limit int) ([]WaitRow, error)
	// NextTimer returns the earliest DueAt of any timer or start-timer wait.
	NextTimer(ctx context.Context) (time.Time, bool, error)
	// MessageSubscriptions returns message waits with this name and
	// correlation key, oldest first, at most limit.
	MessageSubscriptions(ctx context.Context, name, correlationKey string, limit int) ([]WaitRow, error)
	// SignalSubscriptions returns the instance ids having a signal wait with this name.
	SignalSubscriptions(ctx context.Context, name string) ([]InstanceID, error)
	// StartTimers returns the start-timer waits of a process key.
	StartTimers(ctx context.Context, processKey string) ([]WaitRow, error)
	// ReplaceStartTimers deletes the start-timer waits of processKey and
	// inserts rows, in one transaction.
	ReplaceStartTimers(ctx context.Context, processKey string, rows []WaitRow) error

	// Outbox returns at most limit outbox rows, oldest (lowest id) first.
	Outbox(ctx context.Context, limit int) ([]OutboxRow, error)
	// UpdateOutbox replaces the payload of an outbox row (a retry narrowed
	// to what is left); ErrNotFound if the row is gone.
	UpdateOutbox(ctx context.Context, id int64, payload json.RawMessage) error
	// DeleteOutbox deletes outbox rows by id; unknown ids are ignored.
	DeleteOutbox(ctx context.Context, ids ...int64) error

	// Idempotency returns the record of a scoped idempotency key written
	// after since; ok is false when there is none (or only an older one).
	Idempotency(ctx context.Context, key string, since time.Time) (row IdempotencyRow, ok bool, err error)
	// RecordIdempotency records a key outside a step (a finished signal
	// broadcast); a live record of it is ErrConflict.
	RecordIdempotency(ctx context.Context, row IdempotencyRow) error

	// Housekeeping: history retention and backups (runtime/retention.go,
	// runtime/backup.go).
	HousekeepingStore

	// Migration batches (runtime/migrate.go).
	MigrationStore

	// Batch operations by filter (runtime/batch.go).
	BatchStore

	// Numeric keys, Camunda 8's names of entities (keys.go).
	KeyStore

	// Buffered messages (runtime/msgbuffer.go).
	MessageBufferStore

	// The history export (runtime/export.go).
	ExportStore

	// Close releases the store.
	Close() error
}
