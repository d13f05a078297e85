package bpmn

import "github.com/beevik/etree"

// multipleTriggers lists, per event element, the definitions a multiple
// event (several event definitions) may combine. A catch fires on the
// first of them, a throw throws every one (BPMN 2.0.2 §10.5.1). The start
// event of an event sub-process combines eventSubMultiple instead.
var multipleTriggers = map[string][]TriggerKind{
	"startEvent":             {TriggerMessage, TriggerTimer, TriggerSignal},
	"intermediateCatchEvent": {TriggerMessage, TriggerTimer, TriggerSignal, TriggerConditional},
	"boundaryEvent":          {TriggerMessage, TriggerTimer, TriggerSignal, TriggerConditional, TriggerError, TriggerEscalation},
	"intermediateThrowEvent": {TriggerMessage, TriggerSignal, TriggerEscalation},
	"endEvent":               {TriggerMessage, TriggerSignal, TriggerEscalation, TriggerError},
}

// eventSubMultiple are the definitions the start event of an event
// sub-process may combine.
var eventSubMultiple = []TriggerKind{TriggerMessage, TriggerTimer, TriggerSignal, TriggerConditional, TriggerError, TriggerEscalation}

// parallelTriggers are the definitions a parallel multiple catch may
// combine: events that happen at some moment and can be waited for.
var parallelTriggers = []TriggerKind{TriggerMessage, TriggerTimer, TriggerSignal, TriggerConditional}

// multipleRefusal says why a definition of kind cannot be one of several
// on an event element tag.
func multipleRefusal(tag string, kind TriggerKind) string {
	switch kind {
	case TriggerCompensation:
		return "compensation pairs one activity with one handler, or names what one throw undoes; model it as an event of its own"
	case TriggerCancel:
		return "a transaction has one cancel end event and one cancel boundary event; model it as an event of its own"
	case TriggerLink:
		return "a link pairs one throw with one catch by name; model it as an event of its own"
	case TriggerTerminate:
		return "terminate ends the scope at once; throw the other definitions from an intermediate throw event before a terminate end event"
	case TriggerConditional:
		if tag == "startEvent" {
			return "a process starts by a message, timer or signal; use a conditional event sub-process"
		}
	case TriggerTimer:
		if tag == "intermediateThrowEvent" || tag == "endEvent" {
			return "a timer is only caught"
		}
	}
	if isCatch(tag) {
		return "an event of this kind is not caught here"
	}
	return "an event of this kind is not thrown here"
}

// multipleDef reads the several event definitions defs of event e in
// container c (parallel: parallelMultiple="true") into one EventDef of kind
// TriggerMultiple or TriggerParallelMultiple. It reports the combinations
// gobpm refuses, with the reason, and returns nil for them.
func (p *parser) multipleDef(e *etree.Element, c *container, defs []*etree.Element, parallel bool) *EventDef {
	label := p.label(e)
	allowed := multipleTriggers[e.Tag]
	if e.Tag == "startEvent" && c.eventSub {
		allowed = eventSubMultiple
	}
	ok := true
	switch {
	case !parallel:
	case e.Tag == "startEvent" && c.eventSub:
		p.problems.add(label, RuleUnsupported,
			"a parallel multiple start event of an event sub-process is not supported: the handler would have to collect its events while not yet started; start it on one event and wait for the others with a parallel multiple intermediate catch event inside it")
		ok = false
	case e.Tag == "startEvent":
		p.problems.add(label, RuleUnsupported,
			"a parallel multiple start event is not supported: its events would have to be collected before the instance that holds them exists; start on one event and wait for the others with a parallel multiple intermediate catch event")
		ok = false
	case e.Tag == "boundaryEvent" && !p.boolAttr(e, "cancelActivity", true):
		p.problems.add(label, RuleUnsupported,
			"a non-interrupting parallel multiple boundary event is not supported: after it fired it would have to collect all its events again, and BPMN leaves open from when; make it interrupting, or use a non-interrupting event sub-process that waits with a parallel multiple intermediate catch event")
		ok = false
	default:
		allowed = parallelTriggers
	}
	ev := &EventDef{Kind: TriggerMultiple}
	if parallel {
		ev.Kind = TriggerParallelMultiple
	}
	count := map[TriggerKind]int{}
	for _, d := range defs {
		kind, known := triggers[d.Tag]
		if !known {
			p.problems.add(label, RuleUnsupported, "%s with %s is not supported yet", e.Tag, d.Tag)
			ok = false
			continue
		}
		if !contains(allowed, kind) {
			reason := multipleRefusal(e.Tag, kind)
			if parallel && (kind == TriggerError || kind == TriggerEscalation) {
				reason = "an error or escalation is caught the moment it is thrown; it cannot wait for the other events"
			}
			p.problems.add(label, RuleUnsupported, "%s with %s among several event definitions is not supported: %s", e.Tag, d.Tag, reason)
			ok = false
			continue
		}
		count[kind]++
		ev.Multiple = append(ev.Multiple, p.eventDef(e, d, kind))
	}
	limit := func(kind TriggerKind, why string) {
		if count[kind] > 1 {
			p.problems.add(label, RuleUnsupported, "%s has %d %s event definitions; at most one is supported: %s", e.Tag, count[kind], kind, why)
			ok = false
		}
	}
	if isCatch(e.Tag) {
		limit(TriggerConditional, "an event holds one condition; join the conditions with or (any of them) or and (all of them)")
	} else {
		limit(TriggerMessage, "a message throw is one job for a worker, who sends the message")
		limit(TriggerError, "an error ends the scope, so only one is ever thrown")
	}
	if e.Tag == "startEvent" && !c.eventSub {
		limit(TriggerTimer, "a process schedules one timer per start event; give each timer a start event of its own")
	}
	if !ok {
		return nil
	}
	return ev
}
