package bpmn

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/expr"
)

// describeLoop renders a Loop for comparison; expressions by their source.
func describeLoop(l *Loop) string {
	if l == nil {
		return "none"
	}
	x := func(e expr.Expression) string {
		if e == nil {
			return "-"
		}
		return e.Source()
	}
	if l.Standard {
		return fmt.Sprintf("standard cond=%s before=%v max=%d", x(l.LoopCondition), l.TestBefore, l.LoopMaximum)
	}
	return fmt.Sprintf("mi seq=%v card=%s coll=%s elem=%s out=%s/%s done=%s",
		l.Sequential, x(l.Cardinality), x(l.Collection), l.ElementVariable, l.OutputCollection, l.OutputElement, x(l.CompletionCondition))
}

func TestParseLoops(t *testing.T) {
	t.Parallel()
	p := MustParseFile(t, "loops.bpmn").Processes[0]
	want := map[string]string{
		"gobpm":       "mi seq=true card=- coll==approvers elem=approver out=votes/vote done=nrOfCompletedInstances >= 2",
		"cardinality": "mi seq=false card=3 coll=- elem= out=/ done=-",
		// loopDataInputRef / loopDataOutputRef name data objects: their variables.
		"standard": "mi seq=false card=- coll=lines elem=line out=results/item_out done=-",
		// A reference that names no element is the variable name (Camunda 7).
		"plainRef":  "mi seq=false card=- coll=orders elem=order out=/ done=-",
		"c7":        "mi seq=false card=- coll=${recipients} elem=recipient out=/ done=-",
		"c8":        "mi seq=false card=- coll==documents elem=document out=checks/check done=-",
		"receive":   "mi seq=false card=n coll=- elem= out=/ done=-",
		"manual":    "mi seq=false card=2 coll=- elem= out=/ done=-",
		"each":      "mi seq=false card=- coll=items elem=item out=/ done=-",
		"cases":     "mi seq=false card=- coll==cases elem=case out=/ done=-",
		"retry":     "standard cond=counter < 3 before=true max=5",
		"once":      "standard cond=- before=false max=0",
		"start":     "none",
		"inner":     "none",
		"caseWork":  "none",
		"onceInner": "none",
		"late":      "none",
		"done":      "none",
		"es":        "none",
	}
	for id, w := range want {
		n := p.Node(id)
		if n == nil {
			t.Errorf("no node %q", id)
			continue
		}
		if got := describeLoop(n.Loop); got != w {
			t.Errorf("%s: loop %s\n want %s", id, got, w)
		}
	}
	// The collection read from a data object reference evaluates to that variable.
	if v, err := p.Node("standard").Loop.Collection.Eval(expr.MapScope{"lines": []any{"a"}}); err != nil || len(v.([]any)) != 1 {
		t.Errorf("lines collection = %v, %v", v, err)
	}
	if p.Node("cases").Kind != KindAdHocSubProcess || p.Node("c8").Kind != KindCallActivity || p.Node("manual").Kind != KindTask {
		t.Error("kinds changed by loops")
	}
	if got := ids2(p.Node("each").Boundaries); !eq(got, []string{"late"}) {
		t.Errorf("each boundaries = %v", got)
	}
}

