package engine

import (
	"time"

	"github.com/gobpm/gobpm/internal/scope"
)

// Fact kinds written to history.
const (
	FactInstanceStarted    = "instance-started"
	FactInstanceCompleted  = "instance-completed"
	FactInstanceTerminated = "instance-terminated"
	FactInstanceFailed     = "instance-failed"
	FactElementActivated   = "element-activated"
	FactElementCompleted   = "element-completed"
	FactElementTerminated  = "element-terminated"
	FactScopeOpened        = "scope-opened"
	FactScopeClosed        = "scope-closed"
	FactScopeCancelled     = "scope-cancelled"
	FactVariableSet        = "variable-set"
	FactIncidentCreated    = "incident-created"
	FactIncidentResolved   = "incident-resolved"
	FactJobCreated         = "job-created"
	FactJobFailed          = "job-failed"
	FactTaskCreated        = "task-created"
	FactTaskClaimed        = "task-claimed"
	FactTaskUnclaimed      = "task-unclaimed"
	FactTimerArmed         = "timer-armed"
	FactEventTriggered     = "event-triggered"
	FactErrorThrown        = "error-thrown"
	FactEscalationThrown   = "escalation-thrown"
	FactEscalationUncaught = "escalation-uncaught"
	FactSignalThrown       = "signal-thrown"
	FactHandlerArmed       = "handler-armed"
	FactHandlerFired       = "handler-fired"
	FactEventAbsorbed      = "event-absorbed"
	FactScopeInterrupted   = "scope-interrupted"
	FactCallStarted        = "call-started"
	FactCallEnded          = "call-ended"
)

// Fact is one history entry produced by a step.
type Fact struct {
	Seq       int64
	At        time.Time
	Kind      string
	NodeID    string
	ScopeID   scope.ID
	ScopePath string
	TrackID   string
	// Detail holds kind-specific data (JSON-shaped).
	Detail map[string]any
}

// Effects is everything a step asks the outside world to record or do.
type Effects struct {
	// Facts are the history entries, in order.
	Facts []Fact
	// Incidents are incidents opened or resolved by the step (Resolved set).
	Incidents []Incident
	// Waits are waits created or changed by the step (final version of each).
	Waits []Wait
	// RemovedWaits are ids of waits completed, fired or withdrawn by the step.
	RemovedWaits []string
	// Signals are signals thrown by the step, to broadcast after commit.
	Signals []SignalThrow
	// Fired counts the waits the step's event fired (messages, signals, timers).
	Fired int
	// Calls are child instances to launch (call activities reached).
	Calls []Call
	// CancelChildren are child instances whose call was withdrawn
	// (interrupted, terminated, cancelled): the runtime terminates them.
	CancelChildren []string
	// ParentNotice is set when a called child ended in this step: the
	// runtime hands the outcome to the caller.
	ParentNotice *ChildEnded
	// Decisions are business rule tasks waiting for their decision; the
	// runtime answers them (DecisionEvaluated) before the step commits.
	Decisions []DecisionRequest
	// Changed names every part of the state the step created, changed or
	// removed (State.Delta encodes them); the header always changes.
	Changed []PartRef
}

// Call asks the runtime to resolve a called element and start a child.
type Call struct {
	// ChildID is the id the child instance must get (the call wait's id).
	ChildID string
	NodeID  string
	// Reference is the calledElement as written; Version pins a version (0 = latest).
	Reference string
	Version   int
	// Inputs are the caller's declared inputs found by walk-up; Missing
	// names declared inputs the caller does not hold.
	Inputs  map[string]any
	Missing []string
	// BusinessKey is inherited by the child; Chain is the caller's call chain.
	BusinessKey string
	Chain       []string
}
