package bpmn

import "testing"

// TestParseConditionalStart: a process-level conditional start event is a
// triggered way to start (Process.EventStarts) with its compiled
// condition, next to other starts; its condition is checked as any
// conditional event's; inside a plain sub-process it stays refused.
func TestParseConditionalStart(t *testing.T) {
	t.Parallel()
	defs, err := Parse(process(`<startEvent id="none"/><sequenceFlow id="f0" sourceRef="none" targetRef="e"/>
<startEvent id="hot"><conditionalEventDefinition><condition>temperature &gt; 30</condition></conditionalEventDefinition></startEvent>
<startEvent id="juel"><conditionalEventDefinition><condition>${orderTotal &gt; 100}</condition></conditionalEventDefinition></startEvent>
<sequenceFlow id="f1" sourceRef="hot" targetRef="e"/><sequenceFlow id="f2" sourceRef="juel" targetRef="e"/><endEvent id="e"/>`))
	if err != nil {
		t.Fatal(err)
	}
	p := defs.Processes[0]
	if len(p.Graph.Starts) != 1 || p.Graph.Starts[0].ID != "none" {
		t.Errorf("none starts = %v", p.Graph.Starts)
	}
	if len(p.EventStarts) != 2 {
		t.Fatalf("event starts = %v, want hot and juel", p.EventStarts)
	}
	for i, want := range []string{"temperature > 30", "${orderTotal > 100}"} {
		n := p.EventStarts[i]
		if n.Event == nil || n.Event.Kind != TriggerConditional || src(n.Event.Condition) != want {
			t.Errorf("start %s: event %+v, want a conditional with %q", n.ID, n.Event, want)
		}
	}
	if !p.HasConditionalEvents() {
		t.Error("HasConditionalEvents = false")
	}

	tests := []struct {
		name, body string
		want       []want
	}{
		{"no condition", `<startEvent id="x"><conditionalEventDefinition/></startEvent><sequenceFlow id="f" sourceRef="x" targetRef="e"/><endEvent id="e"/>`,
			[]want{{"x", RuleInvalidExpression, "has no condition"}}},
		{"bad condition", `<startEvent id="x"><conditionalEventDefinition><condition>a &gt;</condition></conditionalEventDefinition></startEvent><sequenceFlow id="f" sourceRef="x" targetRef="e"/><endEvent id="e"/>`,
			[]want{{"x", RuleInvalidExpression, "condition"}}},
		{"variableName", `<startEvent id="x" xmlns:camunda="http://camunda.org/schema/1.0/bpmn"><conditionalEventDefinition camunda:variableName="a"><condition>a</condition></conditionalEventDefinition></startEvent><sequenceFlow id="f" sourceRef="x" targetRef="e"/><endEvent id="e"/>`,
			[]want{{"x", RuleUnsupported, "camunda:variableName"}}},
		{"in a plain sub-process", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="sub"/><subProcess id="sub"><startEvent id="x"><conditionalEventDefinition><condition>a</condition></conditionalEventDefinition></startEvent><sequenceFlow id="g" sourceRef="x" targetRef="ie"/><endEvent id="ie"/></subProcess><sequenceFlow id="h" sourceRef="sub" targetRef="e"/><endEvent id="e"/>`,
			[]want{{"x", RuleStartShape, "may only have a None start event"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkProblems(t, MustFail(t, process(tt.body)), tt.want, false)
		})
	}
}
