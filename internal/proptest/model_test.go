package proptest

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"
)

// The vocabulary the generated models draw from. Every model declares all of
// it, so a job error code, a message or a signal chosen by the driver always
// names something the deployment knows.
var (
	messageNames = []string{"m1", "m2", "m3"}
	// catchNames are the messages intermediate catch events wait for. A
	// non-interrupting message trigger always uses the one name outside
	// this set: CorrelateMessage delivers to the oldest subscription, so a
	// non-interrupting handler armed before a catch of the same name would
	// take every such message and spawn forever.
	catchNames      = messageNames[:2]
	nonInterrupting = messageNames[2]
	signalNames     = []string{"s1", "s2"}
	errorCodes      = []string{"E1", "E2"}
	escalationCodes = []string{"X1", "X2"}
)

// Limits of the grammar: scope nesting (sub-processes and event
// sub-processes) and the number of blocks in one model.
const (
	maxDepth  = 3
	maxBlocks = 14
)

// blockKind is one production of the block grammar.
type blockKind int

// The productions, simplest first so that rapid shrinks towards user tasks.
const (
	blockUserTask blockKind = iota
	blockJob
	blockTimer
	blockMessage
	blockEscalation
	blockCompensable // a job (or a parallel multi-instance job) with a compensation boundary event and its handler (a job or user task)
	blockCompensate  // 0–2 compensable blocks, then a compensation throw event compensating its scope
	blockMultiple    // a multiple (or parallel multiple) catch of a message and a timer
	blockReceive     // a receive task without a messageRef: it waits to be triggered by its wait id
	blockSequence
	blockParallel
	blockLink // a link throw, its catch, then a block: the token jumps between them
	blockSubProcess
	numBlockKinds
)

// endKind says how a parallel branch or a sub-process body ends.
type endKind int

const (
	endJoin      endKind = iota // a parallel branch that reaches the join
	endNone                     // a none end event (sub-process body; extra branch)
	endTerminate                // a terminate end event
	endError                    // an error end event with a code (inside sub-processes only)
)

// triggerKind is the event of a boundary or an event sub-process start.
type triggerKind int

const (
	trigMessage triggerKind = iota
	trigSignal
	trigTimer
	trigError
	trigEscalation
	numTriggerKinds
)

// trigger is a catching event definition. An empty name on an error or an
// escalation catches every code.
type trigger struct {
	kind    triggerKind
	name    string
	minutes int
}

// block is one node of a generated model's syntax tree. Every block has a
// single entry and a single exit.
type block struct {
	kind     blockKind
	minutes  int      // timer catch: PT<minutes>M
	name     string   // message name or escalation code
	userUndo bool     // a compensable block's handler is a user task (else a job)
	multi    bool     // a compensable block's job is a parallel multi-instance (two iterations)
	parallel bool     // a multiple catch waits for all its events
	children []*block // sequence or parallel branches
	ends     []endKind
	codes    []string // error code of a parallel branch ending in an error end
	sub      *subProcess
}

// subProcess is an embedded sub-process: a body, how it ends, an optional
// boundary event on it and the event sub-processes declared inside it.
type subProcess struct {
	body     *block
	end      endKind
	endCode  string
	boundary *boundaryEvent
	handlers []*eventSub
	// compensable: the sub-process has a compensation boundary event and
	// its handler (a job), besides any compensable activities inside.
	compensable bool
}

// boundaryEvent is a boundary event on a sub-process.
type boundaryEvent struct {
	trig         trigger
	interrupting bool
}

// eventSub is an event sub-process (triggeredByEvent) and its body.
type eventSub struct {
	trig         trigger
	interrupting bool
	body         *block
}

// model is a generated process: a body between a start and an end event and
// the event sub-processes declared at process level.
type model struct {
	body     *block
	handlers []*eventSub
	// concurrent: gobpm:compensation="concurrent", the handlers a throw
	// claims start together (Camunda's way) instead of one at a time.
	concurrent bool
	// messageStart makes the process's only start a message start event
	// (of a message the driver never sends): started by key, the instance
	// begins there (engine.DirectStart).
	messageStart bool
}

