package api_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deployFile deploys the model at path (relative to this package) as a
// multipart upload.
func deployFile(t *testing.T, b *bundle, path string) {
	t.Helper()
	xml, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b.postMultipart("/api/v1/deployments", part{filename: filepath.Base(path), content: string(xml)}).wantStatus(t, http.StatusCreated)
}

// TestIntegrationStartAtTheOnlyStartEvent: a process whose only start is a
// message start event starts there when started by key, as Camunda 7's
// MessageStartEventTest.testSingleMessageStartEvent asserts; a process with
// two message starts is refused, naming why.
func TestIntegrationStartAtTheOnlyStartEvent(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployFile(t, b, "../engine/testdata/camunda7/MessageStartEventTest.testSingleMessageStartEvent.bpmn20.xml")
	inst := b.postJSON("/api/v1/processes/singleMessageStartEvent/instances", `{"variables":{"x":1}}`).wantStatus(t, http.StatusCreated).object(t)
	id := inst["id"].(string)
	if inst["status"] != "running" {
		t.Fatalf("instance %v", inst)
	}
	tasks := b.get("/api/v1/tasks?instanceId="+id).wantStatus(t, http.StatusOK).items(t)
	if len(tasks) != 1 || tasks[0].(map[string]any)["nodeId"] != "task" {
		t.Fatalf("tasks %v", tasks)
	}
	task := tasks[0].(map[string]any)["id"].(string)
	b.sendAs(http.MethodPost, "u", "application/json", "/api/v1/tasks/"+task+"/claim", `{}`).wantStatus(t, http.StatusOK)
	b.sendAs(http.MethodPost, "u", "application/json", "/api/v1/tasks/"+task+"/complete", `{}`).wantStatus(t, http.StatusNoContent)
	if st := instanceStatus(t, b, id); st != "completed" {
		t.Errorf("status %s, want completed", st)
	}

	deployFile(t, b, "../engine/testdata/directstart/two_messages.bpmn")
	p := b.postJSON("/api/v1/processes/twoMessages/instances", `{}`).problem(t, http.StatusBadRequest, "invalid-request")
	if !strings.Contains(p.Detail, "no none start event and 2 triggered ways to start") {
		t.Errorf("detail %q", p.Detail)
	}
}
