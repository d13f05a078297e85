package bpmn

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// MustFailWith parses data with lim and returns the ValidationError, or
// fails the test.
func MustFailWith(tb testing.TB, data []byte, lim Limits) *ValidationError {
	tb.Helper()
	defs, err := ParseWith(data, lim)
	if err == nil {
		tb.Fatalf("ParseWith succeeded (%d processes), want a ValidationError", len(defs.Processes))
	}
	var verr *ValidationError
	if !errors.As(err, &verr) {
		tb.Fatalf("ParseWith error is %T (%v), want *ValidationError", err, err)
	}
	return verr
}

// MustParseWith parses data with lim or fails the test.
func MustParseWith(tb testing.TB, data []byte, lim Limits) *Definitions {
	tb.Helper()
	defs, err := ParseWith(data, lim)
	if err != nil {
		tb.Fatalf("ParseWith: %v", err)
	}
	return defs
}

func TestParseRefusesIDsThatAreNotNCNames(t *testing.T) {
	t.Parallel()
	doc := func(procID, taskID, flowID, msgID string) []byte {
		return []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:t">
<message id="` + msgID + `" name="m"/>
<process id="` + procID + `" isExecutable="true">
<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="` + taskID + `"/>
<task id="` + taskID + `"/><sequenceFlow id="` + flowID + `" sourceRef="` + taskID + `" targetRef="e"/>
<endEvent id="e"/></process></definitions>`)
	}
	tests := []struct {
		name                        string
		proc, task, flow, msg       string
		element, detail             string
		exactlyOneProblemForElement bool
	}{
		{"process with slash, space, ? and #", "a/b c?d#e", "t", "f2", "m1", "a/b c?d#e", `process id "a/b c?d#e" is not an XML NCName: it holds '/'`, true},
		{"task starting with a digit", "p", "1st", "f2", "m1", "1st", `task id "1st" is not an XML NCName: it starts with '1'`, true},
		{"task with a colon", "p", "ns:task", "f2", "m1", "ns:task", `it holds ':'`, true},
		{"flow with an arrow", "p", "t", "t->e", "m1", "t->e", `sequenceFlow id "t->e"`, true},
		{"message with a space", "p", "t", "f2", "my message", "my message", `it holds white space`, true},
		{"starting with a hyphen", "-p", "t", "f2", "m1", "-p", `it starts with '-'`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := doc(tt.proc, tt.task, tt.flow, tt.msg)
			verr := MustFail(t, data)
			checkProblems(t, verr, []want{{tt.element, RuleInvalidID, tt.detail}}, true)
			// A definition deployed before the rule reads back.
			MustParseWith(t, data, Limits{Deployed: true})
		})
	}
	// NCNames beyond ASCII, and what the modelers write, deploy.
	for _, id := range []string{"_x", "Task_1", "Activity_0v1m0mn", "é-ñ.1", "a·b", "タスク", "x\u0301"} {
		if _, err := Parse(doc("p", id, "f2", "m1")); err != nil {
			t.Errorf("id %q: %v", id, err)
		}
	}
}

// timerDoc holds a process with a timer start event, a non-interrupting
// cycle boundary and a non-interrupting timer event sub-process, each with
// the given cycle.
func timerDoc(start, boundary, eventSub string) []byte {
	return []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:t">
<process id="p" isExecutable="true">
<startEvent id="tick"><timerEventDefinition><timeCycle>` + start + `</timeCycle></timerEventDefinition></startEvent>
<sequenceFlow id="f1" sourceRef="tick" targetRef="work"/>
<userTask id="work"/>
<boundaryEvent id="remind" attachedToRef="work" cancelActivity="false"><timerEventDefinition><timeCycle>` + boundary + `</timeCycle></timerEventDefinition></boundaryEvent>
<sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
<sequenceFlow id="f3" sourceRef="remind" targetRef="reminded"/>
<endEvent id="end"/><endEvent id="reminded"/>
<subProcess id="poll" triggeredByEvent="true">
  <startEvent id="pollStart" isInterrupting="false"><timerEventDefinition><timeCycle>` + eventSub + `</timeCycle></timerEventDefinition></startEvent>
  <sequenceFlow id="g1" sourceRef="pollStart" targetRef="pollEnd"/>
  <endEvent id="pollEnd"/>
</subProcess>
</process></definitions>`)
}

