package runtime

// File is one uploaded file of a deployment request.
type File struct {
	// Name is the file name; its extension (.bpmn, .xml) selects the parser.
	Name    string
	Content []byte
}

// DeploymentResult is the answer to a successful deployment.
type DeploymentResult struct {
	ID        string
	Processes []DefinitionRef
	Decisions []DefinitionRef
	// Warnings are problems that did not refuse the deployment: a DMN
	// element whose expression does not compile deploys and evaluates to
	// null with an error (a business rule task then raises an incident),
	// as DMN wants; its author should still see why.
	Warnings []Problem
}

// Problem is one reason a deployment was refused.
type Problem struct {
	// Resource is the file the problem is in.
	Resource string
	// Element is the id of the offending element (or a tag/line when it has none).
	Element string
	// Rule is a stable kebab-case code of the broken rule.
	Rule   string
	Detail string
}

// DeploymentError reports every problem of a refused deployment; nothing was registered.
type DeploymentError struct {
	Problems []Problem
}

// Error implements error.
func (e *DeploymentError) Error() string {
	if len(e.Problems) == 0 {
		return "deployment refused"
	}
	p := e.Problems[0]
	msg := "deployment refused: " + p.Element + ": " + p.Detail
	if n := len(e.Problems) - 1; n > 0 {
		msg += " (and more)"
	}
	return msg
}

// StartRequest asks for a new instance of a process.
type StartRequest struct {
	ProcessKey string
	// Version pins a version; 0 means the latest.
	Version     int
	BusinessKey string
	// Variables become the root scope's variables (JSON-shaped values;
	// numbers as json.Number).
	Variables map[string]any
}

// InstanceView is a copied, read-only picture of one instance.
type InstanceView struct {
	InstanceRow
	// Replayed is set on the answer to a start retried with an idempotency
	// key: the instance is the one the first request started, as it is now.
	Replayed bool
	// Variables are the root scope's variables.
	Variables map[string]any
	// Scopes and Tracks are the first ViewLimit open scopes and live
	// tracks in creation order (InstanceScopes and InstanceTracks page
	// through the rest); ScopeCount and TrackCount are how many there are.
	Scopes     []ScopeView
	Tracks     []TrackView
	ScopeCount int
	TrackCount int
	// WaitCount is how many waits are open (Waits pages through them).
	WaitCount int
	Incidents []IncidentRow
	// Children are the called child instances (empty until call activities exist).
	Children []ChildView
}

// ScopeView is one open scope with its local variables and the event
// handlers armed on it.
type ScopeView struct {
	ID       string
	ParentID string
	NodeID   string
	Path     string
	// State is "active", or "interrupted" once an interrupting event
	// sub-process runs in it.
	State     string
	Variables map[string]any
	Handlers  []HandlerView
	// Kind is "body" for a loop or multi-instance body, "iteration" for one
	// of its iterations (Index from 1), "" otherwise.
	Kind  string
	Index int
}

// HandlerView is an event handler armed on a scope: an event sub-process
// declared in it or a boundary event on its host sub-process.
type HandlerView struct {
	NodeID string
	// Kind is "event-subprocess" or "boundary".
	Kind string
	// Trigger is the event kind: message, timer, signal, error, escalation, conditional.
	Trigger string
	// Name is the message or signal name, or the error/escalation code ("" = any).
	Name         string
	Interrupting bool
}

// TrackView is one token.
type TrackView struct {
	ID      string
	ScopeID string
	NodeID  string
	State   string
}

// ChildView links a called child instance.
type ChildView struct {
	InstanceID InstanceID
	// Number and ProcessKey name the child for people ("sub #7").
	Number     int64
	ProcessKey string
	NodeID     string
	Status     string
}