// generator draws a model within the size budget.
type generator struct {
	t      *rapid.T
	blocks int
	// quiet is > 0 while drawing the body of a non-interrupting escalation
	// handler: an escalation thrown there would re-trigger the handler
	// without a wait state in between (the engine stops that loop with a
	// step-budget incident after 100 000 activations, which is correct but
	// costs seconds and hundreds of MB of history per case).
	quiet int
}

// genModel draws a random model.
func genModel(t *rapid.T) *model {
	g := &generator{t: t}
	// The process body is always a composite: a lone leaf exercises little.
	m := &model{body: g.block(0, false, blockWeights[blockSequence:]...)}
	m.handlers = g.handlers(0, false)
	m.concurrent = rapid.Bool().Draw(t, "concurrentCompensation")
	m.messageStart = rapid.Bool().Draw(t, "messageStart")
	return m
}

// leafKinds is the number of productions without nested blocks.
const leafKinds = int(blockSequence)

// branchEndWeights are the odds of how a parallel branch (other than the
// first) ends, indexed by endKind.
var branchEndWeights = []int{endJoin: 6, endNone: 1, endTerminate: 1, endError: 1}

// blockWeights are the relative odds of each production, indexed by kind.
var blockWeights = []int{
	blockUserTask:    3,
	blockJob:         3,
	blockTimer:       2,
	blockMessage:     2,
	blockEscalation:  1,
	blockCompensable: 2,
	blockCompensate:  1,
	blockMultiple:    1,
	blockReceive:     1,
	blockSequence:    4,
	blockParallel:    4,
	blockLink:        1,
	blockSubProcess:  5,
}

// weighted draws an index into weights with the given odds; smaller draws
// give smaller indexes, so shrinking moves towards the first kind.
func weighted[K ~int](t *rapid.T, weights []int, label string) K {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := rapid.IntRange(0, total-1).Draw(t, label)
	for i, w := range weights {
		if n < w {
			return K(i)
		}
		n -= w
	}
	return K(len(weights) - 1)
}

// block draws one block at scope depth depth; inSub says whether it sits in
// a sub-process (where error end events are allowed).
//
// composite, when given, restricts the draw to the weights of the
// composite productions (sequence, parallel, sub-process).
func (g *generator) block(depth int, inSub bool, composite ...int) *block {
	g.blocks++
	var b *block
	if composite != nil {
		b = &block{kind: blockSequence + weighted[blockKind](g.t, composite, "composite")}
	} else {
		kinds := blockWeights
		if g.quiet > 0 {
			kinds = append([]int(nil), kinds...)
			kinds[blockEscalation] = 0
		}
		if g.blocks >= maxBlocks {
			kinds = kinds[:leafKinds]
		} else if depth >= maxDepth {
			kinds = kinds[:blockSubProcess]
		}
		b = &block{kind: weighted[blockKind](g.t, kinds, "block")}
	}
	switch b.kind {
	case blockTimer:
		b.minutes = rapid.IntRange(1, 60).Draw(g.t, "minutes")
	case blockMessage:
		b.name = rapid.SampledFrom(catchNames).Draw(g.t, "message")
	case blockEscalation:
		b.name = rapid.SampledFrom(escalationCodes).Draw(g.t, "escalation")
	case blockCompensable:
		b.userUndo = rapid.Bool().Draw(g.t, "userUndo")
		b.multi = rapid.IntRange(0, 3).Draw(g.t, "multi") == 0
	case blockCompensate:
		// Mostly right after work it undoes, so compensation runs often.
		for range rapid.IntRange(0, 2).Draw(g.t, "compensable") {
			g.blocks++
			b.children = append(b.children, &block{kind: blockCompensable, userUndo: rapid.Bool().Draw(g.t, "userUndo"),
				multi: rapid.IntRange(0, 3).Draw(g.t, "multi") == 0})
		}
	case blockMultiple:
		b.name = rapid.SampledFrom(catchNames).Draw(g.t, "message")
		b.minutes = rapid.IntRange(1, 60).Draw(g.t, "minutes")
		b.parallel = rapid.Bool().Draw(g.t, "parallelMultiple")
	case blockLink:
		b.children = []*block{g.block(depth, inSub)}
	case blockSequence:
		n := rapid.IntRange(2, 3).Draw(g.t, "seqLen")
		for range n {
			b.children = append(b.children, g.block(depth, inSub))
		}
	case blockParallel:
		n := rapid.IntRange(2, 3).Draw(g.t, "branches")
		for i := range n {
			end := endJoin
			// The first branch always joins, so the join has an incoming flow.
			if i > 0 {
				weights := branchEndWeights
				if !inSub {
					weights = weights[:endError]
				}
				end = weighted[endKind](g.t, weights, "branchEnd")
			}
			code := ""
			if end == endError {
				code = rapid.SampledFrom(errorCodes).Draw(g.t, "branchErrorCode")
			}
			b.children = append(b.children, g.block(depth, inSub))
			b.ends = append(b.ends, end)
			b.codes = append(b.codes, code)
		}
	case blockSubProcess:
		b.sub = g.subProcess(depth + 1)
	}
	return b
}

