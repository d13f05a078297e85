package bpmn

import (
	"fmt"
	"strings"

	"github.com/beevik/etree"
)

// Namespaces the parser recognises.
const (
	// NamespaceModel is the BPMN 2.0 semantic model namespace.
	NamespaceModel = "http://www.omg.org/spec/BPMN/20100524/MODEL"
	// NamespaceGobpm is the namespace of gobpm's extension attributes (README#model-extensions).
	NamespaceGobpm = "urn:gobpm:1"
	// NamespaceCamunda is the Camunda 7 extension namespace; equivalents of
	// gobpm attributes are accepted from it.
	NamespaceCamunda = "http://camunda.org/schema/1.0/bpmn"
	// NamespaceZeebe is the Camunda 8 (Zeebe) extension namespace; its
	// taskDefinition, assignmentDefinition, taskSchedule, subscription,
	// calledElement, calledDecision and adHoc extension elements are read
	// where their meaning matches gobpm's.
	NamespaceZeebe = "http://camunda.org/schema/zeebe/1.0"
)

// Parse reads a BPMN 2.0 definitions document and returns the validated model.
//
// Any problem with the document — malformed XML, a refused DOCTYPE, a limit
// exceeded, an unsupported element, a broken reference or a rejected shape —
// makes Parse return a *ValidationError holding every problem it found and no
// model.
//
// Parse applies no deployment-time limits (see ParseWith and Limits), but
// every id must be an XML NCName.
func Parse(data []byte) (*Definitions, error) {
	return parse(data, Limits{})
}

// parse is Parse and ParseWith.
func parse(data []byte, lim Limits) (*Definitions, error) {
	d, ps := load(data)
	if ps != nil {
		return nil, ps.err()
	}
	p := &parser{
		limits: lim,
		lines:  d.lines,
		nodes:  make(map[string]*nodeInfo),
		flows:  make(map[string]*flowInfo),
		data:   make(map[string]*Graph),
		procs:  make(map[*Graph]string),
		ids:    make(map[string]bool),

		varNames:       make(map[string]string),
		dataObjectRefs: make(map[string]string),
		jobOwners:      make(map[*etree.Element]bool),

		messages:        make(map[string]*messageDecl),
		signals:         make(map[string]string),
		errorCodes:      make(map[string]string),
		escalationCodes: make(map[string]string),
	}
	defs := p.definitions(d.doc.Root())
	if defs == nil {
		return nil, p.problems.err()
	}
	p.validate()
	p.attachWebhooks()
	if len(p.problems) == 0 {
		// Limits on the wired graph: only a model otherwise valid.
		for _, proc := range defs.Processes {
			p.checkStepBudget(proc.Graph, false)
		}
	}
	if len(p.problems) > 0 {
		return nil, p.problems.err()
	}
	for _, proc := range defs.Processes {
		proc.index = make(map[string]*Node)
		indexNodes(proc.Graph, proc.index)
		proc.noJoins, proc.noConditions = true, true
		for _, n := range proc.index {
			if n.Kind == KindInclusiveGateway && len(n.Incoming) > 1 {
				proc.noJoins = false
			}
			if n.Event.Has(TriggerConditional) {
				proc.noConditions = false
			}
		}
	}
	defs.Warnings = p.warnings
	return defs, nil
}

func indexNodes(g *Graph, idx map[string]*Node) {
	for _, n := range g.Nodes {
		idx[n.ID] = n
		if n.Sub != nil {
			indexNodes(n.Sub, idx)
		}
	}
}

