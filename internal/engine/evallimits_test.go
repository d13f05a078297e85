package engine

import (
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/expr"
)

// loopScript runs a script that iterates 1,000 times.
const loopScript = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:test">
  <process id="loop" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="count"/>
    <scriptTask id="count" gobpm:resultVariable="n">
      <script>count(for i in 1..1000 return i)</script>
    </scriptTask>
    <sequenceFlow id="f2" sourceRef="count" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// TestEvalLimitsReachTheEvaluator: Options.Eval bounds the step's
// expressions — the same script completes under the default budget and
// stops in an incident naming the step budget under a small one.
func TestEvalLimitsReachTheEvaluator(t *testing.T) {
	t.Parallel()
	defs, err := bpmn.Parse([]byte(loopScript))
	if err != nil {
		t.Fatal(err)
	}
	p := defs.Processes[0]
	st, _, err := Step(p, NewState("i1", p.ID, 1), Start{}, t0, Options{})
	if err != nil || st.Status != StatusCompleted {
		t.Fatalf("default limits: status %s, incidents %+v, err %v", st.Status, st.Incidents, err)
	}
	st, _, err = Step(p, NewState("i2", p.ID, 1), Start{}, t0, Options{Eval: expr.Limits{MaxSteps: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Incidents) != 1 || st.Incidents[0].NodeID != "count" || !strings.Contains(st.Incidents[0].Message, "exceeded the step limit of 100") {
		t.Fatalf("a budget of 100 steps: status %s, incidents %+v; want one at count naming the budget", st.Status, st.Incidents)
	}
}
