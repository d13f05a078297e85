package bpmn

import (
	"time"

	"github.com/gobpm/gobpm/internal/expr"
)

// NodeKind is the executable kind of a flow node.
type NodeKind string

// The node kinds the engine executes. Every other BPMN element is rejected at
// deployment as "not supported yet".
const (
	KindStartEvent       NodeKind = "startEvent"
	KindEndEvent         NodeKind = "endEvent"
	KindTask             NodeKind = "task"
	KindScriptTask       NodeKind = "scriptTask"
	KindExclusiveGateway NodeKind = "exclusiveGateway"
	KindParallelGateway  NodeKind = "parallelGateway"
	KindSubProcess       NodeKind = "subProcess"

	// Wait states and events (jobs, user tasks, timers, messages, signals).
	KindServiceTask            NodeKind = "serviceTask"
	KindSendTask               NodeKind = "sendTask"
	KindUserTask               NodeKind = "userTask"
	KindReceiveTask            NodeKind = "receiveTask"
	KindIntermediateCatchEvent NodeKind = "intermediateCatchEvent"
	KindIntermediateThrowEvent NodeKind = "intermediateThrowEvent"
	KindBoundaryEvent          NodeKind = "boundaryEvent"
	KindEventBasedGateway      NodeKind = "eventBasedGateway"
	KindInclusiveGateway       NodeKind = "inclusiveGateway"
	KindCallActivity           NodeKind = "callActivity"
	KindAdHocSubProcess        NodeKind = "adHocSubProcess"
	KindBusinessRuleTask       NodeKind = "businessRuleTask"
	// KindTransaction is a transaction sub-process (docs/scopes.md#tracks): an
	// embedded sub-process whose cancel end event compensates its completed
	// activities and leaves it by its cancel boundary event.
	KindTransaction NodeKind = "transaction"
)

// DecisionDef is what a business rule task evaluates.
type DecisionDef struct {
	// Ref is the decision key (gobpm:decisionRef).
	Ref string
	// ResultVariable receives the mapped result (gobpm:resultVariable; "" = discard).
	ResultVariable string
	// Map is gobpm:mapDecisionResult: singleEntry, singleResult,
	// collectEntries or resultList (default).
	Map string
}

// AdHocDef configures an ad-hoc sub-process (docs/scopes.md#ad-hoc-sub-processes).
type AdHocDef struct {
	// Router is "standard", "expression", "sequence" or "job" (gobpm:router, required).
	Router string
	// RouterType is the job type of a job router (gobpm:routerType);
	// RouterRetries its jobs' retry budget (gobpm:retries, default 3).
	RouterType    string
	RouterRetries int
	// Reoffer (gobpm:reoffer="true", standard router, manual selection)
	// offers an activity again after it completed (case management): the
	// region ends by its completion condition or an explicit complete.
	Reoffer bool
	// RouterExpr is the compiled gobpm:routerExpression (expression router).
	RouterExpr expr.Expression
	// Sequence is gobpm:sequence (sequence router): inner activity ids in order.
	Sequence []string
	// Manual is gobpm:selection="manual" (default automatic).
	Manual bool
	// Sequential is ordering="Sequential" (default parallel).
	Sequential bool
	// CompletionCondition is the compiled completionCondition, or nil.
	CompletionCondition expr.Expression
	// CancelRemaining is cancelRemainingInstances (default true).
	CancelRemaining bool
}

// Loop describes multiInstanceLoopCharacteristics or
// standardLoopCharacteristics on an activity.
type Loop struct {
	// Standard marks standardLoopCharacteristics (LoopCondition, TestBefore,
	// LoopMaximum); otherwise it is a multi-instance loop.
	Standard bool
	// Sequential is isSequential for multi-instance.
	Sequential bool
	// Cardinality is loopCardinality; Collection is gobpm:collection (or the
	// loopDataInputRef's variable as an expression).
	Cardinality expr.Expression
	Collection  expr.Expression
	// ElementVariable is gobpm:elementVariable (or inputDataItem's name).
	ElementVariable string
	// OutputCollection / OutputElement collect one result per iteration in
	// input order (gobpm:outputCollection / gobpm:outputElement, or
	// loopDataOutputRef / outputDataItem).
	OutputCollection string
	OutputElement    string
	// CompletionCondition is evaluated after each iteration.
	CompletionCondition expr.Expression
	// LoopCondition, TestBefore and LoopMaximum (0 = none) of a standard loop.
	LoopCondition expr.Expression
	TestBefore    bool
	LoopMaximum   int
}

