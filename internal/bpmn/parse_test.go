package bpmn

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding/unicode"
)

// MustParseFile parses testdata/name and fails the test on any error.
func MustParseFile(tb testing.TB, name string) *Definitions {
	tb.Helper()
	defs, err := Parse(MustRead(tb, name))
	if err != nil {
		tb.Fatalf("Parse(%s): %v", name, err)
	}
	return defs
}

// MustRead returns the bytes of testdata/name.
func MustRead(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// MustFail parses data and returns the *ValidationError it must produce.
func MustFail(tb testing.TB, data []byte) *ValidationError {
	tb.Helper()
	defs, err := Parse(data)
	if err == nil {
		tb.Fatalf("Parse succeeded (%d processes), want a ValidationError", len(defs.Processes))
	}
	var verr *ValidationError
	if !errors.As(err, &verr) {
		tb.Fatalf("Parse error is %T (%v), want *ValidationError", err, err)
	}
	return verr
}

func ids2(ns []*Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.ID
	}
	return out
}

func flowIDs(fs []*Flow) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

func eq(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

func TestParseStraight(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "straight.bpmn")
	if defs.ID != "defs" || defs.TargetNamespace != "urn:test" {
		t.Errorf("definitions id/ns = %q/%q", defs.ID, defs.TargetNamespace)
	}
	if len(defs.Processes) != 1 {
		t.Fatalf("got %d processes", len(defs.Processes))
	}
	p := defs.Processes[0]
	if p.ID != "straight" || p.Name != "Straight through" || !p.Executable {
		t.Errorf("process = %+v", p)
	}
	g := p.Graph
	if g.Owner != nil {
		t.Error("process graph has an owner")
	}
	if got := ids2(g.Nodes); !eq(got, []string{"start", "work", "end"}) {
		t.Errorf("nodes = %v", got)
	}
	if got := flowIDs(g.Flows); !eq(got, []string{"f1", "f2"}) {
		t.Errorf("flows = %v", got)
	}
	if got := ids2(g.Starts); !eq(got, []string{"start"}) {
		t.Errorf("starts = %v", got)
	}
	work := p.Node("work")
	if work == nil || work.Kind != KindTask || work.Name != "Work" || work.Parent != g {
		t.Fatalf("work = %+v", work)
	}
	if !eq(flowIDs(work.Incoming), []string{"f1"}) || !eq(flowIDs(work.Outgoing), []string{"f2"}) {
		t.Errorf("work flows in=%v out=%v", flowIDs(work.Incoming), flowIDs(work.Outgoing))
	}
	f1 := g.Flows[0]
	if f1.Source != p.Node("start") || f1.Target != work || f1.Condition != nil {
		t.Errorf("f1 = %+v", f1)
	}
	if p.Node("end").Kind != KindEndEvent || p.Node("end").Terminate {
		t.Error("end is not a None end event")
	}
	if p.Node("start_di") != nil || p.Node("nope") != nil {
		t.Error("Node found a non-node")
	}
}

func TestParseSubProcess(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "subprocess.bpmn").Processes[0]
	if !eq(p.Graph.DataNames, []string{"total"}) {
		t.Errorf("process data = %v", p.Graph.DataNames)
	}
	outer := p.Node("outer")
	if outer.Kind != KindSubProcess || outer.Sub == nil || outer.Sub.Owner != outer || outer.Parent != p.Graph {
		t.Fatalf("outer = %+v", outer)
	}
	if !eq(outer.Sub.DataNames, []string{"attempt", "note"}) {
		t.Errorf("outer data = %v", outer.Sub.DataNames)
	}
	if got := ids2(outer.Sub.Starts); !eq(got, []string{"outer_start"}) {
		t.Errorf("outer starts = %v", got)
	}
	inner := p.Node("inner")
	if inner.Parent != outer.Sub || inner.Sub.Owner != inner {
		t.Error("inner is not nested in outer")
	}
	if got := ids2(inner.Sub.Starts); !eq(got, []string{"seed_a", "seed_b"}) {
		t.Errorf("inner starts (flow-less seeding) = %v", got)
	}
	if !p.Node("outer_end").Terminate {
		t.Error("outer_end is not a terminate end event")
	}
	if p.Node("seed_b").Parent != inner.Sub {
		t.Error("seed_b parent")
	}
}