func TestParseRejectLoops(t *testing.T) {
	t.Parallel()
	const tail = `<startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="x"/><sequenceFlow id="g" sourceRef="x" targetRef="e"/>`
	mi := func(attrs, body string) string {
		return `<task id="x"><multiInstanceLoopCharacteristics ` + attrs + `>` + body + `</multiInstanceLoopCharacteristics></task>`
	}
	tests := []struct {
		name, body string
		want       []want
	}{
		{"nothing", mi("", ""), []want{{"x", RuleMissingAttribute, "needs a loopCardinality or a collection"}}},
		{"both", mi(`gobpm:collection="items"`, `<loopCardinality>3</loopCardinality>`),
			[]want{{"x", RuleInvalidAttribute, "both a loopCardinality and a collection (gobpm:collection)"}}},
		{"bothStandard", mi(``, `<loopCardinality>3</loopCardinality><loopDataInputRef>items</loopDataInputRef>`),
			[]want{{"x", RuleInvalidAttribute, "both a loopCardinality and a collection (loopDataInputRef)"}}},
		{"elementWithoutCollection", mi(`gobpm:elementVariable="item"`, `<loopCardinality>3</loopCardinality>`),
			[]want{{"x", RuleInvalidAttribute, "gobpm:elementVariable needs a collection"}}},
		{"inputItemWithoutCollection", mi(``, `<loopCardinality>3</loopCardinality><inputDataItem id="it" name="item"/>`),
			[]want{{"x", RuleInvalidAttribute, "inputDataItem needs a collection"}}},
		{"outputElementAlone", mi(`gobpm:collection="items" gobpm:outputElement="r"`, ``),
			[]want{{"x", RuleMissingAttribute, "gobpm:outputElement needs an output collection"}}},
		{"outputCollectionAlone", mi(`gobpm:collection="items"`, `<loopDataOutputRef>results</loopDataOutputRef>`),
			[]want{{"x", RuleMissingAttribute, "loopDataOutputRef needs an output element"}}},
		{"emptyCollection", mi(`gobpm:collection=" "`, ``), []want{{"x", RuleMissingAttribute, "gobpm:collection is empty"}}},
		{"badCollection", mi(`gobpm:collection="(items"`, ``), []want{{"x", RuleInvalidExpression, "gobpm:collection"}}},
		{"badCardinality", mi(``, `<loopCardinality>(3</loopCardinality>`), []want{{"x", RuleInvalidExpression, "loopCardinality"}}},
		{"emptyCardinality", mi(``, `<loopCardinality/>`), []want{{"x", RuleInvalidExpression, "loopCardinality is empty"}}},
		{"badCompletion", mi(`gobpm:collection="items"`, `<completionCondition>(a</completionCondition>`), []want{{"x", RuleInvalidExpression, "completionCondition"}}},
		{"twoCardinalities", mi(``, `<loopCardinality>1</loopCardinality><loopCardinality>2</loopCardinality>`),
			[]want{{"x", RuleInvalidAttribute, "2 loopCardinality elements"}}},
		{"expressionAsName", mi(`gobpm:collection="items" gobpm:elementVariable="=item"`, ``),
			[]want{{"x", RuleInvalidAttribute, `gobpm:elementVariable "=item" is a variable name, not an expression`}}},
		{"emptyName", mi(`gobpm:collection="items" gobpm:outputCollection="" gobpm:outputElement="r"`, ``),
			[]want{{"x", RuleMissingAttribute, "gobpm:outputCollection is empty"}}},
		{"behaviorOne", mi(`behavior="One" gobpm:collection="items"`, ``), []want{{"x", RuleUnsupported, `behavior="One"`}}},
		{"complexBehavior", mi(`behavior="Complex" gobpm:collection="items"`, `<complexBehaviorDefinition id="cb"/>`),
			[]want{{"x", RuleUnsupported, `behavior="Complex"`}, {"x", RuleUnsupported, "complexBehaviorDefinition"}}},
		{"unknownChild", mi(`gobpm:collection="items"`, `<loopCondition>a</loopCondition>`),
			[]want{{"loopCondition (line 3)", RuleUnsupported, "loopCondition in multiInstanceLoopCharacteristics"}}},
		{"unknownGobpm", mi(`gobpm:collection="items" gobpm:elementVar="i"`, ``), []want{{"multiInstanceLoopCharacteristics (line 3)", RuleUnknownExtension, `"elementVar"`}}},
		{"gobpmOnActivity", `<task id="x" gobpm:collection="items"><multiInstanceLoopCharacteristics gobpm:collection="items"/></task>`,
			[]want{{"x", RuleUnknownExtension, `"collection" on task`}}},
		{"refToTask", mi(``, `<loopDataInputRef>s</loopDataInputRef>`),
			[]want{{"x", RuleMissingReference, `loopDataInputRef "s" names an element that is not a data object`}}},
		{"refNotAName", mi(``, `<loopDataInputRef>order lines</loopDataInputRef>`),
			[]want{{"x", RuleInvalidAttribute, `the variable "order lines" is not a plain name`}}},
		{"refKeyword", mi(``, `<loopDataInputRef>null</loopDataInputRef>`),
			[]want{{"x", RuleInvalidAttribute, `the variable "null" is not a plain name`}}},
		{"zeebeOutputExpression", mi(``, `<extensionElements><zeebe:loopCharacteristics inputCollection="=items" outputCollection="out" outputElement="={id: item}"/></extensionElements>`),
			[]want{{"x", RuleUnsupported, "zeebe:loopCharacteristics outputElement"}}},
		{"twoLoops", `<task id="x"><standardLoopCharacteristics/><multiInstanceLoopCharacteristics gobpm:collection="items"/></task>`,
			[]want{{"x", RuleInvalidAttribute, "2 loop characteristics"}}},
		{"loopMaximum", `<task id="x"><standardLoopCharacteristics loopMaximum="-1"/></task>`,
			[]want{{"x", RuleInvalidAttribute, `loopMaximum="-1"`}}},
		{"loopMaximumWord", `<task id="x"><standardLoopCharacteristics loopMaximum="many"/></task>`,
			[]want{{"x", RuleInvalidAttribute, `loopMaximum="many"`}}},
		{"testBefore", `<task id="x"><standardLoopCharacteristics testBefore="often"/></task>`,
			[]want{{"standardLoopCharacteristics (line 3)", RuleInvalidAttribute, "testBefore"}}},
		{"badLoopCondition", `<task id="x"><standardLoopCharacteristics><loopCondition>(a</loopCondition></standardLoopCharacteristics></task>`,
			[]want{{"x", RuleInvalidExpression, "loopCondition"}}},
		{"twoLoopConditions", `<task id="x"><standardLoopCharacteristics><loopCondition>a</loopCondition><loopCondition>b</loopCondition></standardLoopCharacteristics></task>`,
			[]want{{"x", RuleInvalidExpression, "2 loopConditions"}}},
		{"eventSubProcess", `<task id="x"/><subProcess id="esp" triggeredByEvent="true"><multiInstanceLoopCharacteristics gobpm:collection="items"/>` +
			`<startEvent id="in"><timerEventDefinition><timeDuration>PT1S</timeDuration></timerEventDefinition></startEvent></subProcess>`,
			[]want{{"esp", RuleUnsupported, "multiInstanceLoopCharacteristics on an event sub-process"}}},
		{"onEvent", `<task id="x"/><intermediateThrowEvent id="ev"><multiInstanceLoopCharacteristics gobpm:collection="items"/></intermediateThrowEvent><sequenceFlow id="h" sourceRef="x" targetRef="ev"/>`,
			[]want{{"multiInstanceLoopCharacteristics (line 3)", RuleUnsupported, "multiInstanceLoopCharacteristics in intermediateThrowEvent"}}},
		{"onGateway", `<task id="x"/><exclusiveGateway id="gw"><standardLoopCharacteristics/></exclusiveGateway><sequenceFlow id="h" sourceRef="x" targetRef="gw"/>`,
			[]want{{"standardLoopCharacteristics (line 3)", RuleUnsupported, "standardLoopCharacteristics in exclusiveGateway"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := strings.Replace(string(process(tt.body+tail)), `xmlns:gobpm="urn:gobpm:1"`, `xmlns:gobpm="urn:gobpm:1" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"`, 1)
			checkProblems(t, MustFail(t, []byte(doc)), tt.want, true)
		})
	}
}