// TriggerKind is the kind of an event definition.
type TriggerKind string

// Event definition kinds. TriggerNone is an event without definition.
const (
	TriggerNone        TriggerKind = ""
	TriggerTimer       TriggerKind = "timer"
	TriggerMessage     TriggerKind = "message"
	TriggerSignal      TriggerKind = "signal"
	TriggerError       TriggerKind = "error"
	TriggerEscalation  TriggerKind = "escalation"
	TriggerTerminate   TriggerKind = "terminate"
	TriggerConditional TriggerKind = "conditional"
	// TriggerLink is a link event: an intermediate throw continues at the
	// intermediate catch of the same name in the same process level.
	TriggerLink TriggerKind = "link"
	// TriggerCompensation is a compensation event (docs/scopes.md#tracks): thrown by
	// an intermediate throw or end event, caught by a compensation boundary
	// event (whose handler activity undoes its host) or the start of a
	// compensation event sub-process.
	TriggerCompensation TriggerKind = "compensation"
	// TriggerCancel is a cancel event: a cancel end event inside a
	// transaction, caught by the transaction's cancel boundary event.
	TriggerCancel TriggerKind = "cancel"
	// TriggerMultiple is an event with several event definitions
	// (EventDef.Multiple): a catch fires on the first of them, a throw
	// throws every one.
	TriggerMultiple TriggerKind = "multiple"
	// TriggerParallelMultiple is a catch event with several event
	// definitions and parallelMultiple="true": it fires once all of them
	// occurred.
	TriggerParallelMultiple TriggerKind = "parallelMultiple"
)

// EventDef is the (single) event definition of an event node.
type EventDef struct {
	Kind TriggerKind
	// Timer is set for TriggerTimer.
	Timer *TimerDef
	// MessageName is the name of the referenced message (TriggerMessage).
	MessageName string
	// CorrelationKey is the compiled gobpm:correlationKey of the referenced
	// message, evaluated when a catch subscribes; nil means "no key".
	CorrelationKey expr.Expression
	// SignalName is the name of the referenced signal (TriggerSignal).
	SignalName string
	// Code is the errorCode / escalationCode of the referenced error or
	// escalation; "" on a catch means "catch all".
	Code string
	// Condition is the compiled condition of a conditional event
	// (TriggerConditional); the event fires when it turns true.
	Condition expr.Expression
	// LinkName is the name attribute of a linkEventDefinition
	// (TriggerLink), compared exactly between throw and catch.
	LinkName string
	// Activity is the activity a compensation throw names by activityRef
	// (nil: the whole scope is compensated).
	Activity *Node
	// WaitForCompletion is a compensation throw's waitForCompletion
	// (default true): the throwing token waits until the handlers finished.
	WaitForCompletion bool
	// Multiple holds, for TriggerMultiple and TriggerParallelMultiple, the
	// event's definitions in document order, each of a single kind.
	Multiple []*EventDef
}

// Triggers returns the single-kind definitions of ev: its Multiple for a
// multiple or parallel multiple event, else ev itself; none for nil.
func (ev *EventDef) Triggers() []*EventDef {
	switch {
	case ev == nil:
		return nil
	case ev.Kind == TriggerMultiple || ev.Kind == TriggerParallelMultiple:
		return ev.Multiple
	}
	return []*EventDef{ev}
}

// Has reports whether ev, or one of its multiple definitions, is of kind.
func (ev *EventDef) Has(kind TriggerKind) bool {
	return ev.Find(kind) != nil
}

// Find returns the first of ev's definitions of kind (ev itself when it is
// a single definition of that kind), or nil.
func (ev *EventDef) Find(kind TriggerKind) *EventDef {
	for _, d := range ev.Triggers() {
		if d.Kind == kind {
			return d
		}
	}
	return nil
}

// TimerKind says which timer element a TimerDef came from.
type TimerKind string

