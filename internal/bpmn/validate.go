package bpmn

import (
	"fmt"
	"strings"

	"github.com/beevik/etree"
)

// validate checks what needs the whole document: ids, references, flow
// wiring, defaults, conditions and the instantiation shape of every
// container. It appends to p.problems.
func (p *parser) validate() {
	for _, c := range p.containers {
		for _, f := range c.flows {
			p.wire(f)
		}
	}
	for _, c := range p.containers {
		for _, n := range c.all {
			p.checkDefault(n)
			p.checkEventFlows(n)
			p.attach(n)
			p.checkEventGateway(n)
			p.checkInstantiate(c, n)
		}
		for _, f := range c.flows {
			p.checkCondition(f)
			p.checkEventSubFlow(f)
		}
		switch {
		case c.adhoc:
			p.adHocShape(c)
		case !c.checkShape:
		case c.eventSub:
			p.eventSubShape(c)
		default:
			p.checkShape(c)
		}
	}
	p.checkLinks()
	p.checkCompensation()
	p.checkCallAssocs()
	p.resolveLoopRefs()
	for _, r := range p.dataRefs {
		g, ok := p.data[r.ref]
		switch {
		case !ok:
			p.problems.add(r.label, RuleMissingReference, "dataObjectRef %q names no dataObject", r.ref)
		case !visible(g, r.g):
			p.problems.add(r.label, RuleMissingReference, "dataObjectRef %q names a dataObject outside this container and its parents", r.ref)
		}
	}
}

// visible reports whether data declared in owner is visible from g (g is
// owner or nested inside it).
func visible(owner, g *Graph) bool {
	for g != nil {
		if g == owner {
			return true
		}
		if g.Owner == nil {
			return false
		}
		g = g.Owner.Parent
	}
	return false
}

// where describes a container for problem details.
func (p *parser) where(g *Graph) string {
	if g.Owner != nil {
		return fmt.Sprintf("%s %q", g.Owner.Kind, g.Owner.ID)
	}
	return fmt.Sprintf("process %q", p.procs[g])
}

// resolve finds the flow node ref names for flow f, reporting problems.
func (p *parser) resolve(f *flowInfo, attr, ref string) *nodeInfo {
	if ref == "" {
		p.problems.add(f.label, RuleMissingReference, "sequenceFlow has no %s", attr)
		return nil
	}
	n, ok := p.nodes[ref]
	if !ok {
		if _, isFlow := p.flows[ref]; isFlow {
			p.problems.add(f.label, RuleMissingReference, "%s %q names a sequence flow, not a flow node", attr, ref)
		} else {
			p.problems.add(f.label, RuleMissingReference, "%s %q names no flow node", attr, ref)
		}
		return nil
	}
	return n
}

// wire resolves a flow's ends and connects it to its nodes.
func (p *parser) wire(f *flowInfo) {
	src := p.resolve(f, "sourceRef", f.sourceRef)
	dst := p.resolve(f, "targetRef", f.targetRef)
	if dst != nil {
		dst.incomingRefs++
	}
	crossing := false
	for _, end := range []*nodeInfo{src, dst} {
		if end != nil && end.g != f.g {
			crossing = true
			p.problems.add(f.label, RuleCrossingFlow,
				"sequenceFlow in %s connects %q in %s; sequence flows must not cross a sub-process boundary",
				p.where(f.g), end.node.ID, p.where(end.g))
		}
	}
	if src == nil || dst == nil || crossing {
		return
	}
	f.flow.Source, f.flow.Target = src.node, dst.node
	src.node.Outgoing = append(src.node.Outgoing, f.flow)
	dst.node.Incoming = append(dst.node.Incoming, f.flow)
}

