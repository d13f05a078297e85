package api_test

// These tests run multiple and parallel multiple catch events and an
// instantiating event-based gateway through the real router, the real
// runtime and a real SQLite file.

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestIntegrationMultipleEvents(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "multiple_events.bpmn")
	first := startProcess(t, b, "multipleEvents", `{"orderId":"o-1"}`)
	second := startProcess(t, b, "multipleEvents", `{"orderId":"o-2"}`)

	// All of: the payment alone does not move o-1 on.
	if got := b.postJSON("/api/v1/messages", `{"name":"paid","correlationKey":"o-1","variables":{"amount":12}}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"correlated":1}` {
		t.Fatalf("paid = %s", got.Body)
	}
	b.postJSON("/api/v1/messages", `{"name":"pickup","correlationKey":"o-1"}`).problem(t, http.StatusNotFound, "not-found")
	// The warehouse signal reaches both orders; only o-1 has been paid.
	if got := b.postJSON("/api/v1/signals", `{"name":"stocked"}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"triggered":2}` {
		t.Fatalf("stocked = %s", got.Body)
	}
	b.postJSON("/api/v1/messages", `{"name":"pickup","correlationKey":"o-2"}`).problem(t, http.StatusNotFound, "not-found")
	// Any of: the pickup message ends o-1 and withdraws its courier signal.
	b.postJSON("/api/v1/messages", `{"name":"pickup","correlationKey":"o-1"}`).wantStatus(t, http.StatusOK)
	inst := b.get("/api/v1/instances/"+first).wantStatus(t, http.StatusOK).object(t)
	if inst["status"] != "completed" || inst["variables"].(map[string]any)["amount"] != json.Number("12") {
		t.Fatalf("o-1 = %v", inst)
	}
	if st := instanceStatus(t, b, second); st != "running" {
		t.Fatalf("o-2 status = %s, want running (not paid)", st)
	}
	b.postJSON("/api/v1/messages", `{"name":"paid","correlationKey":"o-2"}`).wantStatus(t, http.StatusOK)
	if got := b.postJSON("/api/v1/signals", `{"name":"courier"}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"triggered":1}` {
		t.Fatalf("courier = %s", got.Body)
	}
	if st := instanceStatus(t, b, second); st != "completed" {
		t.Errorf("o-2 status = %s, want completed", st)
	}
}

func TestIntegrationInstantiatingEventGateway(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "instantiate_gateway.bpmn")
	// No None start: the process starts only by one of the gateway's events.
	if p := b.postJSON("/api/v1/processes/instantiateGateway/instances", `{}`).problem(t, http.StatusBadRequest, "invalid-request"); !strings.Contains(p.Detail, "no none start event") {
		t.Errorf("detail %q", p.Detail)
	}
	if got := b.postJSON("/api/v1/messages", `{"name":"order","variables":{"item":"book"}}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"correlated":1}` {
		t.Fatalf("order = %s", got.Body)
	}
	if got := b.postJSON("/api/v1/signals", `{"name":"restock"}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"triggered":1}` {
		t.Fatalf("restock = %s", got.Body)
	}
	items := b.get("/api/v1/instances?processKey=instantiateGateway").wantStatus(t, http.StatusOK).items(t)
	status := map[string]int{}
	for _, it := range items {
		status[it.(map[string]any)["status"].(string)]++
	}
	if len(items) != 2 || status["running"] != 1 || status["completed"] != 1 {
		t.Fatalf("instances %v", items)
	}
	tasks := b.get("/api/v1/tasks").wantStatus(t, http.StatusOK).items(t)
	if len(tasks) != 1 || tasks[0].(map[string]any)["nodeId"] != "ship" {
		t.Fatalf("tasks %v", tasks)
	}
}