// Timer element kinds; the values match package timer's kinds.
const (
	TimerDate     TimerKind = "date"
	TimerDuration TimerKind = "duration"
	TimerCycle    TimerKind = "cycle"
)

// TimerDef is a timeDate, timeDuration or timeCycle.
type TimerDef struct {
	Kind TimerKind
	// Text is the literal definition (validated at deployment with package
	// timer), or "" when Expr is set.
	Text string
	// Expr is set when the definition is an expression (leading "=" or
	// "${…}"); it yields the timer text when the timer is armed.
	Expr expr.Expression
}

// IOSpec is an ioSpecification reduced to what the engine binds: data
// inputs and outputs by name.
type IOSpec struct {
	Inputs  []DataParam
	Outputs []DataParam
}

// DataParam is one dataInput or dataOutput.
type DataParam struct {
	// Name is the name attribute (the variable name); it falls back to the id.
	Name string
	// Optional marks an input listed in an inputSet's optionalInputRefs.
	Optional bool
}

// CallDef is what a call activity calls.
type CallDef struct {
	// CalledElement is the reference as written (a key, or prefix:key); for
	// a dynamic callee, the expression's text.
	CalledElement string
	// CalledExpr is set for a dynamic callee (zeebe:calledElement
	// processId "=…", or a calledElement "${…}"): evaluated when the call
	// activity is entered, it must yield the callee's key as a string.
	CalledExpr expr.Expression
	// Binding chooses the callee's version: BindingLatest (the default),
	// BindingDeployment, BindingVersion (Version or VersionExpr) or
	// BindingVersionTag (VersionTag or VersionTagExpr).
	Binding string
	// Version pins a version (gobpm:version, camunda:calledElementVersion);
	// 0 means none.
	Version int
	// VersionExpr is camunda:calledElementVersion as an expression,
	// evaluated when the call activity is entered.
	VersionExpr expr.Expression
	// VersionTag (or VersionTagExpr, evaluated on entry) names the tag of
	// BindingVersionTag: the latest version deployed with that
	// camunda:versionTag (or zeebe:versionTag) is called.
	VersionTag     string
	VersionTagExpr expr.Expression
	// IO is the call activity's own ioSpecification: the inputs it passes
	// (by name, read from the caller by walk-up) and the outputs it expects.
	IO *IOSpec

	// Zeebe is set when the call activity carries zeebe:calledElement:
	// PropagateParent and PropagateChild are then its
	// propagateAllParentVariables and propagateAllChildVariables (Zeebe's
	// default for both is true).
	Zeebe                           bool
	PropagateParent, PropagateChild bool
	// In and Out are Camunda 7's camunda:in and camunda:out, in document
	// order (ignored, by the gobpm > zeebe > camunda precedence, when
	// zeebe:calledElement is present).
	In, Out []CallVar
	// BusinessKey is camunda:in businessKey: the child's business key,
	// evaluated when the call activity is entered (nil: the child inherits
	// the caller's).
	BusinessKey expr.Expression
}

// Call activity version bindings (CallDef.Binding).
const (
	BindingLatest     = "latest"
	BindingDeployment = "deployment"
	BindingVersion    = "version"
	BindingVersionTag = "versionTag"
)

// CallVar is one camunda:in or camunda:out of a call activity.
type CallVar struct {
	// All is variables="all": every variable crosses (the caller's visible
	// ones for an in, the child's for an out).
	All bool
	// Source names the variable read; SourceExpr is a sourceExpression
	// (JUEL) instead. For an out, both are read in the child.
	Source     string
	SourceExpr expr.Expression
	// Target is the variable written.
	Target string
	// Local is local="true": an in reads only the call activity's own
	// (local) variables; an out writes the call activity's scope itself
	// instead of by the write rule of docs/scopes.md#variables.
	Local bool
}

// MappingStyle says whose semantics an element's variable mappings follow
// (they differ where Camunda 7 and Camunda 8 differ).
type MappingStyle string

