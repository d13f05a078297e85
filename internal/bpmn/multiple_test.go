package bpmn

import (
	"slices"
	"strings"
	"testing"
)

// decls are the declarations the multiple-event snippets refer to.
const decls = `<message id="m" name="m"/><message id="m2" name="m2"/><signal id="s" name="s"/><error id="E" errorCode="E"/><escalation id="X" escalationCode="X"/>`

const (
	msgDef   = `<messageEventDefinition messageRef="m"/>`
	msg2Def  = `<messageEventDefinition messageRef="m2"/>`
	sigDef   = `<signalEventDefinition signalRef="s"/>`
	timerDef = `<timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>`
	errDef   = `<errorEventDefinition errorRef="E"/>`
	escDef   = `<escalationEventDefinition escalationRef="X"/>`
	condDef  = `<conditionalEventDefinition><condition>a</condition></conditionalEventDefinition>`
	linkDef  = `<linkEventDefinition name="L"/>`
	compDef  = `<compensateEventDefinition/>`
)

// withDecls puts the declarations before the process of a snippet document.
func withDecls(body string) []byte {
	return []byte(strings.Replace(string(process(body)), "<process ", decls+"<process ", 1))
}

func TestMultipleEventsParse(t *testing.T) {
	t.Parallel()
	const flow = `<startEvent id="s0"/><sequenceFlow id="a" sourceRef="s0" targetRef="x"/><sequenceFlow id="b" sourceRef="x" targetRef="e"/><endEvent id="e"/>`
	tests := []struct {
		name, body string
		kind       TriggerKind
		kinds      []TriggerKind
	}{
		{"any of", `<intermediateCatchEvent id="x">` + msgDef + sigDef + timerDef + condDef + `</intermediateCatchEvent>` + flow,
			TriggerMultiple, []TriggerKind{TriggerMessage, TriggerSignal, TriggerTimer, TriggerConditional}},
		{"all of", `<intermediateCatchEvent id="x" parallelMultiple="true">` + msgDef + msg2Def + timerDef + `</intermediateCatchEvent>` + flow,
			TriggerParallelMultiple, []TriggerKind{TriggerMessage, TriggerMessage, TriggerTimer}},
		{"single parallelMultiple is the single event", `<intermediateCatchEvent id="x" parallelMultiple="true">` + msgDef + `</intermediateCatchEvent>` + flow,
			TriggerMessage, []TriggerKind{TriggerMessage}},
		{"throw every one", `<intermediateThrowEvent id="x" gobpm:type="send">` + msgDef + sigDef + escDef + `</intermediateThrowEvent>` + flow,
			TriggerMultiple, []TriggerKind{TriggerMessage, TriggerSignal, TriggerEscalation}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			defs, err := Parse(withDecls(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			n := defs.Processes[0].Node("x")
			var kinds []TriggerKind
			for _, d := range n.Event.Triggers() {
				kinds = append(kinds, d.Kind)
			}
			if n.Event.Kind != tt.kind || !slices.Equal(kinds, tt.kinds) {
				t.Errorf("kind %s %v, want %s %v", n.Event.Kind, kinds, tt.kind, tt.kinds)
			}
			if n.Kind == KindIntermediateThrowEvent && (n.Job == nil || n.Job.Type != "send") {
				t.Errorf("a multiple throw with a message has the job %+v", n.Job)
			}
		})
	}
	defs, err := Parse(withDecls(`<startEvent id="x">` + msgDef + sigDef + timerDef + `</startEvent><sequenceFlow id="a" sourceRef="x" targetRef="e"/><endEvent id="e"/>`))
	if err != nil {
		t.Fatal(err)
	}
	if p := defs.Processes[0]; len(p.EventStarts) != 1 || p.EventStarts[0].ID != "x" || !p.EventStarts[0].Event.Has(TriggerTimer) || p.HasConditionalEvents() {
		t.Errorf("multiple start: event starts %v", p.EventStarts)
	}
}

func TestMultipleEventsRefused(t *testing.T) {
	t.Parallel()
	const flow = `<startEvent id="s0"/><sequenceFlow id="a" sourceRef="s0" targetRef="x"/><sequenceFlow id="b" sourceRef="x" targetRef="e"/><endEvent id="e"/>`
	const task = `<startEvent id="s0"/><sequenceFlow id="a" sourceRef="s0" targetRef="t"/><userTask id="t"/><sequenceFlow id="b" sourceRef="t" targetRef="e"/><endEvent id="e"/>`
	tests := []struct {
		name, body, element string
		rule                Rule
		detail              string
	}{
		{"parallel start", `<startEvent id="x" parallelMultiple="true">` + msgDef + sigDef + `</startEvent><sequenceFlow id="a" sourceRef="x" targetRef="e"/><endEvent id="e"/>`,
			"x", RuleUnsupported, "parallel multiple start event is not supported: its events would have to be collected"},
		{"parallel event sub-process start", task + `<subProcess id="h" triggeredByEvent="true"><startEvent id="x" parallelMultiple="true">` + msgDef + sigDef + `</startEvent><sequenceFlow id="c" sourceRef="x" targetRef="he"/><endEvent id="he"/></subProcess>`,
			"x", RuleUnsupported, "of an event sub-process is not supported"},
		{"non-interrupting parallel boundary", task + `<boundaryEvent id="x" attachedToRef="t" cancelActivity="false" parallelMultiple="true">` + msgDef + sigDef + `</boundaryEvent>`,
			"x", RuleUnsupported, "non-interrupting parallel multiple boundary"},
		{"parallel with an error", task + `<boundaryEvent id="x" attachedToRef="t" parallelMultiple="true">` + msgDef + errDef + `</boundaryEvent>`,
			"x", RuleUnsupported, "caught the moment it is thrown"},
		{"link among several", `<intermediateThrowEvent id="x">` + linkDef + sigDef + `</intermediateThrowEvent>` + flow,
			"x", RuleUnsupported, "a link pairs one throw with one catch"},
		{"compensation among several", task + `<boundaryEvent id="x" attachedToRef="t">` + compDef + msgDef + `</boundaryEvent>`,
			"x", RuleUnsupported, "compensation pairs one activity with one handler"},
		{"terminate among several", `<startEvent id="s0"/><sequenceFlow id="a" sourceRef="s0" targetRef="x"/><endEvent id="x"><terminateEventDefinition/>` + sigDef + `</endEvent>`,
			"x", RuleUnsupported, "terminate ends the scope at once"},
		{"conditional start among several", `<startEvent id="x">` + msgDef + condDef + `</startEvent><sequenceFlow id="a" sourceRef="x" targetRef="e"/><endEvent id="e"/>`,
			"x", RuleUnsupported, "use a conditional event sub-process"},
		{"two messages thrown", `<startEvent id="s0"/><sequenceFlow id="a" sourceRef="s0" targetRef="x"/><endEvent id="x" gobpm:type="send">` + msgDef + msg2Def + `</endEvent>`,
			"x", RuleUnsupported, "a message throw is one job"},
		{"two timers starting", `<startEvent id="x">` + timerDef + timerDef + `</startEvent><sequenceFlow id="a" sourceRef="x" targetRef="e"/><endEvent id="e"/>`,
			"x", RuleUnsupported, "one timer per start event"},
		{"two conditions", `<intermediateCatchEvent id="x">` + condDef + condDef + `</intermediateCatchEvent>` + flow,
			"x", RuleUnsupported, "one condition"},
		{"parallel throw", `<intermediateThrowEvent id="x" parallelMultiple="true">` + sigDef + escDef + `</intermediateThrowEvent>` + flow,
			"x", RuleInvalidAttribute, "parallelMultiple belongs to catch events"},
		{"soft error in a multiple boundary", task + `<boundaryEvent id="x" attachedToRef="t" cancelActivity="false">` + msgDef + errDef + `</boundaryEvent>`,
			"x", RuleInvalidBoundary, "always interrupts"},
		{"parallel multiple after a gateway", `<startEvent id="s0"/><sequenceFlow id="a" sourceRef="s0" targetRef="g"/><eventBasedGateway id="g"/>` +
			`<sequenceFlow id="b" sourceRef="g" targetRef="x"/><sequenceFlow id="c" sourceRef="g" targetRef="y"/>` +
			`<intermediateCatchEvent id="x" parallelMultiple="true">` + msgDef + sigDef + `</intermediateCatchEvent><intermediateCatchEvent id="y">` + timerDef + `</intermediateCatchEvent>` +
			`<sequenceFlow id="fd" sourceRef="x" targetRef="e"/><sequenceFlow id="f" sourceRef="y" targetRef="e"/><endEvent id="e"/>`,
			"g", RuleInvalidEventGateway, `intermediateCatchEvent "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			verr := MustFail(t, withDecls(tt.body))
			checkProblems(t, verr, []want{{tt.element, tt.rule, tt.detail}}, false)
		})
	}
}

func TestInstantiatingElements(t *testing.T) {
	t.Parallel()
	const targets = `<sequenceFlow id="b" sourceRef="g" targetRef="x"/><sequenceFlow id="c" sourceRef="g" targetRef="y"/>` +
		`<intermediateCatchEvent id="x">` + msgDef + `</intermediateCatchEvent><intermediateCatchEvent id="y">` + sigDef + timerDef + `</intermediateCatchEvent>` +
		`<sequenceFlow id="fd" sourceRef="x" targetRef="e"/><sequenceFlow id="f" sourceRef="y" targetRef="e"/><endEvent id="e"/>`
	defs, err := Parse(withDecls(`<eventBasedGateway id="g" instantiate="true"/>` + targets))
	if err != nil {
		t.Fatal(err)
	}
	if p := defs.Processes[0]; len(p.EventStarts) != 2 || len(p.Graph.Starts) != 0 || !p.Node("g").Instantiate {
		t.Errorf("event starts %v, starts %v", p.EventStarts, p.Graph.Starts)
	}
	tests := []struct {
		name, body, element string
		rule                Rule
		detail              string
	}{
		{"parallel type", `<eventBasedGateway id="g" instantiate="true" eventGatewayType="Parallel"/>` + targets,
			"g", RuleUnsupported, "a parallel instantiating gateway"},
		{"with a None start", `<startEvent id="s0"/><sequenceFlow id="a" sourceRef="s0" targetRef="t"/><task id="t"/><eventBasedGateway id="g" instantiate="true"/>` + targets,
			"p", RuleStartShape, "an instance starts either way"},
		{"with incoming flows", `<startEvent id="s0"/><sequenceFlow id="a" sourceRef="s0" targetRef="g"/><eventBasedGateway id="g" instantiate="true"/>` + targets,
			"g", RuleStartShape, "has no incoming sequence flow, has 1"},
		{"next to a flow-less task", `<task id="t"/><eventBasedGateway id="g" instantiate="true"/>` + targets,
			"t", RuleStartShape, "instantiating event"},
		{"inside a sub-process", `<startEvent id="s0"/><sequenceFlow id="a" sourceRef="s0" targetRef="sub"/><subProcess id="sub"><eventBasedGateway id="g" instantiate="true"/>` + targets + `</subProcess><sequenceFlow id="z" sourceRef="sub" targetRef="e2"/><endEvent id="e2"/>`,
			"g", RuleStartShape, "inside subProcess"},
		{"timer expression", `<eventBasedGateway id="g" instantiate="true"/><sequenceFlow id="b" sourceRef="g" targetRef="x"/><sequenceFlow id="c" sourceRef="g" targetRef="y"/>` +
			`<intermediateCatchEvent id="x">` + msgDef + `</intermediateCatchEvent><intermediateCatchEvent id="y"><timerEventDefinition><timeDuration>=wait</timeDuration></timerEventDefinition></intermediateCatchEvent>` +
			`<sequenceFlow id="fd" sourceRef="x" targetRef="e"/><sequenceFlow id="f" sourceRef="y" targetRef="e"/><endEvent id="e"/>`,
			"y", RuleUnsupported, "an expression in a timer start event"},
		{"receive task with incoming flows", `<startEvent id="s0"/><sequenceFlow id="a" sourceRef="s0" targetRef="x"/><receiveTask id="x" messageRef="m" instantiate="true"/><sequenceFlow id="b" sourceRef="x" targetRef="e"/><endEvent id="e"/>`,
			"x", RuleStartShape, "has no incoming sequence flow, has 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			verr := MustFail(t, withDecls(tt.body))
			checkProblems(t, verr, []want{{tt.element, tt.rule, tt.detail}}, false)
		})
	}
}
