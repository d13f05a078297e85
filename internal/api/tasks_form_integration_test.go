package api_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// formedModel has a user task that links a Camunda Form (Camunda 8 style)
// and one that links none.
const formedModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
             targetNamespace="urn:test">
  <process id="formed" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="fill"/>
    <userTask id="fill" name="Fill in">
      <extensionElements><zeebe:formDefinition formId="fill-form"/></extensionElements>
    </userTask>
    <sequenceFlow id="f2" sourceRef="fill" targetRef="plain"/>
    <userTask id="plain" name="Plain"/>
    <sequenceFlow id="f3" sourceRef="plain" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

const fillForm = `{"id":"fill-form","type":"default","components":[{"type":"textfield","key":"note","label":"Note"}]}`

// TestIntegrationTaskCarriesProcessBusinessKeyAndForm: the tasks of the
// task list and the single task route carry their process key and
// version, their instance's business key and the form they link, whose
// schema GET /api/v1/tasks/{id}/form returns; a task without a form has
// formId null and its form route answers 404.
func TestIntegrationTaskCarriesProcessBusinessKeyAndForm(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postMultipart("/api/v1/deployments", part{filename: "formed.bpmn", content: formedModel},
		part{filename: "fill.form", content: fillForm}).wantStatus(t, http.StatusCreated)
	id := b.postJSON("/api/v1/processes/formed/instances", `{"businessKey":"case-7"}`).
		wantStatus(t, http.StatusCreated).object(t)["id"].(string)

	items := b.get("/api/v1/tasks?instanceId="+id).wantStatus(t, http.StatusOK).items(t)
	if len(items) != 1 {
		t.Fatalf("tasks = %v", items)
	}
	task := items[0].(map[string]any)
	taskID := task["id"].(string)
	want := map[string]any{"processKey": "formed", "processVersion": json.Number("1"), "businessKey": "case-7",
		"formId": "fill-form", "formUrl": "/api/v1/tasks/" + taskID + "/form"}
	for k, v := range want {
		if task[k] != v {
			t.Errorf("task[%q] = %v, want %v", k, task[k], v)
		}
	}
	one := b.get("/api/v1/tasks/"+taskID).wantStatus(t, http.StatusOK).object(t)
	if one["formId"] != "fill-form" || one["businessKey"] != "case-7" || one["processKey"] != "formed" {
		t.Errorf("task = %v", one)
	}
	form := b.get(task["formUrl"].(string)).wantStatus(t, http.StatusOK).object(t)
	if form["id"] != "fill-form" || form["resource"] != "fill.form" {
		t.Errorf("form = %v", form)
	}
	if schema, ok := form["schema"].(map[string]any); !ok || schema["id"] != "fill-form" {
		t.Errorf("form schema = %v", form["schema"])
	}

	completeTask(t, b, taskID, `{"note":"ok"}`)
	items = b.get("/api/v1/tasks?instanceId="+id).wantStatus(t, http.StatusOK).items(t)
	if len(items) != 1 {
		t.Fatalf("tasks after completing fill = %v", items)
	}
	plain := items[0].(map[string]any)
	if v, ok := plain["formId"]; !ok || v != nil {
		t.Errorf("plain task formId = %v (present %v), want null", v, ok)
	}
	if _, ok := plain["formUrl"]; ok {
		t.Errorf("plain task has formUrl %v", plain["formUrl"])
	}
	b.get("/api/v1/tasks/"+plain["id"].(string)+"/form").problem(t, http.StatusNotFound, "not-found")
	b.get("/api/v1/tasks/nope/form").problem(t, http.StatusNotFound, "not-found")

	// The completed task is listed with who completed it.
	page := b.get("/api/v1/completed-tasks?processKey=formed").wantStatus(t, http.StatusOK).object(t)
	done := page["items"].([]any)
	if page["total"] != json.Number("1") || len(done) != 1 {
		t.Fatalf("completed = %v", page)
	}
	c := done[0].(map[string]any)
	if c["id"] != taskID || c["completedBy"] != "kermit" || c["businessKey"] != "case-7" || c["nodeId"] != "fill" || c["instanceId"] != id {
		t.Errorf("completed task = %v", c)
	}
	if page := b.get("/api/v1/completed-tasks?completedBy=nobody").wantStatus(t, http.StatusOK).object(t); page["total"] != json.Number("0") {
		t.Errorf("completed by nobody = %v", page)
	}
	b.get("/api/v1/completed-tasks?limit=0").problem(t, http.StatusBadRequest, "invalid-request")
}
