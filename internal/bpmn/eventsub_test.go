package bpmn

import "testing"

func TestParseEventSubProcesses(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "eventsub.bpmn").Processes[0]
	g := p.Graph
	if got := ids2(g.EventSubs); !eq(got, []string{"onCancel", "reminder", "onAlarm", "onAnyError", "onBigOrder"}) {
		t.Errorf("process EventSubs = %v", got)
	}
	// Event sub-processes stay in Nodes but are never seeded.
	if got := ids2(g.Starts); !eq(got, []string{"start"}) {
		t.Errorf("process Starts = %v", got)
	}
	if len(p.EventStarts) != 0 {
		t.Errorf("EventStarts = %v; event sub-process starts are not process starts", ids2(p.EventStarts))
	}
	tests := []struct {
		id, start    string
		parent       *Graph
		kind         TriggerKind
		interrupting bool
		check        func(ev *EventDef) bool
	}{
		{"onCancel", "cancelStart", g, TriggerMessage, true, func(ev *EventDef) bool {
			return ev.MessageName == "cancel" && src(ev.CorrelationKey) == "=orderId"
		}},
		{"reminder", "reminderStart", g, TriggerTimer, false, func(ev *EventDef) bool {
			return ev.Timer != nil && ev.Timer.Kind == TimerCycle && ev.Timer.Text == "R3/PT10M"
		}},
		{"onAlarm", "alarmStart", g, TriggerSignal, true, func(ev *EventDef) bool { return ev.SignalName == "alarm" }},
		{"onAnyError", "anyErrorStart", g, TriggerError, true, func(ev *EventDef) bool { return ev.Code == "" }},
		{"onBigOrder", "bigOrderStart", g, TriggerConditional, false, func(ev *EventDef) bool {
			return src(ev.Condition) == "total > 1000"
		}},
		{"onPayError", "payErrorStart", p.Node("payment").Sub, TriggerError, true, func(ev *EventDef) bool { return ev.Code == "PAY" }},
		{"onFixLate", "fixLateStart", p.Node("onPayError").Sub, TriggerEscalation, false, func(ev *EventDef) bool { return ev.Code == "LATE" }},
	}
	for _, tt := range tests {
		n := p.Node(tt.id)
		if n == nil || n.Kind != KindSubProcess || !n.TriggeredByEvent || n.Sub == nil || n.Sub.Owner != n {
			t.Errorf("%s = %+v, want an event sub-process", tt.id, n)
			continue
		}
		if n.Parent != tt.parent || len(n.Incoming) != 0 || len(n.Outgoing) != 0 {
			t.Errorf("%s: wrong parent or wired", tt.id)
		}
		found := false
		for _, es := range tt.parent.EventSubs {
			found = found || es == n
		}
		if !found {
			t.Errorf("%s missing from its parent's EventSubs", tt.id)
		}
		s := n.Trigger
		if s == nil || s.ID != tt.start || s.Kind != KindStartEvent || s.Parent != n.Sub || p.Node(tt.start) != s {
			t.Errorf("%s: Trigger = %+v, want start %s inside", tt.id, s, tt.start)
			continue
		}
		if len(n.Sub.Starts) != 0 {
			t.Errorf("%s: Sub.Starts = %v, want none (the trigger starts it)", tt.id, ids2(n.Sub.Starts))
		}
		if n.Interrupting != tt.interrupting {
			t.Errorf("%s: Interrupting = %v", tt.id, n.Interrupting)
		}
		if s.Event == nil || s.Event.Kind != tt.kind || !tt.check(s.Event) {
			t.Errorf("%s: trigger event = %+v", tt.id, s.Event)
		}
	}
	// A plain sub-process keeps its None start and lists its handler.
	pay := p.Node("payment")
	if got := ids2(pay.Sub.Starts); !eq(got, []string{"payStart"}) || pay.TriggeredByEvent || pay.Trigger != nil {
		t.Errorf("payment: starts %v, triggered %v", got, pay.TriggeredByEvent)
	}
	if got := ids2(pay.Sub.EventSubs); !eq(got, []string{"onPayError"}) {
		t.Errorf("payment EventSubs = %v", got)
	}
	if got := ids2(p.Node("onPayError").Sub.EventSubs); !eq(got, []string{"onFixLate"}) {
		t.Errorf("nested EventSubs = %v", got)
	}
	if got := ids2(p.Node("onPayError").Sub.Nodes); !eq(got, []string{"payErrorStart", "fixPayment", "payErrorEnd", "onFixLate"}) {
		t.Errorf("handler nodes = %v", got)
	}
}

func TestParseConditionalEvents(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "conditional.bpmn").Processes[0]
	tests := []struct {
		id, cond string
		kind     NodeKind
		cancel   bool
	}{
		{"waitApproved", "approved = true", KindIntermediateCatchEvent, false},
		{"cancelled", "= cancelled", KindBoundaryEvent, true},
		{"slow", "${delay > 3}", KindBoundaryEvent, false},
	}
	for _, tt := range tests {
		n := p.Node(tt.id)
		if n == nil || n.Kind != tt.kind || n.Event == nil || n.Event.Kind != TriggerConditional {
			t.Errorf("%s = %+v", tt.id, n)
			continue
		}
		if got := src(n.Event.Condition); got != tt.cond {
			t.Errorf("%s: condition %q, want %q", tt.id, got, tt.cond)
		}
		if n.CancelActivity != tt.cancel {
			t.Errorf("%s: CancelActivity = %v", tt.id, n.CancelActivity)
		}
	}
	if got := ids2(p.Node("ship").Boundaries); !eq(got, []string{"cancelled", "slow"}) {
		t.Errorf("boundaries = %v", got)
	}
}

