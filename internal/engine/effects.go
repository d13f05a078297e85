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
	// FactTaskChangeDenied records a task change a task listener denied.
	FactTaskChangeDenied   = "task-change-denied"
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
	// FactCompensationThrown: a compensation throw (or a transaction's
	// cancel end event) claimed the activities it compensates (detail:
	// activities, latest completion first; activityRef; waitForCompletion).
	FactCompensationThrown = "compensation-thrown"
	// FactCompensationStarted and FactCompensationCompleted: the handler
	// of one completion of an activity (the fact's node) started and
	// finished; detail: entry, cause (the throw), handler.
	FactCompensationStarted   = "compensation-started"
	FactCompensationCompleted = "compensation-completed"
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
	// Activations counts the element activations the step made (what
	// Options.MaxActivations bounds), for the runtime's call-tree budget.
	Activations int
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
	// Reference is the calledElement as written, or the key a dynamic
	// callee's expression yielded when the call activity was entered.
	Reference string
	// Binding chooses the callee's version (bpmn.BindingLatest, the
	// default when empty; bpmn.BindingDeployment: the one deployed with
	// the caller; bpmn.BindingVersion: Version; bpmn.BindingVersionTag: the
	// latest version tagged VersionTag). Version > 0 pins a version
	// whatever the binding says.
	Binding    string
	Version    int
	VersionTag string
	// Inputs are the variables the child starts with: the call activity's
	// declared inputs, the variables propagated (Zeebe) or passed by
	// camunda:in. Declared names the inputs of the call activity's own
	// ioSpecification (the runtime checks them against the callee's);
	// Missing names those the caller does not hold.
	Inputs   map[string]any
	Declared []string
	Missing  []string
	// BusinessKey is the child's business key when BusinessKeySet (Camunda
	// 7's camunda:in businessKey); otherwise the child inherits the
	// caller's. Chain is the caller's call chain.
	BusinessKey    string
	BusinessKeySet bool
	Chain          []string
	// ReturnAll asks the child to hand back every variable of its root
	// scope when it completes (ParentLink.All), for Zeebe's
	// propagateAllChildVariables or output mappings and Camunda 7's
	// camunda:out; otherwise only what its ioSpecification declares.
	ReturnAll bool
}
