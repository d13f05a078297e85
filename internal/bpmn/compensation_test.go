package bpmn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseCompensation wires compensation boundary events to their
// handlers, activityRefs to their activities, compensation event
// sub-processes to their sub-processes and reads transactions.
func TestParseCompensation(t *testing.T) {
	t.Parallel()
	defs := MustParseWith(t, process(`
<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="a"/>
<task id="a"/><boundaryEvent id="ab" attachedToRef="a"><compensateEventDefinition/></boundaryEvent>
<task id="undoA" isForCompensation="true"/><association id="as" sourceRef="ab" targetRef="undoA"/>
<sequenceFlow id="f2" sourceRef="a" targetRef="tx"/>
<transaction id="tx">
  <startEvent id="ts"/><sequenceFlow id="t1" sourceRef="ts" targetRef="sub"/>
  <subProcess id="sub"><startEvent id="ss"/>
    <subProcess id="esp" triggeredByEvent="true"><startEvent id="es"><compensateEventDefinition/></startEvent>
      <sequenceFlow id="e1" sourceRef="es" targetRef="ee"/><endEvent id="ee"/></subProcess>
  </subProcess>
  <sequenceFlow id="t2" sourceRef="sub" targetRef="cancel"/><endEvent id="cancel"><cancelEventDefinition/></endEvent>
</transaction>
<boundaryEvent id="onCancel" attachedToRef="tx"><cancelEventDefinition/></boundaryEvent>
<sequenceFlow id="f3" sourceRef="onCancel" targetRef="e"/>
<sequenceFlow id="f4" sourceRef="tx" targetRef="throw"/>
<intermediateThrowEvent id="throw"><compensateEventDefinition activityRef="a" waitForCompletion="false"/></intermediateThrowEvent>
<sequenceFlow id="f5" sourceRef="throw" targetRef="e"/><endEvent id="e"/>`), Limits{})
	p := defs.Processes[0]
	if a := p.Node("a"); a.CompensatedBy != p.Node("undoA") || !p.Node("undoA").ForCompensation {
		t.Errorf("a is compensated by %v", a.CompensatedBy)
	}
	if tx := p.Node("tx"); tx.Kind != KindTransaction || tx.Sub == nil || len(tx.Sub.Starts) != 1 {
		t.Errorf("transaction %+v", tx)
	}
	if sub := p.Node("sub"); sub.CompensationSub != p.Node("esp") {
		t.Errorf("sub's compensation event sub-process %v", sub.CompensationSub)
	}
	if ev := p.Node("throw").Event; ev.Kind != TriggerCompensation || ev.Activity != p.Node("a") || ev.WaitForCompletion {
		t.Errorf("throw %+v", ev)
	}
	for _, s := range p.Graph.Starts {
		if s.ID == "undoA" {
			t.Error("a compensation handler is seeded")
		}
	}
}

// TestParseRejectsCompensation: compensation and cancel constructs wired
// wrongly are refused with the element and the rule (the invalid models
// of Camunda 7's CompensationEventParseInvalidProcessTest among them).
func TestParseRejectsCompensation(t *testing.T) {
	t.Parallel()
	const handler = `<task id="h" isForCompensation="true"/><association id="as" sourceRef="b" targetRef="h"/>`
	tests := []struct {
		name, body, element, rule, detail string
	}{
		{"no association", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="a"/><task id="a"/><boundaryEvent id="b" attachedToRef="a"><compensateEventDefinition/></boundaryEvent>`,
			"b", RuleInvalidCompensation, "needs an association"},
		{"handler not for compensation", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="a"/><task id="a"/><boundaryEvent id="b" attachedToRef="a"><compensateEventDefinition/></boundaryEvent><task id="h"/><association id="as" sourceRef="b" targetRef="h"/>`,
			"b", RuleInvalidCompensation, "not a compensation handler"},
		{"handler with flows", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="a"/><task id="a"/><boundaryEvent id="b" attachedToRef="a"><compensateEventDefinition/></boundaryEvent>` + handler + `<sequenceFlow id="g" sourceRef="a" targetRef="h"/>`,
			"h", RuleInvalidCompensation, "must not have sequence flows"},
		{"orphan handler", `<startEvent id="s"/><task id="h" isForCompensation="true"/>`,
			"h", RuleInvalidCompensation, "nothing would ever start it"},
		{"two compensation boundaries", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="a"/><task id="a"/><boundaryEvent id="b" attachedToRef="a"><compensateEventDefinition/></boundaryEvent>` + handler +
			`<boundaryEvent id="b2" attachedToRef="a"><compensateEventDefinition/></boundaryEvent><task id="h2" isForCompensation="true"/><association id="as2" sourceRef="b2" targetRef="h2"/>`,
			"b2", RuleInvalidCompensation, "several compensation boundary events"},
		{"activityRef on a boundary", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="a"/><task id="a"/><boundaryEvent id="b" attachedToRef="a"><compensateEventDefinition activityRef="a"/></boundaryEvent>` + handler,
			"b", RuleInvalidCompensation, "activityRef on the compensateEventDefinition"},
		{"activityRef names nothing", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="c"/><intermediateThrowEvent id="c"><compensateEventDefinition activityRef="nope"/></intermediateThrowEvent>`,
			"c", RuleInvalidCompensation, `activityRef "nope" names no activity`},
		{"activityRef in a nested scope", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="sub"/><subProcess id="sub"><task id="in"/></subProcess><sequenceFlow id="g" sourceRef="sub" targetRef="c"/><intermediateThrowEvent id="c"><compensateEventDefinition activityRef="in"/></intermediateThrowEvent>`,
			"c", RuleInvalidCompensation, "compensates activities of its own scope"},
		{"compensation event sub-process at process level", `<startEvent id="s"/><subProcess id="esp" triggeredByEvent="true"><startEvent id="es"><compensateEventDefinition/></startEvent></subProcess>`,
			"esp", RuleInvalidCompensation, "not at process level"},
		{"cancel end outside a transaction", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="c"/><endEvent id="c"><cancelEventDefinition/></endEvent>`,
			"c", RuleInvalidCompensation, "directly inside a transaction"},
		{"cancel end without cancel boundary", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="tx"/><transaction id="tx"><startEvent id="ts"/><sequenceFlow id="t" sourceRef="ts" targetRef="c"/><endEvent id="c"><cancelEventDefinition/></endEvent></transaction>`,
			"c", RuleInvalidCompensation, "no cancel boundary event"},
		{"cancel boundary on a sub-process", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="sub"/><subProcess id="sub"><task id="in"/></subProcess><boundaryEvent id="c" attachedToRef="sub"><cancelEventDefinition/></boundaryEvent>`,
			"c", RuleInvalidCompensation, "attaches to a transaction"},
		{"transaction method", `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="tx"/><transaction id="tx" method="##Store"><task id="in"/></transaction>`,
			"tx", RuleUnsupported, "##Compensate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			verr := MustFail(t, process(tt.body))
			checkProblems(t, verr, []want{{tt.element, tt.rule, tt.detail}}, false)
		})
	}
}

// TestConformanceMIWGCompensation: no MIWG reference model is refused for
// compensation, transactions or cancel events any more.
func TestConformanceMIWGCompensation(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(conformanceDir(t), "miwg", "Reference", "*.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(data); err != nil {
			for _, word := range []string{"compensat", "transaction", "cancelEventDefinition"} {
				if strings.Contains(err.Error(), word) {
					t.Errorf("%s is refused for %s: %v", filepath.Base(f), word, err)
				}
			}
		}
	}
}
