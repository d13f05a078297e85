package bpmn

import (
	"testing"
)

// compensationESP is a sub-process whose compensation event sub-process
// carries the attributes under test (attrs on the event sub-process, def on
// its start event's compensateEventDefinition).
func compensationESP(attrs, def string) []byte {
	return process(`<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="sub"/>
<subProcess id="sub"><startEvent id="ss"/><sequenceFlow id="sf" sourceRef="ss" targetRef="a"/><task id="a"/>
<subProcess id="esp" triggeredByEvent="true"` + attrs + `><startEvent id="es"><compensateEventDefinition` + def + `/></startEvent>
<sequenceFlow id="ef" sourceRef="es" targetRef="ee"/><endEvent id="ee"/></subProcess></subProcess>`)
}

// TestParseCamundaCompensationEventSubProcess: Camunda
// 7's compensation event sub-processes carry isForCompensation="true",
// which gobpm accepts as what it is (the container's compensation
// handler); waitForCompletion on their start event means nothing and is
// ignored with a warning, as Camunda ignores it. isForCompensation on an
// event sub-process of another trigger is still refused, and so is
// waitForCompletion on a compensation boundary event.
func TestParseCamundaCompensationEventSubProcess(t *testing.T) {
	t.Parallel()
	t.Run("isForCompensation", func(t *testing.T) {
		t.Parallel()
		defs := MustParseBytes(t, compensationESP(` isForCompensation="true"`, ""))
		sub := defs.Processes[0].Node("sub")
		if sub == nil || sub.CompensationSub == nil || sub.CompensationSub.ID != "esp" || !sub.CompensationSub.ForCompensation {
			t.Fatalf("sub's compensation handler: %+v", sub)
		}
		if len(defs.Warnings) != 0 {
			t.Errorf("warnings %v", defs.Warnings)
		}
	})
	t.Run("waitForCompletion on the start", func(t *testing.T) {
		t.Parallel()
		defs := MustParseBytes(t, compensationESP("", ` waitForCompletion="true"`))
		if len(defs.Warnings) != 1 || defs.Warnings[0].Element != "es" || defs.Warnings[0].Rule != RuleInvalidCompensation {
			t.Fatalf("warnings %v, want one on es", defs.Warnings)
		}
		if es := defs.Processes[0].Node("es"); es.Event.WaitForCompletion {
			t.Error("the start event waits")
		}
	})
	t.Run("isForCompensation on a message event sub-process", func(t *testing.T) {
		t.Parallel()
		verr := MustFail(t, process(`<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="sub"/>
<subProcess id="sub"><startEvent id="ss"/><sequenceFlow id="sf" sourceRef="ss" targetRef="a"/><task id="a"/>
<subProcess id="esp" triggeredByEvent="true" isForCompensation="true"><startEvent id="es"><messageEventDefinition messageRef="m"/></startEvent>
<sequenceFlow id="ef" sourceRef="es" targetRef="ee"/><endEvent id="ee"/></subProcess></subProcess><message id="m" name="m"/>`))
		checkProblems(t, verr, []want{{"esp", RuleInvalidCompensation, "only a compensation event sub-process"}}, false)
	})
	t.Run("waitForCompletion on a boundary", func(t *testing.T) {
		t.Parallel()
		verr := MustFail(t, process(`<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="a"/><task id="a"/>
<boundaryEvent id="b" attachedToRef="a"><compensateEventDefinition waitForCompletion="true"/></boundaryEvent>
<task id="h" isForCompensation="true"/><association id="as" sourceRef="b" targetRef="h"/>`))
		checkProblems(t, verr, []want{{"b", RuleInvalidCompensation, "waitForCompletion on the compensateEventDefinition"}}, false)
	})
}

// MustParseBytes parses data or fails the test.
func MustParseBytes(tb testing.TB, data []byte) *Definitions {
	tb.Helper()
	defs, err := Parse(data)
	if err != nil {
		tb.Fatalf("Parse: %v", err)
	}
	return defs
}

// TestParseCompensationMode: gobpm:compensation on a
// process chooses how its compensation handlers run; the Camunda
// namespaces choose "concurrent" by default; another value is refused.
func TestParseCompensationMode(t *testing.T) {
	t.Parallel()
	const camunda = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:gobpm="urn:gobpm:1" id="d" targetNamespace="urn:t">`
	const plain = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" id="d" targetNamespace="urn:t">`
	const body = `<startEvent id="s"/></process></definitions>`
	tests := []struct {
		name, head, attr string
		want             bool
	}{
		{"plain", plain, "", false},
		{"camunda", camunda, "", true},
		{"zeebe", `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="urn:t">`, "", true},
		{"plain, concurrent", plain, ` gobpm:compensation="concurrent"`, true},
		{"camunda, sequential", camunda, ` gobpm:compensation="sequential"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			defs := MustParseBytes(t, []byte(tt.head+`<process id="p" isExecutable="true"`+tt.attr+`>`+body))
			if got := defs.Processes[0].ConcurrentCompensation; got != tt.want {
				t.Errorf("ConcurrentCompensation = %v, want %v", got, tt.want)
			}
		})
	}
	verr := MustFail(t, []byte(plain+`<process id="p" isExecutable="true" gobpm:compensation="parallel">`+body))
	checkProblems(t, verr, []want{{"p", RuleInvalidAttribute, `gobpm:compensation="parallel"`}}, false)
}
