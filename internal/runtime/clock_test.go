package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

const stampDMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" id="stampDefs" name="stamp" namespace="urn:stamp">
  <decision id="stamp" name="stamp">
    <literalExpression><text>today()</text></literalExpression>
  </decision>
</definitions>`

const stampBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" id="defs" targetNamespace="urn:test">
  <process id="stamping" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="decide"/>
    <businessRuleTask id="decide" gobpm:decisionRef="stamp" gobpm:resultVariable="day" gobpm:mapDecisionResult="singleEntry"/>
    <sequenceFlow id="f2" sourceRef="decide" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// Decisions read the runtime's clock, never the wall clock: a business
// rule task at the step's time, EvaluateDecision at Options.Now.
func TestDecisionsReadTheRuntimeClock(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	c.clk.Advance(-400 * 24 * time.Hour) // far from the wall clock's day
	day := c.clk.Now().Format("2006-01-02")
	ctx := context.Background()
	if _, err := c.rt.Deploy(ctx, []runtime.File{{Name: "stamp.dmn", Content: []byte(stampDMN)}, {Name: "stamping.bpmn", Content: []byte(stampBPMN)}}); err != nil {
		t.Fatal(err)
	}
	inst := start(t, c.rt, "stamping", nil)
	if inst.Status != runtime.StatusCompleted || inst.Variables["day"] != day {
		t.Fatalf("instance %s %v", inst.Status, inst.Variables)
	}
	out, err := c.rt.EvaluateDecision(ctx, "stamp", 0, nil)
	if err != nil || out.Result != day {
		t.Fatalf("evaluate: %v %+v", err, out)
	}
}
