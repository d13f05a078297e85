package bpmn

import (
	"strings"

	"github.com/beevik/etree"
)

// compRef is the activityRef of a compensation throw event, resolved by
// checkCompensation once every node is known.
type compRef struct {
	info *nodeInfo
	ref  string
}

// compensateDef reads a compensateEventDefinition (docs/scopes.md#tracks) into ev. A
// throw may name one activity to compensate (activityRef, resolved by
// checkCompensation; none: the whole scope) and whether its token waits
// for the handlers (waitForCompletion, default true). On a catch — a
// compensation boundary event or the start of a compensation event
// sub-process — neither attribute means anything: activityRef is refused
// there, and so is waitForCompletion on a boundary event; on the start of
// a compensation event sub-process waitForCompletion is ignored with a
// warning (Definitions.Warnings), as Camunda 7 ignores it.
func (p *parser) compensateDef(e, def *etree.Element, ev *EventDef) {
	p.common(def)
	ev.WaitForCompletion = p.boolAttr(def, "waitForCompletion", true)
	if !isCatch(e.Tag) {
		return
	}
	ev.WaitForCompletion = false
	for _, a := range []string{"activityRef", "waitForCompletion"} {
		if def.SelectAttr(a) == nil {
			continue
		}
		if a == "waitForCompletion" && e.Tag == "startEvent" {
			p.warnings.add(p.label(e), RuleInvalidCompensation,
				"waitForCompletion on the compensation start event of an event sub-process is ignored: only a compensation throw event waits for its handlers")
			continue
		}
		p.problems.add(p.label(e), RuleInvalidCompensation,
			"%s on the compensateEventDefinition of a %s is not allowed: only a compensation throw event names an activity or waits", a, e.Tag)
	}
}

// isTrigger reports whether n is an event carrying trigger kind.
func isTrigger(n *Node, kind TriggerKind) bool {
	return n.Event != nil && n.Event.Kind == kind
}

