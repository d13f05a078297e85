package api_test

// These tests run the compensation behaviours of Camunda 7's
// CompensateEventTest through the real
// router, runtime and SQLite file, with the Camunda models the engine's
// tests use (internal/engine/testdata/camunda7, Apache-2.0: see the
// LICENSE and NOTICE there).

import (
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// camunda7Model reads a model of the engine's Camunda 7 fixtures.
func camunda7Model(t *testing.T, name string) string {
	t.Helper()
	xml, err := os.ReadFile(filepath.Join("..", "engine", "testdata", "camunda7", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(xml)
}

// deployCamunda7 deploys a model of the engine's Camunda 7 fixtures and
// returns the deployment answer.
func deployCamunda7(t *testing.T, b *bundle, name string) map[string]any {
	t.Helper()
	return b.postMultipart("/api/v1/deployments", part{filename: name, content: camunda7Model(t, name)}).wantStatus(t, http.StatusCreated).object(t)
}

// openTasks returns the ids of the instance's open user tasks on node.
func openTasks(t *testing.T, b *bundle, id, node string) []string {
	t.Helper()
	var out []string
	for _, it := range b.get("/api/v1/tasks?instanceId="+id).wantStatus(t, http.StatusOK).items(t) {
		if task := it.(map[string]any); task["nodeId"] == node {
			out = append(out, task["id"].(string))
		}
	}
	return out
}

// completeTask completes a user task as kermit with the variables JSON.
func completeTask(t *testing.T, b *bundle, task, variables string) {
	t.Helper()
	b.as("kermit", "", "/api/v1/tasks/"+task+"/complete", `{"variables":`+variables+`}`).noContent(t)
}

// TestIntegrationCompensationActiveMultiInstance
// (testCompensateConcurrentMiActivity): a throw naming a multi-instance
// activity whose fifth iteration still runs compensates nothing, and the
// instance ends once that iteration completes.
func TestIntegrationCompensationActiveMultiInstance(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployCamunda7(t, b, "CompensateEventTest.testCompensateConcurrentMiActivity.bpmn20.xml")
	id := startProcess(t, b, "compensateProcess", `{}`)
	hotels := openTasks(t, b, id, "bookHotel")
	if len(hotels) != 5 {
		t.Fatalf("%d Book Hotel tasks, want 5", len(hotels))
	}
	for _, task := range hotels[:4] {
		completeTask(t, b, task, `{}`)
	}
	completeTask(t, b, openTasks(t, b, id, "parallelTask")[0], `{"accept":false}`)
	if undo := openTasks(t, b, id, "undoBookHotel"); len(undo) != 0 {
		t.Fatalf("%d Cancel Hotel tasks for an activity still active", len(undo))
	}
	completeTask(t, b, hotels[4], `{}`)
	if s := instanceStatus(t, b, id); s != "completed" {
		t.Fatalf("status %v", s)
	}
	if got := compensationHistory(t, b, id); len(got) != 1 || got[0] != "compensation-thrown throwCompensate" {
		t.Fatalf("history %v: want the throw alone", got)
	}
}

// TestIntegrationCompensationEventSubProcessCamunda
// (testCompensationEventSubProcessWithScope): Camunda's compensation event
// sub-process with isForCompensation="true" deploys and compensates the
// flight, the hotel and the customer record in turn; waitForCompletion on
// its start event deploys too, with a warning naming the start event.
func TestIntegrationCompensationEventSubProcessCamunda(t *testing.T) {
	t.Parallel()
	const name = "CompensateEventTest.testCompensationEventSubProcess.bpmn20.xml"
	t.Run("runs", func(t *testing.T) {
		t.Parallel()
		b, _, _ := setupRealClock(t)
		if w := deployCamunda7(t, b, name)["warnings"].([]any); len(w) != 0 {
			t.Fatalf("warnings %v", w)
		}
		id := startProcess(t, b, "bookingProcess", `{}`)
		completeTask(t, b, openTasks(t, b, id, "bookFlight")[0], `{}`)
		completeTask(t, b, openTasks(t, b, id, "bookHotel")[0], `{}`)
		completeTask(t, b, openTasks(t, b, id, "validateBooking")[0], `{"valid":false}`)
		for _, node := range []string{"cancelFlight", "cancelHotel", "updateCustomerRecord"} {
			tasks := b.get("/api/v1/tasks?instanceId="+id).wantStatus(t, http.StatusOK).items(t)
			if len(tasks) != 1 || tasks[0].(map[string]any)["nodeId"] != node {
				t.Fatalf("tasks %v, want %s alone", tasks, node)
			}
			completeTask(t, b, tasks[0].(map[string]any)["id"].(string), `{}`)
		}
		if s := instanceStatus(t, b, id); s != "completed" {
			t.Fatalf("status %v", s)
		}
	})
	t.Run("waitForCompletion warns", func(t *testing.T) {
		t.Parallel()
		b, _, _ := setupRealClock(t)
		xml := strings.Replace(camunda7Model(t, name), `<bpmn2:compensateEventDefinition id="CompensateEventDefinition_3" />`,
			`<bpmn2:compensateEventDefinition id="CompensateEventDefinition_3" waitForCompletion="true"/>`, 1)
		res := b.postMultipart("/api/v1/deployments", part{filename: name, content: xml}).wantStatus(t, http.StatusCreated).object(t)
		w := res["warnings"].([]any)
		if len(w) != 1 || w[0].(map[string]any)["element"] != "compensationStartEvent" || w[0].(map[string]any)["resource"] != name {
			t.Fatalf("warnings %v, want one on compensationStartEvent", w)
		}
	})
}

// TestIntegrationCompensationSubProcessHandlerAndInner:
// compensating a sub-process with a compensation boundary event and
// compensable inner activities runs its handler (a user task), then undoes
// the inner activities, the latest first.
func TestIntegrationCompensationSubProcessHandlerAndInner(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	xml, err := os.ReadFile(filepath.Join("..", "engine", "testdata", "compensation_sub_boundary.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	b.postMultipart("/api/v1/deployments", part{filename: "sub_boundary.bpmn", content: string(xml)}).wantStatus(t, http.StatusCreated)
	id := startProcess(t, b, "subBoundary", `{"log":[]}`)
	undo := openTasks(t, b, id, "undoBooking")
	if len(undo) != 1 {
		t.Fatalf("%d undoBooking tasks, want 1", len(undo))
	}
	completeTask(t, b, undo[0], `{}`)
	inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	if log := inst["variables"].(map[string]any)["log"]; inst["status"] != "completed" || !reflect.DeepEqual(log, []any{"undo flight", "undo hotel"}) {
		t.Fatalf("status %v log %v", inst["status"], log)
	}
}

// TestIntegrationCompensationConcurrentHandlers
// (testCompensateActivityRefMiActivity): a model drawn
// for Camunda starts its five "Cancel Hotel" handlers together, as
// Camunda 7 does; the instance ends once all five are done.
func TestIntegrationCompensationConcurrentHandlers(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployCamunda7(t, b, "CompensateEventTest.testCompensateActivityRefMiActivity.bpmn20.xml")
	id := startProcess(t, b, "compensateProcess", `{}`)
	for _, task := range openTasks(t, b, id, "bookHotel") {
		completeTask(t, b, task, `{}`)
	}
	completeTask(t, b, openTasks(t, b, id, "task")[0], `{"accept":false}`)
	undo := openTasks(t, b, id, "undoBookHotel")
	if len(undo) != 5 {
		t.Fatalf("%d Cancel Hotel tasks open, want 5 together", len(undo))
	}
	for _, task := range undo {
		completeTask(t, b, task, `{}`)
	}
	if s := instanceStatus(t, b, id); s != "completed" {
		t.Fatalf("status %v", s)
	}
}
