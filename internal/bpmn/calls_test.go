package bpmn

import (
	"testing"
)

func params(ps []DataParam) []string {
	out := make([]string, len(ps))
	for i, q := range ps {
		out[i] = q.Name
		if q.Optional {
			out[i] += "?"
		}
	}
	return out
}

func TestParseCallActivities(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "calls.bpmn")
	if len(defs.Processes) != 5 {
		t.Fatalf("got %d processes, want caller + 4 global tasks", len(defs.Processes))
	}
	p := defs.Processes[0]
	if p.ID != "caller" || p.GlobalTask {
		t.Fatalf("first process = %s (global %v)", p.ID, p.GlobalTask)
	}
	if p.IO == nil || !eq(params(p.IO.Inputs), []string{"order", "note?", "priority?"}) || !eq(params(p.IO.Outputs), []string{"total"}) {
		t.Errorf("process IO = %+v", p.IO)
	}
	wantNS := map[string]string{
		"":        "urn:default",
		"bpmn":    NamespaceModel,
		"gobpm":   NamespaceGobpm,
		"camunda": NamespaceCamunda,
		"zeebe":   NamespaceZeebe,
		"lib":     "urn:lib",
	}
	for _, proc := range defs.Processes {
		if len(proc.Namespaces) != len(wantNS) {
			t.Errorf("%s: namespaces = %v", proc.ID, proc.Namespaces)
		}
		for k, v := range wantNS {
			if proc.Namespaces[k] != v {
				t.Errorf("%s: namespace %q = %q, want %q", proc.ID, k, proc.Namespaces[k], v)
			}
		}
	}

	tests := []struct {
		id, called string
		version    int
	}{
		{"pay", "payment", 0},
		{"pinned", "payment", 3},
		{"c7pinned", "payment", 2},
		{"c7latest", "payment", 0},
		{"c8", "shipping", 0},
		{"both", "shipping", 0},
		{"qualified", "lib:audit", 0},
		{"global", "approveGlobal", 0},
	}
	for _, tt := range tests {
		n := p.Node(tt.id)
		if n == nil || n.Kind != KindCallActivity || !n.IsActivity() || n.Call == nil {
			t.Errorf("%s = %+v", tt.id, n)
			continue
		}
		if n.Call.CalledElement != tt.called || n.Call.Version != tt.version {
			t.Errorf("%s: call = %q v%d, want %q v%d", tt.id, n.Call.CalledElement, n.Call.Version, tt.called, tt.version)
		}
		if tt.id != "pay" && n.Call.IO != nil {
			t.Errorf("%s: IO without ioSpecification: %+v", tt.id, n.Call.IO)
		}
	}
	pay := p.Node("pay")
	if pay.Call.IO == nil || !eq(params(pay.Call.IO.Inputs), []string{"order", "amount"}) || !eq(params(pay.Call.IO.Outputs), []string{"receipt"}) {
		t.Errorf("pay IO = %+v", pay.Call.IO)
	}
	if len(pay.Boundaries) != 1 || pay.Boundaries[0].ID != "payFailed" || p.Node("payFailed").AttachedTo != pay {
		t.Errorf("pay boundaries = %v", ids2(pay.Boundaries))
	}
	if pay.Default == nil || pay.Default.ID != "f2" {
		t.Errorf("pay default = %v", pay.Default)
	}
	if n := p.Node("c8"); n.Name != "Zeebe" {
		t.Errorf("c8 name = %q", n.Name)
	}
	if sign := p.Node("sign"); sign.Kind != KindTask || sign.Name != "Sign by hand" || !sign.IsActivity() {
		t.Errorf("manual task = %+v", sign)
	}
}