// parser holds the state of one Parse call.
type parser struct {
	// limits are the deployment-time limits to check (ParseWith).
	limits   Limits
	lines    map[*etree.Element]int
	problems problems
	// warnings are problems that do not refuse the model (Definitions.Warnings).
	warnings problems
	// exprLang is the document's expressionLanguage.
	exprLang string
	// nodes indexes every flow node of the document by id, supported or not.
	nodes map[string]*nodeInfo
	// flows indexes every sequence flow by id.
	flows map[string]*flowInfo
	// containers lists every flow-element container in document order.
	containers []*container
	// data maps dataObject ids to their container.
	data map[string]*Graph
	// dataRefs are dataObjectReferences to resolve.
	dataRefs []dataRef
	// webhooks are the webhooks read from extension elements, by the
	// element that declares them (attachWebhooks sets them on the nodes).
	webhooks map[*etree.Element]*Webhook
	// procs maps each process graph to its process id.
	procs map[*Graph]string

	// messages, signals, errorCodes and escalationCodes are the root-level
	// declarations by id (signals map to their name, errors and escalations
	// to their code).
	messages        map[string]*messageDecl
	signals         map[string]string
	errorCodes      map[string]string
	escalationCodes map[string]string

	// ids holds every id of a BPMN element in the document, plus the ids
	// synthesized for sequence flows without one (see flowID).
	ids map[string]bool

	// varNames maps the ids of dataObject, property and process
	// dataInput/dataOutput elements to the variable they declare;
	// dataObjectRefs maps dataObjectReference ids to their dataObjectRef.
	// checkCallAssocs uses both.
	varNames       map[string]string
	dataObjectRefs map[string]string
	// callAssocs are the data associations of call activities.
	callAssocs []callAssoc
	// loopRefs are the loopDataInputRef / loopDataOutputRef elements of
	// multi-instance activities, resolved by resolveLoopRefs.
	loopRefs []loopRef
	// jobOwners are the elements whose job was read (job), and
	// headerOwners the elements holding zeebe:taskHeaders: headers on an
	// element that creates no job are refused by checkHeaders, and
	// retryCycleOwners those holding camunda:failedJobRetryTimeCycle,
	// refused by checkRetryCycles on an element that creates no job.
	jobOwners        map[*etree.Element]bool
	headerOwners     []*etree.Element
	retryCycleOwners []*etree.Element
	// assocs are the association elements of every container, in
	// document order; checkCompensation reads the compensation ones.
	assocs []assoc
	// compRefs are the activityRefs of compensation throw events.
	compRefs []compRef
}

// assoc is an <association>: its label and its two ends' ids.
type assoc struct {
	label, source, target string
}

// container is a process or sub-process graph being built.
type container struct {
	g  *Graph
	id string // process or sub-process id, for problems
	// proc is the process whose top-level graph this is, nil for a sub-process.
	proc *Process
	// checkShape is false inside unsupported containers (transaction)
	// and ad-hoc sub-processes, whose instantiation differs.
	checkShape bool
	// adhoc marks the graph of an ad-hoc sub-process (docs/scopes.md#ad-hoc-sub-processes): its
	// router starts the inner activities, so it has no start events, no
	// end events and no Graph.Starts; adHocShape checks it.
	adhoc bool
	// eventSub marks the graph of an event sub-process (triggeredByEvent):
	// it starts through its single triggered start event, never by seeding.
	eventSub bool
	// all lists every flow node of the container, including placeholders for
	// unsupported ones (which are kept out of g.Nodes).
	all   []*nodeInfo
	flows []*flowInfo
}

// nodeInfo is a flow node being built.
type nodeInfo struct {
	node      *Node
	el        *etree.Element
	g         *Graph
	supported bool
	// triggeredStart marks a rejected start event: an unsupported
	// trigger, a triggered start inside a plain sub-process, or a None
	// start inside an event sub-process. checkShape treats every rejected
	// start event alike: the container had a start, so "no start event"
	// would be a misleading follow-up.
	triggeredStart bool
	// attachedRef is the attachedToRef of a boundary event.
	attachedRef string
	// interrupting is the isInterrupting attribute of a start event
	// (default true); it matters only inside an event sub-process.
	interrupting bool
	// defaultRef is the `default` attribute.
	defaultRef string
	// incomingRefs counts flows naming the node as target, valid or not.
	incomingRefs int
}

// flowInfo is a sequence flow being built.
type flowInfo struct {
	flow         *Flow
	label        string
	g            *Graph
	sourceRef    string
	targetRef    string
	hasCondition bool
}

type dataRef struct {
	label string
	ref   string
	g     *Graph
}

// label names an element in a problem: its id, else its tag and line.
func (p *parser) label(e *etree.Element) string {
	if id := strings.TrimSpace(e.SelectAttrValue("id", "")); id != "" {
		return id
	}
	if line := p.lines[e]; line > 0 {
		return fmt.Sprintf("%s (line %d)", e.Tag, line)
	}
	return e.Tag
}

// id returns the element's id, reporting RuleMissingID when it is absent.
func (p *parser) id(e *etree.Element) string {
	id := strings.TrimSpace(attr(e, "id"))
	if id == "" {
		p.problems.add(p.label(e), RuleMissingID, "%s has no id", e.Tag)
	}
	return id
}