func TestParseFlowsWithoutID(t *testing.T) {
	t.Parallel()
	// The file declares a flow whose id, fork->task2, is the one an id-less
	// flow would get. That id is not an NCName, so a new deployment refuses
	// it; a definition deployed before ids had to be NCNames is read back
	// (Deployed) with the synthesized ids stepping aside as before.
	data := MustRead(t, "flows_without_id.bpmn")
	checkProblems(t, MustFail(t, data), []want{{"fork->task2", RuleInvalidID, `sequenceFlow id "fork->task2" is not an XML NCName`}}, true)
	parse := func() *Process {
		defs, err := ParseWith(data, Limits{Deployed: true})
		if err != nil {
			t.Fatal(err)
		}
		return defs.Processes[0]
	}
	p := parse()
	wantIDs := []string{"start->fork", "fork->join", "fork->join#2", "fork->task2#2", "fork->task2", "task->join", "task2->join", "join->end"}
	if got := flowIDs(p.Graph.Flows); !eq(got, wantIDs) {
		t.Fatalf("flows = %v, want %v", got, wantIDs)
	}
	if got := flowIDs(p.Node("join").Incoming); !eq(got, []string{"fork->join", "fork->join#2", "task->join", "task2->join"}) {
		t.Errorf("join incoming = %v", got)
	}
	// The same bytes give the same ids.
	again := parse()
	if !eq(flowIDs(again.Graph.Flows), wantIDs) {
		t.Error("synthesized ids are not stable")
	}
	// Flow nodes still need ids.
	verr := MustFail(t, process(`<startEvent id="s"/><task/><sequenceFlow sourceRef="s" targetRef="e"/><endEvent id="e"/>`))
	checkProblems(t, verr, []want{{"task (line 3)", RuleMissingID, "task has no id"}}, true)
}

func TestParseRejectsEventSubProcesses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want []want
	}{
		{"reject_event_subprocess.bpmn", []want{
			{"into", RuleEventFlow, `leads into event sub-process "wired"`},
			{"outOf", RuleEventFlow, `leaves event sub-process "wired"`},
			{"onWired", RuleInvalidBoundary, "event sub-process"},
			{"noneStart", RuleStartShape, "has no event definition"},
			{"twoStarts", RuleStartShape, "2 start events (s1, s2)"},
			{"noStart", RuleStartShape, "has no start event"},
			{"softErrorStart", RuleInvalidAttribute, `isInterrupting="false"`},
			{"compensation", RuleInvalidCompensation, "not at process level"},
			{"stray", RuleStartShape, "nothing would ever start it"},
			{"nestedStart", RuleMissingReference, "needs a messageRef"},
		}},
		{"reject_conditional.bpmn", []want{
			{"noCondition", RuleInvalidExpression, "has no condition"},
			{"emptyCondition", RuleInvalidExpression, "condition is empty"},
			{"badCondition", RuleInvalidExpression, `condition "x >"`},
			{"otherLanguage", RuleUnsupportedLanguage, "javascript"},
			{"narrowed", RuleUnsupported, "camunda:variableName"},
			{"narrowed", RuleUnsupported, "camunda:variableEvents"},
			{"gw", RuleInvalidEventGateway, `intermediateCatchEvent "viaGateway"`},
		}},
		{"reject_vendor_semantics.bpmn", []want{
			{"p", RuleUnsupported, "camunda:executionListener on process"},
			{"c7io", RuleUnsupported, `camunda:script in camunda:inputParameter "a" on serviceTask is not supported: gobpm runs no JavaScript or Groovy; write the value as a ${…} expression`},
			{"c7listener", RuleUnsupported, "camunda:taskListener on userTask"},
			{"c8task", RuleInvalidAttribute, `zeebe:input target "1b" on serviceTask is not a variable name`},
			{"c8user", RuleUnsupported, "zeebe:taskHeaders on userTask is not supported: custom headers reach the workers of jobs"},
			{"c8user", RuleUnsupported, "a canceling task listener on userTask is not supported"},
			{"f7", RuleUnsupported, "camunda:executionListener on sequenceFlow"},
			{"performed", RuleUnsupported, "humanPerformer on userTask is not supported; use gobpm:assignee / gobpm:candidateUsers / gobpm:candidateGroups"},
			{"owned", RuleUnsupported, "potentialOwner on userTask"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			checkProblems(t, MustFail(t, MustRead(t, tt.file)), tt.want, true)
		})
	}
}

// TestParseDescriptiveVendorExtensions checks that UI-only vendor
// extensions (forms, properties) are accepted and ignored.
func TestParseDescriptiveVendorExtensions(t *testing.T) {
	t.Parallel()
	data := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="urn:t">
<process id="p" isExecutable="true"><startEvent id="s"/>
<userTask id="u" camunda:formKey="embedded:app:forms/u.html"><extensionElements>
  <camunda:formData><camunda:formField id="ok" type="boolean" defaultValue="false"/></camunda:formData>
  <camunda:properties><camunda:property name="color" value="red"/></camunda:properties>
  <zeebe:formDefinition formKey="f"/>
</extensionElements></userTask>
<endEvent id="e"/><sequenceFlow id="f1" sourceRef="s" targetRef="u"/><sequenceFlow id="f2" sourceRef="u" targetRef="e"/>
</process></definitions>`)
	if _, err := Parse(data); err != nil {
		t.Fatal(err)
	}
}
