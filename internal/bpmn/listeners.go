package bpmn

import (
	"strconv"
	"strings"

	"github.com/beevik/etree"
	"github.com/gobpm/gobpm/internal/expr"
)

// ListenerEvent is the lifecycle point of an element an execution
// listener runs at (Camunda 8.6's zeebe:executionListener eventType).
type ListenerEvent string

// The execution listener events: ListenerStart runs before the element
// starts, ListenerEnd after it completes.
const (
	ListenerStart ListenerEvent = "start"
	ListenerEnd   ListenerEvent = "end"
)

// Listener is one execution listener of an element: a job of type Type
// (or TypeExpr, evaluated when the job is created) with Retries attempts,
// run at Event, the element waiting for it. An element's listeners run
// in document order, each after the one before completes.
type Listener struct {
	Event ListenerEvent
	// Type is the job type, "" when TypeExpr gives it.
	Type string
	// TypeExpr is set when the type is an expression (=… or ${…}).
	TypeExpr expr.Expression
	// Retries is the listener job's retry budget.
	Retries int
}

// executionListeners reads the zeebe:executionListener children of c, a
// zeebe:executionListeners element inside the extension elements of
// owner, reporting each malformed one. retries="" (as the Camunda
// Modeler writes for a blank field) takes DefaultJobRetries, as Zeebe
// does.
func (p *parser) executionListeners(owner, c *etree.Element) []Listener {
	label := p.label(owner)
	var out []Listener
	for _, l := range c.ChildElements() {
		if l.NamespaceURI() != NamespaceZeebe || l.Tag != "executionListener" {
			p.problems.add(label, RuleUnsupported, "%s inside zeebe:executionListeners on %s is not supported: only zeebe:executionListener", qualified(l), owner.Tag)
			continue
		}
		li := Listener{Retries: DefaultJobRetries}
		ok := true
		switch ev := ListenerEvent(strings.TrimSpace(attr(l, "eventType"))); ev {
		case ListenerStart, ListenerEnd:
			li.Event = ev
		case "":
			ok = false
			p.problems.add(label, RuleMissingAttribute, "zeebe:executionListener on %s needs an eventType (start or end)", owner.Tag)
		default:
			ok = false
			p.problems.add(label, RuleInvalidAttribute, "zeebe:executionListener eventType=%q on %s: want start or end", ev, owner.Tag)
		}
		typ := strings.TrimSpace(attr(l, "type"))
		switch {
		case typ == "":
			ok = false
			p.problems.add(label, RuleMissingAttribute, "zeebe:executionListener on %s needs a job type (type)", owner.Tag)
		case isExpression(typ):
			if b := p.binding(label, source{"zeebe:executionListener type", typ}); b != nil {
				li.TypeExpr = b.Expr
			} else {
				ok = false
			}
		default:
			li.Type = typ
		}
		if r := strings.TrimSpace(attr(l, "retries")); r != "" {
			n, err := strconv.Atoi(r)
			if err != nil || n < 0 {
				ok = false
				p.problems.add(label, RuleInvalidAttribute, "zeebe:executionListener retries=%q on %s: want an integer >= 0", r, owner.Tag)
			}
			li.Retries = n
		}
		if ok {
			out = append(out, li)
		}
	}
	return out
}

// listenerHosts are the BPMN elements whose zeebe:executionListeners
// nodeListeners reads; anywhere else (process, sequence flow, …)
// vendorExtensions refuses them.
var listenerHosts = map[string]bool{
	"startEvent": true, "endEvent": true, "intermediateCatchEvent": true, "intermediateThrowEvent": true, "boundaryEvent": true,
	"task": true, "manualTask": true, "scriptTask": true, "subProcess": true, "serviceTask": true, "sendTask": true,
	"userTask": true, "receiveTask": true, "businessRuleTask": true, "callActivity": true, "adHocSubProcess": true,
	"transaction": true, "exclusiveGateway": true, "inclusiveGateway": true, "parallelGateway": true, "eventBasedGateway": true,
}