func TestParseFlowless(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "flowless.bpmn").Processes[0]
	if got := ids2(p.Graph.Starts); !eq(got, []string{"a", "g"}) {
		t.Errorf("starts = %v, want the flow-less activity and gateway", got)
	}
}

func TestParseParallel(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "parallel.bpmn").Processes[0]
	fork, join := p.Node("fork"), p.Node("join")
	if fork.Kind != KindParallelGateway || len(fork.Outgoing) != 2 || len(join.Incoming) != 2 {
		t.Errorf("fork out=%d join in=%d", len(fork.Outgoing), len(join.Incoming))
	}
}

func TestParseDeclarations(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "declarations.bpmn")
	if len(defs.Imports) != 1 || defs.Imports[0] != (Import{Namespace: "urn:other", Location: "other.bpmn", ImportType: "http://www.omg.org/spec/BPMN/20100524/MODEL"}) {
		t.Errorf("imports = %+v", defs.Imports)
	}
	if len(defs.Processes) != 2 {
		t.Fatalf("got %d processes", len(defs.Processes))
	}
	shop, sketch := defs.Processes[0], defs.Processes[1]
	if !shop.Executable || sketch.Executable {
		t.Error("isExecutable not read")
	}
	if !eq(shop.Graph.DataNames, []string{"order"}) {
		t.Errorf("data = %v", shop.Graph.DataNames)
	}
	work := shop.Node("work")
	if work.Kind != KindScriptTask || work.ResultVariable != "total" || work.Script == nil {
		t.Errorf("work = %+v", work)
	}
	if got := ids2(shop.Graph.Nodes); !eq(got, []string{"start", "work", "end"}) {
		t.Errorf("descriptive elements became nodes: %v", got)
	}
}

func TestParseExpressions(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "xor_script.bpmn").Processes[0]
	score := p.Node("score")
	if score.Script == nil || score.ResultVariable != "score" {
		t.Fatalf("score = %+v", score)
	}
	decide := p.Node("decide")
	if decide.Default == nil || decide.Default.ID != "toLow" {
		t.Errorf("default = %v", decide.Default)
	}
	if !p.Node("high").Terminate {
		t.Error("high is not terminate")
	}
	toHigh := decide.Outgoing[0]
	if toHigh.ID != "toHigh" || toHigh.Condition == nil || toHigh.Name != "high" {
		t.Fatalf("toHigh = %+v", toHigh)
	}
	if got := toHigh.Condition.Source(); strings.TrimSpace(got) != "score > 100" {
		t.Errorf("condition source = %q", got)
	}

	p = MustParseFile(t, "activity_default.bpmn").Processes[0]
	check := p.Node("check")
	if check.Default == nil || check.Default.ID != "otherwise" || check.Outgoing[0].Condition == nil {
		t.Errorf("check = %+v", check)
	}
}

func TestParseLatin1(t *testing.T) {
	t.Parallel()
	data := MustRead(t, "latin1.bpmn")
	if !bytes.Contains(data, []byte{'C', 'a', 'f', 0xE9}) {
		t.Fatal("fixture is not ISO-8859-1 encoded")
	}
	p := MustParseFile(t, "latin1.bpmn").Processes[0]
	if p.Name != "Café order" {
		t.Errorf("name = %q, want %q", p.Name, "Café order")
	}
	if n := p.Node("start").Name; n != "Début" {
		t.Errorf("start name = %q", n)
	}
}

