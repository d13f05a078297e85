package api_test

// These tests drive the wait-state routes over the real runtime and a real
// SQLite store: a worker, a person, a message and a signal take one instance
// from start to end.

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
)

// The real runtime serves the API.
var _ api.Service = (*runtime.Runtime)(nil)

// waitsModel: start → charge (job) → approve (user task for managers) →
// message "paid" keyed by orderId → signal "go" → end.
const waitsModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:test">
  <message id="Msg_Paid" name="paid" gobpm:correlationKey="orderId"/>
  <signal id="Sig_Go" name="go"/>
  <process id="waits" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="charge"/>
    <serviceTask id="charge" gobpm:type="charge" gobpm:retries="2"/>
    <sequenceFlow id="f2" sourceRef="charge" targetRef="approve"/>
    <userTask id="approve" name="Approve" gobpm:candidateGroups="managers"/>
    <sequenceFlow id="f3" sourceRef="approve" targetRef="paid"/>
    <intermediateCatchEvent id="paid"><messageEventDefinition messageRef="Msg_Paid"/></intermediateCatchEvent>
    <sequenceFlow id="f4" sourceRef="paid" targetRef="go"/>
    <intermediateCatchEvent id="go"><signalEventDefinition signalRef="Sig_Go"/></intermediateCatchEvent>
    <sequenceFlow id="f5" sourceRef="go" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