// noStartListener names, per element, why gobpm refuses a start execution
// listener on it: where Camunda 8 has none (start and boundary events,
// which are triggered rather than entered) and where gobpm does not yet
// run one exactly as Camunda does (a joining gateway would run it per
// arriving token, a catch event may be armed by an event-based gateway
// instead of being entered).
var noStartListener = map[string]string{
	"startEvent":             "a start event is triggered, not entered: Camunda 8 runs only end listeners on it",
	"boundaryEvent":          "a boundary event is triggered, not entered: Camunda 8 runs only end listeners on it",
	"parallelGateway":        "gobpm would run it once per arriving token, not once when the gateway joins",
	"inclusiveGateway":       "gobpm would run it once per arriving token, not once when the gateway joins",
	"intermediateCatchEvent": "a catch event after an event-based gateway is armed by the gateway, not entered",
	"receiveTask":            "a receive task after an event-based gateway is armed by the gateway, not entered",
}

// noEndListener names, per element, why gobpm refuses an end execution
// listener on it: where Camunda 8 has none (gateways, whose end logic
// belongs in a start listener of the element after them) and where an
// element ends by something other than leaving (listenerEndBlocked).
var noEndListener = map[string]string{
	"exclusiveGateway":  "Camunda 8 runs no end listeners on gateways; put a start listener on the element after it",
	"inclusiveGateway":  "Camunda 8 runs no end listeners on gateways; put a start listener on the element after it",
	"parallelGateway":   "Camunda 8 runs no end listeners on gateways; put a start listener on the element after it",
	"eventBasedGateway": "Camunda 8 runs no end listeners on gateways; put a start listener on the element after it",
}

// endListenerBlocked says why node n (element e) cannot run end
// listeners, or "": an error end event ends its scope by the error
// (Camunda 8 refuses them; put them on the catching event), an
// escalation throw may be cancelled by an interrupting catch before its
// end listeners (Camunda 8 skips them then; gobpm refuses rather than run
// them sometimes), a compensation boundary event is never left, and a
// cancel or compensation end event ends by a handler, not by leaving.
func endListenerBlocked(e *etree.Element, n *Node) string {
	if n.Event == nil {
		return ""
	}
	switch {
	case n.Event.Find(TriggerError) != nil && e.Tag == "endEvent":
		return "an error end event ends its scope by the error: Camunda 8 runs no end listeners on it; put them on the event that catches the error"
	case n.Event.Find(TriggerEscalation) != nil && e.Tag != "boundaryEvent":
		return "an interrupting catch of the escalation would cancel it before its end listeners, which Camunda 8 then skips; put them on the event that catches the escalation"
	case n.Event.Find(TriggerCompensation) != nil:
		return "a compensation event is completed by its handlers: put the listeners on the compensation handler"
	case n.Event.Find(TriggerCancel) != nil && e.Tag == "endEvent":
		return "a cancel end event ends by cancelling its transaction"
	}
	return ""
}

// nodeListeners reads the execution listeners of flow node n (element e)
// and returns its start and its end listeners, refusing, with the element
// named, every listener gobpm does not run exactly as Camunda 8 does:
// start listeners on the elements of noStartListener, end listeners on
// those of noEndListener or endListenerBlocked, and either on
// multi-instance and loop activities, compensation handlers, event
// sub-processes and the inner activities of an ad-hoc sub-process
// (inAdHoc), whose entering and leaving differ from a plain element's.
func (p *parser) nodeListeners(e *etree.Element, n *Node, inAdHoc bool) (start, end []Listener) {
	c := extension(e, NamespaceZeebe, "executionListeners")
	if c == nil {
		return nil, nil
	}
	label := p.label(e)
	seen := map[string]bool{}
	for _, l := range p.executionListeners(e, c) {
		if l.TypeExpr == nil {
			key := string(l.Event) + "\x00" + l.Type
			if seen[key] {
				p.problems.add(label, RuleInvalidAttribute, "%s has two %s execution listeners of type %q: Camunda 8 requires each eventType and type pair once", e.Tag, l.Event, l.Type)
				continue
			}
			seen[key] = true
		}
		var why string
		if l.Event == ListenerEnd {
			why = noEndListener[e.Tag]
			if why == "" {
				why = endListenerBlocked(e, n)
			}
		} else {
			why = noStartListener[e.Tag]
		}
		switch {
		case why != "":
		case n.Loop != nil:
			why = "a loop or multi-instance activity would need a listener per inner instance"
		case n.ForCompensation:
			why = "a compensation handler is started by compensation, not entered"
		case n.TriggeredByEvent:
			why = "an event sub-process is started by its start event, not entered"
		case inAdHoc:
			why = "the inner activities of an ad-hoc sub-process are started by its router"
		}
		if why != "" {
			p.problems.add(label, RuleUnsupported, "a%s %s execution listener on %s is not supported: %s", map[bool]string{true: "n", false: ""}[l.Event == ListenerEnd], l.Event, e.Tag, why)
			continue
		}
		if l.Event == ListenerEnd {
			end = append(end, l)
		} else {
			start = append(start, l)
		}
	}
	return start, end
}