func TestParseUTF16(t *testing.T) {
	t.Parallel()
	src := bytes.Replace(MustRead(t, "straight.bpmn"), []byte(`encoding="UTF-8"`), []byte(`encoding="UTF-16"`), 1)
	src = bytes.Replace(src, []byte(`name="Work"`), []byte(`name="Wörk"`), 1)
	for _, e := range []unicode.Endianness{unicode.LittleEndian, unicode.BigEndian} {
		enc, err := unicode.UTF16(e, unicode.UseBOM).NewEncoder().Bytes(src)
		if err != nil {
			t.Fatal(err)
		}
		defs, err := Parse(enc)
		if err != nil {
			t.Fatalf("Parse UTF-16: %v", err)
		}
		if n := defs.Processes[0].Node("work").Name; n != "Wörk" {
			t.Errorf("name = %q", n)
		}
	}
}

func TestParseWindows1252(t *testing.T) {
	t.Parallel()
	src := bytes.Replace(MustRead(t, "latin1.bpmn"), []byte("ISO-8859-1"), []byte("windows-1252"), 1)
	src = bytes.Replace(src, []byte("Caf\xe9"), []byte("Caf\xe9 \x80"), 1)
	defs, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if n := defs.Processes[0].Name; n != "Café € order" {
		t.Errorf("name = %q", n)
	}
}