// attr returns the value of the unqualified attribute key.
func attr(e *etree.Element, key string) string {
	for _, a := range e.Attr {
		if a.Space == "" && a.Key == key {
			return a.Value
		}
	}
	return ""
}

// nsAttr returns the value of attribute key in namespace ns.
func nsAttr(e *etree.Element, ns, key string) (string, bool) {
	for i := range e.Attr {
		a := &e.Attr[i]
		if a.Space != "" && a.Space != "xmlns" && a.Key == key && a.NamespaceURI() == ns {
			return a.Value, true
		}
	}
	return "", false
}

// isBPMN reports whether e is in the BPMN model namespace.
func isBPMN(e *etree.Element) bool { return e.NamespaceURI() == NamespaceModel }

// text returns the concatenated character data directly inside e.
func text(e *etree.Element) string {
	var b strings.Builder
	for _, t := range e.Child {
		if cd, ok := t.(*etree.CharData); ok {
			b.WriteString(cd.Data)
		}
	}
	return b.String()
}

// boolAttr parses an xsd:boolean attribute; absent is def.
func (p *parser) boolAttr(e *etree.Element, key string, def bool) bool {
	v := strings.TrimSpace(attr(e, key))
	switch v {
	case "":
		return def
	case "true", "1":
		return true
	case "false", "0":
		return false
	}
	p.problems.add(p.label(e), RuleInvalidAttribute, "%s=%q is not a boolean", key, v)
	return def
}

// definitions reads the root element.
func (p *parser) definitions(root *etree.Element) *Definitions {
	if !isBPMN(root) || root.Tag != "definitions" {
		p.problems.add(p.label(root), RuleNotBPMN, "root element is {%s}%s, want {%s}definitions", root.NamespaceURI(), root.Tag, NamespaceModel)
		return nil
	}
	defs := &Definitions{
		ID:              attr(root, "id"),
		TargetNamespace: attr(root, "targetNamespace"),
	}
	p.exprLang = strings.TrimSpace(attr(root, "expressionLanguage"))
	p.checkIDs(root)
	p.declarations(root)
	var globals []*Process
	for _, c := range root.ChildElements() {
		if !isBPMN(c) {
			p.foreign(c)
			continue
		}
		switch c.Tag {
		case "import":
			defs.Imports = append(defs.Imports, Import{
				Namespace:  attr(c, "namespace"),
				Location:   attr(c, "location"),
				ImportType: attr(c, "importType"),
			})
		case "process":
			defs.Processes = append(defs.Processes, p.process(c))
		case "collaboration":
			p.collaboration(c)
		case "globalTask", "globalUserTask", "globalScriptTask", "globalManualTask", "globalBusinessRuleTask":
			if g := p.globalTask(c); g != nil {
				globals = append(globals, g)
			}
		case "documentation", "extensionElements", "extension", "relationship",
			// Root-element declarations that carry no behaviour of their own.
			"message", "signal", "error", "escalation", "itemDefinition",
			"dataStore", "interface", "endPoint", "category", "resource",
			"correlationProperty", "partnerEntity", "partnerRole",
			"eventDefinition", "cancelEventDefinition", "compensateEventDefinition",
			"conditionalEventDefinition", "errorEventDefinition", "escalationEventDefinition",
			"linkEventDefinition", "messageEventDefinition", "signalEventDefinition",
			"terminateEventDefinition", "timerEventDefinition":
		default:
			p.unsupported(c, "")
		}
	}
	p.checkHeaders()
	p.checkRetryCycles()
	// Global tasks are callable one-task processes (docs/scopes.md#call-activities); a
	// document holding only global tasks is a library of them.
	defs.Processes = append(defs.Processes, globals...)
	ns := namespaces(root)
	for _, proc := range defs.Processes {
		proc.Namespaces = make(map[string]string, len(ns))
		for k, v := range ns {
			proc.Namespaces[k] = v
		}
	}
	if len(defs.Processes) == 0 {
		label := defs.ID
		if label == "" {
			label = p.label(root)
		}
		p.problems.add(label, RuleNoProcess, "definitions contain no process")
	}
	return defs
}

