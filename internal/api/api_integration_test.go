package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func readExample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noMatchModel has an exclusive gateway without a default whose only
// condition fails for x = 0: the instance gets an incident.
const noMatchModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:test">
  <process id="nomatch" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="gw"/>
    <exclusiveGateway id="gw"/>
    <sequenceFlow id="f2" sourceRef="gw" targetRef="end"><conditionExpression>x &gt; 1</conditionExpression></sequenceFlow>
    <endEvent id="end"/>
  </process>
</definitions>`

func TestIntegrationWalkThrough(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	order := readExample(t, "order-approval.bpmn")

	// Deploy the README's example; deploying it again mints no new version.
	dep := b.postXML("/api/v1/deployments?name=order-approval.bpmn", order).wantStatus(t, http.StatusCreated).object(t)
	if got := mustJSON(t, dep["processes"]); got != `[{"key":"order-approval","version":1}]` {
		t.Fatalf("processes = %s", got)
	}
	again := b.postMultipart("/api/v1/deployments", part{filename: "order-approval.bpmn", content: order}).wantStatus(t, http.StatusCreated).object(t)
	if got := mustJSON(t, again["processes"]); got != `[{"key":"order-approval","version":1}]` {
		t.Errorf("redeploy processes = %s, want version 1 again", got)
	}

	procs := b.get("/api/v1/processes").wantStatus(t, http.StatusOK).items(t)
	if len(procs) != 1 || procs[0].(map[string]any)["name"] != "Order approval" {
		t.Errorf("processes = %v", procs)
	}
	b.get("/api/v1/processes/order-approval/versions").wantStatus(t, http.StatusOK)
	if xml := b.get("/api/v1/processes/order-approval/versions/1/xml").wantStatus(t, http.StatusOK); string(xml.Body) != order {
		t.Error("deployed XML is not verbatim")
	}
	b.get("/api/v1/processes/order-approval/versions/2/xml").problem(t, http.StatusNotFound, "not-found")
	b.get("/api/v1/processes/nope/versions").problem(t, http.StatusNotFound, "not-found")

	// Start: straight through, completed in the answer, numbers exact.
	res := b.postJSON("/api/v1/processes/order-approval/instances",
		`{"businessKey":"order-1","variables":{"quantity":3,"unitPrice":0.1}}`).wantStatus(t, http.StatusCreated)
	inst := res.object(t)
	if inst["status"] != "completed" {
		t.Fatalf("instance = %s", res.Body)
	}
	vars := inst["variables"].(map[string]any)
	if vars["total"] != json.Number("0.3") || vars["approved"] != true {
		t.Errorf("variables = %v, want total 0.3 (exact) and approved", vars)
	}
	id := inst["id"].(string)
	if loc := res.Header.Get("Location"); loc != "/api/v1/instances/"+id {
		t.Errorf("Location = %q", loc)
	}

	got := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	if got["businessKey"] != "order-1" || got["parent"] != nil {
		t.Errorf("instance = %v", got)
	}
	page := b.get("/api/v1/instances?processKey=order-approval&status=completed").wantStatus(t, http.StatusOK).object(t)
	if page["total"] != json.Number("1") {
		t.Errorf("page = %v", page)
	}
	facts := b.get("/api/v1/instances/"+id+"/history").wantStatus(t, http.StatusOK).items(t)
	if len(facts) == 0 {
		t.Error("no history")
	}
	b.get("/api/v1/instances/"+id+"/history?after=1&limit=2").wantStatus(t, http.StatusOK)

	// A completed instance cannot be cancelled.
	b.send(http.MethodPost, "/api/v1/instances/"+id+"/cancel", "", "").problem(t, http.StatusConflict, "conflict")

	// Unknown ids.
	b.get("/api/v1/instances/nope").problem(t, http.StatusNotFound, "not-found")
	b.get("/api/v1/instances/nope/history").problem(t, http.StatusNotFound, "not-found")
	b.send(http.MethodPost, "/api/v1/instances/nope/cancel", "", "").problem(t, http.StatusNotFound, "not-found")
	b.postJSON("/api/v1/processes/nope/instances", `{}`).problem(t, http.StatusNotFound, "not-found")
	b.postJSON("/api/v1/processes/order-approval/instances", `{"version":7}`).problem(t, http.StatusNotFound, "not-found")
}

func TestIntegrationInvalidModel(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	p := b.postXML("/api/v1/deployments?name=crossing-flow.bpmn", readExample(t, "crossing-flow.bpmn")).
		problem(t, http.StatusUnprocessableEntity, "invalid-model")
	if len(p.Errors) == 0 {
		t.Fatal("no errors listed")
	}
	named := false
	for _, e := range p.Errors {
		if e.Resource != "crossing-flow.bpmn" || e.Rule == "" || e.Detail == "" {
			t.Errorf("error lacks members: %+v", e)
		}
		named = named || e.Element == "jumpIn"
	}
	if !named {
		t.Errorf("errors do not name the crossing flow jumpIn: %+v", p.Errors)
	}
	if items := b.get("/api/v1/processes").items(t); len(items) != 0 {
		t.Errorf("a refused deployment registered %v", items)
	}
	b.postXML("/api/v1/deployments", "<definitions").problem(t, http.StatusUnprocessableEntity, "invalid-model")
}

func TestIntegrationIncidentAndCancel(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postXML("/api/v1/deployments", noMatchModel).wantStatus(t, http.StatusCreated)
	inst := b.postJSON("/api/v1/processes/nomatch/instances", `{"variables":{"x":0}}`).wantStatus(t, http.StatusCreated).object(t)
	id := inst["id"].(string)
	if inst["status"] == "completed" {
		t.Fatalf("no-match instance completed: %v", inst)
	}
	if incs := inst["incidents"].([]any); len(incs) != 1 || incs[0].(map[string]any)["nodeId"] != "gw" ||
		incs[0].(map[string]any)["processKey"] != "nomatch" || incs[0].(map[string]any)["instanceNumber"] != inst["number"] {
		t.Errorf("incidents = %v, want one at gw of nomatch #%v", incs, inst["number"])
	}
	items := b.get("/api/v1/incidents?instanceId="+id).wantStatus(t, http.StatusOK).items(t)
	if len(items) != 1 || items[0].(map[string]any)["processKey"] != "nomatch" || items[0].(map[string]any)["instanceNumber"] != inst["number"] {
		t.Errorf("incidents = %v, want one of nomatch #%v", items, inst["number"])
	}
	got := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	if incs := got["incidents"].([]any); len(incs) != 1 || incs[0].(map[string]any)["instanceNumber"] != inst["number"] {
		t.Errorf("instance incidents = %v, want one of nomatch #%v", incs, inst["number"])
	}
	b.get("/api/v1/incidents").wantStatus(t, http.StatusOK)

	cancelled := b.send(http.MethodPost, "/api/v1/instances/"+id+"/cancel", "", "").wantStatus(t, http.StatusOK).object(t)
	if cancelled["status"] != "terminated" || cancelled["endedAt"] == nil {
		t.Errorf("cancelled = %v", cancelled)
	}
	b.send(http.MethodPost, "/api/v1/instances/"+id+"/cancel", "", "").problem(t, http.StatusConflict, "conflict")
	if n := b.get("/api/v1/instances?status=terminated").object(t)["total"]; n != json.Number("1") {
		t.Errorf("terminated total = %v", n)
	}
	if facts := b.get("/api/v1/instances/"+id+"/history").wantStatus(t, http.StatusOK).items(t); len(facts) == 0 {
		t.Error("no history")
	}
}