// checkDefault resolves and checks a node's `default` flow.
func (p *parser) checkDefault(n *nodeInfo) {
	if n.defaultRef == "" {
		return
	}
	label := p.label(n.el)
	f, ok := p.flows[n.defaultRef]
	switch {
	case !ok:
		p.problems.add(label, RuleMissingReference, "default %q names no sequence flow", n.defaultRef)
	case f.sourceRef != n.node.ID:
		p.problems.add(label, RuleInvalidDefault, "default flow %q is not an outgoing flow of %s", n.defaultRef, label)
	case f.hasCondition:
		p.problems.add(f.label, RuleInvalidDefault, "default flow of %s must not have a conditionExpression", label)
	default:
		n.node.Default = f.flow
	}
}

// checkEventFlows rejects flows into start and boundary events, out of end
// events, and intermediate events nothing leads to (they would never run:
// flow-less seeding starts only activities and gateways).
func (p *parser) checkEventFlows(n *nodeInfo) {
	if !n.supported {
		return
	}
	switch n.node.Kind {
	case KindStartEvent:
		if len(n.node.Incoming) > 0 || n.incomingRefs > 0 {
			p.problems.add(p.label(n.el), RuleEventFlow, "a start event must not have incoming sequence flows")
		}
	case KindBoundaryEvent:
		if n.incomingRefs > 0 {
			p.problems.add(p.label(n.el), RuleEventFlow, "a boundary event must not have incoming sequence flows")
		}
	case KindEndEvent:
		if len(n.node.Outgoing) > 0 {
			p.problems.add(p.label(n.el), RuleEventFlow, "an end event must not have outgoing sequence flows")
		}
	case KindIntermediateCatchEvent, KindIntermediateThrowEvent:
		if isLink(n.node) {
			p.checkLinkFlows(n)
			return
		}
		if n.incomingRefs == 0 {
			p.problems.add(p.label(n.el), RuleEventFlow, "an %s needs an incoming sequence flow", n.node.Kind)
		}
	}
}

// isLink reports whether n is a link intermediate throw or catch event.
func isLink(n *Node) bool {
	return n.Event != nil && n.Event.Kind == TriggerLink
}

// checkLinkFlows checks the sequence flows of a link event (BPMN 2.0.2
// §10.5.4, a link pair is an off-page connector): a catch is entered by its
// throws only, so it has no incoming sequence flow; a throw needs one and
// continues at its catch, so it has no outgoing sequence flow.
func (p *parser) checkLinkFlows(n *nodeInfo) {
	label := p.label(n.el)
	if n.node.Kind == KindIntermediateCatchEvent {
		if n.incomingRefs > 0 {
			p.problems.add(label, RuleEventFlow, "a link intermediate catch event must not have incoming sequence flows; its link throw events lead to it")
		}
		return
	}
	if n.incomingRefs == 0 {
		p.problems.add(label, RuleEventFlow, "an %s needs an incoming sequence flow", n.node.Kind)
	}
	if len(n.node.Outgoing) > 0 {
		p.problems.add(label, RuleEventFlow, "a link intermediate throw event must not have outgoing sequence flows; its token continues at the link catch event %q", n.node.Event.LinkName)
	}
}

