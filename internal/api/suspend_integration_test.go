package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// wantSuspendedProblem checks a 409 that names the suspension.
func wantSuspendedProblem(t *testing.T, res *response, what string) {
	t.Helper()
	if p := res.problem(t, http.StatusConflict, "conflict"); !strings.Contains(p.Detail, "suspended") {
		t.Errorf("%s: problem %+v does not name the suspension", what, p)
	}
}

// TestIntegrationSuspendTimerAndMessage: a suspended instance's timer that
// comes due does not fire; a message for it finds nothing waiting (404);
// after the resume the timer fires, once, and the message would have been
// too late.
func TestIntegrationSuspendTimerAndMessage(t *testing.T) {
	t.Parallel()
	b, rt, clk := setupRealClock(t)
	ctx := context.Background()
	deployTestdata(t, b, "event_gateway.bpmn")
	id := startProcess(t, b, "race", `{"orderId":"o-1"}`)

	got := b.postJSON("/api/v1/instances/"+id+"/suspend", ``).wantStatus(t, http.StatusOK).object(t)
	if got["suspended"] != true || got["status"] != runtime.StatusRunning {
		t.Fatalf("suspended instance = %s", mustJSON(t, got))
	}
	if again := b.postJSON("/api/v1/instances/"+id+"/suspend", ``).wantStatus(t, http.StatusOK).object(t); again["suspended"] != true {
		t.Errorf("suspending twice = %s", mustJSON(t, again))
	}
	clk.Advance(2 * time.Hour)
	if n, err := rt.FireDueTimers(ctx); err != nil || n != 0 {
		t.Fatalf("a suspended instance's timer fired: %d, %v", n, err)
	}
	b.postJSON("/api/v1/messages", `{"name":"answer","correlationKey":"o-1"}`).problem(t, http.StatusNotFound, "not-found")
	b.postJSON("/api/v1/signals", `{"name":"abort"}`).wantStatus(t, http.StatusOK)
	if s := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t); s["status"] != runtime.StatusRunning || s["suspended"] != true {
		t.Fatalf("after the held triggers: %s", mustJSON(t, s))
	}
	list := b.get("/api/v1/instances?suspended=true").wantStatus(t, http.StatusOK).items(t)
	if len(list) != 1 || list[0].(map[string]any)["id"] != id {
		t.Errorf("suspended list = %s", mustJSON(t, list))
	}
	if others := b.get("/api/v1/instances?suspended=false").wantStatus(t, http.StatusOK).items(t); len(others) != 0 {
		t.Errorf("not suspended list = %s", mustJSON(t, others))
	}
	b.get("/api/v1/instances?suspended=maybe").problem(t, http.StatusBadRequest, "invalid-request")

	if r := b.postJSON("/api/v1/instances/"+id+"/resume", ``).wantStatus(t, http.StatusOK).object(t); r["suspended"] != false {
		t.Fatalf("resumed instance = %s", mustJSON(t, r))
	}
	if n, err := rt.FireDueTimers(ctx); err != nil || n != 1 {
		t.Fatalf("after the resume fired %d, %v; want the held timer once", n, err)
	}
	if n, err := rt.FireDueTimers(ctx); err != nil || n != 0 {
		t.Errorf("fired again: %d, %v", n, err)
	}
	if s := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t); s["status"] != runtime.StatusCompleted {
		t.Fatalf("after the timer: %s", mustJSON(t, s))
	}
	if h := mustJSON(t, b.get("/api/v1/instances/"+id+"/history").wantStatus(t, http.StatusOK).items(t)); !strings.Contains(h, "timeoutEnd") || strings.Contains(h, "abortEnd") {
		t.Errorf("history = %s", h)
	}
	b.postJSON("/api/v1/instances/"+id+"/resume", ``).problem(t, http.StatusConflict, "conflict")
	b.postJSON("/api/v1/instances/nope/suspend", ``).problem(t, http.StatusNotFound, "not-found")
}

// TestIntegrationSuspendMessageAfterResume: a message refused while the
// instance is suspended reaches it once it is resumed.
func TestIntegrationSuspendMessageAfterResume(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	deployTestdata(t, b, "message.bpmn")
	id := startProcess(t, b, "payment", `{"orderId":"o-7"}`)
	b.postJSON("/api/v1/instances/"+id+"/suspend", ``).wantStatus(t, http.StatusOK)
	b.postJSON("/api/v1/messages", `{"name":"order-paid","correlationKey":"o-7"}`).problem(t, http.StatusNotFound, "not-found")
	b.postJSON("/api/v1/instances/"+id+"/resume", ``).wantStatus(t, http.StatusOK)
	if got := b.postJSON("/api/v1/messages", `{"name":"order-paid","correlationKey":"o-7"}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"correlated":1}` {
		t.Errorf("correlate after the resume = %s", got.Body)
	}
	if s := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t); s["status"] != runtime.StatusCompleted {
		t.Errorf("after the message: %s", mustJSON(t, s))
	}
}