// The user task listener events gobpm runs (Camunda 8.8's
// zeebe:taskListener eventType): ListenerAssigning runs when a task's
// assignee is to change (a claim), ListenerCompleting when it is to be
// completed. The change applies only after the last listener's job
// completed; a listener may deny it or correct the task.
const (
	ListenerAssigning  ListenerEvent = "assigning"
	ListenerCompleting ListenerEvent = "completing"
)

// refusedTaskEvents names why gobpm refuses the other Camunda 8.8 task
// listener events.
var refusedTaskEvents = map[string]string{
	"creating":  "gobpm does not run creating task listeners yet; use a start execution listener on the user task",
	"updating":  "gobpm has no task update operation that could run it",
	"canceling": "gobpm does not run canceling task listeners yet; use an end execution listener on the element after a boundary event",
}

// taskListeners reads the zeebe:taskListener children of c, a
// zeebe:taskListeners element of user task e, reporting each malformed
// or refused one, naming the element.
func (p *parser) taskListeners(e, c *etree.Element) []Listener {
	label := p.label(e)
	var out []Listener
	seen := map[string]bool{}
	for _, l := range c.ChildElements() {
		if l.NamespaceURI() != NamespaceZeebe || l.Tag != "taskListener" {
			p.problems.add(label, RuleUnsupported, "%s inside zeebe:taskListeners on %s is not supported: only zeebe:taskListener", qualified(l), e.Tag)
			continue
		}
		li := Listener{Retries: DefaultJobRetries}
		ok := true
		switch ev := strings.TrimSpace(attr(l, "eventType")); ev {
		case string(ListenerAssigning), string(ListenerCompleting):
			li.Event = ListenerEvent(ev)
		case "":
			ok = false
			p.problems.add(label, RuleMissingAttribute, "zeebe:taskListener on %s needs an eventType (assigning or completing)", e.Tag)
		default:
			ok = false
			why := refusedTaskEvents[ev]
			if why == "" {
				p.problems.add(label, RuleInvalidAttribute, "zeebe:taskListener eventType=%q on %s: want assigning or completing", ev, e.Tag)
			} else {
				p.problems.add(label, RuleUnsupported, "a %s task listener on %s is not supported: %s", ev, e.Tag, why)
			}
		}
		typ := strings.TrimSpace(attr(l, "type"))
		switch {
		case typ == "":
			ok = false
			p.problems.add(label, RuleMissingAttribute, "zeebe:taskListener on %s needs a job type (type)", e.Tag)
		case isExpression(typ):
			ok = false
			p.problems.add(label, RuleUnsupported, "zeebe:taskListener type=%q on %s is not supported: a task listener's job type must be a name (gobpm evaluates no expression for it)", typ, e.Tag)
		default:
			li.Type = typ
		}
		if r := strings.TrimSpace(attr(l, "retries")); r != "" {
			n, err := strconv.Atoi(r)
			if err != nil || n < 0 {
				ok = false
				p.problems.add(label, RuleInvalidAttribute, "zeebe:taskListener retries=%q on %s: want an integer >= 0", r, e.Tag)
			}
			li.Retries = n
		}
		if ok && li.TypeExpr == nil {
			key := string(li.Event) + "\x00" + li.Type
			if seen[key] {
				p.problems.add(label, RuleInvalidAttribute, "%s has two %s task listeners of type %q: Camunda 8 requires each eventType and type pair once", e.Tag, li.Event, li.Type)
				ok = false
			}
			seen[key] = true
		}
		if ok {
			out = append(out, li)
		}
	}
	return out
}