// checkLinks pairs every link throw event with the link catch event of the
// same name in the same graph (one process or sub-process level) and sets
// its LinkTarget. No catch of that name there, a catch only in another
// level, or several catches of that name there are RuleInvalidLink problems.
// Several throws may lead to one catch.
func (p *parser) checkLinks() {
	type key struct {
		g    *Graph
		name string
	}
	catches := map[key][]*nodeInfo{}
	elsewhere := map[string][]*nodeInfo{}
	var throws []*nodeInfo
	for _, c := range p.containers {
		for _, n := range c.all {
			if !n.supported || !isLink(n.node) || n.node.Event.LinkName == "" {
				continue
			}
			if n.node.Kind == KindIntermediateThrowEvent {
				throws = append(throws, n)
				continue
			}
			k := key{n.g, n.node.Event.LinkName}
			catches[k] = append(catches[k], n)
			elsewhere[k.name] = append(elsewhere[k.name], n)
		}
	}
	for _, n := range throws {
		name := n.node.Event.LinkName
		found := catches[key{n.g, name}]
		label := p.label(n.el)
		switch {
		case len(found) == 1:
			n.node.LinkTarget = found[0].node
		case len(found) > 1:
			ids := make([]string, len(found))
			for i, c := range found {
				ids[i] = c.node.ID
			}
			p.problems.add(label, RuleInvalidLink, "%d link catch events are named %q in %s (%s); a link throw needs exactly one",
				len(found), name, p.where(n.g), strings.Join(ids, ", "))
		case len(elsewhere[name]) > 0:
			other := elsewhere[name][0]
			p.problems.add(label, RuleInvalidLink,
				"the link catch event named %q (%q) is in %s, not in %s; a link connects events of the same process or sub-process level",
				name, other.node.ID, p.where(other.g), p.where(n.g))
		default:
			p.problems.add(label, RuleInvalidLink, "no link catch event is named %q in %s; a link throw needs exactly one", name, p.where(n.g))
		}
	}
}

// attach resolves the host of a boundary event: an activity of the same
// container. It fills AttachedTo and the host's Boundaries.
func (p *parser) attach(n *nodeInfo) {
	if !n.supported || n.node.Kind != KindBoundaryEvent {
		return
	}
	label := p.label(n.el)
	if n.attachedRef == "" {
		p.problems.add(label, RuleMissingReference, "boundaryEvent has no attachedToRef")
		return
	}
	host, ok := p.nodes[n.attachedRef]
	switch {
	case !ok:
		p.problems.add(label, RuleMissingReference, "attachedToRef %q names no flow node", n.attachedRef)
	case !host.supported:
		// The host is already reported.
	case host.g != n.g:
		p.problems.add(label, RuleInvalidBoundary, "attachedToRef %q names a node in %s; a boundary event must sit in its host's container (%s)",
			n.attachedRef, p.where(host.g), p.where(n.g))
	case !host.node.IsActivity():
		p.problems.add(label, RuleInvalidBoundary, "attachedToRef %q names %s %q; boundary events attach to tasks and sub-processes",
			n.attachedRef, host.node.Kind, host.node.ID)
	case host.node.TriggeredByEvent:
		p.problems.add(label, RuleInvalidBoundary, "attachedToRef %q names an event sub-process; boundary events cannot attach to one",
			n.attachedRef)
	default:
		n.node.AttachedTo = host.node
		host.node.Boundaries = append(host.node.Boundaries, n.node)
	}
}

// checkEventGateway checks an event-based gateway: at least two outgoing
// flows, each to a timer, message or signal intermediate catch event or a
// receive task that has no other incoming flow.
func (p *parser) checkEventGateway(n *nodeInfo) {
	if !n.supported || n.node.Kind != KindEventBasedGateway {
		return
	}
	label := p.label(n.el)
	if len(n.node.Outgoing) < 2 {
		p.problems.add(label, RuleInvalidEventGateway, "an event-based gateway needs at least two outgoing sequence flows, has %d", len(n.node.Outgoing))
	}
	for _, f := range n.node.Outgoing {
		t := f.Target
		if !eventGatewayTarget(t) {
			p.problems.add(label, RuleInvalidEventGateway,
				"sequence flow %q leads to %s %q; an event-based gateway must lead to timer, message or signal intermediate catch events (or multiple ones of those, not parallel multiple: the gateway takes the first event) or receive tasks with a messageRef",
				f.ID, t.Kind, t.ID)
			continue
		}
		if ti := p.nodes[t.ID]; ti != nil && ti.incomingRefs != 1 {
			p.problems.add(label, RuleInvalidEventGateway, "%s %q after the event-based gateway must have exactly one incoming sequence flow, has %d",
				t.Kind, t.ID, ti.incomingRefs)
		}
	}
}