// namespaces returns the namespace declarations of the <definitions>
// element: prefix → URI, the default namespace under "".
func namespaces(root *etree.Element) map[string]string {
	ns := map[string]string{}
	for _, a := range root.Attr {
		switch {
		case a.Space == "xmlns":
			ns[a.Key] = a.Value
		case a.Space == "" && a.Key == "xmlns":
			ns[""] = a.Value
		}
	}
	return ns
}

// unsupported reports e as not supported yet.
func (p *parser) unsupported(e *etree.Element, what string) {
	if what == "" {
		what = e.Tag
	}
	p.problems.add(p.label(e), RuleUnsupported, "%s is not supported yet", what)
}

// foreign handles an element outside the BPMN namespace: gobpm elements are
// unknown extensions, elements in no namespace are refused, anything else
// (diagram interchange, vendor extensions) is ignored.
func (p *parser) foreign(e *etree.Element) {
	if e.NamespaceURI() == "" {
		p.problems.add(p.label(e), RuleUnsupported, "element %q is in no namespace (not BPMN)", e.Tag)
	}
}

// knownGobpm lists the gobpm attributes each element accepts.
var knownGobpm = map[string]map[string]bool{
	"process":     {"historyTimeToLive": true, "compensation": true},
	"scriptTask":  {"resultVariable": true},
	"serviceTask": {"type": true, "retries": true},
	"sendTask":    {"type": true, "retries": true},
	// Only with a messageEventDefinition; event checks the placement.
	"intermediateThrowEvent": {"type": true, "retries": true},
	"endEvent":               {"type": true, "retries": true},
	"userTask":               {"assignee": true, "candidateUsers": true, "candidateGroups": true, "dueDate": true, "formRef": true},
	"message":                {"correlationKey": true},
	"callActivity":           {"version": true},
	"businessRuleTask":       {"decisionRef": true, "resultVariable": true, "mapDecisionResult": true},
	"adHocSubProcess":        {"router": true, "routerExpression": true, "sequence": true, "selection": true, "routerType": true, "retries": true, "reoffer": true},
	// On the loop characteristics element, like camunda:collection.
	"multiInstanceLoopCharacteristics": {"collection": true, "elementVariable": true, "outputCollection": true, "outputElement": true},
	// Global tasks take the attributes of the task they stand for.
	"globalUserTask":         {"assignee": true, "candidateUsers": true, "candidateGroups": true, "dueDate": true, "formRef": true},
	"globalScriptTask":       {"resultVariable": true},
	"globalBusinessRuleTask": {"decisionRef": true, "resultVariable": true, "mapDecisionResult": true},
}

// checkExtensions reports gobpm attributes unknown for e.
func (p *parser) checkExtensions(e *etree.Element) {
	for i := range e.Attr {
		a := &e.Attr[i]
		if a.Space == "" || a.Space == "xmlns" || a.NamespaceURI() != NamespaceGobpm {
			continue
		}
		if isBPMN(e) && knownGobpm[e.Tag][a.Key] {
			continue
		}
		p.problems.add(p.label(e), RuleUnknownExtension, "unknown gobpm attribute %q on %s", a.Key, e.Tag)
	}
}

// process reads a <process>.
func (p *parser) process(e *etree.Element) *Process {
	proc := &Process{
		ID:         p.id(e),
		Name:       attr(e, "name"),
		Executable: p.boolAttr(e, "isExecutable", false),
		Graph:      &Graph{},
	}
	// The version tag a call activity's binding "versionTag" looks for:
	// zeebe:versionTag wins over camunda:versionTag, as everywhere.
	if v, ok := nsAttr(e, NamespaceCamunda, "versionTag"); ok {
		proc.VersionTag = strings.TrimSpace(v)
	}
	if z := extension(e, NamespaceZeebe, "versionTag"); z != nil {
		proc.VersionTag = strings.TrimSpace(z.SelectAttrValue("value", ""))
	}
	proc.HistoryTimeToLive = p.historyTimeToLive(e)
	proc.ConcurrentCompensation = p.concurrentCompensation(e)
	p.procs[proc.Graph] = proc.ID
	p.contents(e, &container{g: proc.Graph, id: p.label(e), checkShape: true, proc: proc})
	return proc
}

// contents reads the children of a process into c.
func (p *parser) contents(e *etree.Element, c *container) {
	p.containers = append(p.containers, c)
	for _, ch := range e.ChildElements() {
		p.contentsChild(ch, c)
	}
}

