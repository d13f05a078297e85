package bpmn

import (
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gobpm/gobpm/internal/timer"
)

// Limits are the deployment-time limits of ParseWith: rules that depend on
// how the engine is configured, checked so that a deployment refuses a
// model the engine could not run instead of accepting it to fail later. The
// zero Limits checks none of them (Parse).
type Limits struct {
	// MinTimerPeriod is the shortest period a literal timeCycle may have:
	// the shortest time between two of its firings (timer.Spec.Period),
	// wherever the cycle sits (timer start events, boundary events, event
	// sub-process starts). A cycle below it is a RuleTimerTooFrequent
	// problem. 0 checks nothing.
	MinTimerPeriod time.Duration
	// MaxActivations is the engine's budget of element activations in one
	// step (engine.Options.MaxActivations). An element from which every
	// run of synchronous elements is longer than the budget before it
	// reaches a wait state or an end — a straight-through chain longer
	// than the budget, or a loop of synchronous elements with no way out
	// — can never be passed: it is a RuleStepBudget problem. 0 checks
	// nothing.
	MaxActivations int
	// Deployed says the document was accepted by an earlier deployment
	// and is read again (after a restart, or to start an instance of an
	// old version). The rules added after gobpm first shipped — the limits
	// above, which may have changed since, identifiers that must be XML
	// NCNames (RuleInvalidID) and expressions in process-level timer start
	// events — are not applied, so a definition that once deployed always
	// reads back and its instances run on.
	Deployed bool
}

// ParseWith is Parse with deployment-time limits: on top of every rule of
// Parse, a model that could not run within lim is refused with a problem
// naming the element and the limit.
func ParseWith(data []byte, lim Limits) (*Definitions, error) {
	return parse(data, lim)
}

// isNCName reports whether s is an XML non-colonised name (Namespaces in
// XML 1.0, production NCName, over the names of XML 1.0 fifth edition):
// what the BPMN schema's xsd:ID requires of an id.
func isNCName(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for i, r := range s {
		if !nameStartChar(r) && (i == 0 || !nameChar(r)) {
			return false
		}
	}
	return true
}

// nameStartChar is XML 1.0 (fifth edition) NameStartChar without ':'.
func nameStartChar(r rune) bool {
	switch {
	case r == '_', 'A' <= r && r <= 'Z', 'a' <= r && r <= 'z':
		return true
	case r < 0xC0:
		return false
	}
	return 0xC0 <= r && r <= 0xD6 || 0xD8 <= r && r <= 0xF6 || 0xF8 <= r && r <= 0x2FF ||
		0x370 <= r && r <= 0x37D || 0x37F <= r && r <= 0x1FFF || 0x200C <= r && r <= 0x200D ||
		0x2070 <= r && r <= 0x218F || 0x2C00 <= r && r <= 0x2FEF || 0x3001 <= r && r <= 0xD7FF ||
		0xF900 <= r && r <= 0xFDCF || 0xFDF0 <= r && r <= 0xFFFD || 0x10000 <= r && r <= 0xEFFFF
}

// nameChar is XML 1.0 (fifth edition) NameChar without ':'.
func nameChar(r rune) bool {
	return nameStartChar(r) || r == '-' || r == '.' || '0' <= r && r <= '9' || r == 0xB7 ||
		0x300 <= r && r <= 0x36F || 0x203F <= r && r <= 0x2040
}

// checkID reports an id that is not an NCName (RuleInvalidID). An id is
// what the API and the cockpit address a process or element by (a process
// key in a URL, an activity to activate, a diagram marker), and XML
// Schema's xsd:ID, which BPMN gives every id, is an NCName: "a/b c?d#e"
// deploys nowhere else either.
func (p *parser) checkID(tag, id string) {
	if p.limits.Deployed || isNCName(id) {
		return
	}
	why := "it must start with a letter or _ and hold only letters, digits, -, _ and ."
	for i, r := range id {
		switch {
		case r == utf8.RuneError:
			why = "it is not valid UTF-8"
		case i == 0 && !nameStartChar(r):
			why = fmt.Sprintf("it starts with %q; an id must start with a letter or _", r)
		case !nameChar(r) && unicode.IsSpace(r):
			why = fmt.Sprintf("it holds white space (%q at byte %d)", r, i)
		case !nameChar(r):
			why = fmt.Sprintf("it holds %q (byte %d); an id holds only letters, digits, -, _ and .", r, i)
		default:
			continue
		}
		break
	}
	p.problems.add(id, RuleInvalidID, "%s id %q is not an XML NCName: %s", tag, id, why)
}

// checkTimerFloor reports a literal cycle whose period is below
// Limits.MinTimerPeriod (RuleTimerTooFrequent).
func (p *parser) checkTimerFloor(label, tag, src string, spec timer.Spec) {
	floor := p.limits.MinTimerPeriod
	if floor <= 0 || p.limits.Deployed {
		return
	}
	if period, ok := spec.Period(); ok && period < floor {
		p.problems.add(label, RuleTimerTooFrequent,
			"%s %q fires every %v; the minimum timer period is %v (the timer floor: a cycle may fire at most once per %v)",
			tag, clip(src), period, floor, floor)
	}
}