func TestParseGlobalTasks(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "calls.bpmn")
	byID := map[string]*Process{}
	for _, proc := range defs.Processes[1:] {
		byID[proc.ID] = proc
	}
	order := []string{}
	for _, proc := range defs.Processes[1:] {
		order = append(order, proc.ID)
	}
	if !eq(order, []string{"approveGlobal", "sum", "noop", "byHand"}) {
		t.Fatalf("global processes = %v", order)
	}
	tests := []struct {
		id, name string
		kind     NodeKind
	}{
		{"approveGlobal", "Approve", KindUserTask},
		{"sum", "Sum", KindScriptTask},
		{"noop", "", KindTask},
		{"byHand", "By hand", KindTask},
	}
	for _, tt := range tests {
		proc := byID[tt.id]
		if !proc.GlobalTask || !proc.Executable || proc.Name != tt.name || len(proc.EventStarts) != 0 {
			t.Errorf("%s: process %+v", tt.id, proc)
		}
		g := proc.Graph
		if !eq(ids2(g.Nodes), []string{tt.id + ".start", tt.id, tt.id + ".end"}) || !eq(flowIDs(g.Flows), []string{tt.id + ".in", tt.id + ".out"}) {
			t.Errorf("%s: nodes %v flows %v", tt.id, ids2(g.Nodes), flowIDs(g.Flows))
		}
		if !eq(ids2(g.Starts), []string{tt.id + ".start"}) {
			t.Errorf("%s: starts %v", tt.id, ids2(g.Starts))
		}
		task := proc.Node(tt.id)
		if task == nil || task.Kind != tt.kind || task.Name != tt.name || task.Parent != g {
			t.Fatalf("%s: task %+v", tt.id, task)
		}
		start, end := proc.Node(tt.id+".start"), proc.Node(tt.id+".end")
		if start.Kind != KindStartEvent || end.Kind != KindEndEvent || start.Event != nil || end.Event != nil {
			t.Errorf("%s: start/end %+v %+v", tt.id, start, end)
		}
		if len(task.Incoming) != 1 || task.Incoming[0].Source != start || len(task.Outgoing) != 1 || task.Outgoing[0].Target != end {
			t.Errorf("%s: task is not wired start → task → end", tt.id)
		}
		checkGraph(t, proc, g)
	}
	u := byID["approveGlobal"].Node("approveGlobal").UserTask
	if u == nil || u.Assignee == nil || u.Assignee.Literal != "anna" || u.CandidateGroups == nil || u.CandidateGroups.Literal != "sales" {
		t.Errorf("global user task assignment = %+v", u)
	}
	if io := byID["approveGlobal"].IO; io == nil || !eq(params(io.Inputs), []string{"amount"}) || !eq(params(io.Outputs), []string{"approved"}) {
		t.Errorf("global user task IO = %+v", io)
	}
	s := byID["sum"].Node("sum")
	if src(s.Script) != "a + b" || s.ResultVariable != "total" {
		t.Errorf("global script task = %q → %q", src(s.Script), s.ResultVariable)
	}
	if byID["noop"].IO != nil {
		t.Error("global task without ioSpecification has IO")
	}
}

