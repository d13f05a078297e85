package engine

import (
	"errors"
	"time"
)

// Event is something that happens to an instance. Each step applies one.
// Every event type of this package carries its handler; Apply refuses an
// Event of any other type as an invalid transition.
type Event interface {
	// Kind names the event in history facts and errors.
	Kind() string
}

// Start starts a new instance at its process's start: the variables become
// the root scope's variables.
type Start struct {
	Variables map[string]any
	// StartNode selects a process-level event start (message, signal,
	// timer); "" starts at the None start.
	StartNode string
}

// Kind implements Event.
func (Start) Kind() string { return "start" }

// Cancel terminates the instance: the root scope is cancelled with every
// track and scope inside it.
type Cancel struct {
	Reason string
	// By is the person who cancelled ("" when nobody in particular); the
	// terminated fact names them.
	By string
}

// Kind implements Event.
func (Cancel) Kind() string { return "cancel" }

// ErrInvalidTransition reports an event that cannot apply to the state.
var ErrInvalidTransition = errors.New("invalid transition")

// Resume continues the ready tracks of a state loaded from a checkpoint.
// Committed states normally hold none (a step runs every ready track to a
// wait or an end), so Resume is usually a no-op; it exists so that start-up
// recovery never depends on that.
type Resume struct{}

// Kind implements Event.
func (Resume) Kind() string { return "resume" }

// JobCompleted completes a job: its variables merge into the task's scope
// by the write rule (docs/scopes.md#variables) and the task is left.
type JobCompleted struct {
	Key       string
	Variables map[string]any
	// Answered marks the answer of an ad-hoc region's router job
	// (gobpm:router="job"): Activate lists the activities to start (empty:
	// none), Variables are written from the region's scope. Only a router
	// job takes an answer, and a router job takes nothing else.
	Answered bool
	Activate []Activation
	// Worker is the worker that completes the job, for the history.
	Worker string
	// Calls are the connector calls the attempt made, for the history.
	Calls []ConnectorCall
	// Result is the result of a user task listener's job (Camunda 8.8's
	// job result): it may deny the task change or correct the task. Only
	// a task listener's job takes one, and a task listener's job takes no
	// variables.
	Result *JobResult
}

// JobResult is what the job of a user task listener completes with:
// Denied refuses the task change the listener ran for (it is not
// applied; DeniedReason says why, for the history), Corrections change
// the task as the change applies.
type JobResult struct {
	Denied       bool
	DeniedReason string
	Corrections  TaskCorrections
}

// TaskCorrections are the task fields a task listener corrects; a nil
// field keeps the task's value (an empty one clears it).
type TaskCorrections struct {
	Assignee        *string    `json:"assignee,omitempty"`
	DueAt           *time.Time `json:"dueAt,omitempty"`
	CandidateUsers  *[]string  `json:"candidateUsers,omitempty"`
	CandidateGroups *[]string  `json:"candidateGroups,omitempty"`
}

// Kind implements Event.
func (JobCompleted) Kind() string { return "job-completed" }

// JobFailed reports a failed job. Retries is the remaining budget; at 0 an
// incident opens. Backoff delays the next activation; 0 means the default
// schedule (1 s doubling per failure up to 5 min) scaled by 1 ± Jitter/5,
// Jitter in [0, 1) chosen by the caller (the engine has no randomness).
type JobFailed struct {
	Key string
	// Calls are the connector calls the attempt made, for the history.
	Calls []ConnectorCall
	// Retries is the remaining budget; with Decrement the engine uses one
	// less than the job has instead (read under the instance's single writer,
	// so two concurrent failures each take one retry).
	Retries      int
	Decrement    bool
	Backoff      time.Duration
	Jitter       float64
	ErrorMessage string
	// Variables become local variables of the job's task in the same step
	// (Camunda 8's failure variables): of the io scope the task runs in,
	// or of one opened for them, which the task's track and job move into
	// and which closes with the task, so they are visible to the job's
	// next attempt and never propagate. A router job's go into its
	// region's scope.
	Variables map[string]any
}

// Kind implements Event.
func (JobFailed) Kind() string { return "job-failed" }

// JobRetriesSet sets the retries a job has left, outside any attempt
// (Camunda 7's PUT /external-task/{id}/retries): 0 opens an incident, as
// a last failure does, with the job's last error message; more resolves
// the job's open incident (the job is activatable again) or, without one,
// only sets the retries.
type JobRetriesSet struct {
	Key     string
	Retries int
	// By is who set them (the incident's resolver).
	By string
}

// Kind implements Event.
func (JobRetriesSet) Kind() string { return "job-retries-set" }

// JobErrorThrown throws a BPMN error at a job's task.
type JobErrorThrown struct {
	Key string
	// Calls are the connector calls the attempt made, for the history.
	Calls        []ConnectorCall
	Code         string
	ErrorMessage string
	Variables    map[string]any
}

// Kind implements Event.
func (JobErrorThrown) Kind() string { return "job-error" }