// checkCompensation wires and checks compensation and transactions
// (docs/scopes.md#tracks), after flows, boundary events and event sub-process
// triggers are resolved:
//   - a compensation boundary event has no outgoing sequence flow and
//     exactly one association to an isForCompensation activity of its
//     container, which becomes its host's CompensatedBy; an activity has
//     at most one;
//   - a compensation handler has no sequence flows and no boundary events
//     and is the handler of a compensation boundary event (nothing else
//     would ever start it);
//   - a compensation event sub-process sits in a sub-process or
//     transaction (never at process level), at most one per container, and
//     never next to a compensation boundary event on its container;
//   - an activityRef names an activity of the throw's own level, or, for a
//     throw inside an event sub-process, of the level the event
//     sub-process belongs to;
//   - a cancel end event sits directly in a transaction that has a cancel
//     boundary event; a cancel boundary event sits on a transaction, at
//     most one per transaction.
//
// Compensation inside an ad-hoc sub-process is not supported yet.
func (p *parser) checkCompensation() {
	handlerOf := map[*Node]*Node{} // handler activity → its boundary event
	for _, c := range p.containers {
		for _, n := range c.all {
			if !n.supported {
				continue
			}
			node, label := n.node, p.label(n.el)
			adhoc := c.adhoc || (c.g.Owner != nil && c.g.Owner.Kind == KindAdHocSubProcess)
			switch {
			case node.Kind == KindBoundaryEvent && isTrigger(node, TriggerCompensation):
				if adhoc {
					p.problems.add(label, RuleUnsupported, "compensation inside ad-hoc sub-process %q is not supported yet", c.id)
					continue
				}
				p.compensationBoundary(n, handlerOf)
			case node.Kind == KindBoundaryEvent && isTrigger(node, TriggerCancel):
				host := node.AttachedTo
				if host == nil {
					continue // attach reported it
				}
				if host.Kind != KindTransaction {
					p.problems.add(label, RuleInvalidCompensation, "a cancel boundary event attaches to a transaction, not to %s %q", host.Kind, host.ID)
					continue
				}
				for _, b := range host.Boundaries {
					if b != node && isTrigger(b, TriggerCancel) {
						p.problems.add(label, RuleInvalidCompensation, "transaction %q has several cancel boundary events (%s, %s); it may have one", host.ID, b.ID, node.ID)
						break
					}
				}
			case node.Kind == KindEndEvent && isTrigger(node, TriggerCancel):
				tx := c.g.Owner
				if tx == nil || tx.Kind != KindTransaction {
					p.problems.add(label, RuleInvalidCompensation, "a cancel end event must sit directly inside a transaction, not in %s", p.where(c.g))
					continue
				}
				if !hasCancelBoundary(tx) {
					p.problems.add(label, RuleInvalidCompensation, "transaction %q has a cancel end event but no cancel boundary event to leave by", tx.ID)
				}
			case node.TriggeredByEvent && node.Trigger != nil && isTrigger(node.Trigger, TriggerCompensation):
				owner := c.g.Owner
				switch {
				case owner == nil:
					p.problems.add(label, RuleInvalidCompensation, "a compensation event sub-process belongs in a sub-process or transaction, not at process level (%s)", p.where(c.g))
				case owner.CompensationSub != nil:
					p.problems.add(label, RuleInvalidCompensation, "%s has several compensation event sub-processes (%s, %s); it may have one", p.where(c.g), owner.CompensationSub.ID, node.ID)
				default:
					owner.CompensationSub = node
				}
			}
			if node.ForCompensation {
				switch {
				case adhoc:
					p.problems.add(label, RuleUnsupported, "compensation inside ad-hoc sub-process %q is not supported yet", c.id)
				case node.TriggeredByEvent && (node.Trigger == nil || !isTrigger(node.Trigger, TriggerCompensation)):
					p.problems.add(label, RuleInvalidCompensation, "only a compensation event sub-process can be a compensation handler (isForCompensation); %q does not start with a compensation start event", node.ID)
				case node.TriggeredByEvent:
					// A compensation event sub-process is its container's
					// compensation handler: isForCompensation="true" only
					// says so (Camunda 7's models carry it).
				case len(node.Incoming) > 0 || len(node.Outgoing) > 0 || n.incomingRefs > 0:
					p.problems.add(label, RuleInvalidCompensation, "compensation handler %q must not have sequence flows: it runs only when its activity is compensated", node.ID)
				case len(node.Boundaries) > 0:
					p.problems.add(label, RuleInvalidCompensation, "compensation handler %q must not have boundary events", node.ID)
				}
			}
		}
	}
	for _, c := range p.containers {
		for _, n := range c.all {
			if !n.supported {
				continue
			}
			node := n.node
			if node.ForCompensation && handlerOf[node] == nil && !node.TriggeredByEvent && !c.adhoc {
				p.problems.add(p.label(n.el), RuleInvalidCompensation,
					"compensation handler %q is not associated with a compensation boundary event: nothing would ever start it", node.ID)
			}
			if node.CompensationSub != nil {
				for _, b := range node.Boundaries {
					if isTrigger(b, TriggerCompensation) {
						p.problems.add(p.label(n.el), RuleInvalidCompensation,
							"%s %q has both a compensation boundary event (%s) and a compensation event sub-process (%s); give it one",
							node.Kind, node.ID, b.ID, node.CompensationSub.ID)
					}
				}
			}
		}
	}
	for _, r := range p.compRefs {
		p.resolveActivityRef(r)
	}
}

// hasCancelBoundary reports whether transaction tx has a cancel boundary event.
func hasCancelBoundary(tx *Node) bool {
	for _, b := range tx.Boundaries {
		if isTrigger(b, TriggerCancel) {
			return true
		}
	}
	return false
}

