package api_test

// These tests run the compensation behaviours of Camunda 7's
// CompensateEventTest (issue 31, compensation items) through the real
// router, runtime and SQLite file, with the Camunda models the engine's
// tests use (internal/engine/testdata/camunda7, Apache-2.0: see the
// LICENSE and NOTICE there).

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// deployCamunda7 deploys a model of the engine's Camunda 7 fixtures and
// returns the deployment answer.
func deployCamunda7(t *testing.T, b *bundle, name string) map[string]any {
	t.Helper()
	xml, err := os.ReadFile(filepath.Join("..", "engine", "testdata", "camunda7", name))
	if err != nil {
		t.Fatal(err)
	}
	return b.postMultipart("/api/v1/deployments", part{filename: name, content: string(xml)}).wantStatus(t, http.StatusCreated).object(t)
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