// passThrough reports whether a track on n moves on within the same step
// (its activation counts against the step's budget and it continues along
// its outgoing flows) rather than waiting, ending or possibly joining. What
// is unsure counts as a stop, so checkStepBudget only refuses what can
// never run.
func passThrough(n *Node) bool {
	if n.Loop != nil || n.Job != nil {
		return false
	}
	switch n.Kind {
	case KindStartEvent, KindBoundaryEvent, KindTask, KindScriptTask, KindExclusiveGateway:
		return true
	case KindParallelGateway, KindInclusiveGateway:
		return len(n.Incoming) <= 1 // a join may wait for other tokens
	case KindIntermediateThrowEvent:
		return n.Event == nil || n.Event.Kind == TriggerSignal || n.Event.Kind == TriggerLink
	case KindIntermediateCatchEvent:
		return n.Event != nil && n.Event.Kind == TriggerLink
	}
	return false
}

// predecessors maps every node of g to the nodes a track reaches it from
// within one step: the sources of its incoming flows and, for a link catch
// event, its link throw events.
func predecessors(g *Graph) map[*Node][]*Node {
	pred := make(map[*Node][]*Node, len(g.Nodes))
	for _, n := range g.Nodes {
		for _, f := range n.Incoming {
			pred[n] = append(pred[n], f.Source)
		}
		if t := n.LinkTarget; t != nil {
			pred[t] = append(pred[t], n)
		}
	}
	return pred
}

// checkStepBudget refuses elements that can never be passed within
// Limits.MaxActivations activations (RuleStepBudget). For every node it
// computes the fewest activations a track starting there needs before it
// stops — at a wait state, an end, a join, anything but a pass-through
// element — by a breadth-first search backwards from the stops, over
// sequence flows and from link catch events to their throws. A
// pass-through element whose fewest exceed the budget fails every time a
// track reaches it: a straight-through chain longer than the budget, or a
// loop of synchronous elements with no way out. Only the first such element
// on each way in is reported (an element with no incoming flow, or one
// entered from a stop or from an element that has a shorter way out), not
// every element of the chain. A parallel fork running its branches in one
// step is counted by its shortest branch: a model that is merely expensive
// (an incident at run time) is not refused. Neither is a graph an
// interrupting conditional event can cut short within the step (a
// conditional event sub-process around it, a conditional boundary on a
// sub-process holding it): its variables may end any run (cut).
func (p *parser) checkStepBudget(g *Graph, cut bool) {
	budget := p.limits.MaxActivations
	if budget <= 0 || p.limits.Deployed {
		return
	}
	for _, esp := range g.EventSubs {
		if esp.Interrupting && esp.Trigger != nil && esp.Trigger.Event.Has(TriggerConditional) {
			cut = true
		}
	}
	if o := g.Owner; o != nil {
		for _, b := range o.Boundaries {
			if b.CancelActivity && b.Event.Has(TriggerConditional) {
				cut = true
			}
		}
	}
	for _, n := range g.Nodes {
		if n.Sub != nil {
			p.checkStepBudget(n.Sub, cut)
		}
	}
	if cut {
		return
	}
	pred := predecessors(g)
	fewest := make(map[*Node]int, len(g.Nodes))
	var queue []*Node
	for _, n := range g.Nodes {
		if !passThrough(n) || (len(n.Outgoing) == 0 && n.LinkTarget == nil) {
			fewest[n] = 1 // stops here (an activity without outgoing flows ends its track)
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, u := range pred[v] {
			if _, known := fewest[u]; known || !passThrough(u) {
				continue
			}
			fewest[u] = fewest[v] + 1
			queue = append(queue, u)
		}
	}
	over := func(n *Node) bool {
		k, known := fewest[n]
		return !known || k > budget
	}
	for _, n := range g.Nodes {
		if !passThrough(n) || !over(n) {
			continue
		}
		entry := len(pred[n]) == 0
		for _, u := range pred[n] {
			if !passThrough(u) || !over(u) {
				entry = true
			}
		}
		if !entry {
			continue
		}
		if k, known := fewest[n]; known {
			p.problems.add(n.ID, RuleStepBudget,
				"every run from %s %q passes at least %d elements before it waits or ends; one step activates at most %d (the step budget): a track reaching %q always stops in a step-budget incident",
				n.Kind, n.ID, k, budget, n.ID)
		} else {
			p.problems.add(n.ID, RuleStepBudget,
				"every run from %s %q loops through synchronous elements without reaching a wait state or an end; one step activates at most %d (the step budget): a track reaching %q always stops in a step-budget incident",
				n.Kind, n.ID, budget, n.ID)
		}
	}
}
