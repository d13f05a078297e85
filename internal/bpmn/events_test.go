package bpmn

import (
	"strings"
	"testing"
)

// src returns the source of a compiled expression, or "" for nil.
func src(x interface{ Source() string }) string {
	if x == nil {
		return ""
	}
	return strings.TrimSpace(x.Source())
}

func TestParseJobs(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "jobs.bpmn").Processes[0]
	tests := []struct {
		id      string
		kind    NodeKind
		typ     string
		retries int
	}{
		{"charge", KindServiceTask, "payment", DefaultJobRetries},
		{"reserve", KindServiceTask, "stock", 5},
		{"mail", KindSendTask, "mail", 0},
		{"zeebeTask", KindServiceTask, "zeebe-job", 7},
		{"camundaTask", KindServiceTask, "camunda-topic", DefaultJobRetries},
		{"agree", KindServiceTask, "gobpm-wins", 9}, // gobpm > zeebe > camunda, per attribute
		{"dual", KindSendTask, "email", DefaultJobRetries},
		{"notify", KindIntermediateThrowEvent, "notify", DefaultJobRetries},
		{"done", KindEndEvent, "done", 1},
	}
	for _, tt := range tests {
		n := p.Node(tt.id)
		if n == nil || n.Kind != tt.kind {
			t.Errorf("%s: node %+v, want kind %s", tt.id, n, tt.kind)
			continue
		}
		if n.Job == nil || n.Job.Type != tt.typ || n.Job.Retries != tt.retries {
			t.Errorf("%s: job %+v, want {%s %d}", tt.id, n.Job, tt.typ, tt.retries)
		}
	}
	if !p.Node("charge").IsActivity() || p.Node("charge").Name != "Charge card" {
		t.Error("charge is not an activity")
	}
	notify := p.Node("notify")
	if notify.Event == nil || notify.Event.Kind != TriggerMessage || notify.Event.MessageName != "shipped" {
		t.Errorf("notify event = %+v", notify.Event)
	}
	if done := p.Node("done"); done.Event == nil || done.Event.Kind != TriggerMessage || done.Event.MessageName != "" {
		t.Errorf("done event = %+v", done.Event)
	}
	// A send task with a messageRef records the message it sends.
	if ev := p.Node("mail").Event; ev == nil || ev.Kind != TriggerMessage || ev.MessageName != "shipped" {
		t.Errorf("mail event = %+v", ev)
	}
	if p.Node("dual").Event != nil {
		t.Error("send task without messageRef has an event definition")
	}
}

func TestParseUserTasks(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "usertasks.bpmn").Processes[0]
	// lit and ex describe an expected binding: a literal, an expression
	// source, or absent.
	type b struct{ lit, ex string }
	check := func(id, field string, got *Binding, want *b) {
		t.Helper()
		switch {
		case want == nil && got != nil:
			t.Errorf("%s.%s = %+v, want nil", id, field, got)
		case want == nil:
		case got == nil:
			t.Errorf("%s.%s = nil, want %+v", id, field, *want)
		case want.ex != "" && (got.Expr == nil || src(got.Expr) != want.ex || got.Literal != ""):
			t.Errorf("%s.%s = {%q %q}, want expression %q", id, field, got.Literal, src(got.Expr), want.ex)
		case want.ex == "" && (got.Expr != nil || got.Literal != want.lit):
			t.Errorf("%s.%s = {%q %q}, want literal %q", id, field, got.Literal, src(got.Expr), want.lit)
		}
	}
	tests := []struct {
		id                           string
		assignee, users, groups, due *b
	}{
		{"approve", &b{lit: "anna"}, nil, &b{lit: "sales, admins"}, &b{ex: "=deadline"}},
		{"review", &b{ex: "${initiator}"}, &b{lit: "kermit,gonzo"}, nil, &b{lit: "2026-12-24T10:00:00Z"}},
		{"check", &b{ex: "= owner"}, &b{lit: "anna,bob"}, nil, &b{ex: "=due"}},
		{"both", &b{lit: "anna"}, nil, nil, nil}, // gobpm wins over camunda
		{"open", nil, nil, nil, nil},
	}
	for _, tt := range tests {
		n := p.Node(tt.id)
		if n == nil || n.Kind != KindUserTask || n.UserTask == nil {
			t.Errorf("%s = %+v", tt.id, n)
			continue
		}
		u := n.UserTask
		check(tt.id, "Assignee", u.Assignee, tt.assignee)
		check(tt.id, "CandidateUsers", u.CandidateUsers, tt.users)
		check(tt.id, "CandidateGroups", u.CandidateGroups, tt.groups)
		check(tt.id, "DueDate", u.DueDate, tt.due)
	}
}