// subProcess draws an embedded sub-process at scope depth depth.
func (g *generator) subProcess(depth int) *subProcess {
	s := &subProcess{body: g.block(depth, true)}
	// Mostly a none end; sometimes a terminate or an error end.
	switch rapid.IntRange(0, 5).Draw(g.t, "subEnd") {
	case 4:
		s.end = endTerminate
	case 5:
		s.end = endError
		s.endCode = rapid.SampledFrom(errorCodes).Draw(g.t, "subErrorCode")
	default:
		s.end = endNone
	}
	s.compensable = rapid.IntRange(0, 3).Draw(g.t, "subCompensable") == 0
	if rapid.Bool().Draw(g.t, "hasBoundary") {
		tr := g.trigger("boundary")
		s.boundary = &boundaryEvent{trig: tr, interrupting: tr.kind == trigError || rapid.Bool().Draw(g.t, "boundaryInterrupting")}
		if !s.boundary.interrupting && tr.kind == trigMessage {
			s.boundary.trig.name = nonInterrupting
		}
	}
	s.handlers = g.handlers(depth, true)
	return s
}

// handlers draws 0–2 event sub-processes for a scope at depth depth.
func (g *generator) handlers(depth int, inSub bool) []*eventSub {
	if depth >= maxDepth || g.blocks >= maxBlocks {
		return nil
	}
	n := rapid.IntRange(0, 2).Draw(g.t, "handlers")
	var out []*eventSub
	for range n {
		tr := g.trigger("handler")
		h := &eventSub{trig: tr, interrupting: tr.kind == trigError || rapid.Bool().Draw(g.t, "handlerInterrupting")}
		if !h.interrupting && tr.kind == trigMessage {
			h.trig.name = nonInterrupting
		}
		quiet := !h.interrupting && tr.kind == trigEscalation
		if quiet {
			g.quiet++
		}
		h.body = g.block(depth+1, true)
		if quiet {
			g.quiet--
		}
		out = append(out, h)
	}
	return out
}

// trigger draws a catching event definition.
func (g *generator) trigger(label string) trigger {
	tr := trigger{kind: triggerKind(rapid.IntRange(0, int(numTriggerKinds)-1).Draw(g.t, label+"Trigger"))}
	switch tr.kind {
	case trigMessage:
		tr.name = rapid.SampledFrom(messageNames).Draw(g.t, label+"Message")
	case trigSignal:
		tr.name = rapid.SampledFrom(signalNames).Draw(g.t, label+"Signal")
	case trigTimer:
		tr.minutes = rapid.IntRange(1, 60).Draw(g.t, label+"Minutes")
	case trigError:
		tr.name = rapid.SampledFrom(append([]string{""}, errorCodes...)).Draw(g.t, label+"ErrorCode")
	case trigEscalation:
		tr.name = rapid.SampledFrom(append([]string{""}, escalationCodes...)).Draw(g.t, label+"EscalationCode")
	}
	return tr
}