// contentsChild reads one child of a process or sub-process into c.
func (p *parser) contentsChild(ch *etree.Element, c *container) {
	if !isBPMN(ch) {
		p.foreign(ch)
		return
	}
	switch ch.Tag {
	case "startEvent", "endEvent", "task", "scriptTask", "exclusiveGateway", "parallelGateway", "subProcess",
		"userTask", "serviceTask", "sendTask", "receiveTask", "manualTask", "businessRuleTask",
		"callActivity", "adHocSubProcess", "transaction",
		"intermediateCatchEvent", "intermediateThrowEvent", "boundaryEvent", "implicitThrowEvent",
		"eventBasedGateway", "inclusiveGateway", "complexGateway",
		"callChoreography", "subChoreography", "choreographyTask":
		p.flowNode(ch, c)
	case "sequenceFlow":
		p.sequenceFlow(ch, c)
	case "dataObject":
		p.id(ch)
		p.common(ch, "dataState")
		c.g.addData(ch)
		if id := strings.TrimSpace(attr(ch, "id")); id != "" {
			p.data[id] = c.g
			p.varNames[id] = nameOrID(ch)
		}
	case "property":
		p.common(ch, "dataState")
		c.g.addData(ch)
		if id := strings.TrimSpace(attr(ch, "id")); id != "" {
			p.varNames[id] = nameOrID(ch)
		}
	case "dataObjectReference":
		p.common(ch, "dataState")
		if ref := strings.TrimSpace(attr(ch, "dataObjectRef")); ref != "" {
			p.dataRefs = append(p.dataRefs, dataRef{label: p.label(ch), ref: ref, g: c.g})
			if id := strings.TrimSpace(attr(ch, "id")); id != "" {
				p.dataObjectRefs[id] = ref
			}
		}
	case "documentation", "auditing", "monitoring", "categoryValueRef", "supports",
		"laneSet", "textAnnotation", "group", "dataStoreReference",
		"performer", "humanPerformer", "potentialOwner", "resourceRole", "extensionElements":
		// Descriptive: no effect on execution. Extension elements are
		// checked for gobpm names by checkIDs.
	case "association":
		// Descriptive, except one from a compensation boundary event to its
		// handler activity (checkCompensation).
		p.assocs = append(p.assocs, assoc{label: p.label(ch), source: strings.TrimSpace(attr(ch, "sourceRef")), target: strings.TrimSpace(attr(ch, "targetRef"))})
	case "ioSpecification":
		// A process's ioSpecification is its contract as a callee
		// (docs/scopes.md#call-activities); sub-processes' are refused by
		// activity.
		if c.proc == nil || c.proc.IO != nil {
			p.unsupported(ch, fmt.Sprintf("%s in %s", ch.Tag, c.id))
			return
		}
		io := p.ioSpecification(ch, c.id)
		c.proc.IO = io.spec
		for _, ids := range []map[string]string{io.inputs, io.outputs} {
			for id, name := range ids {
				p.varNames[id] = name
			}
		}
	case "correlationSubscription":
		p.unsupported(ch, fmt.Sprintf("%s in %s", ch.Tag, c.id))
	default:
		p.unsupported(ch, "")
	}
}

// addData records the variable declared by a dataObject or property.
func (g *Graph) addData(e *etree.Element) {
	name := strings.TrimSpace(attr(e, "name"))
	if name == "" {
		name = strings.TrimSpace(attr(e, "id"))
	}
	if name == "" {
		return
	}
	for _, n := range g.DataNames {
		if n == name {
			return
		}
	}
	g.DataNames = append(g.DataNames, name)
}

// common checks the children every flow element may carry; allowed lists
// extra child tags accepted (without effect) for this element.
func (p *parser) common(e *etree.Element, allowed ...string) {
	for _, c := range e.ChildElements() {
		if !isBPMN(c) {
			p.foreign(c)
			continue
		}
		switch c.Tag {
		case "documentation", "auditing", "monitoring", "categoryValueRef":
		case "extensionElements":
		default:
			ok := false
			for _, a := range allowed {
				if a == c.Tag {
					ok = true
					break
				}
			}
			if !ok {
				p.unsupported(c, fmt.Sprintf("%s in %s", c.Tag, e.Tag))
			}
		}
	}
}