// eventGatewayTarget reports whether n may follow an event-based gateway.
func eventGatewayTarget(n *Node) bool {
	switch n.Kind {
	case KindReceiveTask:
		return n.Event != nil // one triggered by its wait id has no event the gateway could race
	case KindIntermediateCatchEvent:
		if n.Event == nil || n.Event.Kind == TriggerParallelMultiple {
			return false // a gateway takes the first event; all of them cannot be first
		}
		for _, d := range n.Event.Triggers() {
			switch d.Kind {
			case TriggerTimer, TriggerMessage, TriggerSignal:
			default:
				return false
			}
		}
		return true
	}
	return false
}

// checkInstantiate checks an instantiating event-based gateway or receive
// task: it starts the process, so it sits at process level and has no
// incoming sequence flow.
func (p *parser) checkInstantiate(c *container, n *nodeInfo) {
	if !n.supported || !n.node.Instantiate {
		return
	}
	label := p.label(n.el)
	if c.proc == nil {
		p.problems.add(label, RuleStartShape, "an instantiating %s starts a process; inside %s nothing is started by it (use a None start event there)",
			n.node.Kind, p.where(c.g))
		return
	}
	if n.incomingRefs > 0 {
		p.problems.add(label, RuleStartShape, "an instantiating %s starts the process and has no incoming sequence flow, has %d",
			n.node.Kind, n.incomingRefs)
	}
}

// instantiatingStarts returns the nodes an instance starts at for the
// instantiating gateways and receive tasks inst: the catch events (or
// receive tasks) after a gateway, the receive task itself. Their timers
// are scheduled at deployment, like those of timer start events, so they
// must be literal.
func (p *parser) instantiatingStarts(inst []*Node) []*Node {
	var out []*Node
	add := func(n *Node) {
		if n.Event == nil {
			return // checkEventGateway reports it
		}
		p.literalStartTimer(n.ID, n)
		out = append(out, n)
	}
	for _, n := range inst {
		if n.Kind == KindReceiveTask {
			add(n)
			continue
		}
		for _, f := range n.Outgoing {
			if eventGatewayTarget(f.Target) {
				add(f.Target)
			}
		}
	}
	return out
}

// isEvent reports whether k is an event kind.
func isEvent(k NodeKind) bool {
	switch k {
	case KindStartEvent, KindEndEvent, KindIntermediateCatchEvent, KindIntermediateThrowEvent, KindBoundaryEvent:
		return true
	}
	return false
}

// checkCondition rejects conditions where BPMN does not evaluate them.
func (p *parser) checkCondition(f *flowInfo) {
	if !f.hasCondition || f.flow.Source == nil {
		return
	}
	src := f.flow.Source
	switch {
	case src.Kind == KindParallelGateway:
		p.problems.add(f.label, RuleConditionNotAllowed, "a sequence flow leaving parallel gateway %q must not have a condition", src.ID)
	case src.Kind == KindEventBasedGateway:
		p.problems.add(f.label, RuleConditionNotAllowed, "a sequence flow leaving event-based gateway %q must not have a condition", src.ID)
	case isEvent(src.Kind):
		p.problems.add(f.label, RuleConditionNotAllowed, "a sequence flow leaving event %q must not have a condition", src.ID)
	}
}

// checkEventSubFlow rejects a sequence flow into or out of an event
// sub-process (docs/scopes.md#boundary-events-and-event-sub-processes): it is started by its trigger only and ends
// without leaving a token behind.
func (p *parser) checkEventSubFlow(f *flowInfo) {
	if s := f.flow.Source; s != nil && s.TriggeredByEvent {
		p.problems.add(f.label, RuleEventFlow, "sequence flow leaves event sub-process %q; an event sub-process has no incoming or outgoing sequence flows", s.ID)
	}
	if t := f.flow.Target; t != nil && t.TriggeredByEvent {
		p.problems.add(f.label, RuleEventFlow, "sequence flow leads into event sub-process %q; an event sub-process has no incoming or outgoing sequence flows", t.ID)
	}
}

