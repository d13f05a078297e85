package runtime

import "github.com/gobpm/gobpm/internal/engine"

// Fact kinds: the Kind of a history fact (FactRow.Kind), as the engine
// defines them, for the layers that may not import the engine (the
// cockpit tells facts in words by these names).
const (
	FactRegionOpened          = engine.FactRegionOpened
	FactCandidates            = engine.FactCandidates
	FactAdHocActivated        = engine.FactAdHocActivated
	FactRegionStopped         = engine.FactRegionStopped
	FactRouterAnswered        = engine.FactRouterAnswered
	FactDecisionEvaluated     = engine.FactDecisionEvaluated
	FactInstanceStarted       = engine.FactInstanceStarted
	FactInstanceCompleted     = engine.FactInstanceCompleted
	FactInstanceTerminated    = engine.FactInstanceTerminated
	FactInstanceFailed        = engine.FactInstanceFailed
	FactElementActivated      = engine.FactElementActivated
	FactElementCompleted      = engine.FactElementCompleted
	FactElementTerminated     = engine.FactElementTerminated
	FactScopeOpened           = engine.FactScopeOpened
	FactScopeClosed           = engine.FactScopeClosed
	FactScopeCancelled        = engine.FactScopeCancelled
	FactVariableSet           = engine.FactVariableSet
	FactIncidentCreated       = engine.FactIncidentCreated
	FactIncidentResolved      = engine.FactIncidentResolved
	FactJobCreated            = engine.FactJobCreated
	FactJobFailed             = engine.FactJobFailed
	FactTaskCreated           = engine.FactTaskCreated
	FactTaskClaimed           = engine.FactTaskClaimed
	FactTaskUnclaimed         = engine.FactTaskUnclaimed
	FactTimerArmed            = engine.FactTimerArmed
	FactEventTriggered        = engine.FactEventTriggered
	FactErrorThrown           = engine.FactErrorThrown
	FactEscalationThrown      = engine.FactEscalationThrown
	FactEscalationUncaught    = engine.FactEscalationUncaught
	FactSignalThrown          = engine.FactSignalThrown
	FactHandlerArmed          = engine.FactHandlerArmed
	FactHandlerFired          = engine.FactHandlerFired
	FactEventAbsorbed         = engine.FactEventAbsorbed
	FactScopeInterrupted      = engine.FactScopeInterrupted
	FactCallStarted           = engine.FactCallStarted
	FactCallEnded             = engine.FactCallEnded
	FactCompensationThrown    = engine.FactCompensationThrown
	FactCompensationStarted   = engine.FactCompensationStarted
	FactCompensationCompleted = engine.FactCompensationCompleted
	FactInstanceMigrated      = engine.FactInstanceMigrated
	FactInstanceModified      = engine.FactInstanceModified
	FactConnectorCall         = engine.FactConnectorCall
)

// ConnectorCall is one outbound call a built-in connector made for a job's
// attempt, handed in with the job's act (CompleteJobWithCalls,
// FailRequest.Calls, ThrowJobErrorWithCalls) and recorded in the
// instance's history by the act's step (FactConnectorCall): with the act,
// or not at all when the act is refused (the job's lock was lost).
type ConnectorCall = engine.ConnectorCall
