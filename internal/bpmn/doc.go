// Package bpmn reads BPMN 2.0 XML into a validated, immutable process graph.
//
// It owns the model types the engine executes (Definitions, Process, Graph,
// Node, Flow), the XML parser and every deployment-time check: "fail at
// deployment, not at runtime" (docs/architecture.md#deployment), the
// instantiation shapes of sub-processes (docs/scopes.md#instantiation),
// ad-hoc sub-processes (docs/scopes.md#ad-hoc-sub-processes) and loops
// (docs/scopes.md#loops-and-multi-instance). It is a leaf:
// it imports the standard library, etree, x/text, the expression seam
// internal/expr and the timer-format parser internal/timer, and never
// runtime, store, api or any package with I/O.
//
// # Parsing
//
// Parse takes the document bytes and returns the model or a
// *ValidationError listing every Problem found — element id, a stable Rule
// code and a human detail — so a deployment reports all of them at once:
//
//	defs, err := bpmn.Parse(data)
//	var verr *bpmn.ValidationError
//	if errors.As(err, &verr) {
//		for _, p := range verr.Problems {
//			fmt.Println(p.Element, p.Rule, p.Detail)
//		}
//	}
//
// ParseWith adds the deployment-time limits of Limits, which depend on how
// the engine runs (engine.Options.ModelLimits gives them): a timeCycle
// firing more often than the timer floor (RuleTimerTooFrequent), and an
// element that can never be passed within the step's activation budget —
// every run from it through synchronous elements is longer before it waits
// or ends: a straight-through chain longer than the budget, a loop of
// gateways and tasks with no way out (RuleStepBudget). Only what can never
// run is refused; what is merely expensive meets the limit at run time.
// Every id of a BPMN element must be an XML NCName, as xsd:ID requires
// (RuleInvalidID): gobpm addresses processes and elements by id. A
// document read back after an earlier deployment (Limits.Deployed) is held
// to none of these later rules.
//
// Elements are matched by namespace URI and local name, whatever their
// prefix. Before parsing, a document larger than MaxDocumentSize, nesting
// deeper than MaxDepth or containing a <!DOCTYPE> is refused (no entity is
// ever expanded). UTF-8, UTF-16, ISO-8859-1, ISO-8859-15 and windows-1252 are
// decoded.
//
// # What is supported
//
// Anything not listed here is a RuleUnsupported problem — never silently
// ignored — and so is any gobpm attribute the parser does not know
// (RuleUnknownExtension).
//
// Activities:
//
//   - task, and manualTask, which is a KindTask too (nothing for the
//     engine to do: it passes straight through); scriptTask, implemented
//     by exactly one of a standard <script> (FEEL or JUEL, result in
//     gobpm:resultVariable or camunda:resultVariable), Camunda 8's
//     zeebe:script (a FEEL expression; its resultVariable is required,
//     gobpm:resultVariable wins over it) or zeebe:taskDefinition (a job for
//     a worker, Node.Job, as a service task's; no result variable);
//     embedded subProcess and transaction (KindTransaction; see
//     below). A property on a task is refused, except the
//     one named __targetRef_placeholder that the Camunda Modeler writes
//     when a data object or store is associated with the task.
//   - adHocSubProcess (KindAdHocSubProcess, docs/scopes.md#ad-hoc-sub-processes): an embedded
//     sub-process (Node.Sub; boundary events, data and flows as usual)
//     whose router, not its flows, starts the inner activities, so its
//     Graph.Starts is always empty. Node.AdHoc holds gobpm:router —
//     required, "standard", "expression", "sequence" or "job"; without it the
//     model is refused ("there is no default router", RuleMissingAttribute),
//     which is why the Flowable ad-hoc files are refused as they come —
//     gobpm:routerExpression (compiled; required with and only allowed
//     with the expression router), gobpm:sequence (comma-separated ids of
//     distinct activities directly inside; required with and only allowed
//     with the sequence router; an unknown id is RuleMissingReference),
//     gobpm:routerType (the job type; required with and only allowed with
//     the job router) and gobpm:retries (a whole number ≥ 1, default 3,
//     only with the job router), gobpm:reoffer "true" (only with the
//     standard router and manual selection: a completed activity is
//     offered again), gobpm:selection "automatic" (default) or "manual", the standard
//     ordering "Parallel" (default) or "Sequential",
//     cancelRemainingInstances (default true) and one optional
//     completionCondition (compiled; "${completed}" reads the variable
//     completed). Camunda 8's zeebe:adHoc activeElementsCollection, when
//     gobpm:router is absent, is an expression router asked only when the
//     region opens: the expression is compiled as
//     "if trigger = null then (…) else []"; zeebe:adHoc outputCollection /
//     outputElement and a zeebe:taskDefinition on the element (Camunda's
//     agent job; gobpm's is the job router) are refused. The activities
//     inside carry their documentation text (Node.Documentation), which a
//     router job hands its worker. Inside: tasks of every
//     supported kind, embedded and nested ad-hoc sub-processes, data
//     objects, sequence flows, gateways, intermediate events and boundary
//     events between the inner activities. Start and end events inside, a
//     gateway without incoming flow (the router starts only activities)
//     and a region without activity are RuleAdHocContent problems. Call
//     activities, transactions and event sub-processes inside behave as in
//     any scope; an event sub-process is no candidate of the router. An ad-hoc
//     sub-process cannot itself be an event sub-process.
//   - Loops (Node.Loop) on tasks of every supported kind,
//     embedded and ad-hoc sub-processes and call activities (not on event
//     sub-processes; on events and gateways they are refused as unknown
//     children). multiInstanceLoopCharacteristics: isSequential;
//     Cardinality from loopCardinality, or Collection from
//     gobpm:collection, zeebe:loopCharacteristics inputCollection or
//     camunda:collection (expressions), or loopDataInputRef — exactly one
//     of the two; ElementVariable from gobpm:elementVariable, zeebe
//     inputElement, camunda:elementVariable or inputDataItem (its name,
//     else id), only with a collection; OutputCollection from
//     gobpm:outputCollection, zeebe outputCollection or loopDataOutputRef
//     and OutputElement from gobpm:outputElement, zeebe outputElement
//     (only "=name") or outputDataItem, both or neither;
//     CompletionCondition from completionCondition. The gobpm attributes
//     sit on the multiInstanceLoopCharacteristics element, like Camunda
//     7's. loopDataInputRef and loopDataOutputRef naming a dataObject (or
//     dataObjectReference), property or process data input/output stand
//     for its variable; naming nothing, the text is the variable name
//     (Camunda 7); either way it must be a plain name (letters, digits,
//     _), and naming another element is refused. behavior other than
//     "All" and complexBehaviorDefinition are refused.
//     standardLoopCharacteristics: Standard, LoopCondition from
//     loopCondition (optional), TestBefore (default false), LoopMaximum
//     (an integer >= 0; 0, like absent, means no maximum). A standard
//     loop with neither condition nor maximum runs once.
//   - callActivity (KindCallActivity, Node.Call; docs/scopes.md#call-activities, §8): the
//     callee key from the standard calledElement, or from
//     zeebe:calledElement processId (when both are literal keys they must
//     agree; otherwise zeebe's wins), kept as written — a
//     namespace-qualified "prefix:key" is left to the runtime's resolver,
//     with Process.Namespaces. The key is required; an expression ("=…"
//     FEEL, "${…}" JUEL) is a dynamic callee (CallDef.CalledExpr),
//     evaluated when the call activity is entered. CallDef.Binding is
//     "latest" (the default), "version" (gobpm:version, or
//     camunda:calledElementBinding="version" with
//     camunda:calledElementVersion, a positive integer or an expression),
//     "deployment" (camunda:calledElementBinding, zeebe:calledElement
//     bindingType) or "versionTag" (camunda:calledElementVersionTag, a
//     literal or an expression, or zeebe:calledElement versionTag; the
//     callee's tag is Process.VersionTag, from camunda:versionTag or
//     zeebe:versionTag on its process). camunda:calledElementTenantId,
//     camunda:variableMapping*, CMMN case calls (camunda:caseRef, …) and
//     any other binding are refused. CallDef.IO is the call activity's own
//     ioSpecification: the data inputs whose names are read from the
//     caller's variables, the data outputs the child hands back. With
//     zeebe:calledElement, CallDef.Zeebe is set and PropagateParent /
//     PropagateChild are propagateAllParentVariables /
//     propagateAllChildVariables (Zeebe's default for both is true; "true"
//     or "false"). Without it, Camunda 7's camunda:in and camunda:out
//     (CallDef.In, CallDef.Out: variables="all", or source or
//     sourceExpression (JUEL) with a target; local) and camunda:in
//     businessKey (CallDef.BusinessKey, JUEL) say what crosses; with it
//     they are ignored (gobpm > zeebe > camunda). camunda:in and
//     camunda:out anywhere but on a call activity are refused (passing
//     variables with a signal is not supported). A call activity takes
//     boundary events, a default flow and variable mappings like any
//     activity.
//     Its dataInputAssociation / dataOutputAssociation elements are
//     accepted without effect when they connect one of its own data inputs
//     (outputs) with a dataObject, dataObjectReference, property or process
//     data input/output of the same variable name; one that would rename
//     (different names), reads a data store, carries a transformation or
//     assignment, or names no parameter of the call is refused.
//   - Event sub-processes (subProcess triggeredByEvent="true", docs/scopes.md#boundary-events-and-event-sub-processes)
//     in a process or in any sub-process, nested ones included: a
//     KindSubProcess node with TriggeredByEvent set, listed in its
//     container's Graph.EventSubs as well as Graph.Nodes. Its graph (Sub)
//     holds exactly one start event, Node.Trigger, with exactly one
//     message, timer (timeCycle allowed), signal, error, escalation or
//     conditional definition; the start is in Sub.Nodes but not in
//     Sub.Starts, and nothing else in Sub may lack incoming flows.
//     Node.Interrupting is the start's isInterrupting (default true; an
//     error start must interrupt). An event sub-process has no incoming or
//     outgoing sequence flows and no boundary events, and is never seeded
//     by flow-less seeding of its container.
//   - sendTask with a messageRef also records the message in Node.Event.
//   - serviceTask and sendTask create a job (Node.Job): the type from
//     gobpm:type (required), zeebe:taskDefinition type or camunda:topic
//     (camunda:type="external"), a literal or an expression ("=…", "${…}":
//     JobDef.TypeExpr, evaluated when the job is created); the retries from
//     gobpm:retries or zeebe:taskDefinition retries (an integer >= 0,
//     default 3; Zeebe's blank retries="" is the default); static headers
//     for the worker (JobDef.Headers) from zeebe:taskHeaders, else Camunda
//     7's camunda:properties (an external task's extension properties),
//     values as written, a repeated key's last value winning. Headers on an
//     element that creates no job are refused. Camunda 7 Java delegates
//     (camunda:class, camunda:delegateExpression, camunda:expression,
//     camunda:connector) are refused, and so are Camunda 8's outbound
//     connectors (a job type starting with io.camunda:, or a
//     zeebe:modelerTemplate starting with io.camunda.connectors.), which
//     run in Camunda's connector runtime — except the REST connector
//     (job type io.camunda:http-json:1, HTTPConnectorType), which gobpm's
//     server runs as a built-in worker.
//   - userTask (Node.UserTask): gobpm:assignee, gobpm:candidateUsers,
//     gobpm:candidateGroups, gobpm:dueDate, or their camunda: equivalents,
//     or zeebe:assignmentDefinition / zeebe:taskSchedule. A value starting
//     with "=", "${" or "#{" is a compiled expression, anything else a
//     literal.
//   - receiveTask with a messageRef (Node.Event, a message trigger), or
//     without one (Node.Event nil): it then waits until it is triggered by
//     its wait id, as Camunda 7 signals the execution; such a task cannot
//     instantiate the process or follow an event-based gateway
//     (RuleMissingReference, RuleInvalidEventGateway). instantiate="true"
//     (Node.Instantiate) makes it start the process: at process level,
//     without incoming flows, it is one of Process.EventStarts.
//   - businessRuleTask (KindBusinessRuleTask, Node.Decision;
//     README#model-extensions): the engine evaluates the latest version of a deployed DMN
//     decision. DecisionDef.Ref is gobpm:decisionRef, zeebe:calledDecision
//     decisionId or camunda:decisionRef — required, a literal decision key
//     (empty is RuleMissingAttribute; an expression is refused as not
//     supported yet). ResultVariable is gobpm:resultVariable,
//     zeebe:calledDecision resultVariable or camunda:resultVariable
//     (absent: the result is discarded; present but blank:
//     RuleInvalidAttribute). Map is gobpm:mapDecisionResult or
//     camunda:mapDecisionResult — singleEntry, singleResult,
//     collectEntries or resultList (the default); any other value is
//     RuleInvalidAttribute. Zeebe stores a decision's output as is, which
//     for the common table (one output, at most one matching rule) is that
//     output's value, so a zeebe:calledDecision maps as singleEntry; a
//     table with several outputs or hits then stops the task in an
//     incident, and gobpm:mapDecisionResult next to zeebe:calledDecision
//     chooses another mapping. Version pinning is refused:
//     camunda:decisionRefBinding other than "latest",
//     camunda:decisionRefVersion, camunda:decisionRefVersionTag,
//     camunda:decisionRefTenantId, zeebe:calledDecision bindingType other
//     than "latest" and zeebe:calledDecision versionTag. So is handing the
//     rules to anything but the engine: camunda:class, camunda:expression,
//     camunda:delegateExpression, camunda:connector, camunda:type or
//     camunda:topic (an external task worker; the refusal says to deploy
//     the decision) and zeebe:taskDefinition (a job worker). The
//     standard implementation attribute is checked as on any activity
//     (below). Loops, boundary events and a default flow work as on any activity.
//   - A `default` flow on any activity; startQuantity and
//     completionQuantity of 1 only. The standard implementation
//     attribute may be "##WebService" (the default; also spelt
//     "WebService") or "##unspecified", which say nothing gobpm acts on;
//     any other value (a technology that would run the task) and
//     operationRef (a web service operation, also as a child of
//     messageEventDefinition) are refused: gobpm runs the task itself.
//
// Variable mappings (Node.Mappings, README#model-extensions) are read from
// gobpm:input / gobpm:output extension elements (attributes source and
// target), else zeebe:ioMapping (zeebe:input, zeebe:output), else
// camunda:inputOutput (camunda:inputParameter, camunda:outputParameter);
// a lower form next to a higher one is ignored. The gobpm and Zeebe forms
// (MappingZeebe): source is FEEL with a leading "=", a static string
// otherwise, null when absent or empty; target is a variable name or a
// nested path "a.b.c" (each part a letter or _ followed by letters, digits
// or _; anything else is RuleInvalidAttribute). The Camunda 7 form
// (MappingCamunda7): a parameter's name is the variable, its value its
// trimmed text (empty: null; "${…}"/"#{…}" inside: JUEL, composite text
// yielding a string; otherwise a constant string), or one camunda:list
// (camunda:value, nested lists and maps) or camunda:map (camunda:entry
// key, nested values); a camunda:script anywhere in a parameter is
// refused (gobpm runs no JavaScript or Groovy). Mappings sit on
// activities (tasks, call activities, embedded, ad-hoc and event
// sub-processes) and on events; on gateways, processes, flows or anything
// else they are refused. As in Camunda 7, camunda:inputOutput is refused
// on start and boundary events and event sub-processes, and output
// parameters on end events and multi-instance activities; as in Camunda 8,
// start and boundary events take no inputs and an error or terminate end
// event no outputs; inputs on an event sub-process are not supported yet.
//
// An ioSpecification (IOSpec) is read on a process (Process.IO, its
// contract as a callee), a call activity and a global task: dataInput and
// dataOutput names (the name attribute, else the id; two parameters of one
// direction may not share a name), at most one inputSet and one outputSet
// whose references must name its parameters; optionalInputRefs (and
// optionalOutputRefs) set DataParam.Optional; whileExecuting*Refs are
// refused. On any other element an ioSpecification is refused, as its
// inputs and outputs would be dropped.
//
// Global tasks (docs/scopes.md#call-activities) at definitions level — globalTask,
// globalManualTask (a KindTask), globalUserTask (gobpm/camunda/zeebe
// assignment as on userTask), globalScriptTask (script, scriptLanguage
// or scriptFormat, resultVariable) and globalBusinessRuleTask (the
// decision as on businessRuleTask) — are each registered as a synthesized
// Process{ID: the global task's id, Executable: true, GlobalTask: true}
// with its ioSpecification as Process.IO and a graph "<id>.start" → the
// task (id <id>) → "<id>.end" through flows "<id>.in" and "<id>.out".
// They follow the document's processes in Definitions.Processes; a
// document of global tasks alone is accepted. A global task id colliding
// with a process id is a RuleDuplicateID problem like any other shared id.
//
// Every process carries Process.Namespaces: the namespace declarations
// of <definitions>, prefix → URI, the default namespace under "".
//
// Gateways: exclusiveGateway and inclusiveGateway (FEEL conditions and a
// `default` flow); parallelGateway; eventBasedGateway (eventGatewayType
// Exclusive only) whose two or more outgoing flows, without conditions,
// each lead to a timer, message or signal (not conditional) — or a
// multiple catch of those, never a parallel multiple one —
// intermediateCatchEvent or a receiveTask that has no other incoming flow.
// An instantiating one (instantiate="true", Node.Instantiate) sits at
// process level without incoming flows, in a process without a None start
// event or flow-less activities; its catch events join
// Process.EventStarts (after the start events), their timers literal as
// a timer start's (checkInstantiate, instantiatingStarts; RuleStartShape).
// eventGatewayType="Parallel" is refused: the first event would start an
// instance every other event of the group must then reach, a correlation
// BPMN leaves open and neither Camunda 7 nor 8 runs.
//
// Events, each with its event definition (Node.Event) — or several
// (multiple.go): Node.Event is then of kind TriggerMultiple (a catch fires
// at the first of EventDef.Multiple, a throw throws every one) or, on a
// catch with parallelMultiple="true", TriggerParallelMultiple (it fires
// once all occurred). A multiple intermediate catch combines message,
// timer, signal and at most one conditional; a multiple boundary event
// also error and escalation (caught by code); a process start message,
// signal and at most one timer; an event sub-process start message,
// timer, signal, conditional, error, escalation; an intermediate throw
// message (at most one: its job), signal, escalation; an end event those
// and at most one error. Parallel multiple combines message, timer,
// signal and conditional, on intermediate catch events and interrupting
// boundary events only: on start events (process or event sub-process)
// and non-interrupting boundaries it is refused (the events would have to
// be collected before anything holds them, or again after each firing),
// parallelMultiple on a throw event is RuleInvalidAttribute. Compensation,
// cancel, link and terminate definitions never combine (each pairs or
// ends something on its own). EventDef.Triggers, Has and Find read an
// event the same way whether it has one definition or several.
//
// Allowed triggers of single events:
//
//	element                 allowed triggers
//	startEvent (process)    none, timer, message, signal
//	startEvent (sub-proc.)  none only (any trigger is a RuleStartShape problem)
//	startEvent (event sub)  exactly one of timer, message, signal, error
//	                        (interrupting only), escalation, conditional,
//	                        compensation (in a sub-process)
//	intermediateCatchEvent  timer (no timeCycle), message, signal, conditional, link
//	intermediateThrowEvent  none, message (a job), signal, escalation, link,
//	                        compensation
//	endEvent                none, terminate, message (a job), signal, error,
//	                        escalation, compensation, cancel (in a transaction)
//	boundaryEvent           timer, message, signal, error (interrupting only),
//	                        escalation, conditional, compensation, cancel
//	                        (on a transaction, interrupting only)
//
// Compensation and transactions (docs/scopes.md#tracks; checkCompensation): an
// activity's compensation boundary event has no outgoing flow and one
// association to an isForCompensation activity of its container
// (Node.ForCompensation: no flows, no boundary events, never seeded),
// which becomes the host's Node.CompensatedBy; an activity has at most
// one. A compensation throw's activityRef (EventDef.Activity) names an
// activity of its own level — inside an event sub-process, of the level
// it belongs to; waitForCompletion (EventDef.WaitForCompletion) defaults
// to true; on a catch both are refused. An event sub-process whose start
// catches compensation is its sub-process's Node.CompensationSub (not at
// process level, one per container, not next to a compensation boundary
// event). transaction is a sub-process of KindTransaction (method
// ##Compensate only); a cancel end event sits directly in one that has a
// cancel boundary event, and a transaction has at most one. What breaks
// these is RuleInvalidCompensation. Compensation inside an ad-hoc
// sub-process is not supported yet.
//
// A conditional start event at process level is one of
// Process.EventStarts: an evaluate-conditions call starts an instance there
// when its condition holds against the call's variables. Inside a plain
// sub-process it is refused, as every triggered start. A
// conditionalEventDefinition needs one
// <condition>, compiled through the expression seam (its language
// attribute, else the document's expressionLanguage) into
// EventDef.Condition; Camunda's camunda:variableName and
// camunda:variableEvents, which narrow when the condition is evaluated,
// are refused.
//
// Triggered process-level start events go to Process.EventStarts, the None
// start to Graph.Starts. A boundary event needs attachedToRef naming a task
// or sub-process of its own container (Node.AttachedTo, Node.Boundaries);
// cancelActivity defaults to true; it has no incoming flows and may have no
// outgoing ones. Intermediate events need an incoming flow, except a link
// catch, which must have none: checkLinks pairs each link throw (which must
// have no outgoing flow) with the one link catch of the same
// linkEventDefinition name in its own graph (Node.LinkTarget); none, several
// or one only in another level is a RuleInvalidLink problem.
//
// Declarations: message (name, else id — a literal: a message or signal
// name, error code or escalation code written as an expression ("=…",
// "${…}") is refused; gobpm:correlationKey or
// zeebe:subscription correlationKey, compiled), signal (name, else id),
// error (errorCode), escalation (escalationCode), referenced by
// messageRef, signalRef, errorRef and escalationRef. Message and signal
// catches, signal throws and error/escalation throws need their reference;
// an error or escalation catch without one catches all. As in Camunda 7, an
// errorRef that names no <error> is the error code itself. Timers hold
// exactly one of timeDate, timeDuration or timeCycle: a literal is checked
// with package timer, an expression ("=…", "${…}") is compiled
// (TimerDef.Expr) — except in a process-level timer start event, which is
// scheduled at deployment, when there are no variables: there it is
// refused (RuleUnsupported).
//
// Where gobpm, zeebe and camunda spell the same setting, gobpm wins over
// zeebe, which wins over camunda; models drawn for both Camunda 7 and 8
// often carry different values for each, so they are not compared. For a
// loop, the standard element (loopDataInputRef, inputDataItem, …) comes
// last.
//
// A collaboration is descriptive: pools and message flows do not route
// messages (a message reaches a catch by its name and correlation key,
// whatever flow is drawn); a correlationKey in it is refused, as is a
// correlationSubscription in a process. Descriptive standard attributes
// accepted without effect: isImmediate (sequenceFlow), gatewayDirection,
// isClosed and processType (process), dataState.
//
// Also accepted: sequence flows with FEEL conditions (not when leaving a
// parallel or event-based gateway or an event); a sequenceFlow without an
// id gets the id "<sourceRef>-><targetRef>" ("#2", "#3", … appended when
// taken), as Camunda 7 models rely on it (flow nodes still need ids);
// dataObject and property declarations (Graph.DataNames). Lanes, text
// annotations, associations, groups, documentation, data references, data
// associations without mappings and process-level performers are
// descriptive. Diagram interchange and foreign-namespace elements and
// attributes are ignored, except those of Camunda 7 (camunda:), Camunda 8
// (zeebe:) and Activiti/Flowable (activiti:, flowable:), which are
// accepted only where the parser reads them or knows them to be without
// effect; any other is refused (RuleUnsupported, naming the element that
// holds it, or an event definition's event), unknown ones included
// ("gobpm does not read it"), so a future vendor setting is never dropped
// silently (vendor.go holds the lists). Activiti/Flowable settings are
// never read: only their async, asyncLeave, exclusive,
// asyncLeaveExclusive and formKey attributes are accepted. Refused with a
// hint: camunda:priority,
// camunda:followUpDate, camunda:candidateStarterGroups / Users,
// camunda:potentialStarter, camunda:initiator, camunda:errorCodeVariable,
// camunda:errorMessageVariable, camunda:escalationCodeVariable,
// camunda:resource, camunda:formHandlerClass, zeebe:priorityDefinition,
// zeebe:taskSchedule followUpDate, zeebe:script anywhere but on a
// scriptTask, zeebe:conditionalFilter,
// zeebe:linkedResources, zeebe:properties configuring an inbound
// connector other than the webhook connector (io.camunda:webhook:1, read
// into Node.Webhook with gobpm:webhook, see webhook.go; its properties
// gobpm does not read are refused by name), and these extension elements:
// camunda:executionListener, camunda:taskListener,
// camunda:failedJobRetryTimeCycle anywhere but on an element that creates
// a job (there it is the job's retry schedule, RetryCycle) or as an
// expression,
// camunda:field (field injection), camunda:errorEventDefinition (external
// task error mapping), zeebe:executionListeners, zeebe:taskListeners.
// Camunda 7's camunda:asyncBefore, camunda:asyncAfter and
// camunda:exclusive only move transaction boundaries and job exclusivity,
// which gobpm decides itself (a step runs each track on until it waits, in
// one transaction, and an instance's steps are applied by its single
// writer): they are accepted and have no effect, and so is the legacy
// camunda:async; so are camunda:jobPriority and camunda:taskPriority,
// which only order the work of Camunda's job executor and external task
// fetching (gobpm hands out jobs oldest first). Form and
// metadata extensions (camunda:formData, camunda:formProperty,
// camunda:formKey, camunda:formRef*, camunda:properties (except on an
// element with a job, whose headers they are),
// zeebe:formDefinition, zeebe:userTaskForm, zeebe:userTask,
// zeebe:properties, zeebe:versionTag, the modeler's
// camunda:diagramRelationId and zeebe:modelerTemplate*) and history or
// tasklist metadata (camunda:versionTag, camunda:isStartableInTasklist)
// only describe a UI or housekeeping and are ignored by the engine (the
// cockpit's task inbox renders the Camunda Form a user task links by
// zeebe:formDefinition formId, camunda:formRef or gobpm:formRef, deployed
// as a .form file with the process), except that a process's version tag (zeebe:versionTag,
// camunda:versionTag) is read into Process.VersionTag for call activities
// binding by tag. A process's camunda:historyTimeToLive (days, or "P30D")
// is read into Process.HistoryTimeToLive like gobpm:historyTimeToLive
// (retention.go). On a userTask, the standard
// humanPerformer, potentialOwner, performer and resourceRole are refused:
// use gobpm:assignee / gobpm:candidateUsers / gobpm:candidateGroups.
//
// The gobpm attributes (namespace urn:gobpm:1) are: resultVariable
// (scriptTask); type and retries (serviceTask, sendTask, message throw and
// end events); assignee, candidateUsers, candidateGroups, dueDate, formRef
// (userTask, globalUserTask; formRef is the id of a Camunda Form deployed
// with the process, which only the cockpit reads); resultVariable (globalScriptTask);
// decisionRef, resultVariable, mapDecisionResult (businessRuleTask,
// globalBusinessRuleTask); version (callActivity); router, routerExpression, sequence, selection,
// routerType, retries, reoffer (adHocSubProcess); collection, elementVariable, outputCollection,
// outputElement (multiInstanceLoopCharacteristics); correlationKey
// (message); historyTimeToLive (process). Its elements are input and output (variable mappings, in an
// element's extensionElements); any other gobpm element is
// RuleUnknownExtension.
//
// # What the parser refuses
//
// Every element of BPMN 2.0's Common Executable class is read, and so are
// compensation, transactions, link, multiple and parallel multiple events
// and instantiating gateways and receive tasks. What it still refuses
// (RuleUnsupported, the reason in the problem's detail; the README lists
// the same with what to use instead):
//   - what Camunda 7 runs and gobpm does not: humanPerformer / potentialOwner /
//     performer / resourceRole, Java and script implementations and
//     listeners, JUEL beans, timer start expressions, camunda:variableName
//     and variableEvents, CMMN case calls, tenants, decision version
//     bindings, variables on signal throws, error and escalation code
//     variables, custom retry cycles, task priorities, follow-up dates and
//     start restrictions;
//   - what no Camunda engine runs: complexGateway (decided: its
//     activation and reset semantics are a join few models mean; Camunda 7
//     ignores the element, Camunda 8 refuses it; an inclusive gateway says
//     the same plainly), choreographies and conversations (descriptive,
//     never executed), parallel multiple start events, non-interrupting
//     parallel multiple boundary events and parallel event-based gateways,
//     compensation / cancel / link / terminate among several definitions,
//     eventDefinitionRef, quantities other than 1,
//     complexBehaviorDefinition, alternative input or output sets, web
//     service operations, XPath, transaction methods other than
//     ##Compensate;
//   - not yet: event sub-processes, call activities and compensation
//     inside ad-hoc sub-processes.
//
// # Instantiation shapes
//
// An ad-hoc sub-process has no instantiation shape: its router decides.
// Every process and plain sub-process must start in exactly one way: start
// events (at most one None start, in Graph.Starts; triggered ones, at
// process level only, in Process.EventStarts), or no start event at all, in
// which case every activity and gateway without incoming flows is seeded
// (events and event sub-processes never are). An event sub-process starts
// only through its Trigger. Several None starts, a start event next to flow-less
// activities or gateways, and a container with nothing to start are
// RuleStartShape problems. Sequence flows never cross a container boundary (RuleCrossingFlow).
package bpmn
