package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/runtime"
)

// defs wraps a process body in <definitions>.
func defs(processID, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:test">
  <process id="` + processID + `" isExecutable="true">` + body + `</process>
</definitions>`
}

// TestIntegrationDeployRefusesWhatCannotRun deploys, through the API over a
// real SQLite file, one model of each kind the deployment refuses because
// it could not run: each answers 422 invalid-model naming the element and
// the rule, and registers nothing.
func TestIntegrationDeployRefusesWhatCannotRun(t *testing.T) {
	t.Parallel()
	var chain strings.Builder
	prev := "start"
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&chain, `<task id="t%d"/><sequenceFlow id="f%d" sourceRef="%s" targetRef="t%d"/>`, i, i, prev, i)
		prev = fmt.Sprintf("t%d", i)
	}
	fmt.Fprintf(&chain, `<sequenceFlow id="fe" sourceRef="%s" targetRef="end"/><endEvent id="end"/>`, prev)

	tests := []struct {
		name            string
		opts            runtime.Options
		model           string
		element, rule   string
		detail          string
		registeredAfter int
	}{
		{
			name: "a timer cycle below the floor",
			model: defs("ticker", `<startEvent id="tick"><timerEventDefinition><timeCycle>R1000000/PT0.001S</timeCycle></timerEventDefinition></startEvent>
<sequenceFlow id="f1" sourceRef="tick" targetRef="end"/><endEvent id="end"/>`),
			element: "tick", rule: "timer-too-frequent",
			detail: `timeCycle "R1000000/PT0.001S" fires every 1ms; the minimum timer period is 1s`,
		},
		{
			name: "an expression in a timer start event",
			model: defs("ticker", `<startEvent id="tick"><timerEventDefinition><timeCycle>="R/PT1H"</timeCycle></timerEventDefinition></startEvent>
<sequenceFlow id="f1" sourceRef="tick" targetRef="end"/><endEvent id="end"/>`),
			element: "tick", rule: "unsupported-element",
			detail: "an expression in a timer start event",
		},
		{
			name:    "a chain longer than the step budget",
			opts:    runtime.Options{Engine: engine.Options{MaxActivations: 100}},
			model:   defs("chain", `<startEvent id="start"/>`+chain.String()),
			element: "start", rule: "step-budget-exceeded",
			detail: "passes at least 102 elements before it waits or ends; one step activates at most 100 (the step budget)",
		},
		{
			name: "a loop of synchronous elements without a way out",
			model: defs("spin", `<startEvent id="start"/><sequenceFlow id="f0" sourceRef="start" targetRef="again"/>
<task id="again"/><sequenceFlow id="f1" sourceRef="again" targetRef="gw"/><exclusiveGateway id="gw"/><sequenceFlow id="f2" sourceRef="gw" targetRef="again"/>`),
			element: "start", rule: "step-budget-exceeded",
			detail: "loops through synchronous elements without reaching a wait state or an end; one step activates at most 501000",
		},
		{
			name: "a process id that is not an NCName",
			model: defs("a/b c?d#e", `<startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="end"/>
<endEvent id="end"/>`),
			element: "a/b c?d#e", rule: "invalid-id",
			detail: `process id "a/b c?d#e" is not an XML NCName`,
		},
		{
			name: "an element id that is not an NCName",
			model: defs("ok", `<startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="review order"/>
<userTask id="review order"/><sequenceFlow id="f2" sourceRef="review order" targetRef="end"/><endEvent id="end"/>`),
			element: "review order", rule: "invalid-id",
			detail: `userTask id "review order" is not an XML NCName: it holds white space`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupRealWith(t, tt.opts)
			p := b.postXML("/api/v1/deployments?name=model.bpmn", tt.model).problem(t, http.StatusUnprocessableEntity, "invalid-model")
			found := false
			for _, e := range p.Errors {
				if e.Element == tt.element && e.Rule == tt.rule && strings.Contains(e.Detail, tt.detail) && e.Resource == "model.bpmn" {
					found = true
				}
			}
			if !found || len(p.Errors) != 1 {
				t.Errorf("errors %+v, want one naming %q with rule %s and %q", p.Errors, tt.element, tt.rule, tt.detail)
			}
			if items := b.get("/api/v1/processes").items(t); len(items) != 0 {
				t.Errorf("a refused deployment registered %v", items)
			}
		})
	}

	// At the floor, and with a fixed id, the same models deploy and run.
	b := setupRealWith(t, runtime.Options{})
	b.postXML("/api/v1/deployments?name=ticker.bpmn", defs("ticker", `<startEvent id="tick"><timerEventDefinition><timeCycle>R/PT1S</timeCycle></timerEventDefinition></startEvent>
<sequenceFlow id="f1" sourceRef="tick" targetRef="end"/><endEvent id="end"/>`)).wantStatus(t, http.StatusCreated)
	b.postXML("/api/v1/deployments?name=ok.bpmn", defs("a.b-c_d", `<startEvent id="start"/><sequenceFlow id="f1" sourceRef="start" targetRef="end"/>
<endEvent id="end"/>`)).wantStatus(t, http.StatusCreated)
	inst := b.postJSON("/api/v1/processes/a.b-c_d/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)
	if inst["status"] != "completed" {
		t.Errorf("instance %v", inst)
	}
}