// Mapping styles.
const (
	// MappingZeebe is Camunda 8's zeebe:ioMapping and gobpm's own
	// gobpm:input / gobpm:output: an input sees the inputs before it,
	// targets may be nested paths, and with outputs present only the
	// mapped values leave the element (its result variables stay local).
	MappingZeebe MappingStyle = "zeebe"
	// MappingCamunda7 is camunda:inputOutput: every input is evaluated in
	// the enclosing scope, targets are plain names, and result variables
	// are written by the normal write rule whether or not outputs exist.
	MappingCamunda7 MappingStyle = "camunda7"
)

// Mappings are an element's input and output variable mappings (README#model-extensions).
// Inputs are evaluated when the element is entered and create variables
// local to its scope; outputs are evaluated when it completes, in its
// scope, and written to the enclosing scope by the write rule of docs/scopes.md#variables.
type Mappings struct {
	Style   MappingStyle
	Inputs  []Mapping
	Outputs []Mapping
}

// Mapping is one input or output mapping.
type Mapping struct {
	// Target is the variable written. Path, when set, is the nested
	// property path below it (Zeebe's target "a.b.c": Target "a", Path
	// ["b" "c"]): objects on the way are created or merged into.
	Target string
	Path   []string
	// Value computes the value.
	Value Value
}

// ValueKind says what a Value is.
type ValueKind int

// Value kinds; the zero Value is null.
const (
	ValueNull ValueKind = iota
	ValueConst
	ValueExpr
	ValueList
	ValueMap
)

// Value is the value of a mapping: null, a constant string, an expression,
// or (Camunda 7's camunda:list and camunda:map) a list or a map of values.
type Value struct {
	Kind  ValueKind
	Const string
	Expr  expr.Expression
	List  []Value
	Map   []Entry
}

// Entry is one camunda:entry of a camunda:map, in document order.
type Entry struct {
	Key   string
	Value Value
}

// JobDef describes the job a service task (send task, message throw, job
// worker script task) creates.
type JobDef struct {
	// Type is the job type workers activate (gobpm:type); for a type given
	// as an expression, the expression's text.
	Type string
	// TypeExpr is set when the type is an expression (zeebe:taskDefinition
	// type="=…", a "${…}" topic): it is evaluated when the job is created
	// and must yield a non-empty string.
	TypeExpr expr.Expression
	// Retries is the initial retry budget (gobpm:retries, else
	// zeebe:taskDefinition retries, else the attempts of RetryCycle,
	// default 3).
	Retries int
	// RetryCycle is the backoff schedule of Camunda 7's
	// camunda:failedJobRetryTimeCycle; nil when there is none or a
	// gobpm:retries or zeebe:taskDefinition retries set the budget
	// (lower-precedence sources are ignored, as for the job type).
	RetryCycle *RetryCycle
	// Headers are the job's static custom headers (zeebe:taskHeaders, or
	// Camunda 7's camunda:properties on an external task), handed to the
	// worker with every activation; nil when there are none.
	Headers map[string]string
}

// Binding is an attribute value that is either a literal or an expression.
type Binding struct {
	// Literal is used when Expr is nil.
	Literal string
	// Expr is set when the value is an expression ("=…" or "${…}").
	Expr expr.Expression
}

// UserTaskDef holds the assignment of a user task.
type UserTaskDef struct {
	Assignee        *Binding
	CandidateUsers  *Binding
	CandidateGroups *Binding
	DueDate         *Binding
}

// Definitions is one parsed and validated BPMN document.
type Definitions struct {
	// ID is the id attribute of <definitions> (may be empty).
	ID string
	// TargetNamespace is the targetNamespace attribute of <definitions>.
	TargetNamespace string
	// Processes holds every executable and non-executable process in document order.
	Processes []*Process
	// Imports records <import> elements (namespace, location); they are not resolved.
	Imports []Import
	// Warnings are problems that did not refuse the model: an attribute
	// gobpm ignores, as Camunda 7 does (waitForCompletion on a
	// compensation start event).
	Warnings []Problem
}

// Import is a recorded <import> element.
type Import struct {
	Namespace  string
	Location   string
	ImportType string
}