func TestParseEvents(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "events.bpmn").Processes[0]
	if got := ids2(p.Graph.Starts); !eq(got, []string{"start"}) {
		t.Errorf("Graph.Starts = %v, want only the None start", got)
	}
	if got := ids2(p.EventStarts); !eq(got, []string{"timerStart", "orderStart", "alarmStart"}) {
		t.Errorf("EventStarts = %v", got)
	}
	if p.Node("start").Event != nil {
		t.Error("None start has an event definition")
	}
	timer := func(id string, kind TimerKind, text, expr string) {
		t.Helper()
		ev := p.Node(id).Event
		if ev == nil || ev.Kind != TriggerTimer || ev.Timer == nil {
			t.Errorf("%s: event %+v", id, ev)
			return
		}
		if ev.Timer.Kind != kind || ev.Timer.Text != text || src(ev.Timer.Expr) != expr {
			t.Errorf("%s: timer {%s %q %q}, want {%s %q %q}", id, ev.Timer.Kind, ev.Timer.Text, src(ev.Timer.Expr), kind, text, expr)
		}
	}
	timer("timerStart", TimerCycle, "R/PT1H", "")
	timer("wait", TimerDuration, "PT10M", "")
	timer("until", TimerDate, "", "=dueAt")

	message := func(id, name, key string) {
		t.Helper()
		ev := p.Node(id).Event
		if ev == nil || ev.Kind != TriggerMessage || ev.MessageName != name || src(ev.CorrelationKey) != key {
			t.Errorf("%s: event %+v, want message %q key %q", id, ev, name, key)
		}
	}
	message("orderStart", "order placed", "orderId")
	message("paid", "payment received", "=order.id")
	message("receipt", "Msg_Receipt", "") // name falls back to the id
	if p.Node("receipt").Kind != KindReceiveTask {
		t.Error("receipt kind")
	}

	trigger := func(id string, kind TriggerKind, name, code string) {
		t.Helper()
		ev := p.Node(id).Event
		if ev == nil || ev.Kind != kind || ev.SignalName != name || ev.Code != code {
			t.Errorf("%s: event %+v, want %s %q %q", id, ev, kind, name, code)
		}
	}
	trigger("alarmStart", TriggerSignal, "alarm", "")
	trigger("go", TriggerSignal, "Sig_Go", "")
	trigger("broadcast", TriggerSignal, "alarm", "")
	trigger("escalate", TriggerEscalation, "", "LATE")
	trigger("endError", TriggerError, "", "REJECTED")
	trigger("endEscalation", TriggerEscalation, "", "LATE")
	trigger("endSignal", TriggerSignal, "Sig_Go", "")
	trigger("endCamunda", TriggerError, "", "undeclared") // Camunda 7: a dangling errorRef is the code
	trigger("endTerminate", TriggerTerminate, "", "")
	if !p.Node("endTerminate").Terminate || p.Node("endError").Terminate {
		t.Error("Terminate flag")
	}
	for _, id := range []string{"pass", "endNone"} {
		if n := p.Node(id); n.Event != nil || n.Job != nil {
			t.Errorf("%s: none event has %+v / %+v", id, n.Event, n.Job)
		}
	}
	if p.Node("broadcast").Job != nil {
		t.Error("signal throw has a job")
	}
}

func TestParseMessageStartOnly(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "message_start.bpmn").Processes[0]
	if len(p.Graph.Starts) != 0 {
		t.Errorf("Graph.Starts = %v, want none", ids2(p.Graph.Starts))
	}
	if got := ids2(p.EventStarts); !eq(got, []string{"order", "nightly"}) {
		t.Errorf("EventStarts = %v", got)
	}
	if key := p.Node("order").Event.CorrelationKey; src(key) != "a" {
		t.Errorf("correlation key = %q, want gobpm's over zeebe's", src(key))
	}
	if tm := p.Node("nightly").Event.Timer; tm == nil || tm.Kind != TimerCycle || tm.Text != "0 0 2 * * ?" {
		t.Errorf("cron timer = %+v", tm)
	}
}

