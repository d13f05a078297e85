package bpmn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/expr"
)

func TestParseAdHoc(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "adhoc.bpmn").Processes[0]

	region := p.Node("region")
	if region.Kind != KindAdHocSubProcess || region.Sub == nil || region.Sub.Owner != region || !region.IsActivity() {
		t.Fatalf("region = %+v", region)
	}
	if len(region.Sub.Starts) != 0 {
		t.Errorf("ad-hoc graph seeded: %v", ids(region.Sub.Starts))
	}
	a := region.AdHoc
	if a == nil || a.Router != RouterStandard || !a.Manual || !a.Sequential || a.CancelRemaining || a.RouterExpr != nil || a.Sequence != nil {
		t.Fatalf("region.AdHoc = %+v", a)
	}
	if v, err := a.CompletionCondition.Eval(expr.MapScope{"completed": true}); err != nil || v != true {
		t.Errorf("completionCondition ${completed} = %v, %v", v, err)
	}
	wantNodes := []string{"A", "split", "wake", "C", "S", "late", "M", "send", "recv", "plain", "embedded", "inner"}
	if got := ids2(region.Sub.Nodes); !eq(got, wantNodes) {
		t.Errorf("inner nodes = %v, want %v", got, wantNodes)
	}
	if !eq(region.Sub.DataNames, []string{"note"}) {
		t.Errorf("data = %v", region.Sub.DataNames)
	}
	if got := ids2(region.Boundaries); !eq(got, []string{"expire"}) {
		t.Errorf("region boundaries = %v", got)
	}
	if p.Node("late").AttachedTo != p.Node("S") || p.Node("M").Incoming[0].Source != p.Node("late") {
		t.Error("boundary inside the region is not wired")
	}
	if p.Node("C").Incoming[0].ID != "a3" || len(p.Node("C").Incoming) != 2 {
		t.Errorf("C incoming = %v", flowIDs(p.Node("C").Incoming))
	}
	if k := p.Node("M").Kind; k != KindTask {
		t.Errorf("manual task kind %s", k)
	}
	// Flow-less seeding and the None-start rule stay out of nested graphs
	// of the region: a plain sub-process inside still starts normally.
	if got := ids2(p.Node("embedded").Sub.Starts); !eq(got, []string{"es"}) {
		t.Errorf("embedded starts = %v", got)
	}

	inner := p.Node("inner")
	if inner.Kind != KindAdHocSubProcess || inner.Parent != region.Sub || len(inner.Sub.Starts) != 0 {
		t.Fatalf("inner = %+v", inner)
	}
	if ia := inner.AdHoc; ia.Router != RouterSequence || !eq(ia.Sequence, []string{"Y", "X"}) || ia.Manual || ia.Sequential || !ia.CancelRemaining || ia.CompletionCondition != nil {
		t.Errorf("inner.AdHoc = %+v", ia)
	}

	routed := p.Node("routed").AdHoc
	if routed.Router != RouterExpression || routed.RouterExpr == nil || !strings.Contains(routed.RouterExpr.Source(), `["P"]`) {
		t.Fatalf("routed.AdHoc = %+v", routed)
	}

	// Camunda 8: activeElementsCollection is an expression router asked
	// only when the region opens.
	c8 := p.Node("c8").AdHoc
	if c8.Router != RouterExpression || c8.RouterExpr == nil || c8.CompletionCondition == nil {
		t.Fatalf("c8.AdHoc = %+v", c8)
	}
	tools := []any{"Q"}
	for _, tc := range []struct {
		trigger any
		want    int
	}{{nil, 1}, {"Q", 0}} {
		v, err := c8.RouterExpr.Eval(expr.MapScope{"tools": tools, "trigger": tc.trigger})
		l, ok := v.([]any)
		if err != nil || !ok || len(l) != tc.want {
			t.Errorf("activeElementsCollection with trigger %v = %v, %v; want %d ids", tc.trigger, v, err, tc.want)
		}
	}
}