// Process is a validated process graph. It is immutable after parsing.
type Process struct {
	// ID is the process id: the registry key.
	ID string
	// Name is the optional human name.
	Name string
	// Executable reports isExecutable="true".
	Executable bool
	// Graph is the process's top-level flow-element container.
	Graph *Graph
	// EventStarts are the process-level start events with a trigger (timer,
	// message, signal, or several of them), in document order, followed by
	// the catch events after an instantiating event-based gateway and the
	// instantiating receive tasks: an instance starts at one of them when
	// its event occurs. Graph.Starts holds only the None start.
	EventStarts []*Node
	// IO is the process's ioSpecification: its contract as a callee (nil = none:
	// it takes no inputs and returns no outputs).
	IO *IOSpec
	// ConcurrentCompensation says that the handlers a compensation throw
	// claims start together, as Camunda 7 starts them, instead of one at a
	// time, the latest completion first: the default for a model drawn for
	// Camunda (the camunda: or zeebe: namespace declared), or chosen by
	// gobpm:compensation="concurrent" (gobpm:compensation="sequential"
	// keeps the order for a Camunda model).
	ConcurrentCompensation bool
	// Namespaces maps the namespace prefixes declared on <definitions> to
	// their URIs (for resolving qualified calledElement references).
	Namespaces map[string]string
	// GlobalTask is set when the process was synthesized from a global task
	// (globalTask, globalUserTask, …) registered under its id.
	GlobalTask bool
	// VersionTag is the process's camunda:versionTag (or zeebe:versionTag
	// value): a call activity binding "versionTag" calls the latest version
	// carrying the tag it names.
	VersionTag string
	// HistoryTimeToLive is how long the history of an ended instance is
	// kept (gobpm:historyTimeToLive or camunda:historyTimeToLive, see
	// retention.go); nil when the model does not say, and the server's
	// default applies.
	HistoryTimeToLive *time.Duration

	// index maps every node id (nested graphs included) to its node; Parse
	// fills it. A Process built by hand has none and Node searches instead.
	index map[string]*Node
	// joins and conditions say whether the process has inclusive joins or
	// conditional events (Parse sets them; a hand-built Process claims both).
	noJoins, noConditions bool
}

// HasInclusiveJoins reports whether an inclusive gateway of the process
// merges flows (a step then looks for joins it can fire).
func (p *Process) HasInclusiveJoins() bool { return !p.noJoins }

// HasConditionalEvents reports whether the process has conditional events
// (a step then evaluates their conditions).
func (p *Process) HasConditionalEvents() bool { return !p.noConditions }

// Graph is a flow-element container: a process or an embedded sub-process.
type Graph struct {
	// Owner is the sub-process node that holds this graph, nil for a process.
	Owner *Node
	// Nodes are the flow nodes directly inside the container, in document order.
	Nodes []*Node
	// Flows are the sequence flows directly inside the container, in document order.
	Flows []*Flow
	// Starts are the nodes that receive a token when the container opens:
	// the single None start event, or (flow-less seeding) every activity and
	// gateway without incoming flows.
	Starts []*Node
	// DataNames are the variable names declared by dataObject and property
	// elements of this container; writes to these names stay local to it.
	DataNames []string
	// EventSubs are the event sub-processes (triggeredByEvent) declared
	// directly in this container, in document order. They are also in Nodes.
	EventSubs []*Node
}