func TestParseWithTimerFloor(t *testing.T) {
	t.Parallel()
	second := Limits{MinTimerPeriod: time.Second}
	// Every kind of cycle below the floor is refused, naming its element.
	verr := MustFailWith(t, timerDoc("R1000000/PT0.001S", "R/PT0.5S", "R/PT0.999S"), second)
	checkProblems(t, verr, []want{
		{"tick", RuleTimerTooFrequent, `timeCycle "R1000000/PT0.001S" fires every 1ms; the minimum timer period is 1s`},
		{"remind", RuleTimerTooFrequent, `timeCycle "R/PT0.5S" fires every 500ms`},
		{"pollStart", RuleTimerTooFrequent, `timeCycle "R/PT0.999S" fires every 999ms`},
	}, true)

	// At the floor, a cycle that fires once, and cron (one second at
	// least) deploy.
	MustParseWith(t, timerDoc("R/PT1S", "R1/PT0.001S", "* * * * * ?"), second)

	// A higher floor holds cron expressions to it too.
	verr = MustFailWith(t, timerDoc("0 */5 * * * ?", "0 0/1 * * * ?", "*/30 * * * * ?"), Limits{MinTimerPeriod: time.Minute})
	checkProblems(t, verr, []want{{"pollStart", RuleTimerTooFrequent, `timeCycle "*/30 * * * * ?" fires every 30s; the minimum timer period is 1m0s`}}, true)

	// Without limits (Parse) and when read back (Deployed) nothing is checked.
	if _, err := Parse(timerDoc("R/PT0.001S", "R/PT0.001S", "R/PT0.001S")); err != nil {
		t.Errorf("Parse: %v", err)
	}
	MustParseWith(t, timerDoc("R/PT0.001S", "R/PT0.001S", "R/PT0.001S"), Limits{MinTimerPeriod: time.Second, Deployed: true})
}

