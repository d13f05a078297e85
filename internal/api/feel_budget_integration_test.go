package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/runtime"
)

// burningScriptModel runs a script whose regular expression does
// quadratic work on its input (each search of a*b|a scans to the end):
// before FEEL charged the matcher's work, replacing in 10,000 characters
// took seconds and returned a value; now the evaluation runs out of its
// step budget.
const burningScriptModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:test">
  <process id="burn" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="burnIt"/>
    <scriptTask id="burnIt" gobpm:resultVariable="out">
      <script>replace(s, "a*b|a", "x")</script>
    </scriptTask>
    <sequenceFlow id="f2" sourceRef="burnIt" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// TestIntegrationBurningScriptIsAnIncidentNamingTheBudget: a script that
// burns CPU stops at the FEEL step budget in an incident that names the
// budget; the instance is listed and can be cancelled. The wall-clock
// deadline is off here: on a slow machine (or under the race detector) it
// would otherwise stop the script first, and the step budget, which counts
// work, is what this test is about.
func TestIntegrationBurningScriptIsAnIncidentNamingTheBudget(t *testing.T) {
	t.Parallel()
	opts := runtime.Options{Engine: engine.Options{}}
	opts.Engine.Eval.Timeout = -1
	b := setupRealWith(t, opts)
	b.postXML("/api/v1/deployments", burningScriptModel).wantStatus(t, http.StatusCreated)
	inst := b.postJSON("/api/v1/processes/burn/instances", `{"variables":{"s":"`+strings.Repeat("a", 10000)+`"}}`).
		wantStatus(t, http.StatusCreated).object(t)
	id := inst["id"].(string)
	if inst["status"] == "completed" {
		t.Fatal("the burning script completed instead of stopping at the budget")
	}
	incs, _ := inst["incidents"].([]any)
	if len(incs) != 1 {
		t.Fatalf("incidents = %v, want one at burnIt", incs)
	}
	inc := incs[0].(map[string]any)
	if msg, _ := inc["message"].(string); inc["nodeId"] != "burnIt" || !strings.Contains(msg, "exceeded the step limit") {
		t.Errorf("incident = %v, want one at burnIt naming the step budget", inc)
	}
	listed := false
	for _, it := range b.get("/api/v1/instances").wantStatus(t, http.StatusOK).items(t) {
		listed = listed || it.(map[string]any)["id"] == id
	}
	if !listed {
		t.Errorf("the instance with the incident is not listed")
	}
	cancelled := b.send(http.MethodPost, "/api/v1/instances/"+id+"/cancel", "", "").wantStatus(t, http.StatusOK).object(t)
	if cancelled["status"] != "terminated" {
		t.Errorf("cancelled = %v", cancelled["status"])
	}
}