// Node is one flow node. Fields that do not apply to its Kind are zero.
type Node struct {
	ID   string
	Name string
	Kind NodeKind
	// Documentation is the text of the node's documentation elements; it is
	// read for the activities of an ad-hoc sub-process (a router job hands
	// it to its worker as the candidate's description).
	Documentation string
	// Parent is the container the node sits in.
	Parent *Graph
	// Incoming and Outgoing are the sequence flows in document order.
	Incoming []*Flow
	Outgoing []*Flow
	// Default is the default flow of an exclusive gateway or activity, or nil.
	Default *Flow
	// Terminate marks an end event with a terminateEventDefinition.
	Terminate bool
	// Script is the compiled body of a script task.
	Script expr.Expression
	// ResultVariable is where a script task stores its value ("" = discard).
	ResultVariable string
	// Sub is the inner graph of a sub-process.
	Sub *Graph

	// Event is the event definition of an event node (nil for none events).
	// For an end event with terminateEventDefinition, Terminate is set too.
	Event *EventDef
	// Job is set for nodes that create a job: service and send tasks,
	// message intermediate throw events and message end events.
	Job *JobDef
	// UserTask is set for user tasks.
	UserTask *UserTaskDef
	// FormRef is the id of the Camunda Form a user task or start event
	// links ("" when none; formRef in forms.go reads it): only the cockpit
	// renders it, with the form deployed beside the process.
	FormRef string
	// Call is set for call activities.
	Call *CallDef
	// Decision is set for business rule tasks.
	Decision *DecisionDef
	// AdHoc is set for ad-hoc sub-processes (Kind KindAdHocSubProcess, with Sub).
	AdHoc *AdHocDef
	// Loop is set for activities with loop or multi-instance characteristics.
	Loop *Loop
	// Mappings are the element's input/output variable mappings
	// (camunda:inputOutput, zeebe:ioMapping, gobpm:input/gobpm:output), or nil.
	Mappings *Mappings
	// StartListeners are the element's start execution listeners
	// (zeebe:executionListener eventType="start"), in document order: each
	// runs as a job after the element's input mappings and before its
	// behaviour, the element waiting for it (listeners.go).
	StartListeners []Listener
	// EndListeners are the element's end execution listeners
	// (zeebe:executionListener eventType="end"), in document order: each
	// runs as a job after the element's output mappings and before it
	// leaves, the element waiting for it (listeners.go).
	EndListeners []Listener
	// TaskListeners are a user task's task listeners
	// (zeebe:taskListener, eventType assigning or completing), in
	// document order: each runs as a job when that change of the task is
	// requested, the change applying after the last (listeners.go).
	TaskListeners []Listener
	// Webhook is the inbound HTTP endpoint of a start, message catch or
	// message boundary event (webhook.go), or nil.
	Webhook *Webhook
	// AttachedTo is the host activity of a boundary event.
	AttachedTo *Node
	// CancelActivity reports an interrupting boundary event.
	CancelActivity bool
	// Boundaries are the boundary events attached to this activity, in document order.
	Boundaries []*Node
	// LinkTarget is, for a link intermediate throw event, the link catch
	// event of the same name in the same graph, where its token continues.
	LinkTarget *Node
	// ForCompensation marks an isForCompensation activity: a compensation
	// handler without flows, run only when its host is compensated.
	ForCompensation bool
	// CompensatedBy is, on an activity with a compensation boundary event,
	// the handler activity associated with that boundary event.
	CompensatedBy *Node
	// CompensationSub is, on a sub-process or transaction, its compensation
	// event sub-process (one whose start event catches compensation).
	CompensationSub *Node
	// Instantiate marks an instantiating event-based gateway
	// (instantiate="true") or receive task: the process starts when one of
	// its events occurs (its catch events, or the receive task itself, are
	// in Process.EventStarts).
	Instantiate bool

	// TriggeredByEvent marks an event sub-process (a KindSubProcess node
	// with no flows); Trigger is its single triggered start event (also in
	// Sub.Nodes, not in Sub.Starts).
	TriggeredByEvent bool
	Trigger          *Node
	// Interrupting is the isInterrupting attribute of an event
	// sub-process's start event (default true; always true for error).
	Interrupting bool
}

// Flow is a sequence flow.
type Flow struct {
	ID     string
	Name   string
	Source *Node
	Target *Node
	// Condition is the compiled conditionExpression, or nil.
	Condition expr.Expression
}

// Node returns the node with the given id anywhere in the process (nested
// graphs included), or nil.
func (p *Process) Node(id string) *Node {
	if p.index != nil {
		return p.index[id]
	}
	return p.Graph.find(id)
}

func (g *Graph) find(id string) *Node {
	for _, n := range g.Nodes {
		if n.ID == id {
			return n
		}
		if n.Sub != nil {
			if m := n.Sub.find(id); m != nil {
				return m
			}
		}
	}
	return nil
}

// IsActivity reports whether the node is an activity (task or sub-process).
func (n *Node) IsActivity() bool {
	switch n.Kind {
	case KindTask, KindScriptTask, KindSubProcess, KindServiceTask, KindSendTask, KindUserTask, KindReceiveTask, KindCallActivity, KindAdHocSubProcess, KindBusinessRuleTask, KindTransaction:
		return true
	}
	return false
}