// eventSubShape checks the graph of an event sub-process (docs/scopes.md#boundary-events-and-event-sub-processes):
// exactly one start event, which event has checked to carry a single
// supported trigger, and no other node without incoming flows (nothing
// seeds them). It fills the owner's Trigger and Interrupting; Graph.Starts
// stays empty.
func (p *parser) eventSubShape(c *container) {
	var starts []*nodeInfo
	var flowless []*nodeInfo
	for _, n := range c.all {
		switch {
		case n.el.Tag == "startEvent":
			starts = append(starts, n)
		case !n.supported, isEvent(n.node.Kind), n.node.TriggeredByEvent, n.node.ForCompensation:
		case n.incomingRefs == 0:
			flowless = append(flowless, n)
		}
	}
	switch {
	case len(starts) == 0:
		p.problems.add(c.id, RuleStartShape, "event sub-process %q has no start event; it needs exactly one triggered start event", c.id)
	case len(starts) > 1:
		labels := make([]string, len(starts))
		for i, s := range starts {
			labels[i] = p.label(s.el)
		}
		p.problems.add(c.id, RuleStartShape, "event sub-process %q has %d start events (%s); it needs exactly one triggered start event",
			c.id, len(starts), strings.Join(labels, ", "))
	case !starts[0].supported:
		// The start event is already reported.
	default:
		owner, start := c.g.Owner, starts[0].node
		owner.Trigger, owner.Interrupting = start, starts[0].interrupting
		for _, n := range flowless {
			p.problems.add(p.label(n.el), RuleStartShape,
				"%s has no incoming sequence flow, but event sub-process %q starts at %q; nothing would ever start it",
				n.node.Kind, c.id, start.ID)
		}
	}
}

// checkShape computes Graph.Starts and Process.EventStarts and checks the
// instantiation shape of docs/scopes.md#instantiation. Only activities and gateways count as
// flow-less nodes: events never get a token by seeding, and neither do
// event sub-processes, which only their trigger starts.
func (p *parser) checkShape(c *container) {
	var starts, eventStarts []*Node
	var flowless []*nodeInfo
	var inst []*Node // instantiating gateways and receive tasks
	triggered := false
	for _, n := range c.all {
		if n.triggeredStart || (!n.supported && n.el.Tag == "startEvent") {
			triggered = true
		}
		if !n.supported {
			continue
		}
		switch {
		case n.node.Kind == KindStartEvent && n.node.Event == nil:
			starts = append(starts, n.node)
		case n.node.Kind == KindStartEvent:
			eventStarts = append(eventStarts, n.node)
		case n.node.Instantiate:
			inst = append(inst, n.node)
		case isEvent(n.node.Kind), n.node.TriggeredByEvent, n.node.ForCompensation:
			// Compensation handlers run only when their activity is compensated.
		case n.incomingRefs == 0:
			flowless = append(flowless, n)
		}
	}
	if len(inst) > 0 && c.proc != nil {
		if len(starts) > 0 {
			p.problems.add(c.id, RuleStartShape, "%s has a None start event %q and instantiating %s %q; an instance starts either way, never both",
				p.where(c.g), starts[0].ID, inst[0].Kind, inst[0].ID)
		}
		eventStarts = append(eventStarts, p.instantiatingStarts(inst)...)
	}
	switch {
	case len(starts) > 1:
		p.problems.add(c.id, RuleStartShape, "%s has %d None start events (%s); at most one is allowed",
			p.where(c.g), len(starts), ids(starts))
	case len(starts) == 1 || len(eventStarts) > 0:
		first := append(starts[:len(starts):len(starts)], eventStarts...)[0]
		for _, n := range flowless {
			kind := "None start event"
			switch {
			case first.Kind != KindStartEvent:
				kind = "instantiating event"
			case first.Event != nil:
				kind = string(first.Event.Kind) + " start event"
			}
			p.problems.add(p.label(n.el), RuleStartShape,
				"%s has no incoming sequence flow, but %s also has %s %q; a start event mixed with flow-less nodes is rejected",
				n.node.Kind, p.where(c.g), kind, first.ID)
		}
		c.g.Starts = starts
		if c.proc != nil {
			c.proc.EventStarts = eventStarts
		}
	case triggered:
		// The unsupported start event is already reported.
	case len(flowless) == 0:
		p.problems.add(c.id, RuleStartShape, "%s has no start event and no activity or gateway without incoming flows", p.where(c.g))
	default:
		for _, n := range flowless {
			c.g.Starts = append(c.g.Starts, n.node)
		}
	}
}