// TestIntegrationSuspendBufferedMessage: a message published with a time
// to live while its only subscriber is suspended is buffered (202), and
// the resumed instance takes it.
func TestIntegrationSuspendBufferedMessage(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	deployTestdata(t, b, "message.bpmn")
	id := startProcess(t, b, "payment", `{"orderId":"o-8"}`)
	b.postJSON("/api/v1/instances/"+id+"/suspend", ``).wantStatus(t, http.StatusOK)
	if res := b.postJSON("/api/v1/messages", `{"name":"order-paid","correlationKey":"o-8","timeToLive":60000}`).
		wantStatus(t, http.StatusAccepted).object(t); res["buffered"] != true {
		t.Fatalf("publication while suspended = %s", mustJSON(t, res))
	}
	if s := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t); s["status"] != runtime.StatusRunning {
		t.Fatalf("a suspended instance took the message: %s", mustJSON(t, s))
	}
	b.postJSON("/api/v1/instances/"+id+"/resume", ``).wantStatus(t, http.StatusOK)
	if s := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t); s["status"] != runtime.StatusCompleted {
		t.Errorf("the resumed instance did not take the buffered message: %s", mustJSON(t, s))
	}
}

// TestIntegrationSuspendJob: a suspended instance's job is not activatable
// and its locked job cannot be completed (409, as Camunda 7); after the
// resume the lock holder completes it.
func TestIntegrationSuspendJob(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "worker.bpmn")
	locked := startProcess(t, b, "worker", `{"n":1}`)
	jobs := activate(t, b, "work", "w1", 60000)
	if len(jobs) != 1 {
		t.Fatalf("activated %d jobs", len(jobs))
	}
	job := jobs[0]
	free := startProcess(t, b, "worker", `{"n":2}`)
	for _, id := range []string{locked, free} {
		b.postJSON("/api/v1/instances/"+id+"/suspend", ``).wantStatus(t, http.StatusOK)
	}
	if got := activate(t, b, "work", "w2", 60000); len(got) != 0 {
		t.Errorf("a suspended instance's job was activated: %v", got)
	}
	key := job["key"].(string)
	wantSuspendedProblem(t, b.postJSON("/api/v1/jobs/"+key+"/complete", withToken(job, ``)), "job completion")
	wantSuspendedProblem(t, b.postJSON("/api/v1/jobs/"+key+"/fail", withToken(job, `"retries":1,"errorMessage":"x"`)), "job failure")

	for _, id := range []string{locked, free} {
		b.postJSON("/api/v1/instances/"+id+"/resume", ``).wantStatus(t, http.StatusOK)
	}
	got := activate(t, b, "work", "w2", 60000)
	if len(got) != 1 || got[0]["instanceId"] != free {
		t.Errorf("after the resume activated %v, want the free job", got)
	}
	b.postJSON("/api/v1/jobs/"+key+"/complete", withToken(job, ``)).noContent(t)
	if s := b.get("/api/v1/instances/"+locked).wantStatus(t, http.StatusOK).object(t); s["status"] != runtime.StatusCompleted {
		t.Errorf("after the completion: %s", mustJSON(t, s))
	}
}

// TestIntegrationSuspendActs: a suspended instance refuses a task's
// completion, variable writes and modification (409 naming the
// suspension) and can still be cancelled.
func TestIntegrationSuspendActs(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	deployTestdata(t, b, "user_task.bpmn")
	id := startProcess(t, b, "review", `{"owner":"ann"}`)
	tasks := b.get("/api/v1/tasks?instanceId="+id).wantStatus(t, http.StatusOK).items(t)
	if len(tasks) != 1 {
		t.Fatalf("tasks = %v", tasks)
	}
	tid := tasks[0].(map[string]any)["id"].(string)
	b.as("ann", "", "/api/v1/tasks/"+tid+"/claim", "").wantStatus(t, http.StatusOK)
	b.postJSON("/api/v1/instances/"+id+"/suspend", ``).wantStatus(t, http.StatusOK)

	wantSuspendedProblem(t, b.as("ann", "", "/api/v1/tasks/"+tid+"/complete", `{"variables":{"ok":true}}`), "task completion")
	wantSuspendedProblem(t, b.postJSON("/api/v1/instances/"+id+"/variables", `{"variables":{"x":1}}`), "variable write")
	wantSuspendedProblem(t, b.postJSON("/api/v1/instances/"+id+"/modify", `{"instructions":[{"activate":{"nodeId":"sign"}}]}`), "modification")
	if tasks := b.get("/api/v1/tasks?instanceId="+id).wantStatus(t, http.StatusOK).items(t); len(tasks) != 1 {
		t.Errorf("the suspended instance's task is no longer listed: %v", tasks)
	}

	if c := b.postJSON("/api/v1/instances/"+id+"/cancel", ``).wantStatus(t, http.StatusOK).object(t); c["status"] != runtime.StatusTerminated {
		t.Errorf("cancel of a suspended instance = %s", mustJSON(t, c))
	}
	b.postJSON("/api/v1/instances/"+id+"/suspend", ``).problem(t, http.StatusConflict, "conflict")
}

