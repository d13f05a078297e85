package api_test

// These tests run compensation (docs/scopes.md#tracks) through the real router, the
// real runtime and a real SQLite file: a saga whose failed card charge
// undoes what was booked, in reverse, each undo a job for a worker; and a
// transaction left by its cancel end event. The history shows each
// compensation.

import (
	"net/http"
	"reflect"
	"testing"
)

// completeOne activates the one job of typ and completes it.
func completeOne(t *testing.T, b *bundle, typ string) {
	t.Helper()
	jobs := activate(t, b, typ, "w", 60_000)
	key := oneJob(t, jobs)
	b.postJSON("/api/v1/jobs/"+key+"/complete", withToken(jobs[0], ``)).noContent(t)
}

// compensationHistory returns "kind node" for the compensation facts of
// an instance's history, in order.
func compensationHistory(t *testing.T, b *bundle, id string) []string {
	t.Helper()
	var out []string
	for _, it := range b.get("/api/v1/instances/"+id+"/history").wantStatus(t, http.StatusOK).items(t) {
		f := it.(map[string]any)
		switch f["kind"] {
		case "compensation-thrown", "compensation-started", "compensation-completed":
			node, _ := f["nodeId"].(string)
			out = append(out, f["kind"].(string)+" "+node)
		}
	}
	return out
}

func TestIntegrationCompensationSaga(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "compensation_saga.bpmn")
	id := startProcess(t, b, "saga", `{"trip":"t-1"}`)
	completeOne(t, b, "book-hotel")
	completeOne(t, b, "book-flight")
	jobs := activate(t, b, "charge-card", "w", 60_000)
	key := oneJob(t, jobs)
	b.postJSON("/api/v1/jobs/"+key+"/error", withToken(jobs[0], `"errorCode":"card-declined","errorMessage":"insufficient funds"`)).noContent(t)

	// The flight is undone first; the hotel's undo waits for it.
	if jobs := activate(t, b, "cancel-hotel", "w", 60_000); len(jobs) != 0 {
		t.Fatalf("the hotel is undone before the flight: %v", jobs)
	}
	completeOne(t, b, "cancel-flight")
	if inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t); inst["status"] != "running" {
		t.Fatalf("status %v before the hotel is undone", inst["status"])
	}
	completeOne(t, b, "cancel-hotel")

	inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	if inst["status"] != "completed" {
		t.Fatalf("status %v", inst["status"])
	}
	want := []string{
		"compensation-thrown undoAll",
		"compensation-started bookFlight", "compensation-completed bookFlight",
		"compensation-started bookHotel", "compensation-completed bookHotel",
	}
	if got := compensationHistory(t, b, id); !reflect.DeepEqual(got, want) {
		t.Fatalf("history %v\nwant    %v", got, want)
	}
}

func TestIntegrationTransactionCancel(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "transaction.bpmn")
	id := startProcess(t, b, "tx", `{"log":[]}`)
	tasks := b.get("/api/v1/tasks?instanceId="+id).wantStatus(t, http.StatusOK).items(t)
	if len(tasks) != 1 {
		t.Fatalf("tasks %v", tasks)
	}
	task := tasks[0].(map[string]any)["id"].(string)
	b.as("kermit", "", "/api/v1/tasks/"+task+"/complete", `{"variables":{"outcome":"cancel"}}`).noContent(t)

	// The transaction waits in its compensation: the flight's undo is a job.
	inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	if inst["status"] != "running" {
		t.Fatalf("status %v", inst["status"])
	}
	kinds := map[string]bool{}
	for _, s := range inst["scopes"].([]any) {
		if node, ok := s.(map[string]any)["nodeId"].(string); ok {
			kinds[node] = true
		}
	}
	if !kinds["booking"] || !kinds["cancelled"] || !kinds["undoFlight"] {
		t.Fatalf("scopes %v: want the transaction, its compensation run and the handler", inst["scopes"])
	}
	completeOne(t, b, "cancel-flight")

	inst = b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	if inst["status"] != "completed" || !reflect.DeepEqual(inst["variables"].(map[string]any)["log"], []any{"undo hotel"}) {
		t.Fatalf("instance %v", inst)
	}
	want := []string{
		"compensation-thrown cancelled",
		"compensation-started bookFlight", "compensation-completed bookFlight",
		"compensation-started bookHotel", "compensation-completed bookHotel",
	}
	if got := compensationHistory(t, b, id); !reflect.DeepEqual(got, want) {
		t.Fatalf("history %v\nwant    %v", got, want)
	}
	left := false
	for _, it := range b.get("/api/v1/instances/"+id+"/history").wantStatus(t, http.StatusOK).items(t) {
		if f := it.(map[string]any); f["kind"] == "element-activated" && f["nodeId"] == "afterCancel" {
			left = true
		}
	}
	if !left {
		t.Error("the transaction was not left by its cancel boundary event")
	}
}