// IncidentRetried resolves an incident: a job incident gets Retries again;
// a track incident re-executes its element.
type IncidentRetried struct {
	IncidentID string
	Retries    int
	// By is the person who retried ("" when nobody in particular); the
	// incident-resolved fact names them.
	By string
}

// Kind implements Event.
func (IncidentRetried) Kind() string { return "incident-retried" }

// TaskClaimed makes User the assignee of a user task.
type TaskClaimed struct {
	TaskID string
	User   string
	Groups []string
}

// Kind implements Event.
func (TaskClaimed) Kind() string { return "task-claimed" }

// TaskUnclaimed returns a claimed task to its candidates.
type TaskUnclaimed struct {
	TaskID string
	User   string
}

// Kind implements Event.
func (TaskUnclaimed) Kind() string { return "task-unclaimed" }

// TaskCompleted completes a user task with form variables.
type TaskCompleted struct {
	TaskID    string
	User      string
	Groups    []string
	Variables map[string]any
}

// Kind implements Event.
func (TaskCompleted) Kind() string { return "task-completed" }

// TimerFired fires a due timer.
type TimerFired struct {
	WaitID string
}

// Kind implements Event.
func (TimerFired) Kind() string { return "timer-fired" }

// MessageDelivered delivers a correlated message to one subscription.
type MessageDelivered struct {
	WaitID    string
	Variables map[string]any
}

// Kind implements Event.
func (MessageDelivered) Kind() string { return "message-delivered" }

// SignalDelivered fires every signal subscription of the instance with Name.
type SignalDelivered struct {
	Name      string
	Variables map[string]any
}

// Kind implements Event.
func (SignalDelivered) Kind() string { return "signal-delivered" }

// ChildEnded hands a called child's outcome to its caller's call wait:
// completed (Outputs bind into the caller's scope), failed with an uncaught
// error (ErrorCode enters the caller's error chain at the call activity) or
// terminated (CodeChildTerminated does).
type ChildEnded struct {
	ParentID     string
	WaitID       string
	Status       string
	Outputs      map[string]any
	ErrorCode    string
	ErrorMessage string
}

// Kind implements Event.
func (ChildEnded) Kind() string { return "child-ended" }

// CallStarted records on the caller that its child was launched with the
// resolved key and version.
type CallStarted struct {
	WaitID  string
	Key     string
	Version int
}

// Kind implements Event.
func (CallStarted) Kind() string { return "call-started" }

// CallFailed reports a call that could not be launched (unknown key or
// version, unresolvable reference, input contract broken): a technical
// error with Code entering the caller's error chain at the call activity.
type CallFailed struct {
	WaitID  string
	Code    string
	Message string
}

// Kind implements Event.
func (CallFailed) Kind() string { return "call-failed" }

// CallRefused reports a call the runtime did not launch because the
// command would pass its call-tree budget (the children one step may
// launch across its call tree, their element activations, their bytes):
// the call activity stops in an IncidentCallTreeBudget incident carrying
// Message, which names the bound. Retrying it enters the call activity
// again, in a command (and budget) of its own.
type CallRefused struct {
	WaitID  string
	Message string
}

// Kind implements Event.
func (CallRefused) Kind() string { return "call-refused" }

// ChildMissing reports that a call's child instance record is gone: the
// call stops in an incident (never a silent re-launch).
type ChildMissing struct {
	WaitID string
}

// Kind implements Event.
func (ChildMissing) Kind() string { return "child-missing" }

// Orphaned reports that a called child's caller record is gone: the child
// stops for good (never runs orphaned).
type Orphaned struct{}

// Kind implements Event.
func (Orphaned) Kind() string { return "orphaned" }

// Classified error codes of call activities, catchable by error boundaries.
const (
	CodeCallNotFound     = "gobpm.call.not-found"
	CodeCallUnresolvable = "gobpm.call.unresolvable"
	CodeCallContract     = "gobpm.call.contract"
	CodeChildTerminated  = "gobpm.call.child-terminated"
)

// Errors for events that name something the state does not hold or forbid.
var (
	// ErrUnknownWait reports a job, task, timer or subscription that is not
	// (or no longer) open in the instance.
	ErrUnknownWait = errors.New("unknown or finished wait")
	// ErrForbidden reports an actor that may not do what the event asks.
	ErrForbidden = errors.New("forbidden")
	// ErrUnknownIncident reports an incident that is not open.
	ErrUnknownIncident = errors.New("unknown or resolved incident")
)

// VariablesSet writes variables into a scope (the root when ScopeID is
// empty) by the write rule (docs/scopes.md#variables): an operator fixing data before retrying
// an incident, or a person editing an instance. Conditions are evaluated
// afterwards like after any step.
type VariablesSet struct {
	ScopeID   string
	Variables map[string]any
	// By is the person who set them ("" when nobody in particular); each
	// variable-set fact names them ("operator" when By is empty).
	By string
	// Local writes every name into ScopeID itself instead of walking up.
	Local bool
}

// Kind implements Event.
func (VariablesSet) Kind() string { return "variables-set" }