// want is one expected problem.
type want struct {
	element string
	rule    Rule
	detail  string // substring of Detail, optional
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want []want
		// exact requires the problems to be exactly want (in any order).
		exact bool
	}{
		{"reject_two_starts.bpmn", []want{{"sub", RuleStartShape, "2 None start events"}}, false},
		{"reject_mixed.bpmn", []want{{"loose", RuleStartShape, "mixed"}}, true},
		{"reject_no_start.bpmn", []want{{"sub", RuleStartShape, "no start event"}}, true},
		{"reject_empty_process.bpmn", []want{{"p", RuleStartShape, "no start event"}}, true},
		{"reject_triggered_start.bpmn", []want{{"timerStart", RuleStartShape, "timerEventDefinition"}}, true},
		{"reject_event_flows.bpmn", []want{{"start", RuleEventFlow, "incoming"}, {"end", RuleEventFlow, "outgoing"}}, true},
		{"reject_crossing.bpmn", []want{{"escape", RuleCrossingFlow, "inside"}}, true},
		{"reject_service_task.bpmn", []want{
			{"charge", RuleUnknownExtension, `"tpye"`},
			{"charge", RuleMissingAttribute, `serviceTask "charge" needs a job type`},
			{"notify", RuleMissingAttribute, "gobpm:type is empty"},
			{"retry", RuleInvalidAttribute, `gobpm:retries="-1"`},
			{"retry2", RuleInvalidAttribute, `gobpm:retries="three"`},
			{"dyn", RuleInvalidExpression, `zeebe:taskDefinition type "=kind +"`},
		}, true},
		{"reject_camunda_class.bpmn", []want{
			{"javaClass", RuleUnsupported, "camunda:class"},
			{"delegate", RuleUnsupported, "camunda:delegateExpression"},
			{"expression", RuleUnsupported, "camunda:expression"},
			{"mailType", RuleUnsupported, `camunda:type="mail"`},
			{"throwClass", RuleUnsupported, "camunda:class"},
		}, true},
		{"reject_timers.bpmn", []want{
			{"badDuration", RuleInvalidTimer, `"PT10X"`},
			{"badDate", RuleInvalidTimer, `"tomorrow"`},
			{"two", RuleInvalidTimer, "found 2"},
			{"none", RuleInvalidTimer, "found 0"},
			{"empty", RuleInvalidTimer, "empty"},
			{"cycle", RuleInvalidTimer, "timeCycle is not allowed"},
			{"badExpr", RuleInvalidExpression, "timeDuration"},
		}, true},
		{"reject_boundaries.bpmn", []want{
			{"softError", RuleInvalidBoundary, "always interrupts"},
			{"softError", RuleEventFlow, "incoming"},
			{"plain", RuleUnsupported, "without an event definition"},
			{"onGateway", RuleInvalidBoundary, `exclusiveGateway "gw"`},
			{"nowhere", RuleMissingReference, "no attachedToRef"},
			{"ghost", RuleMissingReference, `"missing"`},
			{"cond", RuleConditionNotAllowed, "event"},
			{"outside", RuleInvalidBoundary, "host's container"},
		}, true},
		{"reject_event_gateway.bpmn", []want{
			{"toTask", RuleInvalidEventGateway, `task "t"`},
			{"single", RuleInvalidEventGateway, "at least two"},
			{"single", RuleInvalidEventGateway, "exactly one incoming"},
			{"g2", RuleConditionNotAllowed, "event-based gateway"},
		}, true},
		{"reject_references.bpmn", []want{
			{"noMessageRef", RuleMissingReference, "needs a messageRef"},
			{"badMessageRef", RuleMissingReference, `"nope"`},
			{"noSignalRef", RuleMissingReference, "needs a signalRef"},
			{"badSignalRef", RuleMissingReference, `"m" names no signal`},
			{"badSendRef", RuleMissingReference, `"ghost"`},
			{"noEscalationRef", RuleMissingReference, "escalationRef"},
			{"codeless", RuleMissingAttribute, "errorCode"},
			{"badEscalationRef", RuleMissingReference, `"noCode" names no escalation`},
			{"noErrorRef", RuleMissingReference, "errorRef"},
		}, true},
		{"reject_user_tasks.bpmn", []want{
			{"typo", RuleUnknownExtension, `"asignee"`},
			{"typo", RuleUnknownExtension, `"type" on userTask`},
			{"m", RuleInvalidExpression, "gobpm:correlationKey"},
			{"badExpr", RuleInvalidExpression, "gobpm:assignee"},
			{"camundaBean", RuleInvalidExpression, "camunda:candidateUsers"},
		}, true},
		{"reject_event_placement.bpmn", []want{
			{"errorStart", RuleUnsupported, "errorEventDefinition"},
			{"noneCatch", RuleUnsupported, "without an event definition"},
			{"linkCatch", RuleEventFlow, "link intermediate catch event must not have incoming"},
			{"errorThrow", RuleUnsupported, "errorEventDefinition"},
			{"typedNone", RuleUnknownExtension, "message throw"},
			{"conditional", RuleInvalidExpression, "no condition"},
			{"noDef", RuleUnsupported, "without an event definition"},
			{"orphan", RuleEventFlow, "needs an incoming"},
		}, true},
		{"reject_links.bpmn", []want{
			{"noCatch", RuleInvalidLink, `no link catch event is named "nowhere" in process "p"`},
			{"ambiguous", RuleInvalidLink, `2 link catch events are named "twice" in process "p" (twiceA, twiceB)`},
			{"otherLevel", RuleInvalidLink, `named "inner" ("innerCatch") is in subProcess "sub", not in process "p"`},
			{"caseDiffers", RuleInvalidLink, `no link catch event is named "Page"`},
			{"fedCatch", RuleEventFlow, "link intermediate catch event must not have incoming"},
			{"withOut", RuleEventFlow, "link intermediate throw event must not have outgoing"},
			{"nameless", RuleMissingAttribute, "linkEventDefinition needs a name"},
			{"linkBoundary", RuleUnsupported, "boundaryEvent with linkEventDefinition"},
		}, true},
		{"reject_script_language.bpmn", []want{{"js", RuleUnsupportedLanguage, "javascript"}, {"empty", RuleInvalidExpression, "no script"}}, true},
		{"reject_bad_expression.bpmn", []want{{"f2", RuleInvalidExpression, "conditionExpression"}, {"calc", RuleInvalidExpression, "script"}}, true},
		{"reject_doctype.bpmn", []want{{"", RuleDoctype, "DOCTYPE"}}, true},
		{"reject_duplicate_ids.bpmn", []want{{"t", RuleDuplicateID, "task"}, {"f1", RuleDuplicateID, "sequenceFlow"}}, true},
		{"reject_missing_refs.bpmn", []want{
			{"g", RuleMissingReference, `default "nowhere"`},
			{"dref", RuleMissingReference, `"ghost"`},
			{"noSource", RuleMissingReference, "no sourceRef"},
			{"badTarget", RuleMissingReference, `"missing"`},
			{"toFlow", RuleMissingReference, "sequence flow"},
		}, true},
		{"reject_defaults.bpmn", []want{
			{"g", RuleInvalidDefault, "not an outgoing flow"},
			{"conditional", RuleInvalidDefault, "conditionExpression"},
			{"pg", RuleInvalidDefault, "parallel"},
			{"f4", RuleConditionNotAllowed, "parallel gateway"},
		}, true},
		{"reject_quantity.bpmn", []want{{"t", RuleInvalidAttribute, "startQuantity"}, {"sub", RuleInvalidAttribute, "completionQuantity"}}, true},
		{"reject_unknown_extension.bpmn", []want{
			{"p", RuleUnknownExtension, `"version"`},
			{"calc", RuleUnknownExtension, `"resultVarible"`},
			{"t", RuleUnknownExtension, `"resultVariable" on task`},
			{"taskHeader (line 7)", RuleUnknownExtension, "taskHeader"},
		}, true},
		{"reject_many.bpmn", []want{
			{"approve", RuleUnsupported, "complexGateway"},
			{"dup", RuleDuplicateID, ""},
			{"task (line 11)", RuleMissingID, ""},
			{"f2", RuleCrossingFlow, ""},
			{"f3", RuleMissingReference, `"nothing"`},
			{"sub", RuleStartShape, "mixed"},
		}, false},
		{"reject_not_bpmn.bpmn", []want{{"dmn", RuleNotBPMN, "DMN"}}, true},
		{"reject_no_process.bpmn", []want{{"defs", RuleNoProcess, ""}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			verr := MustFail(t, MustRead(t, tt.file))
			checkProblems(t, verr, tt.want, tt.exact)
		})
	}
}