func TestParseRefusesExpressionInTimerStart(t *testing.T) {
	t.Parallel()
	doc := []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:t">
<process id="p" isExecutable="true">
<startEvent id="tick"><timerEventDefinition><timeCycle>="R/PT1H"</timeCycle></timerEventDefinition></startEvent>
<sequenceFlow id="f1" sourceRef="tick" targetRef="end"/><endEvent id="end"/>
</process></definitions>`)
	checkProblems(t, MustFail(t, doc), []want{{"tick", RuleUnsupported, `an expression in a timer start event ("=\"R/PT1H\"") is not supported yet`}}, true)
	MustParseWith(t, doc, Limits{Deployed: true})
	// Inside an event sub-process the expression is evaluated when its
	// scope opens: allowed.
	if _, err := Parse(timerDoc("R/PT1H", "R/PT1H", `="R/PT1H"`)); err != nil {
		t.Errorf("event sub-process timer expression: %v", err)
	}
}

// chain returns n tasks t1…tn joined by flows, from "from" to "to".
func chain(prefix string, n int, from, to string) string {
	var b strings.Builder
	prev := from
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("%s%d", prefix, i)
		fmt.Fprintf(&b, `<task id="%s"/><sequenceFlow id="%s_in" sourceRef="%s" targetRef="%s"/>`, id, id, prev, id)
		prev = id
	}
	fmt.Fprintf(&b, `<sequenceFlow id="%s_out" sourceRef="%s" targetRef="%s"/>`, prefix, prev, to)
	return b.String()
}

func TestParseWithStepBudget(t *testing.T) {
	t.Parallel()
	lim := Limits{MaxActivations: 10}
	tests := []struct {
		name string
		body string
		want []want // nil: deploys
	}{
		{
			// start + 8 tasks + end = 10 activations: exactly the budget.
			name: "chain at the budget",
			body: `<startEvent id="s"/>` + chain("t", 8, "s", "e") + `<endEvent id="e"/>`,
		},
		{
			name: "chain one past the budget",
			body: `<startEvent id="s"/>` + chain("t", 9, "s", "e") + `<endEvent id="e"/>`,
			want: []want{{"s", RuleStepBudget, `every run from startEvent "s" passes at least 11 elements before it waits or ends; one step activates at most 10 (the step budget)`}},
		},
		{
			name: "a wait state splits the chain",
			body: `<startEvent id="s"/>` + chain("a", 7, "s", "wait") + `<userTask id="wait"/>` + chain("b", 8, "wait", "e") + `<endEvent id="e"/>`,
		},
		{
			// After the wait, the run from the first task on is too long:
			// it is named, not the start.
			name: "too long after a wait",
			body: `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="wait"/><serviceTask id="wait" gobpm:type="w"/>` + chain("b", 10, "wait", "e") + `<endEvent id="e"/>`,
			want: []want{{"b1", RuleStepBudget, "passes at least 11 elements"}},
		},
		{
			// A gateway with a short way out: only the long branch is named.
			name: "long branch behind a gateway",
			body: `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="gw"/><exclusiveGateway id="gw" default="short"/>` +
				`<sequenceFlow id="short" sourceRef="gw" targetRef="e"/>` + chain("x", 10, "gw", "e") + `<endEvent id="e"/>`,
			want: []want{{"x1", RuleStepBudget, "passes at least"}},
		},
		{
			name: "loop without a way out",
			body: `<startEvent id="s"/><sequenceFlow id="f0" sourceRef="s" targetRef="a"/><task id="a"/><sequenceFlow id="f1" sourceRef="a" targetRef="b"/>` +
				`<exclusiveGateway id="b"/><sequenceFlow id="f2" sourceRef="b" targetRef="a"/>`,
			want: []want{{"s", RuleStepBudget, `every run from startEvent "s" loops through synchronous elements without reaching a wait state or an end`}},
		},
		{
			// An interrupting conditional event sub-process ends the loop
			// when its variables say so, within the step: not refused.
			name: "loop cut short by a conditional event",
			body: `<startEvent id="s"/><sequenceFlow id="f0" sourceRef="s" targetRef="a"/><scriptTask id="a" gobpm:resultVariable="i"><script>if i = null then 1 else i + 1</script></scriptTask>` +
				`<sequenceFlow id="f1" sourceRef="a" targetRef="b"/><exclusiveGateway id="b"/><sequenceFlow id="f2" sourceRef="b" targetRef="a"/>` +
				`<subProcess id="enough" triggeredByEvent="true"><startEvent id="es"><conditionalEventDefinition><condition>i &gt; 5</condition></conditionalEventDefinition></startEvent>` +
				`<sequenceFlow id="g1" sourceRef="es" targetRef="ee"/><endEvent id="ee"/></subProcess>`,
		},
		{
			name: "loop with a way out",
			body: `<startEvent id="s"/><sequenceFlow id="f0" sourceRef="s" targetRef="a"/><task id="a"/><sequenceFlow id="f1" sourceRef="a" targetRef="b"/>` +
				`<exclusiveGateway id="b" default="f3"/><sequenceFlow id="f2" sourceRef="b" targetRef="a"><conditionExpression>again</conditionExpression></sequenceFlow>` +
				`<sequenceFlow id="f3" sourceRef="b" targetRef="e"/><endEvent id="e"/>`,
		},
		{
			// A parallel fork is counted by its shortest branch: expensive
			// (two branches of 8 exceed 10 together) is not impossible.
			name: "parallel branches within the budget each",
			body: `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="fork"/><parallelGateway id="fork"/>` +
				chain("l", 7, "fork", "e1") + chain("r", 7, "fork", "e2") + `<endEvent id="e1"/><endEvent id="e2"/>`,
		},
		{
			name: "inside a sub-process and behind a boundary event",
			body: `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="sub"/>` +
				`<subProcess id="sub"><startEvent id="ss"/>` + chain("in", 10, "ss", "se") + `<endEvent id="se"/></subProcess>` +
				`<boundaryEvent id="late" attachedToRef="sub" cancelActivity="false"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>` +
				chain("bt", 10, "late", "e2") + `<endEvent id="e2"/>` +
				`<sequenceFlow id="g" sourceRef="sub" targetRef="e"/><endEvent id="e"/>`,
			want: []want{{"ss", RuleStepBudget, "passes at least 12 elements"}, {"late", RuleStepBudget, `boundaryEvent "late" passes at least 12 elements`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := process(tt.body)
			if _, err := Parse(data); err != nil {
				t.Fatalf("Parse (no limits): %v", err)
			}
			MustParseWith(t, data, Limits{MaxActivations: 10, Deployed: true})
			if tt.want == nil {
				MustParseWith(t, data, lim)
				return
			}
			checkProblems(t, MustFailWith(t, data, lim), tt.want, true)
		})
	}
}