// flowNode reads any flow node; unsupported ones become placeholders so that
// flows touching them still resolve.
func (p *parser) flowNode(e *etree.Element, c *container) {
	id := p.id(e)
	n := &Node{ID: id, Name: attr(e, "name"), Kind: NodeKind(e.Tag), Parent: c.g}
	if e.Tag == "userTask" || e.Tag == "startEvent" {
		n.FormRef = formRef(e)
	}
	info := &nodeInfo{node: n, el: e, g: c.g, supported: true}
	label := p.label(e)
	switch {
	case !c.adhoc:
	case e.Tag == "startEvent" || e.Tag == "endEvent":
		// docs/scopes.md#ad-hoc-sub-processes: the router starts the inner activities and the region
		// completes when it drains.
		p.problems.add(label, RuleAdHocContent,
			"%s inside ad-hoc sub-process %q is not allowed: its router starts the inner activities and it completes when nothing runs in it", e.Tag, c.id)
		info.supported = false
	}
	switch e.Tag {
	case "startEvent", "endEvent", "intermediateCatchEvent", "intermediateThrowEvent", "boundaryEvent":
		if info.supported {
			info.supported = p.event(e, info, c)
		}
	case "task", "manualTask", "scriptTask", "subProcess", "serviceTask", "sendTask", "userTask", "receiveTask", "businessRuleTask", "callActivity", "adHocSubProcess", "transaction":
		if !p.activity(e, info) {
			info.supported = false
		}
	case "exclusiveGateway", "inclusiveGateway":
		p.common(e, "incoming", "outgoing")
		info.defaultRef = strings.TrimSpace(attr(e, "default"))
	case "parallelGateway":
		p.common(e, "incoming", "outgoing")
		if attr(e, "default") != "" {
			p.problems.add(label, RuleInvalidDefault, "a parallel gateway has no default flow")
		}
	case "eventBasedGateway":
		p.common(e, "incoming", "outgoing")
		if attr(e, "default") != "" {
			p.problems.add(label, RuleInvalidDefault, "an event-based gateway has no default flow")
		}
		if t := strings.TrimSpace(attr(e, "eventGatewayType")); t != "" && t != "Exclusive" {
			p.problems.add(label, RuleUnsupported,
				"eventBasedGateway with eventGatewayType=%q is not supported: a parallel instantiating gateway starts one instance that every other event of the group must then reach, a correlation BPMN leaves to the engine (neither Camunda 7 nor 8 runs it); start with an exclusive one and wait for the others with a parallel multiple intermediate catch event", t)
			info.supported = false
		}
		n.Instantiate = p.boolAttr(e, "instantiate", false)
	case "subChoreography":
		if info.supported {
			p.unsupported(e, "")
		}
		info.supported = false
		p.subContents(e, &container{g: &Graph{Owner: n}, id: label})
	default:
		p.unsupported(e, "")
		info.supported = false
	}
	if info.supported {
		n.StartListeners, n.EndListeners = p.nodeListeners(e, n, c.adhoc)
		if tl := extension(e, NamespaceZeebe, "taskListeners"); tl != nil && e.Tag == "userTask" {
			n.TaskListeners = p.taskListeners(e, tl)
		}
	}
	if _, dup := p.nodes[id]; dup || id == "" {
		// Already reported (missing or duplicate id); keeping it out of the
		// graph avoids follow-up problems about a node nothing can reference.
		info.supported = false
	}
	c.all = append(c.all, info)
	if info.supported {
		c.g.Nodes = append(c.g.Nodes, n)
		if n.TriggeredByEvent {
			c.g.EventSubs = append(c.g.EventSubs, n)
		}
	}
	if id != "" {
		if _, dup := p.nodes[id]; !dup {
			p.nodes[id] = info
		}
	}
}