// checkProblems asserts every wanted problem is present (and, if exact, that
// there are no others).
func checkProblems(t *testing.T, verr *ValidationError, wants []want, exact bool) {
	t.Helper()
	for _, w := range wants {
		found := false
		for _, p := range verr.Problems {
			if p.Element == w.element && p.Rule == w.rule && strings.Contains(p.Detail, w.detail) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("missing problem %+v", w)
		}
	}
	if exact && len(verr.Problems) != len(wants) {
		t.Errorf("got %d problems, want %d", len(verr.Problems), len(wants))
	}
	if t.Failed() {
		for _, p := range verr.Problems {
			t.Logf("  have %s", p)
		}
	}
}

// process wraps a process body in a definitions document.
func process(body string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" id="d" targetNamespace="urn:t">
<process id="p" isExecutable="true">` + body + `</process></definitions>`)
}

func TestParseUnsupported(t *testing.T) {
	t.Parallel()
	const tail = `<startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="x"/><sequenceFlow id="g" sourceRef="x" targetRef="e"/>`
	tests := []struct {
		name, body, element, detail string
	}{
		{"complexGateway", `<complexGateway id="x"/>`, "x", "complexGateway"},
		{"conditionalEnd", `<endEvent id="x"><conditionalEventDefinition><condition>a</condition></conditionalEventDefinition></endEvent>`, "x", "endEvent with conditionalEventDefinition"},
		{"eventDefinitionRef", `<intermediateCatchEvent id="x"><eventDefinitionRef>td</eventDefinitionRef></intermediateCatchEvent>`, "x", "eventDefinitionRef"},
		{"eventSubProcessLoop", `<subProcess id="x" triggeredByEvent="true"><multiInstanceLoopCharacteristics/><startEvent id="in"><signalEventDefinition signalRef="s"/></startEvent></subProcess>`, "x", "multiInstanceLoopCharacteristics"},
		{"ioSpecification", `<task id="x"><ioSpecification id="io"/></task>`, "io", "ioSpecification"},
		{"ioSpecificationSubProcess", `<subProcess id="x"><ioSpecification id="io"/><startEvent id="in"/></subProcess>`, "io", "ioSpecification in subProcess"},
		{"completionCondition", `<subProcess id="x"><completionCondition id="cc">done</completionCondition><startEvent id="in"/></subProcess>`, "cc", "completionCondition in subProcess"},
		{"processIOBinding", `<ioBinding id="b" operationRef="op" inputDataRef="i"/>`, "b", "ioBinding"},
		{"taskProperty", `<task id="x"><property id="pr" name="v"/></task>`, "x", "property on task"},
		{"assignment", `<task id="x"><dataInputAssociation id="a"><assignment/></dataInputAssociation></task>`, "x", "assignment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			verr := MustFail(t, process(tt.body+tail))
			checkProblems(t, verr, []want{{tt.element, RuleUnsupported, tt.detail}}, false)
		})
	}
}

func TestParseDocumentLimits(t *testing.T) {
	t.Parallel()
	straight := MustRead(t, "straight.bpmn")
	deep := func(n int) []byte {
		return process(`<task id="t"><extensionElements>` + strings.Repeat("<a:x xmlns:a='urn:a'>", n) + strings.Repeat("</a:x>", n) + `</extensionElements></task>`)
	}
	tests := []struct {
		name string
		data []byte
		rule Rule
	}{
		{"too large", append(bytes.Repeat([]byte(" "), MaxDocumentSize), straight...), RuleTooLarge},
		{"too deep", deep(MaxDepth), RuleTooDeep},
		{"doctype lower case", append([]byte("<!doctype x>"), straight...), RuleDoctype},
		{"empty", nil, RuleMalformed},
		{"not xml", []byte("hello"), RuleMalformed},
		{"unclosed", []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL">`), RuleMalformed},
		{"two roots", append(append([]byte{}, straight...), []byte("<x/>")...), RuleMalformed},
		{"unsupported charset", bytes.Replace(straight, []byte("UTF-8"), []byte("Shift_JIS"), 1), RuleMalformed},
		{"invalid UTF-8", bytes.Replace(straight, []byte("Work"), []byte("W\xe9rk"), 1), RuleMalformed},
		{"UTF-16 declared, not encoded", bytes.Replace(straight, []byte("UTF-8"), []byte("UTF-16"), 1), RuleMalformed},
		{"odd UTF-16", append([]byte{0xFF, 0xFE}, '<', 0, '?'), RuleMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			verr := MustFail(t, tt.data)
			if len(verr.Problems) != 1 || verr.Problems[0].Rule != tt.rule {
				t.Fatalf("problems = %v, want one %s", verr.Problems, tt.rule)
			}
		})
	}
	// Just under the depth limit still parses (the task sits at depth 4).
	if _, err := Parse(deep(MaxDepth - 4)); err != nil {
		t.Errorf("depth %d: %v", MaxDepth, err)
	}
}

func TestValidationErrorMessage(t *testing.T) {
	t.Parallel()
	verr := MustFail(t, MustRead(t, "reject_many.bpmn"))
	msg := verr.Error()
	if !strings.Contains(msg, "problems") || !strings.Contains(msg, "approve: unsupported-element") {
		t.Errorf("Error() = %q", msg)
	}
	if len(verr.Problems) > 5 && !strings.Contains(msg, "more") { // xmldoc spells out the first five
		t.Errorf("Error() does not mention the rest: %q", msg)
	}
	if !verr.Has("approve", RuleUnsupported) || verr.Has("approve", RuleDoctype) {
		t.Error("Has")
	}
}