func ids(ns []*Node) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = n.ID
	}
	return strings.Join(s, ", ")
}

// checkIDs reports duplicate ids among the BPMN elements of the document,
// and every gobpm element or attribute the parser does not know.
func (p *parser) checkIDs(root *etree.Element) {
	seen := make(map[string]*etree.Element)
	var walk func(e *etree.Element)
	walk = func(e *etree.Element) {
		if isBPMN(e) {
			if id := strings.TrimSpace(attr(e, "id")); id != "" {
				p.ids[id] = true
				if first, dup := seen[id]; dup {
					p.problems.add(id, RuleDuplicateID, "id %q is used by %s (line %d) and %s (line %d)",
						id, first.Tag, p.lines[first], e.Tag, p.lines[e])
				} else {
					seen[id] = e
					p.checkID(e.Tag, id)
				}
			}
			if e.Tag == "extensionElements" {
				p.vendorExtensions(e)
			}
			p.vendorAttrs(e)
		} else if e.NamespaceURI() == NamespaceGobpm {
			// gobpm:input and gobpm:output belong in <extensionElements>;
			// vendorExtensions checks the element holding them.
			if par := e.Parent(); !(gobpmMappings[e.Tag] || e.Tag == "webhook") || par == nil || !isBPMN(par) || par.Tag != "extensionElements" {
				p.problems.add(p.label(e), RuleUnknownExtension, "unknown gobpm element %q", e.Tag)
			}
			return
		}
		p.checkExtensions(e)
		for _, c := range e.ChildElements() {
			walk(c)
		}
	}
	walk(root)
}

// refusedExtension is a Camunda 7 or 8 extension element with execution
// semantics gobpm does not have: accepting the model would silently drop
// them.
type refusedExtension struct {
	ns, tag string
	// name is the conventional prefixed name, hint what to do instead.
	name, hint string
}

// refusedExtensions lists the vendor extension elements Parse refuses
// wherever they appear. Purely descriptive ones (camunda:formData,
// camunda:properties, zeebe:userTaskForm, zeebe:formDefinition, …) are
// accepted and ignored: they describe forms and metadata for a UI, and
// gobpm has no form service whose behaviour they could change.
var refusedExtensions = []refusedExtension{
	{NamespaceCamunda, "executionListener", "camunda:executionListener", "Java, expression and script listeners (class, delegateExpression, expression, script) are not supported; use zeebe:executionListener (eventType start or end, a job of type for a job worker) on the flow node"},
	{NamespaceCamunda, "taskListener", "camunda:taskListener", "Java, expression and script listeners (class, delegateExpression, expression, script) are not supported; use zeebe:taskListener (eventType assigning or completing, a job of type for a job worker) in zeebe:taskListeners on the user task"},
	{NamespaceCamunda, "field", "camunda:field", "field injection into Java classes is not supported; pass values as variables"},
	{NamespaceCamunda, "errorEventDefinition", "camunda:errorEventDefinition", "mapping external task failures to BPMN errors by expression is not supported; let the worker throw the BPMN error"},
}