// TestIntegrationSuspendVersion: a suspended version refuses starts (409)
// and shows suspended; includeInstances suspends its running instances
// too; the resume lets it start again.
func TestIntegrationSuspendVersion(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	deployTestdata(t, b, "user_task.bpmn")
	running := []string{startProcess(t, b, "review", `{}`), startProcess(t, b, "review", `{}`)}

	got := b.postJSON("/api/v1/processes/review/versions/1/suspend", ``).wantStatus(t, http.StatusOK).object(t)
	if got["suspended"] != true || fmt.Sprint(got["instances"]) != "0" {
		t.Fatalf("suspend version = %s", mustJSON(t, got))
	}
	wantSuspendedProblem(t, b.postJSON("/api/v1/processes/review/instances", `{}`), "start")
	versions := b.get("/api/v1/processes/review/versions").wantStatus(t, http.StatusOK).items(t)
	if len(versions) != 1 || versions[0].(map[string]any)["suspended"] != true {
		t.Errorf("versions = %s", mustJSON(t, versions))
	}
	if s := b.get("/api/v1/instances/"+running[0]).wantStatus(t, http.StatusOK).object(t); s["suspended"] != false {
		t.Errorf("a running instance was suspended with its version: %s", mustJSON(t, s))
	}

	got = b.postJSON("/api/v1/processes/review/versions/1/suspend", `{"includeInstances":true}`).wantStatus(t, http.StatusOK).object(t)
	if fmt.Sprint(got["instances"]) != "2" {
		t.Errorf("suspend with instances = %s", mustJSON(t, got))
	}
	if list := b.get("/api/v1/instances?suspended=true&processKey=review").wantStatus(t, http.StatusOK).items(t); len(list) != 2 {
		t.Errorf("suspended instances = %s", mustJSON(t, list))
	}
	b.postJSON("/api/v1/processes/review/versions/1/suspend", `{"includeInstance":true}`).problem(t, http.StatusBadRequest, "invalid-request")
	b.postJSON("/api/v1/processes/review/versions/9/suspend", ``).problem(t, http.StatusNotFound, "not-found")
	b.postJSON("/api/v1/processes/review/versions/zero/suspend", ``).problem(t, http.StatusBadRequest, "invalid-request")

	got = b.postJSON("/api/v1/processes/review/versions/1/resume", `{"includeInstances":true}`).wantStatus(t, http.StatusOK).object(t)
	if got["suspended"] != false || fmt.Sprint(got["instances"]) != "2" {
		t.Errorf("resume with instances = %s", mustJSON(t, got))
	}
	startProcess(t, b, "review", `{}`)
	if list := b.get("/api/v1/instances?suspended=true").wantStatus(t, http.StatusOK).items(t); len(list) != 0 {
		t.Errorf("still suspended = %s", mustJSON(t, list))
	}
}

// TestIntegrationSuspendBatch: suspend and resume as batch operations.
func TestIntegrationSuspendBatch(t *testing.T) {
	t.Parallel()
	b, rt, _ := setupRealClock(t)
	deployTestdata(t, b, "user_task.bpmn")
	for range 3 {
		startProcess(t, b, "review", `{}`)
	}
	for _, op := range []string{"suspend", "resume"} {
		created := b.postJSON("/api/v1/batches", `{"operation":"`+op+`","filter":{"processKey":"review"}}`).wantStatus(t, http.StatusCreated).object(t)
		if err := rt.AwaitBatch(context.Background(), created["id"].(string)); err != nil {
			t.Fatal(err)
		}
		want := op == "suspend"
		for _, it := range b.get("/api/v1/instances?processKey=review").wantStatus(t, http.StatusOK).items(t) {
			if it.(map[string]any)["suspended"] != want {
				t.Errorf("after the %s batch: %s", op, mustJSON(t, it))
			}
		}
	}
}