// compensationBoundary checks compensation boundary event n and wires its
// host to the handler activity its association names.
func (p *parser) compensationBoundary(n *nodeInfo, handlerOf map[*Node]*Node) {
	b, label := n.node, p.label(n.el)
	if len(b.Outgoing) > 0 {
		p.problems.add(label, RuleEventFlow, "a compensation boundary event must not have outgoing sequence flows; its handler is attached by an association")
	}
	var handlers []*nodeInfo
	for _, a := range p.assocs {
		if a.source != b.ID {
			continue
		}
		t := p.nodes[a.target]
		switch {
		case t == nil:
			p.problems.add(a.label, RuleMissingReference, "association from %q: targetRef %q names no flow node", b.ID, a.target)
		case !t.node.IsActivity() || !t.node.ForCompensation:
			p.problems.add(label, RuleInvalidCompensation, "the association from compensation boundary event %q leads to %s %q, which is not a compensation handler (isForCompensation=\"true\")", b.ID, t.node.Kind, t.node.ID)
		case t.g != n.g:
			p.problems.add(label, RuleInvalidCompensation, "compensation handler %q is in %s; it must sit next to its boundary event in %s", t.node.ID, p.where(t.g), p.where(n.g))
		default:
			handlers = append(handlers, t)
		}
	}
	host := b.AttachedTo
	switch {
	case len(handlers) == 0:
		p.problems.add(label, RuleInvalidCompensation, "compensation boundary event %q needs an association to its compensation handler (an activity with isForCompensation=\"true\")", b.ID)
	case len(handlers) > 1:
		p.problems.add(label, RuleInvalidCompensation, "compensation boundary event %q is associated with %d handlers; it needs exactly one", b.ID, len(handlers))
	case host == nil:
		// attach reported it
	case host.CompensatedBy != nil:
		p.problems.add(label, RuleInvalidCompensation, "%s %q has several compensation boundary events; it may have one", host.Kind, host.ID)
	default:
		h := handlers[0].node
		if other := handlerOf[h]; other != nil {
			p.problems.add(label, RuleInvalidCompensation, "compensation handler %q is associated with both %q and %q; it handles one", h.ID, other.ID, b.ID)
			return
		}
		handlerOf[h] = b
		host.CompensatedBy = h
	}
}

// resolveActivityRef resolves a compensation throw's activityRef: an
// activity of the throw's level, or, inside an event sub-process, of the
// level the event sub-process belongs to (it compensates that scope).
func (p *parser) resolveActivityRef(r compRef) {
	n, label := r.info.node, p.label(r.info.el)
	ref := strings.TrimSpace(r.ref)
	allowed := r.info.g
	if o := allowed.Owner; o != nil && o.TriggeredByEvent {
		allowed = o.Parent
	}
	t := p.nodes[ref]
	switch {
	case t == nil:
		p.problems.add(label, RuleInvalidCompensation, "activityRef %q names no activity", ref)
	case !t.supported:
		// reported already
	case !t.node.IsActivity() || t.node.ForCompensation || t.node.TriggeredByEvent:
		p.problems.add(label, RuleInvalidCompensation, "activityRef %q names %s %q; a compensation throw names an activity that can complete", ref, t.node.Kind, t.node.ID)
	case t.g != allowed:
		p.problems.add(label, RuleInvalidCompensation, "activityRef %q names an activity in %s; a compensation throw compensates activities of its own scope (%s)", ref, p.where(t.g), p.where(allowed))
	default:
		n.Event.Activity = t.node
	}
}

// concurrentCompensation reads how the handlers of process e's compensation
// throws run (Process.ConcurrentCompensation): gobpm:compensation
// "concurrent" or "sequential"; without it, concurrently when the document
// declares the Camunda 7 or Camunda 8 namespace, as Camunda starts them.
func (p *parser) concurrentCompensation(e *etree.Element) bool {
	if v, ok := nsAttr(e, NamespaceGobpm, "compensation"); ok {
		switch strings.TrimSpace(v) {
		case "concurrent":
			return true
		case "sequential":
			return false
		default:
			p.problems.add(p.label(e), RuleInvalidAttribute, "gobpm:compensation=%q: want \"concurrent\" (handlers start together) or \"sequential\" (one at a time, the latest completion first)", v)
			return false
		}
	}
	for el := e; el != nil; el = el.Parent() {
		for _, a := range el.Attr {
			if (a.Space == "xmlns" || (a.Space == "" && a.Key == "xmlns")) && (a.Value == NamespaceCamunda || a.Value == NamespaceZeebe) {
				return true
			}
		}
	}
	return false
}