// activity reads a task or sub-process: task, manualTask (a pass-through
// KindTask), scriptTask, serviceTask, sendTask, userTask, receiveTask,
// businessRuleTask, callActivity, subProcess or adHocSubProcess, with its loop
// characteristics.
func (p *parser) activity(e *etree.Element, info *nodeInfo) bool {
	n := info.node
	label := p.label(e)
	ok := true
	for _, q := range []string{"startQuantity", "completionQuantity"} {
		if v := strings.TrimSpace(attr(e, q)); v != "" && v != "1" {
			p.problems.add(label, RuleInvalidAttribute, "%s=%q: only 1 is supported", q, v)
		}
	}
	p.implementation(e, label)
	// A compensation handler (docs/scopes.md#tracks): checkCompensation wires it to
	// its compensation boundary event.
	n.ForCompensation = p.boolAttr(e, "isForCompensation", false)
	info.defaultRef = strings.TrimSpace(attr(e, "default"))
	var sub *container
	switch e.Tag {
	case "subProcess":
		n.Sub = &Graph{Owner: n}
		// An event sub-process (docs/scopes.md#boundary-events-and-event-sub-processes) is a sub-process node without
		// flows; its graph starts at its single triggered start event,
		// which eventSubShape finds.
		n.TriggeredByEvent = p.boolAttr(e, "triggeredByEvent", false)
		sub = &container{g: n.Sub, id: label, checkShape: ok, eventSub: n.TriggeredByEvent}
	case "transaction":
		// docs/scopes.md#tracks: an embedded sub-process whose cancel end event
		// compensates it and leaves by its cancel boundary event. Only the
		// compensating method is executable.
		n.Kind = KindTransaction
		n.Sub = &Graph{Owner: n}
		sub = &container{g: n.Sub, id: label, checkShape: true}
		switch m := strings.TrimSpace(attr(e, "method")); m {
		case "", "##Compensate", "compensate", "Compensate":
		default:
			p.problems.add(label, RuleUnsupported, "transaction method=%q is not supported: gobpm runs the compensating method (##Compensate) only", m)
		}
	case "adHocSubProcess":
		// docs/scopes.md#ad-hoc-sub-processes: a variant of the embedded sub-process whose router,
		// not its flows, starts the inner activities.
		n.Kind = KindAdHocSubProcess
		n.Sub = &Graph{Owner: n}
		sub = &container{g: n.Sub, id: label, adhoc: true}
		if p.boolAttr(e, "triggeredByEvent", false) {
			p.problems.add(label, RuleUnsupported, "an ad-hoc sub-process cannot be an event sub-process (triggeredByEvent=\"true\")")
			ok = false
		}
	}
	scripts := 0
	var io *ioDecl
	var assocs, conds, loops []*etree.Element
	for _, c := range e.ChildElements() {
		if !isBPMN(c) {
			if sub == nil {
				p.foreign(c)
			}
			continue
		}
		switch c.Tag {
		case "documentation", "auditing", "monitoring", "categoryValueRef", "incoming", "outgoing", "rendering":
		case "performer", "humanPerformer", "potentialOwner", "resourceRole":
			if e.Tag == "userTask" {
				// The standard resource assignment would decide who works on
				// the task; ignoring it would open the task to anyone.
				p.problems.add(label, RuleUnsupported,
					"%s on userTask is not supported; use gobpm:assignee / gobpm:candidateUsers / gobpm:candidateGroups", c.Tag)
			}
		case "extensionElements":
		case "dataInputAssociation", "dataOutputAssociation":
			p.dataAssociation(c, label)
			assocs = append(assocs, c)
		case "ioSpecification":
			// Only a call activity binds its I/O (README#model-extensions); elsewhere
			// the data inputs and outputs would be dropped.
			if e.Tag != "callActivity" || io != nil {
				p.unsupported(c, "ioSpecification in "+e.Tag)
				ok = false
				continue
			}
			io = p.ioSpecification(c, label)
		case "script":
			if e.Tag != "scriptTask" {
				p.unsupported(c, "script in "+e.Tag)
				ok = false
				continue
			}
			scripts++
			if scripts == 1 {
				p.script(e, c, n)
			}
		case "completionCondition":
			// Only an ad-hoc sub-process has one (a multi-instance loop has
			// its own, inside multiInstanceLoopCharacteristics).
			if e.Tag != "adHocSubProcess" {
				p.unsupported(c, "completionCondition in "+e.Tag)
				ok = false
				continue
			}
			conds = append(conds, c)
		case "standardLoopCharacteristics", "multiInstanceLoopCharacteristics":
			if n.TriggeredByEvent {
				p.problems.add(label, RuleUnsupported, "%s on an event sub-process is not supported: it starts once per trigger", c.Tag)
				ok = false
				continue
			}
			loops = append(loops, c)
		case "property":
			if sub == nil && strings.TrimSpace(attr(c, "name")) != targetRefPlaceholder {
				p.problems.add(label, RuleUnsupported, "property on %s is not supported yet", e.Tag)
				ok = false
			}
			// Sub-process properties are read by contents.
		default:
			if sub == nil {
				p.unsupported(c, fmt.Sprintf("%s in %s", c.Tag, e.Tag))
				ok = false
			}
		}
	}
	if e.Tag == "scriptTask" {
		p.scriptTask(e, n, scripts)
	}
	switch e.Tag {
	case "manualTask":
		// Nothing for the engine to do: it passes straight through.
		n.Kind = KindTask
	case "callActivity":
		n.Call = p.callActivity(e, io)
		for _, a := range assocs {
			p.callAssociation(a, label, io)
		}
	case "serviceTask":
		n.Job = p.job(e, e)
	case "sendTask":
		n.Job = p.job(e, e)
		n.Event = p.sendTaskMessage(e)
	case "userTask":
		n.UserTask = p.userTask(e)
	case "receiveTask":
		n.Event = p.receiveTask(e)
		n.Instantiate = p.boolAttr(e, "instantiate", false)
		if n.Event == nil && n.Instantiate {
			p.problems.add(label, RuleMissingReference,
				"an instantiating receiveTask needs a messageRef: it starts an instance when its message arrives, and without one nothing could reach it before the instance exists")
		}
	case "businessRuleTask":
		n.Decision = p.businessRuleTask(e)
	case "adHocSubProcess":
		n.AdHoc = p.adHoc(e, conds)
	}
	switch len(loops) {
	case 0:
	case 1:
		n.Loop = p.loop(e, loops[0])
	default:
		p.problems.add(label, RuleInvalidAttribute, "%s has %d loop characteristics; an activity has at most one", e.Tag, len(loops))
	}
	n.Mappings = p.nodeMappings(e, n)
	if sub != nil {
		p.subContents(e, sub)
	}
	return ok
}