func TestParseBoundaries(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "boundaries.bpmn").Processes[0]
	tests := []struct {
		id, host  string
		kind      TriggerKind
		interrupt bool
		detail    string // message name, signal name or code
	}{
		{"chargeTimeout", "charge", TriggerTimer, true, ""},
		{"chargeCancel", "charge", TriggerMessage, false, "cancel"},
		{"chargeDeclined", "charge", TriggerError, true, "CARD_DECLINED"},
		{"chargeAnyError", "charge", TriggerError, true, ""},
		{"handleSlow", "handle", TriggerEscalation, false, "SLOW"},
		{"subStop", "sub", TriggerSignal, false, "stop"},
		{"subReminder", "sub", TriggerTimer, false, ""},
	}
	for _, tt := range tests {
		n := p.Node(tt.id)
		if n == nil || n.Kind != KindBoundaryEvent {
			t.Errorf("%s = %+v", tt.id, n)
			continue
		}
		if n.AttachedTo != p.Node(tt.host) || n.CancelActivity != tt.interrupt {
			t.Errorf("%s: attached to %v, cancelActivity %v", tt.id, n.AttachedTo, n.CancelActivity)
		}
		if n.Parent != p.Node(tt.host).Parent {
			t.Errorf("%s: not in its host's container", tt.id)
		}
		ev := n.Event
		if ev == nil || ev.Kind != tt.kind || ev.MessageName+ev.SignalName+ev.Code != tt.detail {
			t.Errorf("%s: event %+v", tt.id, ev)
		}
	}
	if got := ids2(p.Node("charge").Boundaries); !eq(got, []string{"chargeTimeout", "chargeCancel", "chargeDeclined", "chargeAnyError"}) {
		t.Errorf("charge boundaries = %v", got)
	}
	if got := ids2(p.Node("sub").Boundaries); !eq(got, []string{"subStop", "subReminder"}) {
		t.Errorf("sub boundaries = %v", got)
	}
	if got := ids2(p.Node("handle").Boundaries); !eq(got, []string{"handleSlow"}) {
		t.Errorf("handle boundaries = %v", got)
	}
	if key := p.Node("chargeCancel").Event.CorrelationKey; src(key) != "orderId" {
		t.Errorf("correlation key = %q", src(key))
	}
	if tm := p.Node("subReminder").Event.Timer; tm.Kind != TimerCycle || tm.Text != "R3/PT10M" {
		t.Errorf("reminder timer = %+v", tm)
	}
	// Boundary events are never seeded and do not count as flow-less nodes.
	if got := ids2(p.Graph.Starts); !eq(got, []string{"start"}) {
		t.Errorf("starts = %v", got)
	}
	if got := ids2(p.Node("sub").Sub.Starts); !eq(got, []string{"subStart"}) {
		t.Errorf("sub starts = %v", got)
	}
	if n := p.Node("chargeCancel"); len(n.Outgoing) != 0 || len(n.Incoming) != 0 {
		t.Error("flow-less boundary event has flows")
	}
}

func TestParseGateways(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "gateways.bpmn").Processes[0]
	race := p.Node("race")
	if race.Kind != KindEventBasedGateway || len(race.Outgoing) != 4 || race.Default != nil {
		t.Errorf("race = %+v", race)
	}
	fork := p.Node("fork")
	if fork.Kind != KindInclusiveGateway || fork.Default == nil || fork.Default.ID != "always" {
		t.Errorf("fork = %+v", fork)
	}
	if fork.Outgoing[0].Condition == nil || fork.Outgoing[1].Condition != nil {
		t.Error("fork conditions")
	}
	if join := p.Node("join"); join.Kind != KindInclusiveGateway || len(join.Incoming) != 2 {
		t.Errorf("join = %+v", join)
	}
}

func TestParseLinks(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "links.bpmn")
	p := defs.Processes[0]
	tests := []struct{ throw, catch string }{
		{"toPage2", "page2"},
		{"alsoToPage2", "page2"}, // several throws may lead to one catch
		{"subThrow", "subCatch"}, // the same name in another level is another pair
	}
	for _, tt := range tests {
		n := p.Node(tt.throw)
		if n == nil || n.Event == nil || n.Event.Kind != TriggerLink || n.Event.LinkName != "Page 2" {
			t.Fatalf("%s: %+v", tt.throw, n)
		}
		if n.LinkTarget == nil || n.LinkTarget.ID != tt.catch {
			t.Errorf("%s: LinkTarget %+v, want %s", tt.throw, n.LinkTarget, tt.catch)
		}
	}
	if c := p.Node("page2"); c.LinkTarget != nil || c.Event.Kind != TriggerLink {
		t.Errorf("catch page2: %+v", c)
	}
}

// linkLoopDoc holds a process whose flow returns through a link pair to a
// script task; with exit, an exclusive gateway can leave the loop.
func linkLoopDoc(exit bool) []byte {
	out := `<sequenceFlow id="f3" sourceRef="work" targetRef="back"/>`
	if exit {
		out = `<exclusiveGateway id="g" default="f4"/>
<sequenceFlow id="f3" sourceRef="work" targetRef="g"/>
<sequenceFlow id="f4" sourceRef="g" targetRef="back"/>
<sequenceFlow id="f5" sourceRef="g" targetRef="end"><conditionExpression>=done</conditionExpression></sequenceFlow>
<endEvent id="end"/>`
	}
	return []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:t">
<process id="p" isExecutable="true">
<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
<scriptTask id="work" scriptFormat="feel"><script>1</script></scriptTask>
<intermediateThrowEvent id="back"><linkEventDefinition name="again"/></intermediateThrowEvent>
<intermediateCatchEvent id="again"><linkEventDefinition name="again"/></intermediateCatchEvent>
<sequenceFlow id="f2" sourceRef="again" targetRef="work"/>
` + out + `
</process></definitions>`)
}

func TestParseLinkLoopStepBudget(t *testing.T) {
	t.Parallel()
	lim := Limits{MaxActivations: 1000}
	// A loop through a link pair with no wait state and no way out can
	// never be passed: refused like any synchronous loop.
	verr := MustFailWith(t, linkLoopDoc(false), lim)
	checkProblems(t, verr, []want{{"s", RuleStepBudget, "loops through synchronous elements"}}, true)
	// Without limits it deploys; the engine's step budget bounds it.
	if _, err := Parse(linkLoopDoc(false)); err != nil {
		t.Fatalf("Parse: %v", err)
	}
	// A loop that can leave deploys.
	MustParseWith(t, linkLoopDoc(true), lim)
}
