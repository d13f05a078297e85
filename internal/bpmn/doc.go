// Package bpmn reads BPMN 2.0 XML into a validated, immutable process graph.
//
// It owns the model types the engine executes (Definitions, Process, Graph,
// Node, Flow), the XML parser and every deployment-time check of DESIGN §2.4
// ("fail at deployment, not at runtime") and §5.2 (sub-process instantiation
// shapes). It is a leaf: it imports the standard library, etree, x/text,
// the expression seam internal/expr and the timer-format parser
// internal/timer, and never runtime, store, api or any package with I/O.
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
//   - task; scriptTask (a FEEL script, result in gobpm:resultVariable or
//     camunda:resultVariable); embedded subProcess.
//   - Event sub-processes (subProcess triggeredByEvent="true", DESIGN §5.5)
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
//     (camunda:type="external"); the retries from gobpm:retries or
//     zeebe:taskDefinition retries (an integer >= 0, default 3). Camunda 7
//     Java delegates (camunda:class, camunda:delegateExpression,
//     camunda:expression, camunda:connector) are refused.
//   - userTask (Node.UserTask): gobpm:assignee, gobpm:candidateUsers,
//     gobpm:candidateGroups, gobpm:dueDate, or their camunda: equivalents,
//     or zeebe:assignmentDefinition / zeebe:taskSchedule. A value starting
//     with "=", "${" or "#{" is a compiled expression, anything else a
//     literal.
//   - receiveTask with a messageRef (Node.Event, a message trigger).
//   - A `default` flow on any activity; startQuantity and
//     completionQuantity of 1 only.
//
// Gateways: exclusiveGateway and inclusiveGateway (FEEL conditions and a
// `default` flow); parallelGateway; eventBasedGateway (exclusive,
// non-instantiating) whose two or more outgoing flows, without conditions,
// each lead to a timer, message or signal (not conditional)
// intermediateCatchEvent or a receiveTask that has no other incoming flow.
//
// Events, with at most one event definition each (Node.Event):
//
//	element                 allowed triggers
//	startEvent (process)    none, timer, message, signal
//	startEvent (sub-proc.)  none only (any trigger is a RuleStartShape problem)
//	startEvent (event sub)  exactly one of timer, message, signal, error
//	                        (interrupting only), escalation, conditional
//	intermediateCatchEvent  timer (no timeCycle), message, signal, conditional
//	intermediateThrowEvent  none, message (a job), signal, escalation
//	endEvent                none, terminate, message (a job), signal, error, escalation
//	boundaryEvent           timer, message, signal, error (interrupting only),
//	                        escalation, conditional
//
// A conditional start event at process level is refused ("use a
// conditional event sub-process"). A conditionalEventDefinition needs one
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
// outgoing ones. Intermediate events need an incoming flow.
//
// Declarations: message (name, else id; gobpm:correlationKey or
// zeebe:subscription correlationKey, compiled), signal (name, else id),
// error (errorCode), escalation (escalationCode), referenced by
// messageRef, signalRef, errorRef and escalationRef. Message and signal
// catches, signal throws and error/escalation throws need their reference;
// an error or escalation catch without one catches all. As in Camunda 7, an
// errorRef that names no <error> is the error code itself. Timers hold
// exactly one of timeDate, timeDuration or timeCycle: a literal is checked
// with package timer, an expression ("=…", "${…}") is compiled
// (TimerDef.Expr).
//
// Where gobpm, zeebe and camunda spell the same setting, gobpm wins over
// zeebe, which wins over camunda; models drawn for both Camunda 7 and 8
// often carry different values for each, so they are not compared.
//
// Also accepted: sequence flows with FEEL conditions (not when leaving a
// parallel or event-based gateway or an event); a sequenceFlow without an
// id gets the id "<sourceRef>-><targetRef>" ("#2", "#3", … appended when
// taken), as Camunda 7 models rely on it (flow nodes still need ids);
// dataObject and property declarations (Graph.DataNames). Lanes, text
// annotations, associations, groups, documentation, data references, data
// associations without mappings and process-level performers are
// descriptive. Diagram interchange and foreign-namespace elements and
// attributes are ignored, except these vendor extension elements, which
// carry behaviour and are refused (RuleUnsupported, naming the element that
// holds them): camunda:inputOutput, camunda:executionListener,
// camunda:taskListener, zeebe:ioMapping, zeebe:taskHeaders,
// zeebe:executionListeners, zeebe:taskListeners. Form and metadata
// extensions (camunda:formData, camunda:formKey, camunda:properties,
// zeebe:formDefinition, zeebe:userTaskForm) only describe a UI — gobpm has
// no form service — and are ignored. On a userTask, the standard
// humanPerformer, potentialOwner, performer and resourceRole are refused:
// use gobpm:assignee / gobpm:candidateUsers / gobpm:candidateGroups.
//
// The gobpm attributes (namespace urn:gobpm:1) are: resultVariable
// (scriptTask); type and retries (serviceTask, sendTask, message throw and
// end events); assignee, candidateUsers, candidateGroups, dueDate
// (userTask); correlationKey (message).
//
// # Instantiation shapes
//
// Every process and plain sub-process must start in exactly one way: start
// events (at most one None start, in Graph.Starts; triggered ones, at
// process level only, in Process.EventStarts), or no start event at all, in
// which case every activity and gateway without incoming flows is seeded
// (events and event sub-processes never are). An event sub-process starts
// only through its Trigger. Several None starts, a start event next to flow-less
// activities or gateways, and a container with nothing to start are
// RuleStartShape problems. Sequence flows never cross a container boundary (RuleCrossingFlow).
package bpmn