// vendorExtensions reports the refused vendor extension elements directly
// inside the BPMN <extensionElements> x, naming the element that holds x.
// Variable mappings (camunda:inputOutput, zeebe:ioMapping, gobpm:input,
// gobpm:output) are read by the flow node holding them (nodeMappings) and
// refused anywhere else; camunda:in and camunda:out belong to call
// activities (callActivity reads them).
func (p *parser) vendorExtensions(x *etree.Element) {
	owner := x.Parent()
	if owner == nil {
		return
	}
	for _, c := range x.ChildElements() {
		ns := c.NamespaceURI()
		switch {
		case (ns == NamespaceCamunda && c.Tag == "inputOutput") || (ns == NamespaceZeebe && c.Tag == "ioMapping") ||
			(ns == NamespaceGobpm && gobpmMappings[c.Tag]):
			if !mappingOwner(owner) {
				p.problems.add(p.label(owner), RuleUnsupported, "%s on %s is not supported: variable mappings belong on activities and events; %s", qualified(c), owner.Tag, mappingHint)
			}
			continue
		case ns == NamespaceGobpm && c.Tag == "webhook":
			p.gobpmWebhook(owner, c)
			continue
		case ns == NamespaceGobpm:
			continue // an unknown gobpm element: checkIDs reports it
		case ns == NamespaceCamunda && c.Tag == retryCycleTag:
			p.retryCycleOwners = append(p.retryCycleOwners, owner) // read by job, checked by checkRetryCycles
			continue
		case ns == NamespaceZeebe && c.Tag == "executionListeners":
			if !isBPMN(owner) || !listenerHosts[owner.Tag] {
				p.problems.add(p.label(owner), RuleUnsupported,
					"zeebe:executionListeners on %s is not supported: gobpm runs execution listeners of flow nodes only; model the work as a service task (a job worker)", owner.Tag)
			}
			continue // a flow node's: read by flowNode (nodeListeners)
		case ns == NamespaceZeebe && c.Tag == "taskListeners":
			if !isBPMN(owner) || owner.Tag != "userTask" {
				p.problems.add(p.label(owner), RuleUnsupported,
					"zeebe:taskListeners on %s is not supported: task listeners belong on user tasks; use zeebe:executionListeners", owner.Tag)
			}
			continue // a user task's: read by flowNode (taskListeners)
		case ns == NamespaceZeebe && c.Tag == "taskHeaders":
			p.headerOwners = append(p.headerOwners, owner) // read by job, checked by checkHeaders
			continue
		case ns == NamespaceCamunda && (c.Tag == "in" || c.Tag == "out"):
			if !isBPMN(owner) || owner.Tag != "callActivity" {
				p.problems.add(p.label(owner), RuleUnsupported,
					"camunda:%s on %s is not supported: gobpm passes variables with camunda:in/camunda:out only on call activities (passing variables with a signal is not supported; set them on the instance first)", c.Tag, owner.Tag)
			}
			continue
		}
		refused := false
		for _, r := range refusedExtensions {
			if c.Tag == r.tag && ns == r.ns {
				refused = true
				p.problems.add(p.label(owner), RuleUnsupported, "%s on %s is not supported: %s", r.name, owner.Tag, r.hint)
			}
		}
		if !refused {
			p.otherVendorExtension(owner, c)
		}
	}
}

// checkHeaders refuses zeebe:taskHeaders on an element that creates no job:
// the headers reach job workers only, so anywhere else they would be
// dropped.
func (p *parser) checkHeaders() {
	for _, owner := range p.headerOwners {
		if !p.jobOwners[owner] {
			p.problems.add(p.label(owner), RuleUnsupported,
				"zeebe:taskHeaders on %s is not supported: custom headers reach the workers of jobs, and a %s creates no job; pass the values as variables (an input mapping)", owner.Tag, owner.Tag)
		}
	}
}
