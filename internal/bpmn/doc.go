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
// each lead to a timer, message or signal intermediateCatchEvent or a
// receiveTask that has no other incoming flow.
//
// Events, with at most one event definition each (Node.Event):
//
//	element                 allowed triggers
//	startEvent (process)    none, timer, message, signal
//	startEvent (sub-proc.)  none only (any trigger is a RuleStartShape problem)
//	intermediateCatchEvent  timer (no timeCycle), message, signal
//	intermediateThrowEvent  none, message (a job), signal, escalation
//	endEvent                none, terminate, message (a job), signal, error, escalation
//	boundaryEvent           timer, message, signal, error (interrupting only), escalation
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
// parallel or event-based gateway or an event); dataObject and property
// declarations (Graph.DataNames). Lanes, text annotations, associations,
// groups, documentation, data references and data associations without
// mappings are descriptive. Diagram interchange and foreign-namespace
// elements and attributes are ignored.
//
// The gobpm attributes (namespace urn:gobpm:1) are: resultVariable
// (scriptTask); type and retries (serviceTask, sendTask, message throw and
// end events); assignee, candidateUsers, candidateGroups, dueDate
// (userTask); correlationKey (message).
//
// # Instantiation shapes
//
// Every process and sub-process must start in exactly one way: start
// events (at most one None start, in Graph.Starts; triggered ones, at
// process level only, in Process.EventStarts), or no start event at all, in
// which case every activity and gateway without incoming flows is seeded
// (events never are). Several None starts, a start event next to flow-less
// activities or gateways, and a container with nothing to start are
// RuleStartShape problems. Sequence flows never cross a container boundary (RuleCrossingFlow).
package bpmn