func TestParseRejectAdHoc(t *testing.T) {
	t.Parallel()
	const tail = `<startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="x"/><sequenceFlow id="g" sourceRef="x" targetRef="e"/>`
	std := `gobpm:router="standard"`
	tests := []struct {
		name, body string
		want       []want
	}{
		{"noRouter", `<adHocSubProcess id="x"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleMissingAttribute, missingRouter}}},
		{"noRouterButExpression", `<adHocSubProcess id="x" gobpm:routerExpression="[]"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleMissingAttribute, missingRouter}}},
		{"badRouter", `<adHocSubProcess id="x" gobpm:router="random"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidAttribute, `gobpm:router="random"`}}},
		{"expressionMissing", `<adHocSubProcess id="x" gobpm:router="expression"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleMissingAttribute, "needs gobpm:routerExpression"}}},
		{"expressionBad", `<adHocSubProcess id="x" gobpm:router="expression" gobpm:routerExpression="[(a"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidExpression, "gobpm:routerExpression"}}},
		{"expressionForbidden", `<adHocSubProcess id="x" ` + std + ` gobpm:routerExpression="[]"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidAttribute, "gobpm:routerExpression is only allowed"}}},
		{"sequenceMissing", `<adHocSubProcess id="x" gobpm:router="sequence"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleMissingAttribute, "needs gobpm:sequence"}}},
		{"sequenceEmpty", `<adHocSubProcess id="x" gobpm:router="sequence" gobpm:sequence=" "><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleMissingAttribute, "gobpm:sequence is empty"}}},
		{"sequenceForbidden", `<adHocSubProcess id="x" ` + std + ` gobpm:sequence="a"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidAttribute, "gobpm:sequence is only allowed"}}},
		{"sequenceUnknown", `<adHocSubProcess id="x" gobpm:router="sequence" gobpm:sequence="a,ghost,gw,deep,s"><task id="a"/>` +
			`<task id="b"/><sequenceFlow id="h" sourceRef="b" targetRef="gw"/><parallelGateway id="gw"/>` +
			`<subProcess id="sp"><task id="deep"/></subProcess></adHocSubProcess>`,
			[]want{{"x", RuleMissingReference, `gobpm:sequence names "ghost", "gw", "deep", "s", which are not an activity directly inside ad-hoc sub-process "x"`}}},
		{"sequenceTwice", `<adHocSubProcess id="x" gobpm:router="sequence" gobpm:sequence="a,,a"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidAttribute, "empty entry"}, {"x", RuleInvalidAttribute, `names "a" twice`}}},
		{"selection", `<adHocSubProcess id="x" ` + std + ` gobpm:selection="human"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidAttribute, `gobpm:selection="human"`}}},
		{"ordering", `<adHocSubProcess id="x" ` + std + ` ordering="Random"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidAttribute, `ordering="Random"`}}},
		{"cancelRemaining", `<adHocSubProcess id="x" ` + std + ` cancelRemainingInstances="maybe"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidAttribute, "cancelRemainingInstances"}}},
		{"twoConditions", `<adHocSubProcess id="x" ` + std + `><task id="a"/><completionCondition>a</completionCondition><completionCondition>b</completionCondition></adHocSubProcess>`,
			[]want{{"x", RuleInvalidExpression, "2 completionConditions"}}},
		{"badCondition", `<adHocSubProcess id="x" ` + std + `><task id="a"/><completionCondition>(a</completionCondition></adHocSubProcess>`,
			[]want{{"x", RuleInvalidExpression, "completionCondition"}}},
		{"emptyCondition", `<adHocSubProcess id="x" ` + std + `><task id="a"/><completionCondition/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidExpression, "completionCondition is empty"}}},
		{"conditionLanguage", `<adHocSubProcess id="x" ` + std + `><task id="a"/><completionCondition language="javascript">a</completionCondition></adHocSubProcess>`,
			[]want{{"x", RuleUnsupportedLanguage, "javascript"}}},
		{"unknownGobpm", `<adHocSubProcess id="x" ` + std + ` gobpm:routr="x"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleUnknownExtension, `"routr"`}}},
		{"empty", `<adHocSubProcess id="x" ` + std + `><dataObject id="dd"/></adHocSubProcess>`,
			[]want{{"x", RuleAdHocContent, "has no activity"}}},
		{"startEvent", `<adHocSubProcess id="x" ` + std + `><startEvent id="in"/><sequenceFlow id="h" sourceRef="in" targetRef="a"/><task id="a"/></adHocSubProcess>`,
			[]want{{"in", RuleAdHocContent, `startEvent inside ad-hoc sub-process "x" is not allowed`}}},
		{"triggeredStart", `<adHocSubProcess id="x" ` + std + `><startEvent id="in"><messageEventDefinition/></startEvent><task id="a"/></adHocSubProcess>`,
			[]want{{"in", RuleAdHocContent, "startEvent inside"}}},
		{"endEvent", `<adHocSubProcess id="x" ` + std + `><task id="a"/><sequenceFlow id="h" sourceRef="a" targetRef="out"/><endEvent id="out"/></adHocSubProcess>`,
			[]want{{"out", RuleAdHocContent, `endEvent inside ad-hoc sub-process "x" is not allowed`}}},
		{"onlyEventSubProcess", `<adHocSubProcess id="x" ` + std + `><subProcess id="esp" triggeredByEvent="true">` +
			`<startEvent id="es"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></startEvent><task id="h"/><sequenceFlow id="eh" sourceRef="es" targetRef="h"/></subProcess></adHocSubProcess>`,
			[]want{{"x", RuleAdHocContent, "has no activity"}}},
		{"sequenceNamesEventSubProcess", `<adHocSubProcess id="x" gobpm:router="sequence" gobpm:sequence="a,esp"><task id="a"/><subProcess id="esp" triggeredByEvent="true">` +
			`<startEvent id="es"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></startEvent><task id="h"/><sequenceFlow id="eh" sourceRef="es" targetRef="h"/></subProcess></adHocSubProcess>`,
			[]want{{"x", RuleMissingReference, `gobpm:sequence names "esp"`}}},
		{"flowlessGateway", `<adHocSubProcess id="x" ` + std + `><task id="a"/><exclusiveGateway id="gw"/><sequenceFlow id="h" sourceRef="gw" targetRef="a"/></adHocSubProcess>`,
			[]want{{"gw", RuleAdHocContent, "router starts only activities"}}},
		{"flowlessCatch", `<adHocSubProcess id="x" ` + std + `><task id="a"/><intermediateCatchEvent id="c"><timerEventDefinition><timeDuration>PT1S</timeDuration></timerEventDefinition></intermediateCatchEvent></adHocSubProcess>`,
			[]want{{"c", RuleEventFlow, "needs an incoming"}}},
		{"crossing", `<adHocSubProcess id="x" ` + std + `><task id="a"/><sequenceFlow id="h" sourceRef="a" targetRef="e"/></adHocSubProcess>`,
			[]want{{"h", RuleCrossingFlow, `adHocSubProcess "x"`}}},
		{"eventSubProcessAdHoc", `<adHocSubProcess id="x" ` + std + ` triggeredByEvent="true"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleUnsupported, "cannot be an event sub-process"}}},
		{"zeebeWorker", `<adHocSubProcess id="x"><extensionElements><zeebe:taskDefinition type="agent"/><zeebe:adHoc activeElementsCollection="=[]" outputCollection="results"/></extensionElements><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleUnsupported, "zeebe:taskDefinition on adHocSubProcess"}, {"x", RuleUnsupported, "zeebe:adHoc outputCollection"}}},
		{"jobNoType", `<adHocSubProcess id="x" gobpm:router="job"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleMissingAttribute, "needs gobpm:routerType"}}},
		{"jobBlankType", `<adHocSubProcess id="x" gobpm:router="job" gobpm:routerType=" "><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleMissingAttribute, "needs gobpm:routerType"}}},
		{"jobBadRetries", `<adHocSubProcess id="x" gobpm:router="job" gobpm:routerType="triage" gobpm:retries="0"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidAttribute, `gobpm:retries="0"`}}},
		{"routerTypeForbidden", `<adHocSubProcess id="x" ` + std + ` gobpm:routerType="triage"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidAttribute, "gobpm:routerType is only allowed"}}},
		{"retriesForbidden", `<adHocSubProcess id="x" ` + std + ` gobpm:retries="2"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidAttribute, "gobpm:retries is only allowed"}}},
		{"reofferValue", `<adHocSubProcess id="x" ` + std + ` gobpm:selection="manual" gobpm:reoffer="yes"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidAttribute, `gobpm:reoffer="yes"`}}},
		{"reofferAutomatic", `<adHocSubProcess id="x" ` + std + ` gobpm:reoffer="true"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidAttribute, "needs gobpm:selection=\"manual\""}}},
		{"reofferSequence", `<adHocSubProcess id="x" gobpm:router="sequence" gobpm:sequence="a" gobpm:selection="manual" gobpm:reoffer="true"><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidAttribute, "only allowed with gobpm:router=\"standard\""}}},
		{"zeebeBadExpression", `<adHocSubProcess id="x"><extensionElements><zeebe:adHoc activeElementsCollection="=[(a"/></extensionElements><task id="a"/></adHocSubProcess>`,
			[]want{{"x", RuleInvalidExpression, "zeebe:adHoc activeElementsCollection"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := process(tt.body + tail)
			doc = []byte(strings.Replace(string(doc), `xmlns:gobpm="urn:gobpm:1"`, `xmlns:gobpm="urn:gobpm:1" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"`, 1))
			checkProblems(t, MustFail(t, doc), tt.want, true)
		})
	}
}