// TestParseGlobalTasksOnly: a document of global tasks alone is a library
// of callable processes.
func TestParseGlobalTasksOnly(t *testing.T) {
	t.Parallel()
	defs, err := Parse([]byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="lib"><globalTask id="g"/></definitions>`))
	if err != nil {
		t.Fatal(err)
	}
	if len(defs.Processes) != 1 || defs.Processes[0].ID != "g" || !defs.Processes[0].GlobalTask || defs.Processes[0].Namespaces[""] != NamespaceModel {
		t.Errorf("processes = %+v", defs.Processes)
	}
}

func TestParseRejectCalls(t *testing.T) {
	t.Parallel()
	verr := MustFail(t, MustRead(t, "reject_calls.bpmn"))
	checkProblems(t, verr, []want{
		{"noCallee", RuleMissingAttribute, "needs a calledElement"},
		{"emptyCallee", RuleMissingAttribute, "empty calledElement"},
		{"exprCallee", RuleInvalidExpression, `calledElement "${target"`},
		{"zeebeExpr", RuleInvalidExpression, `zeebe:calledElement processId "= target +"`},
		{"disagree", RuleInvalidAttribute, "disagree"},
		{"zeroVersion", RuleInvalidAttribute, `gobpm:version="0"`},
		{"wordVersion", RuleInvalidAttribute, `gobpm:version="two"`},
		{"deployment", RuleUnsupported, `camunda:calledElementBinding="newest" is not supported; use latest (the default), deployment, version or versionTag`},
		{"versionTag", RuleMissingAttribute, `camunda:calledElementBinding="versionTag" needs camunda:calledElementVersionTag`},
		{"noVersion", RuleMissingAttribute, "needs camunda:calledElementVersion"},
		{"tenant", RuleUnsupported, "camunda:calledElementTenantId"},
		{"c7vars", RuleInvalidAttribute, `camunda:in variables="some": only "all" is defined`},
		{"c7vars", RuleInvalidAttribute, "camunda:in has both source and sourceExpression"},
		{"c7vars", RuleInvalidAttribute, `camunda:in variables="all" takes no source, sourceExpression or target`},
		{"c7vars", RuleMissingAttribute, "camunda:out needs a target"},
		{"c7vars", RuleMissingAttribute, `camunda:out needs variables="all", a source or a sourceExpression`},
		{"c7vars", RuleUnsupported, "camunda:out businessKey is not supported"},
		{"c7vars", RuleInvalidAttribute, `camunda:in local="maybe" is not a boolean`},
		{"c7vars", RuleInvalidExpression, `camunda:in sourceExpression "${x"`},
		{"c7vars", RuleInvalidAttribute, "several camunda:in businessKey"},
		{"c8mapping", RuleInvalidAttribute, `zeebe:input target "b..c" on callActivity is not a variable name or a path of names`},
		{"c8binding", RuleUnsupported, `zeebe:calledElement bindingType="pinned" is not supported`},
		{"c8tag", RuleMissingAttribute, `bindingType="versionTag" needs a versionTag`},
		{"c8propagate", RuleInvalidAttribute, `propagateAllParentVariables="yes" is not a boolean`},
		{"signalVars", RuleUnsupported, "camunda:in on intermediateThrowEvent is not supported: gobpm passes variables with camunda:in/camunda:out only on call activities"},
		{"signalVars", RuleEventFlow, "needs an incoming sequence flow"},
		{"transform", RuleUnsupported, "transformation in dataInputAssociation"},
		{"renamed", RuleUnsupported, `connects variable "customer" with parameter "client"`},
		{"renamed", RuleUnsupported, `references "store", which is not a data object or property`},
		{"renamed", RuleMissingReference, `sourceRef "ghost" names no dataOutput`},
		{"badSpec", RuleInvalidAttribute, `two data inputs are named "x"`},
		{"badSpec", RuleUnsupported, "2 inputSets"},
		{"badSpec", RuleMissingReference, `dataInputRefs "nope"`},
		{"badSpec", RuleUnsupported, "whileExecutingInputRefs"},
		{"subSpec", RuleUnsupported, "ioSpecification in subProcess"},
		{"external", RuleUnsupported, "camunda:field"},
		{"external", RuleUnsupported, "camunda:errorEventDefinition"},
		{"clash", RuleDuplicateID, "globalTask"},
		{"rules", RuleMissingAttribute, `globalBusinessRuleTask "rules" needs a decision`},
		{"noScript", RuleInvalidExpression, "globalScriptTask has no script"},
		{"owned", RuleUnsupported, "potentialOwner on globalUserTask"},
	}, true)
}

func TestParseCallAssociations(t *testing.T) {
	t.Parallel()
	spec := `<ioSpecification><dataInput id="i" name="x"/><dataOutput id="o" name="y"/>` +
		`<inputSet><dataInputRefs>i</dataInputRefs></inputSet><outputSet><dataOutputRefs>o</dataOutputRefs></outputSet></ioSpecification>`
	const tail = `<startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="x"/><sequenceFlow id="g" sourceRef="x" targetRef="e"/>`
	const data = `<dataObject id="dx" name="x"/><dataObject id="dy" name="y"/><property id="px" name="x"/>`
	tests := []struct {
		name, body string
		want       []want // nil: accepted
	}{
		{"plain", `<callActivity id="x" calledElement="c">` + spec +
			`<dataInputAssociation><sourceRef>dx</sourceRef><targetRef>i</targetRef></dataInputAssociation>` +
			`<dataInputAssociation><sourceRef>px</sourceRef><targetRef>i</targetRef></dataInputAssociation>` +
			`<dataOutputAssociation><sourceRef>o</sourceRef><targetRef>dy</targetRef></dataOutputAssociation></callActivity>`, nil},
		{"assignment", `<callActivity id="x" calledElement="c">` + spec +
			`<dataOutputAssociation><sourceRef>o</sourceRef><targetRef>dy</targetRef><assignment><from>1</from><to>y</to></assignment></dataOutputAssociation></callActivity>`,
			[]want{{"x", RuleUnsupported, "assignment in dataOutputAssociation"}}},
		{"noSpec", `<callActivity id="x" calledElement="c"><dataInputAssociation><sourceRef>dx</sourceRef><targetRef>i</targetRef></dataInputAssociation></callActivity>`,
			[]want{{"x", RuleMissingReference, `targetRef "i" names no dataInput`}}},
		{"wrongSide", `<callActivity id="x" calledElement="c">` + spec + `<dataInputAssociation><sourceRef>dx</sourceRef><targetRef>o</targetRef></dataInputAssociation></callActivity>`,
			[]want{{"x", RuleMissingReference, `targetRef "o" names no dataInput`}}},
		{"noTarget", `<callActivity id="x" calledElement="c">` + spec + `<dataInputAssociation><sourceRef>dx</sourceRef></dataInputAssociation></callActivity>`,
			[]want{{"x", RuleMissingReference, "needs one targetRef"}}},
		{"twoSources", `<callActivity id="x" calledElement="c">` + spec + `<dataInputAssociation><sourceRef>dx</sourceRef><sourceRef>px</sourceRef><targetRef>i</targetRef></dataInputAssociation></callActivity>`,
			[]want{{"x", RuleUnsupported, "several sourceRefs"}}},
		{"unknownSource", `<callActivity id="x" calledElement="c">` + spec + `<dataInputAssociation><sourceRef>nothing</sourceRef><targetRef>i</targetRef></dataInputAssociation></callActivity>`,
			[]want{{"x", RuleMissingReference, `"nothing", which names no data object`}}},
		{"twoSpecs", `<callActivity id="x" calledElement="c">` + spec + `<ioSpecification id="io2"/></callActivity>`,
			[]want{{"io2", RuleUnsupported, "ioSpecification in callActivity"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := process(data + tt.body + tail)
			if tt.want == nil {
				if _, err := Parse(doc); err != nil {
					t.Fatal(err)
				}
				return
			}
			checkProblems(t, MustFail(t, doc), tt.want, true)
		})
	}
}

// TestParseAsyncIgnored: Camunda's transaction-boundary attributes are
// accepted and have no effect (gobpm decides its own boundaries).
func TestParseAsyncIgnored(t *testing.T) {
	t.Parallel()
	doc := []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn">
<process id="p" isExecutable="true"><startEvent id="s" camunda:asyncBefore="true"/>
<task id="t" camunda:asyncBefore="true" camunda:asyncAfter="true" camunda:exclusive="false"/>
<sequenceFlow id="f" sourceRef="s" targetRef="t"/></process></definitions>`)
	if _, err := Parse(doc); err != nil {
		t.Fatal(err)
	}
}
