package api_test

// These tests drive execution and user task listeners over HTTP against
// the real runtime and SQLite: listener jobs activated and completed like
// any job, the server restarted between a listener's completion and the
// element continuing, and task listener results that deny or correct.

import (
	"net/http"
	"testing"
	"time"
)

func TestIntegrationListeners(t *testing.T) {
	t.Parallel()
	s := setupJobServer(t)
	deployTestdata(t, s.bundle, "listeners.bpmn")
	id := startProcess(t, s.bundle, "listened", `{}`)
	complete := func(job map[string]any, rest string) *response {
		t.Helper()
		return s.postJSON("/api/v1/jobs/"+job["key"].(string)+"/complete", withToken(job, rest))
	}

	// The start listener's job comes first; the element's job only after it.
	if jobs := activate(t, s.bundle, "lw-work", "w", 60_000); len(jobs) != 0 {
		t.Fatalf("the element's job exists before its start listener completed: %v", jobs)
	}
	start := oneOf(t, activate(t, s.bundle, "lw-start", "w", 60_000), id)
	complete(start, `"result":{"denied":true}`).problem(t, http.StatusConflict, "conflict")
	complete(start, `"variables":{"prepared":true}`).noContent(t)
	s.open(t) // a restart between the listener and the element
	// On PostgreSQL the reopened server is a second node beside the first,
	// still alive, which the instance has as its home: its jobs are the
	// first node's for a grace (README, "Running several nodes").
	s.clock.Advance(2 * time.Second)
	work := oneOf(t, activate(t, s.bundle, "lw-work", "w", 60_000), id)
	if work["variables"].(map[string]any)["prepared"] != true {
		t.Errorf("the element's job does not see the start listener's variable: %v", work["variables"])
	}
	complete(work, `"variables":{"done":1}`).noContent(t)
	end := oneOf(t, activate(t, s.bundle, "lw-end", "w", 60_000), id)
	if tasks := instanceTasks(t, s.bundle, id); len(tasks) != 0 {
		t.Fatalf("the next element started before the end listener: %v", tasks)
	}
	complete(end, `"variables":{"cleaned":true}`).noContent(t)
	s.open(t)
	taskID := instanceTasks(t, s.bundle, id)["review"]
	if taskID == "" {
		t.Fatal("no review task after the end listener")
	}

	// Assigning: the claim waits for its listener, which corrects it.
	s.as("anna", "", "/api/v1/tasks/"+taskID+"/claim", "").wantStatus(t, http.StatusOK)
	if a := s.get("/api/v1/tasks/"+taskID).wantStatus(t, http.StatusOK).object(t)["assignee"]; a != nil && a != "" {
		t.Fatalf("assignee %v before the assigning listener", a)
	}
	s.as("ben", "", "/api/v1/tasks/"+taskID+"/claim", "").problem(t, http.StatusConflict, "conflict")
	assign := oneOf(t, activate(t, s.bundle, "lw-assign", "w", 60_000), id)
	if h := assign["customHeaders"].(map[string]any); h["io.camunda.zeebe:assignee"] != "anna" || h["io.camunda.zeebe:eventType"] != "assigning" {
		t.Errorf("assigning listener headers %v", h)
	}
	for _, bad := range []struct{ body, field string }{
		{`"result":{"corrections":{"priority":3}}`, "result.corrections.priority"},
		{`"result":{"corrections":{"followUpDate":"2026-01-01T00:00:00Z"}}`, "result.corrections.followUpDate"},
		{`"result":{"corrections":{"dueDate":"tomorrow"}}`, "result.corrections.dueDate"},
		{`"result":{"denied":"yes"}`, "result.denied"},
		{`"result":{},"variables":{"x":1}`, "variables"},
	} {
		p := complete(assign, bad.body).problem(t, http.StatusBadRequest, "invalid-request")
		if p.Field != bad.field {
			t.Errorf("%s: field %q (%s), want %q", bad.body, p.Field, p.Detail, bad.field)
		}
	}
	complete(assign, `"result":{"corrections":{"assignee":"carla","dueDate":"2027-01-01T00:00:00Z"}}`).noContent(t)
	task := s.get("/api/v1/tasks/"+taskID).wantStatus(t, http.StatusOK).object(t)
	if task["assignee"] != "carla" {
		t.Fatalf("task after the correction: %v", task)
	}

	// Completing: a denial keeps the task; the next try goes through.
	s.as("carla", "", "/api/v1/tasks/"+taskID+"/complete", `{"variables":{"approved":false}}`).noContent(t)
	deny := oneOf(t, activate(t, s.bundle, "lw-complete", "w", 60_000), id)
	complete(deny, `"result":{"denied":true,"deniedReason":"needs a comment"}`).noContent(t)
	if instanceTasks(t, s.bundle, id)["review"] != taskID {
		t.Fatal("a denied completion closed the task")
	}
	s.as("carla", "", "/api/v1/tasks/"+taskID+"/complete", `{"variables":{"approved":true}}`).noContent(t)
	allow := oneOf(t, activate(t, s.bundle, "lw-complete", "w", 60_000), id)
	s.open(t)
	complete(allow, `"result":{}`).noContent(t)
	inst := s.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	if inst["status"] != "completed" {
		t.Fatalf("instance %v", inst["status"])
	}
}
