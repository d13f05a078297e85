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
		}
		for _, f := range c.flows {
			p.checkCondition(f)
		}
		if c.checkShape {
			p.checkShape(c)
		}
	}
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

// checkEventFlows rejects flows into start events and out of end events.
func (p *parser) checkEventFlows(n *nodeInfo) {
	if !n.supported {
		return
	}
	switch n.node.Kind {
	case KindStartEvent:
		if len(n.node.Incoming) > 0 || n.incomingRefs > 0 {
			p.problems.add(p.label(n.el), RuleEventFlow, "a start event must not have incoming sequence flows")
		}
	case KindEndEvent:
		if len(n.node.Outgoing) > 0 {
			p.problems.add(p.label(n.el), RuleEventFlow, "an end event must not have outgoing sequence flows")
		}
	}
}

// checkCondition rejects conditions where BPMN does not evaluate them.
func (p *parser) checkCondition(f *flowInfo) {
	if !f.hasCondition || f.flow.Source == nil {
		return
	}
	switch f.flow.Source.Kind {
	case KindParallelGateway:
		p.problems.add(f.label, RuleConditionNotAllowed, "a sequence flow leaving parallel gateway %q must not have a condition", f.flow.Source.ID)
	case KindStartEvent, KindEndEvent:
		p.problems.add(f.label, RuleConditionNotAllowed, "a sequence flow leaving event %q must not have a condition", f.flow.Source.ID)
	}
}

// checkShape computes Graph.Starts and checks the instantiation shape of
// DESIGN §5.2.
func (p *parser) checkShape(c *container) {
	var starts []*Node
	var flowless []*nodeInfo
	triggered := false
	for _, n := range c.all {
		if n.triggeredStart {
			triggered = true
		}
		if !n.supported {
			continue
		}
		if n.node.Kind == KindStartEvent {
			starts = append(starts, n.node)
		} else if n.node.Kind != KindEndEvent && n.incomingRefs == 0 {
			flowless = append(flowless, n)
		}
	}
	switch {
	case len(starts) > 1:
		p.problems.add(c.id, RuleStartShape, "%s has %d None start events (%s); at most one is allowed",
			p.where(c.g), len(starts), ids(starts))
	case len(starts) == 1:
		for _, n := range flowless {
			p.problems.add(p.label(n.el), RuleStartShape,
				"%s has no incoming sequence flow, but %s also has None start event %q; a None start mixed with flow-less nodes is rejected",
				n.node.Kind, p.where(c.g), starts[0].ID)
		}
		c.g.Starts = starts
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
				if first, dup := seen[id]; dup {
					p.problems.add(id, RuleDuplicateID, "id %q is used by %s (line %d) and %s (line %d)",
						id, first.Tag, p.lines[first], e.Tag, p.lines[e])
				} else {
					seen[id] = e
				}
			}
		} else if e.NamespaceURI() == NamespaceGobpm {
			p.problems.add(p.label(e), RuleUnknownExtension, "unknown gobpm element %q", e.Tag)
			return
		}
		p.checkExtensions(e)
		for _, c := range e.ChildElements() {
			walk(c)
		}
	}
	walk(root)
}