// subContents reads a sub-process's flow elements and data declarations;
// the activity-level children were handled by activity.
func (p *parser) subContents(e *etree.Element, c *container) {
	p.containers = append(p.containers, c)
	for _, ch := range e.ChildElements() {
		if isBPMN(ch) {
			switch ch.Tag {
			case "documentation", "auditing", "monitoring", "categoryValueRef", "incoming", "outgoing",
				"performer", "humanPerformer", "potentialOwner", "resourceRole", "rendering", "extensionElements",
				"dataInputAssociation", "dataOutputAssociation", "standardLoopCharacteristics",
				"multiInstanceLoopCharacteristics", "script", "completionCondition", "ioSpecification":
				continue // handled by activity
			}
		}
		p.contentsChild(ch, c)
	}
}

// implementation checks the standard implementation and operationRef
// attributes of an activity. "##WebService" (the default, also spelt
// without "##" or in another case) and "##unspecified" say nothing gobpm
// acts on; another value names a
// technology that would implement the task, and operationRef a web service
// operation to invoke — gobpm runs the task itself (a job, a user task, a
// decision), so either would be dropped.
func (p *parser) implementation(e *etree.Element, label string) {
	// Tools also write "WebService" or "webService" for the default.
	v := strings.TrimSpace(attr(e, "implementation"))
	switch strings.ToLower(strings.TrimPrefix(v, "##")) {
	case "", "webservice", "unspecified":
	default:
		p.problems.add(label, RuleUnsupported,
			"implementation=%q on %s is not supported: gobpm runs the task itself (a job worker for gobpm:type, a user task, a DMN decision); remove the attribute", v, e.Tag)
	}
	if v := strings.TrimSpace(attr(e, "operationRef")); v != "" {
		p.problems.add(label, RuleUnsupported,
			"operationRef %q on %s is not supported: gobpm invokes no web service operation; a job worker (gobpm:type) does the work, messages are matched by name", v, e.Tag)
	}
}

// collaboration checks a <collaboration>. Pools, message flows and
// conversations are descriptive: a message reaches a catch event or
// receive task by its name (and gobpm:correlationKey), whatever message
// flow is drawn. A correlationKey would correlate by correlation
// properties instead, which gobpm does not do.
func (p *parser) collaboration(e *etree.Element) {
	for _, c := range e.ChildElements() {
		if isBPMN(c) && c.Tag == "correlationKey" {
			p.problems.add(p.label(c), RuleUnsupported,
				"correlationKey in collaboration %s is not supported: gobpm correlates a message by its name and gobpm:correlationKey (or zeebe:subscription correlationKey) on the <message>", p.label(e))
		}
	}
}
