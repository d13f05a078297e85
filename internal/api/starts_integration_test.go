package api_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
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

// TestIntegrationTriggerReceiveTask: a receive task without a messageRef
// (Camunda 7's ReceiveTaskTest.testWaitStateBehavior) waits as a wait of
// kind trigger until an operator triggers it with variables; the act is in
// the history (by) and in the audit trail; a viewer may not, another wait
// id is 404 and a trigger of an ended instance 409.
func TestIntegrationTriggerReceiveTask(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	xml, err := os.ReadFile("../engine/testdata/camunda7/ReceiveTaskTest.testWaitStateBehavior.bpmn20.xml")
	if err != nil {
		t.Fatal(err)
	}
	w.call("admin", "POST", "/api/v1/deployments", string(xml)).wantStatus(t, http.StatusCreated)
	id := w.call("admin", "POST", "/api/v1/processes/receiveTask/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	waits := w.call("viewer", "GET", "/api/v1/instances/"+id+"/waits", "").wantStatus(t, http.StatusOK).items(t)
	if len(waits) != 1 || waits[0].(map[string]any)["kind"] != "trigger" || waits[0].(map[string]any)["nodeId"] != "waitState" {
		t.Fatalf("waits %v", waits)
	}
	wait := waits[0].(map[string]any)["id"].(string)
	path := "/api/v1/instances/" + id + "/waits/" + wait + "/trigger"

	w.call("viewer", "POST", path, `{"variables":{"ok":true}}`).wantStatus(t, http.StatusForbidden)
	w.call("operator", "POST", "/api/v1/instances/"+id+"/waits/"+id+"-w000099/trigger", `{}`).problem(t, http.StatusNotFound, "not-found")
	inst := w.call("operator", "POST", path, `{"variables":{"ok":true}}`).wantStatus(t, http.StatusOK).object(t)
	if inst["status"] != "completed" || inst["variables"].(map[string]any)["ok"] != true {
		t.Fatalf("instance %v", inst)
	}
	w.call("operator", "POST", path, `{}`).wantStatus(t, http.StatusConflict)

	var by any
	for _, it := range w.call("viewer", "GET", "/api/v1/instances/"+id+"/history", "").wantStatus(t, http.StatusOK).items(t) {
		if f := it.(map[string]any); f["kind"] == "event-triggered" {
			by = f["detail"].(map[string]any)["by"]
		}
	}
	if by != "u-operator" {
		t.Errorf("event-triggered by %v, want u-operator", by)
	}
	var audit []string
	for _, it := range w.call("admin", "GET", "/api/v1/audit?limit=50", "").wantStatus(t, http.StatusOK).items(t) {
		e := it.(map[string]any)
		if e["action"] == "POST /api/v1/instances/{id}/waits/{waitId}/trigger" {
			audit = append(audit, fmt.Sprintf("%v %v", e["actor"], e["outcome"]))
		}
	}
	if want := []string{"u-operator failed", "u-operator ok", "u-operator failed", "u-viewer denied"}; !slices.Equal(audit, want) {
		t.Errorf("audit of the trigger route, newest first: %q, want %q", audit, want)
	}
}

// TestIntegrationModifyUnderAnAncestor: activating the task inside two
// nested sub-processes with the instance's root scope (two levels up)
// opens new instances of both sub-processes under it, as Camunda 7 does
// for an ancestor activity instance; naming a scope inside the element's
// container stays 400.
func TestIntegrationModifyUnderAnAncestor(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployFile(t, b, "../engine/testdata/camunda7/SubProcessTest.testNestedSimpleSubProcess.bpmn20.xml")
	id := startProcess(t, b, "nestedSimpleSubProcess", `{}`)
	count := func(inst map[string]any, node string) int {
		n := 0
		for _, s := range inst["scopes"].([]any) {
			if s.(map[string]any)["nodeId"] == node {
				n++
			}
		}
		return n
	}
	inst := b.postJSON("/api/v1/instances/"+id+"/modify", `{"instructions":[{"activate":{"nodeId":"innerSubProcessTask","scopeId":"root"}}]}`).wantStatus(t, http.StatusOK).object(t)
	if count(inst, "outerSubProcess") != 2 || count(inst, "innerSubProcess") != 2 {
		t.Fatalf("scopes %v", inst["scopes"])
	}
	if tasks := b.get("/api/v1/tasks?instanceId="+id).wantStatus(t, http.StatusOK).items(t); len(tasks) != 2 {
		t.Fatalf("tasks %v", tasks)
	}
	var inner string
	for _, s := range inst["scopes"].([]any) {
		if sc := s.(map[string]any); sc["nodeId"] == "innerSubProcess" {
			inner = sc["id"].(string)
		}
	}
	p := b.postJSON("/api/v1/instances/"+id+"/modify", `{"instructions":[{"activate":{"nodeId":"afterSubProcessTask","scopeId":"`+inner+`"}}]}`).problem(t, http.StatusBadRequest, "invalid-request")
	if !strings.Contains(p.Detail, "or of a container around it") {
		t.Errorf("detail %q", p.Detail)
	}
}