// TestParseAdHocAccepted covers accepted shapes not in adhoc.bpmn.
func TestParseAdHocAccepted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		check      func(t *testing.T, n *Node)
	}{
		{"defaults", `<adHocSubProcess id="x" gobpm:router="standard" gobpm:selection="automatic" ordering="Parallel"><task id="a"/></adHocSubProcess>`,
			func(t *testing.T, n *Node) {
				if a := n.AdHoc; a.Manual || a.Sequential || !a.CancelRemaining || a.CompletionCondition != nil {
					t.Errorf("AdHoc = %+v", a)
				}
			}},
		// gobpm wins over zeebe (README#model-extensions precedence).
		{"gobpmOverZeebe", `<adHocSubProcess id="x" gobpm:router="standard"><extensionElements><zeebe:adHoc activeElementsCollection="=[]"/></extensionElements><task id="a"/></adHocSubProcess>`,
			func(t *testing.T, n *Node) {
				if a := n.AdHoc; a.Router != RouterStandard || a.RouterExpr != nil {
					t.Errorf("AdHoc = %+v", a)
				}
			}},
		{"job", `<adHocSubProcess id="x" gobpm:router="job" gobpm:routerType=" triage " gobpm:retries="5" gobpm:selection="manual">` +
			`<task id="a"><documentation>Look it up.</documentation><documentation> Twice. </documentation></task><userTask id="b"/></adHocSubProcess>`,
			func(t *testing.T, n *Node) {
				if a := n.AdHoc; a.Router != RouterJob || a.RouterType != "triage" || a.RouterRetries != 5 || !a.Manual {
					t.Errorf("AdHoc = %+v", a)
				}
				if d := n.Sub.Nodes[0].Documentation; d != "Look it up.\n\nTwice." {
					t.Errorf("documentation = %q", d)
				}
				if d := n.Sub.Nodes[1].Documentation; d != "" {
					t.Errorf("documentation of b = %q", d)
				}
			}},
		{"jobDefaultRetries", `<adHocSubProcess id="x" gobpm:router="job" gobpm:routerType="triage"><task id="a"/></adHocSubProcess>`,
			func(t *testing.T, n *Node) {
				if a := n.AdHoc; a.RouterRetries != 3 || a.Manual {
					t.Errorf("AdHoc = %+v", a)
				}
			}},
		// Call activities, transactions and event sub-processes behave inside
		// a region as in any scope (docs/scopes.md#ad-hoc-sub-processes, content).
		{"content", `<adHocSubProcess id="x" gobpm:router="standard"><task id="a"/><callActivity id="call" calledElement="c"/>` +
			`<transaction id="tx"><startEvent id="ts"/><task id="b"/><sequenceFlow id="tb" sourceRef="ts" targetRef="b"/></transaction>` +
			`<subProcess id="esp" triggeredByEvent="true"><startEvent id="es"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></startEvent>` +
			`<task id="h"/><sequenceFlow id="eh" sourceRef="es" targetRef="h"/></subProcess></adHocSubProcess>`,
			func(t *testing.T, n *Node) {
				if got := ids2(n.Sub.EventSubs); !eq(got, []string{"esp"}) {
					t.Errorf("event sub-processes %v", got)
				}
				if k := n.Sub.Nodes[1].Kind; k != KindCallActivity {
					t.Errorf("call kind %s", k)
				}
			}},
		{"reoffer", `<adHocSubProcess id="x" gobpm:router="standard" gobpm:selection="manual" gobpm:reoffer="true"><task id="a"/></adHocSubProcess>`,
			func(t *testing.T, n *Node) {
				if a := n.AdHoc; !a.Reoffer || !a.Manual {
					t.Errorf("AdHoc = %+v", a)
				}
			}},
		// An ad-hoc region as the only, flow-less activity of its process is seeded there.
		{"seeded", `<adHocSubProcess id="x" gobpm:router="sequence" gobpm:sequence="a"><task id="a"/></adHocSubProcess>`,
			func(t *testing.T, n *Node) {
				if !eq(ids2(n.Parent.Starts), []string{"x"}) || len(n.Sub.Starts) != 0 {
					t.Errorf("starts %v / %v", ids2(n.Parent.Starts), ids2(n.Sub.Starts))
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := process(tt.body)
			doc = []byte(strings.Replace(string(doc), `xmlns:gobpm="urn:gobpm:1"`, `xmlns:gobpm="urn:gobpm:1" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"`, 1))
			defs, err := Parse(doc)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, defs.Processes[0].Node("x"))
		})
	}
}