// container collects the XML of one graph (the process or a sub-process).
type container struct {
	sb strings.Builder
}

func (c *container) add(format string, args ...any) {
	fmt.Fprintf(&c.sb, "    "+format+"\n", args...)
}

// emitter turns a model into BPMN XML with unique, readable ids.
type emitter struct {
	next  int
	flows int
	// spawners are the nodes of non-interrupting message and signal
	// triggers: delivering to them adds work instead of finishing any.
	spawners map[string]bool
}

func (e *emitter) id(prefix string) string {
	e.next++
	return fmt.Sprintf("%s%d", prefix, e.next)
}

func (e *emitter) flow(c *container, from, to string) {
	e.flows++
	c.add(`<sequenceFlow id="f%d" sourceRef="%s" targetRef="%s"/>`, e.flows, from, to)
}

// toXML renders the model as a deployable BPMN document with process id key
// and returns the ids of its non-interrupting message and signal triggers.
func (m *model) toXML(key string) (string, map[string]bool) {
	e := &emitter{spawners: map[string]bool{}}
	root := &container{}
	if m.messageStart {
		root.add(`<startEvent id="start"><messageEventDefinition messageRef="msg_begin"/></startEvent>`)
	} else {
		root.add(`<startEvent id="start"/>`)
	}
	in, out := e.block(root, m.body)
	e.flow(root, "start", in)
	root.add(`<endEvent id="end"/>`)
	e.flow(root, out, "end")
	for _, h := range m.handlers {
		e.eventSub(root, h)
	}
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	sb.WriteString(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" id="defs" targetNamespace="urn:proptest">` + "\n")
	for _, n := range messageNames {
		fmt.Fprintf(&sb, `  <message id="msg_%s" name="%s" gobpm:correlationKey="=key"/>`+"\n", n, n)
	}
	sb.WriteString(`  <message id="msg_begin" name="begin"/>` + "\n")
	for _, n := range signalNames {
		fmt.Fprintf(&sb, `  <signal id="sig_%s" name="%s"/>`+"\n", n, n)
	}
	for _, c := range errorCodes {
		fmt.Fprintf(&sb, `  <error id="err_%s" errorCode="%s"/>`+"\n", c, c)
	}
	for _, c := range escalationCodes {
		fmt.Fprintf(&sb, `  <escalation id="esc_%s" escalationCode="%s"/>`+"\n", c, c)
	}
	mode := "sequential"
	if m.concurrent {
		mode = "concurrent"
	}
	fmt.Fprintf(&sb, `  <process id="%s" isExecutable="true" gobpm:compensation="%s">`+"\n", key, mode)
	sb.WriteString(root.sb.String())
	sb.WriteString("  </process>\n</definitions>\n")
	return sb.String(), e.spawners
}

// definition renders the event definition of a trigger.
func (tr trigger) definition() string {
	switch tr.kind {
	case trigMessage:
		return fmt.Sprintf(`<messageEventDefinition messageRef="msg_%s"/>`, tr.name)
	case trigSignal:
		return fmt.Sprintf(`<signalEventDefinition signalRef="sig_%s"/>`, tr.name)
	case trigTimer:
		return fmt.Sprintf(`<timerEventDefinition><timeDuration>PT%dM</timeDuration></timerEventDefinition>`, tr.minutes)
	case trigError:
		if tr.name == "" {
			return `<errorEventDefinition/>`
		}
		return fmt.Sprintf(`<errorEventDefinition errorRef="err_%s"/>`, tr.name)
	default:
		if tr.name == "" {
			return `<escalationEventDefinition/>`
		}
		return fmt.Sprintf(`<escalationEventDefinition escalationRef="esc_%s"/>`, tr.name)
	}
}

// endEvent writes an end event of the kind and returns its id.
func (e *emitter) endEvent(c *container, kind endKind, code string) string {
	id := e.id("end")
	switch kind {
	case endTerminate:
		c.add(`<endEvent id="%s"><terminateEventDefinition/></endEvent>`, id)
	case endError:
		c.add(`<endEvent id="%s"><errorEventDefinition errorRef="err_%s"/></endEvent>`, id, code)
	default:
		c.add(`<endEvent id="%s"/>`, id)
	}
	return id
}

// block writes a block into c and returns its entry and exit node ids.
func (e *emitter) block(c *container, b *block) (in, out string) {
	switch b.kind {
	case blockUserTask:
		id := e.id("task")
		c.add(`<userTask id="%s"/>`, id)
		return id, id
	case blockJob:
		id := e.id("job")
		c.add(`<serviceTask id="%s" gobpm:type="work" gobpm:retries="2"/>`, id)
		return id, id
	case blockTimer:
		id := e.id("timer")
		c.add(`<intermediateCatchEvent id="%s"><timerEventDefinition><timeDuration>PT%dM</timeDuration></timerEventDefinition></intermediateCatchEvent>`, id, b.minutes)
		return id, id
	case blockMessage:
		id := e.id("catch")
		c.add(`<intermediateCatchEvent id="%s"><messageEventDefinition messageRef="msg_%s"/></intermediateCatchEvent>`, id, b.name)
		return id, id
	case blockEscalation:
		id := e.id("escalate")
		c.add(`<intermediateThrowEvent id="%s"><escalationEventDefinition escalationRef="esc_%s"/></intermediateThrowEvent>`, id, b.name)
		return id, id
	case blockCompensable:
		id := e.id("booked")
		if b.multi {
			// A throw on a parallel branch may come while an iteration
			// still runs: the activity is not compensable until both end.
			c.add(`<serviceTask id="%s" gobpm:type="work" gobpm:retries="2"><multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics></serviceTask>`, id)
		} else {
			c.add(`<serviceTask id="%s" gobpm:type="work" gobpm:retries="2"/>`, id)
		}
		c.add(`<boundaryEvent id="%s_comp" attachedToRef="%s"><compensateEventDefinition/></boundaryEvent>`, id, id)
		if b.userUndo {
			c.add(`<userTask id="%s_undo" isForCompensation="true"/>`, id)
		} else {
			c.add(`<serviceTask id="%s_undo" isForCompensation="true" gobpm:type="undo" gobpm:retries="2"/>`, id)
		}
		c.add(`<association id="%s_assoc" sourceRef="%s_comp" targetRef="%s_undo"/>`, id, id, id)
		return id, id
	case blockCompensate:
		id := e.id("compensate")
		c.add(`<intermediateThrowEvent id="%s"><compensateEventDefinition/></intermediateThrowEvent>`, id)
		in, prev := id, ""
		for i, ch := range b.children {
			ci, co := e.block(c, ch)
			if i == 0 {
				in = ci
			} else {
				e.flow(c, prev, ci)
			}
			prev = co
		}
		if prev != "" {
			e.flow(c, prev, id)
		}
		return in, id
	case blockMultiple:
		id := e.id("multiple")
		c.add(`<intermediateCatchEvent id="%s" parallelMultiple="%t"><messageEventDefinition messageRef="msg_%s"/><timerEventDefinition><timeDuration>PT%dM</timeDuration></timerEventDefinition></intermediateCatchEvent>`,
			id, b.parallel, b.name, b.minutes)
		return id, id
	case blockReceive:
		id := e.id("receive")
		c.add(`<receiveTask id="%s"/>`, id)
		return id, id
	case blockLink:
		id := e.id("link")
		c.add(`<intermediateThrowEvent id="%s"><linkEventDefinition name="%s"/></intermediateThrowEvent>`, id, id)
		c.add(`<intermediateCatchEvent id="%s_catch"><linkEventDefinition name="%s"/></intermediateCatchEvent>`, id, id)
		ci, co := e.block(c, b.children[0])
		e.flow(c, id+"_catch", ci)
		return id, co
	case blockSequence:
		var prev string
		for i, ch := range b.children {
			ci, co := e.block(c, ch)
			if i == 0 {
				in = ci
			} else {
				e.flow(c, prev, ci)
			}
			prev = co
		}
		return in, prev
	case blockParallel:
		fork, join := e.id("fork"), e.id("join")
		c.add(`<parallelGateway id="%s"/>`, fork)
		c.add(`<parallelGateway id="%s"/>`, join)
		for i, ch := range b.children {
			ci, co := e.block(c, ch)
			e.flow(c, fork, ci)
			if b.ends[i] == endJoin {
				e.flow(c, co, join)
			} else {
				e.flow(c, co, e.endEvent(c, b.ends[i], b.codes[i]))
			}
		}
		return fork, join
	default:
		return e.subProcess(c, b.sub)
	}
}

// subProcess writes an embedded sub-process, its boundary event and the
// exception flow, and returns the entry and exit node ids.
func (e *emitter) subProcess(c *container, s *subProcess) (in, out string) {
	id := e.id("sub")
	inner := &container{}
	start := id + "_start"
	inner.add(`<startEvent id="%s"/>`, start)
	bi, bo := e.block(inner, s.body)
	e.flow(inner, start, bi)
	e.flow(inner, bo, e.endEvent(inner, s.end, s.endCode))
	for _, h := range s.handlers {
		e.eventSub(inner, h)
	}
	c.add(`<subProcess id="%s">`, id)
	c.sb.WriteString(indent(inner.sb.String()))
	c.add(`</subProcess>`)
	if s.compensable {
		c.add(`<boundaryEvent id="%s_comp" attachedToRef="%s"><compensateEventDefinition/></boundaryEvent>`, id, id)
		c.add(`<serviceTask id="%s_undo" isForCompensation="true" gobpm:type="undo" gobpm:retries="2"/>`, id)
		c.add(`<association id="%s_assoc" sourceRef="%s_comp" targetRef="%s_undo"/>`, id, id, id)
	}
	if s.boundary == nil {
		return id, id
	}
	bid := id + "_boundary"
	if !s.boundary.interrupting && (s.boundary.trig.kind == trigMessage || s.boundary.trig.kind == trigSignal) {
		e.spawners[bid] = true
	}
	c.add(`<boundaryEvent id="%s" attachedToRef="%s" cancelActivity="%t">%s</boundaryEvent>`, bid, id, s.boundary.interrupting, s.boundary.trig.definition())
	if !s.boundary.interrupting {
		// A non-interrupting boundary forks an extra token: it ends on its own.
		e.flow(c, bid, e.endEvent(c, endNone, ""))
		return id, id
	}
	// An interrupting boundary replaces the normal exit: merge both paths.
	merge := id + "_merge"
	c.add(`<exclusiveGateway id="%s"/>`, merge)
	e.flow(c, id, merge)
	e.flow(c, bid, merge)
	return id, merge
}

// eventSub writes an event sub-process into c.
func (e *emitter) eventSub(c *container, h *eventSub) {
	id := e.id("handler")
	if !h.interrupting && (h.trig.kind == trigMessage || h.trig.kind == trigSignal) {
		e.spawners[id] = true
	}
	inner := &container{}
	start := id + "_start"
	inner.add(`<startEvent id="%s" isInterrupting="%t">%s</startEvent>`, start, h.interrupting, h.trig.definition())
	bi, bo := e.block(inner, h.body)
	e.flow(inner, start, bi)
	e.flow(inner, bo, e.endEvent(inner, endNone, ""))
	c.add(`<subProcess id="%s" triggeredByEvent="true">`, id)
	c.sb.WriteString(indent(inner.sb.String()))
	c.add(`</subProcess>`)
}

// indent shifts every line of s two spaces right.
func indent(s string) string {
	var sb strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			sb.WriteString("  " + l)
		}
	}
	return sb.String()
}