func TestIntegrationWaitStates(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postXML("/api/v1/deployments", waitsModel).wantStatus(t, http.StatusCreated)
	inst := b.postJSON("/api/v1/processes/waits/instances", `{"variables":{"orderId":"o-1","amount":10.50}}`).wantStatus(t, http.StatusCreated).object(t)
	id := inst["id"].(string)

	// The job.
	jobs := b.postJSON("/api/v1/jobs/activate", `{"type":"charge","worker":"w1","maxJobs":5,"lockDurationMs":60000}`).
		wantStatus(t, http.StatusOK).object(t)["jobs"].([]any)
	if len(jobs) != 1 {
		t.Fatalf("jobs = %v", jobs)
	}
	job := jobs[0].(map[string]any)
	if job["instanceId"] != id || job["nodeId"] != "charge" || job["retries"] != json.Number("2") ||
		job["variables"].(map[string]any)["amount"] != json.Number("10.50") {
		t.Errorf("job = %v", job)
	}
	key := job["key"].(string)
	if again := b.postJSON("/api/v1/jobs/activate", `{"type":"charge","worker":"w2","lockDurationMs":60000}`).object(t)["jobs"].([]any); len(again) != 0 {
		t.Errorf("a locked job was activated again: %v", again)
	}
	b.postJSON("/api/v1/jobs/"+key+"/extend", `{"lockDurationMs":120000}`).noContent(t)
	b.postJSON("/api/v1/jobs/"+key+"/complete", `{"variables":{"charged":true}}`).noContent(t)
	b.postJSON("/api/v1/jobs/"+key+"/complete", `{}`).problem(t, http.StatusNotFound, "not-found")
	b.postJSON("/api/v1/jobs/"+key+"/extend", `{"lockDurationMs":1000}`).problem(t, http.StatusNotFound, "not-found")

	// The user task.
	tasks := b.get("/api/v1/tasks?candidateGroup=managers&instanceId="+id).wantStatus(t, http.StatusOK).items(t)
	if len(tasks) != 1 {
		t.Fatalf("tasks = %v", tasks)
	}
	task := tasks[0].(map[string]any)
	tid := task["id"].(string)
	if task["nodeId"] != "approve" || task["assignee"] != nil || mustJSON(t, task["candidateGroups"]) != `["managers"]` {
		t.Errorf("task = %v", task)
	}
	b.as("", "", "/api/v1/tasks/"+tid+"/claim", "").problem(t, http.StatusForbidden, "forbidden")
	b.as("carol", "sales", "/api/v1/tasks/"+tid+"/claim", "").problem(t, http.StatusForbidden, "forbidden")
	b.as("dave", "managers", "/api/v1/tasks/"+tid+"/complete", `{}`).problem(t, http.StatusConflict, "conflict") // claim first
	b.as("dave", "managers", "/api/v1/tasks/"+tid+"/claim", "").wantStatus(t, http.StatusOK)
	b.as("dave", "managers", "/api/v1/tasks/"+tid+"/claim", "").wantStatus(t, http.StatusOK) // own task again: no-op
	b.as("carol", "", "/api/v1/tasks/"+tid+"/unclaim", "").problem(t, http.StatusForbidden, "forbidden")
	b.as("erin", "managers", "/api/v1/tasks/"+tid+"/claim", "").problem(t, http.StatusConflict, "conflict")
	b.as("carol", "", "/api/v1/tasks/"+tid+"/complete", `{}`).problem(t, http.StatusForbidden, "forbidden")
	b.as("dave", "", "/api/v1/tasks/"+tid+"/complete", `{"variables":{"approved":true}}`).noContent(t)
	b.get("/api/v1/tasks/"+tid).problem(t, http.StatusNotFound, "not-found")

	// The message, then the signal.
	b.postJSON("/api/v1/messages", `{"name":"paid","correlationKey":"o-2"}`).problem(t, http.StatusNotFound, "not-found")
	if got := b.postJSON("/api/v1/messages", `{"name":"paid","correlationKey":"o-1","variables":{"paidAt":"today"}}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"correlated":1}` {
		t.Errorf("correlate = %s", got.Body)
	}
	if got := b.postJSON("/api/v1/signals", `{"name":"go"}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"triggered":1}` {
		t.Errorf("broadcast = %s", got.Body)
	}

	done := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	vars := done["variables"].(map[string]any)
	if done["status"] != "completed" || vars["charged"] != true || vars["approved"] != true || vars["paidAt"] != "today" {
		t.Errorf("instance = %v", done)
	}
}

func TestIntegrationJobIncidentAndLongPoll(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postXML("/api/v1/deployments", waitsModel).wantStatus(t, http.StatusCreated)

	// A long poll answers when an instance creates a job.
	polled := make(chan *response, 1)
	go func() {
		polled <- b.postJSON("/api/v1/jobs/activate", `{"type":"charge","worker":"w","lockDurationMs":60000,"requestTimeoutMs":30000}`)
	}()
	time.Sleep(50 * time.Millisecond) // let the poll start waiting; it must answer either way
	id := b.postJSON("/api/v1/processes/waits/instances", `{"variables":{"orderId":"o-9"}}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	var key string
	select {
	case res := <-polled:
		jobs := res.wantStatus(t, http.StatusOK).object(t)["jobs"].([]any)
		if len(jobs) != 1 {
			t.Fatalf("long poll jobs = %v", jobs)
		}
		key = jobs[0].(map[string]any)["key"].(string)
	case <-time.After(20 * time.Second):
		t.Fatal("the long poll did not answer when the job appeared")
	}

	// Fail with no retries left: an incident, the instance failed.
	b.postJSON("/api/v1/jobs/"+key+"/fail", `{"retries":0,"errorMessage":"card declined"}`).noContent(t)
	inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	incs := inst["incidents"].([]any)
	if inst["status"] != "failed" || len(incs) != 1 || !strings.Contains(incs[0].(map[string]any)["message"].(string), "card declined") {
		t.Fatalf("instance = %v", inst)
	}
	incID := incs[0].(map[string]any)["id"].(string)

	got := b.postJSON("/api/v1/incidents/"+incID+"/retry", `{"retries":2}`).wantStatus(t, http.StatusOK).object(t)
	if got["resolvedAt"] == nil {
		t.Errorf("retried incident = %v", got)
	}
	b.postJSON("/api/v1/incidents/"+incID+"/retry", `{}`).problem(t, http.StatusConflict, "conflict")
	b.postJSON("/api/v1/incidents/nope/retry", `{}`).problem(t, http.StatusNotFound, "not-found")

	jobs := b.postJSON("/api/v1/jobs/activate", `{"type":"charge","worker":"w","lockDurationMs":60000}`).wantStatus(t, http.StatusOK).object(t)["jobs"].([]any)
	if len(jobs) != 1 || jobs[0].(map[string]any)["retries"] != json.Number("2") {
		t.Fatalf("jobs after retry = %v", jobs)
	}
	b.postJSON("/api/v1/jobs/"+jobs[0].(map[string]any)["key"].(string)+"/complete", `{}`).noContent(t)
	if st := b.get("/api/v1/instances/" + id).object(t)["status"]; st != "running" {
		t.Errorf("status = %v, want running (at the user task)", st)
	}
	b.postJSON("/api/v1/jobs/nope/fail", `{}`).problem(t, http.StatusNotFound, "not-found")
	b.postJSON("/api/v1/jobs/nope/error", `{"errorCode":"E"}`).problem(t, http.StatusNotFound, "not-found")
}