// TestParseFlowableTranslations: the gobpm-owned copies of the Flowable
// ad-hoc models (testdata/flowable, README there) parse, and keep the
// upstream ordering, cancelRemainingInstances and completion condition.
func TestParseFlowableTranslations(t *testing.T) {
	t.Parallel()
	// Row: Sequential, CancelRemaining, has a completion condition, inner activities.
	want := map[string]string{
		"F1": "true true false subProcessTask,subProcessTask2",
		"F2": "true true false subProcessTask,subProcessTask2",
		"F3": "true true true subProcessTask,subProcessTask2",
		"F4": "false true true subProcessTask,subProcessTask2",
		"F5": "true true true subProcessTask,subProcessTask2",
		"F6": "true true true subProcessTask,sequentialTask,subProcessTask2",
		"F7": "false true true subProcessTask,sequentialTask,subProcessTask2,sequentialTask2,subProcessTask3",
		"F8": "false false true subProcessTask,subProcessTask2",
		"F9": "false false true subProcessTask,sequentialTask,subProcessTask2,sequentialTask2,subProcessTask3",
	}
	files, err := filepath.Glob(filepath.Join("testdata", "flowable", "F*.bpmn20.xml"))
	if err != nil || len(files) != len(want) {
		t.Fatalf("found %d translated Flowable models (%v), want %d", len(files), err, len(want))
	}
	for _, f := range files {
		row, _, _ := strings.Cut(filepath.Base(f), ".")
		t.Run(row, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			defs, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			p := defs.Processes[0]
			n := p.Node("adhocSubProcess")
			if p.ID != "simpleSubProcess" || p.Executable || n == nil || n.AdHoc == nil {
				t.Fatalf("process %q executable=%v, ad-hoc %+v", p.ID, p.Executable, n)
			}
			a := n.AdHoc
			if a.Router != RouterStandard || !a.Manual || !a.Reoffer || len(n.Sub.Starts) != 0 {
				t.Errorf("AdHoc = %+v, starts %v", a, ids2(n.Sub.Starts))
			}
			got := strings.Join([]string{boolStr(a.Sequential), boolStr(a.CancelRemaining), boolStr(a.CompletionCondition != nil), strings.Join(ids2(n.Sub.Nodes), ",")}, " ")
			if got != want[row] {
				t.Errorf("got %q, want %q", got, want[row])
			}
			if c := a.CompletionCondition; c != nil {
				for _, done := range []bool{false, true} {
					if v, err := c.Eval(expr.MapScope{"completed": done}); err != nil || v != done {
						t.Errorf("${completed} with completed=%v: %v, %v", done, v, err)
					}
				}
			}
		})
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
