package api_test

// These tests drive the wait-state routes over the real runtime and a real
// SQLite store: a worker, a person, a message and a signal take one instance
// from start to end.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
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
	b.postJSON("/api/v1/jobs/"+key+"/extend", withToken(job, `"lockDurationMs":120000`)).noContent(t)
	b.postJSON("/api/v1/jobs/"+key+"/complete", withToken(job, `"variables":{"charged":true}`)).noContent(t)
	b.postJSON("/api/v1/jobs/"+key+"/complete", withToken(job, ``)).problem(t, http.StatusNotFound, "not-found")
	b.postJSON("/api/v1/jobs/"+key+"/extend", withToken(job, `"lockDurationMs":1000`)).problem(t, http.StatusNotFound, "not-found")

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
	var job map[string]any
	select {
	case res := <-polled:
		jobs := res.wantStatus(t, http.StatusOK).object(t)["jobs"].([]any)
		if len(jobs) != 1 {
			t.Fatalf("long poll jobs = %v", jobs)
		}
		job = jobs[0].(map[string]any)
	case <-time.After(20 * time.Second):
		t.Fatal("the long poll did not answer when the job appeared")
	}
	key := job["key"].(string)

	// Fail with no retries left: an incident, the instance failed.
	b.postJSON("/api/v1/jobs/"+key+"/fail", withToken(job, `"retries":0,"errorMessage":"card declined"`)).noContent(t)
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
	// The failure report released the first lock: its token is refused.
	b.postJSON("/api/v1/jobs/"+key+"/complete", withToken(job, ``)).problem(t, http.StatusConflict, "conflict")
	b.postJSON("/api/v1/jobs/"+jobs[0].(map[string]any)["key"].(string)+"/complete", withToken(jobs[0].(map[string]any), ``)).noContent(t)
	if st := b.get("/api/v1/instances/" + id).object(t)["status"]; st != "running" {
		t.Errorf("status = %v, want running (at the user task)", st)
	}
	b.postJSON("/api/v1/jobs/nope/fail", `{"lockToken":"x"}`).problem(t, http.StatusNotFound, "not-found")
	b.postJSON("/api/v1/jobs/nope/error", `{"lockToken":"x","errorCode":"E"}`).problem(t, http.StatusNotFound, "not-found")
}

// The tests below follow the waits' HTTP test list over the real runtime and
// a real database (testdb). The runtime's clock is a manual clock the test moves by
// hand: lock expiry, retry backoff and timers are reached by advancing it,
// never by sleeping. The timer scheduler is not started (no Resume); due
// timers fire when the test calls FireDueTimers.

// newTestClock is the manual clock the tests move, at the same start.
func newTestClock() *clock.Manual {
	return clock.NewManual(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
}

// setupRealClock is setupReal with a clock the test controls; it also
// returns the runtime so the test can fire due timers.
func setupRealClock(t *testing.T) (*bundle, *runtime.Runtime, *clock.Manual) {
	t.Helper()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	clk := newTestClock()
	rt := runtime.New(db, runtime.Options{Now: clk.Now})
	t.Cleanup(func() { _ = rt.Close() })
	return setup(t, rt, api.Options{}), rt, clk
}

// deployTestdata deploys testdata/name as a multipart upload.
func deployTestdata(t *testing.T, b *bundle, name string) {
	t.Helper()
	xml, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	b.postMultipart("/api/v1/deployments", part{filename: name, content: string(xml)}).wantStatus(t, http.StatusCreated)
}

// startProcess starts key with the variables JSON and returns the instance id.
func startProcess(t *testing.T, b *bundle, key, variables string) string {
	t.Helper()
	return b.postJSON("/api/v1/processes/"+key+"/instances", `{"variables":`+variables+`}`).
		wantStatus(t, http.StatusCreated).object(t)["id"].(string)
}

// activate asks for up to 10 jobs of typ for worker, without long-polling.
func activate(t *testing.T, b *bundle, typ, worker string, lockMs int) []map[string]any {
	t.Helper()
	body := fmt.Sprintf(`{"type":%q,"worker":%q,"maxJobs":10,"lockDurationMs":%d}`, typ, worker, lockMs)
	return jobsOf(t, b.postJSON("/api/v1/jobs/activate", body))
}

func jobsOf(t *testing.T, res *response) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, j := range res.wantStatus(t, http.StatusOK).object(t)["jobs"].([]any) {
		out = append(out, j.(map[string]any))
	}
	return out
}

// withToken is the JSON body of an act on job: its lock token and the
// members in rest (the inside of a JSON object, possibly empty).
func withToken(job map[string]any, rest string) string {
	body := `{"lockToken":` + strconv.Quote(job["lockToken"].(string))
	if rest != "" {
		body += "," + rest
	}
	return body + "}"
}

// oneJob asserts exactly one job was activated and returns its key.
func oneJob(t *testing.T, jobs []map[string]any) string {
	t.Helper()
	if len(jobs) != 1 {
		t.Fatalf("jobs = %v, want exactly one", jobs)
	}
	return jobs[0]["key"].(string)
}

func instanceStatus(t *testing.T, b *bundle, id string) string {
	t.Helper()
	return b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)["status"].(string)
}

// completedNodes returns the node ids of the instance's element-completed facts.
func completedNodes(t *testing.T, b *bundle, id string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, it := range b.get("/api/v1/instances/"+id+"/history").wantStatus(t, http.StatusOK).items(t) {
		f := it.(map[string]any)
		if f["kind"] == "element-completed" && f["nodeId"] != nil {
			out[f["nodeId"].(string)] = true
		}
	}
	return out
}

func TestIntegrationWorkerLifecycle(t *testing.T) {
	t.Parallel()
	b, _, clock := setupRealClock(t)
	deployTestdata(t, b, "worker.bpmn")

	t.Run("long poll is woken by a new instance", func(t *testing.T) {
		// The poll reads the clock only after it registered for wake-ups, so
		// once it has, a job created now reaches it: found at its first
		// look or delivered by the wake-up, never after the 30 s timeout.
		read := clock.NextRead()
		polled := make(chan *response, 1)
		go func() {
			polled <- b.postJSON("/api/v1/jobs/activate", `{"type":"work","worker":"poller","lockDurationMs":60000,"requestTimeoutMs":30000}`)
		}()
		<-read
		id := startProcess(t, b, "worker", `{"n":1}`)
		select {
		case res := <-polled:
			jobs := jobsOf(t, res)
			oneJob(t, jobs)
			if jobs[0]["instanceId"] != id || jobs[0]["nodeId"] != "work" || jobs[0]["type"] != "work" ||
				jobs[0]["retries"] != json.Number("3") || mustJSON(t, jobs[0]["variables"]) != `{"n":1}` {
				t.Errorf("job = %v", jobs[0])
			}
			b.postJSON("/api/v1/jobs/"+jobs[0]["key"].(string)+"/complete", withToken(jobs[0], ``)).noContent(t)
		case <-time.After(20 * time.Second):
			t.Fatal("the long poll did not answer when the job appeared")
		}
		if st := instanceStatus(t, b, id); st != "completed" {
			t.Errorf("status = %s, want completed", st)
		}
		// A long poll with nothing to hand out answers empty at its timeout.
		if jobs := jobsOf(t, b.postJSON("/api/v1/jobs/activate", `{"type":"work","worker":"poller","lockDurationMs":1000,"requestTimeoutMs":1}`)); len(jobs) != 0 {
			t.Errorf("empty long poll = %v", jobs)
		}
	})

	t.Run("lock expiry re-delivers, a lost lock is 409, a stale complete 404", func(t *testing.T) {
		id := startProcess(t, b, "worker", `{"n":2}`)
		jobs := activate(t, b, "work", "w1", 10_000)
		key := oneJob(t, jobs)
		first := jobs[0]
		if want := timestampOf(clock.Now().Add(10 * time.Second)); jobs[0]["deadline"] != want {
			t.Errorf("deadline = %v, want %s", jobs[0]["deadline"], want)
		}
		if again := activate(t, b, "work", "w2", 10_000); len(again) != 0 {
			t.Fatalf("a locked job was handed out again: %v", again)
		}
		clock.Advance(10*time.Second - time.Millisecond)
		if again := activate(t, b, "work", "w2", 10_000); len(again) != 0 {
			t.Fatalf("the lock expired early: %v", again)
		}
		clock.Advance(2 * time.Millisecond)
		again := activate(t, b, "work", "w2", 10_000)
		if got := oneJob(t, again); got != key || again[0]["lockToken"] == first["lockToken"] {
			t.Fatalf("re-delivered %v, want the same key %s under a new token", again[0], key)
		}
		// w1 wakes up late while w2 holds the job: its lock is lost.
		p := b.postJSON("/api/v1/jobs/"+key+"/complete", withToken(first, `"variables":{"by":"w1"}`)).problem(t, http.StatusConflict, "conflict")
		if !strings.Contains(p.Detail, "activated again") {
			t.Errorf("detail = %q, want it to say the job was activated again", p.Detail)
		}
		b.postJSON("/api/v1/jobs/"+key+"/complete", withToken(again[0], `"variables":{"by":"w2"}`)).noContent(t)
		// w1 tries once more: the key is gone, nothing continues twice.
		b.postJSON("/api/v1/jobs/"+key+"/complete", withToken(first, `"variables":{"by":"w1"}`)).problem(t, http.StatusNotFound, "not-found")
		b.postJSON("/api/v1/jobs/never-existed/complete", `{"lockToken":"x"}`).problem(t, http.StatusNotFound, "not-found")
		inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
		if inst["status"] != "completed" || inst["variables"].(map[string]any)["by"] != "w2" {
			t.Errorf("instance = %v", inst)
		}
	})

	t.Run("fail with retries and backoff, incident, retry", func(t *testing.T) {
		id := startProcess(t, b, "worker", `{"n":3}`)
		jobs := activate(t, b, "work", "w1", 60_000)
		key := oneJob(t, jobs)

		// An explicit backoff: not activatable before it passes, activatable at it.
		b.postJSON("/api/v1/jobs/"+key+"/fail", withToken(jobs[0], `"retries":2,"retryBackoffMs":30000,"errorMessage":"timeout"`)).noContent(t)
		if jobs := activate(t, b, "work", "w1", 60_000); len(jobs) != 0 {
			t.Fatalf("activatable during its backoff: %v", jobs)
		}
		clock.Advance(29 * time.Second)
		if jobs := activate(t, b, "work", "w1", 60_000); len(jobs) != 0 {
			t.Fatalf("activatable 1 s before its backoff ends: %v", jobs)
		}
		if st := instanceStatus(t, b, id); st != "running" {
			t.Errorf("status during a retry = %s, want running", st)
		}
		clock.Advance(time.Second)
		jobs = activate(t, b, "work", "w1", 60_000)
		if oneJob(t, jobs) != key || jobs[0]["retries"] != json.Number("2") {
			t.Fatalf("after the backoff: %v", jobs)
		}

		// No retries given: one less, on the default schedule (≥ 0.8 s, ≤ 6 min).
		b.postJSON("/api/v1/jobs/"+key+"/fail", withToken(jobs[0], `"errorMessage":"timeout again"`)).noContent(t)
		if jobs := activate(t, b, "work", "w1", 60_000); len(jobs) != 0 {
			t.Fatalf("activatable at once after a failure with the default backoff: %v", jobs)
		}
		clock.Advance(6 * time.Minute)
		jobs = activate(t, b, "work", "w1", 60_000)
		if oneJob(t, jobs) != key || jobs[0]["retries"] != json.Number("1") {
			t.Fatalf("after the default backoff: %v", jobs)
		}

		// Retries exhausted: an incident, the instance failed, nothing to activate.
		b.postJSON("/api/v1/jobs/"+key+"/fail", withToken(jobs[0], `"retries":0,"errorMessage":"disk full"`)).noContent(t)
		inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
		incs := inst["incidents"].([]any)
		if inst["status"] != "failed" || len(incs) != 1 {
			t.Fatalf("instance = %v", inst)
		}
		inc := incs[0].(map[string]any)
		if inc["nodeId"] != "work" || !strings.Contains(inc["message"].(string), "disk full") {
			t.Errorf("incident = %v", inc)
		}
		listed := b.get("/api/v1/incidents?instanceId="+id).wantStatus(t, http.StatusOK).items(t)
		if len(listed) != 1 || listed[0].(map[string]any)["id"] != inc["id"] {
			t.Errorf("incidents = %v", listed)
		}
		clock.Advance(time.Hour)
		if jobs := activate(t, b, "work", "w1", 60_000); len(jobs) != 0 {
			t.Fatalf("a job with an incident was activated: %v", jobs)
		}

		// Retry: the incident resolves, the job is activatable again with the new retries.
		b.postJSON("/api/v1/incidents/"+inc["id"].(string)+"/retry", `{"retries":1}`).wantStatus(t, http.StatusOK)
		if st := instanceStatus(t, b, id); st != "running" {
			t.Errorf("status after the retry = %s, want running", st)
		}
		jobs = activate(t, b, "work", "w1", 60_000)
		if oneJob(t, jobs) != key || jobs[0]["retries"] != json.Number("1") {
			t.Fatalf("after the incident retry: %v", jobs)
		}
		b.postJSON("/api/v1/jobs/"+key+"/complete", withToken(jobs[0], ``)).noContent(t)
		if st := instanceStatus(t, b, id); st != "completed" {
			t.Errorf("status = %s, want completed", st)
		}
	})
}

// timestampOf formats t as the API does.
func timestampOf(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func TestIntegrationJobErrorCaughtByBoundary(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "job_error.bpmn")

	for _, tc := range []struct{ code, end, notEnd string }{
		{"CARD_DECLINED", "declinedEnd", "otherEnd"}, // the matching code
		{"GATEWAY_DOWN", "otherEnd", "declinedEnd"},  // the catch-all
	} {
		id := startProcess(t, b, "jobError", `{"orderId":"`+tc.code+`"}`)
		jobs := activate(t, b, "charge-card", "w", 60_000)
		key := oneJob(t, jobs)
		b.postJSON("/api/v1/jobs/"+key+"/error", withToken(jobs[0], `"errorCode":"`+tc.code+`","errorMessage":"no","variables":{"reason":"`+tc.code+`"}`)).noContent(t)

		inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
		if inst["status"] != "completed" || inst["variables"].(map[string]any)["reason"] != tc.code || len(inst["incidents"].([]any)) != 0 {
			t.Errorf("%s: instance = %v", tc.code, inst)
		}
		done := completedNodes(t, b, id)
		if !done[tc.end] || done[tc.notEnd] || done["end"] {
			t.Errorf("%s: completed nodes = %v, want %s only", tc.code, done, tc.end)
		}
		b.postJSON("/api/v1/jobs/"+key+"/complete", withToken(jobs[0], ``)).problem(t, http.StatusNotFound, "not-found")
	}
}

func TestIntegrationUserTaskAuthorization(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "user_task.bpmn")
	id := startProcess(t, b, "review", `{"owner":"carol"}`)

	tasks := b.get("/api/v1/tasks?candidateUser=ann&instanceId="+id).wantStatus(t, http.StatusOK).items(t)
	if len(tasks) != 1 {
		t.Fatalf("ann's tasks = %v", tasks)
	}
	task := tasks[0].(map[string]any)
	tid := task["id"].(string)
	if task["nodeId"] != "approve" || task["name"] != "Approve order" || task["assignee"] != nil ||
		mustJSON(t, task["candidateUsers"]) != `["ann"]` || mustJSON(t, task["candidateGroups"]) != `["managers"]` {
		t.Errorf("task = %v", task)
	}
	if got := b.get("/api/v1/tasks?candidateGroup=managers&instanceId=" + id).items(t); len(got) != 1 {
		t.Errorf("managers' tasks = %v", got)
	}
	path := "/api/v1/tasks/" + tid

	// Offered, nobody has it yet.
	b.as("dave", "sales", path+"/claim", "").problem(t, http.StatusForbidden, "forbidden")      // not a candidate
	b.as("bob", "managers", path+"/complete", `{}`).problem(t, http.StatusConflict, "conflict") // unclaimed offered task
	b.as("bob", "managers", path+"/unclaim", "").problem(t, http.StatusConflict, "conflict")    // nobody to unclaim
	claimed := b.as("ann", "", path+"/claim", "").wantStatus(t, http.StatusOK).object(t)        // a candidate user
	if claimed["assignee"] != "ann" {
		t.Errorf("claimed = %v", claimed)
	}

	// Claimed by ann.
	b.as("bob", "managers", path+"/claim", "").problem(t, http.StatusConflict, "conflict")        // claimed by another
	b.as("bob", "managers", path+"/unclaim", "").problem(t, http.StatusForbidden, "forbidden")    // not the assignee
	b.as("bob", "managers", path+"/complete", `{}`).problem(t, http.StatusForbidden, "forbidden") // not the assignee
	b.as("dave", "sales", path+"/complete", `{}`).problem(t, http.StatusForbidden, "forbidden")
	if got := b.as("ann", "", path+"/unclaim", "").wantStatus(t, http.StatusOK).object(t); got["assignee"] != nil {
		t.Errorf("unclaimed = %v", got)
	}
	b.as("bob", "managers", path+"/claim", "").wantStatus(t, http.StatusOK) // a candidate group member
	b.as("ann", "", path+"/complete", `{}`).problem(t, http.StatusForbidden, "forbidden")
	b.as("bob", "managers", path+"/complete", `{"variables":{"approved":true}}`).noContent(t)
	b.as("bob", "managers", path+"/complete", `{}`).problem(t, http.StatusNotFound, "not-found")

	// The next task is assigned by expression to carol.
	tasks = b.get("/api/v1/tasks?assignee=carol&instanceId="+id).wantStatus(t, http.StatusOK).items(t)
	if len(tasks) != 1 || tasks[0].(map[string]any)["nodeId"] != "sign" {
		t.Fatalf("carol's tasks = %v", tasks)
	}
	sign := "/api/v1/tasks/" + tasks[0].(map[string]any)["id"].(string)
	b.as("bob", "managers", sign+"/claim", "").problem(t, http.StatusConflict, "conflict")
	b.as("bob", "managers", sign+"/complete", `{}`).problem(t, http.StatusForbidden, "forbidden")
	b.as("carol", "", sign+"/complete", `{}`).noContent(t)

	inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	if inst["status"] != "completed" || inst["variables"].(map[string]any)["approved"] != true {
		t.Errorf("instance = %v", inst)
	}
}

func TestIntegrationMessageCorrelationByKey(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "message.bpmn")
	first := startProcess(t, b, "payment", `{"orderId":"o-1"}`)
	second := startProcess(t, b, "payment", `{"orderId":"o-2"}`)

	b.postJSON("/api/v1/messages", `{"name":"order-paid","correlationKey":"o-3"}`).problem(t, http.StatusNotFound, "not-found")
	b.postJSON("/api/v1/messages", `{"name":"order-shipped","correlationKey":"o-1"}`).problem(t, http.StatusNotFound, "not-found")
	if got := b.postJSON("/api/v1/messages", `{"name":"order-paid","correlationKey":"o-2","variables":{"paid":12.50}}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"correlated":1}` {
		t.Errorf("correlate = %s", got.Body)
	}
	done := b.get("/api/v1/instances/"+second).wantStatus(t, http.StatusOK).object(t)
	if done["status"] != "completed" || done["variables"].(map[string]any)["paid"] != json.Number("12.50") {
		t.Errorf("o-2 = %v", done)
	}
	if st := instanceStatus(t, b, first); st != "running" {
		t.Errorf("o-1 status = %s, want running (the message was for o-2)", st)
	}
	b.postJSON("/api/v1/messages", `{"name":"order-paid","correlationKey":"o-2"}`).problem(t, http.StatusNotFound, "not-found")
	b.postJSON("/api/v1/messages", `{"name":"order-paid","correlationKey":"o-1"}`).wantStatus(t, http.StatusOK)
	if st := instanceStatus(t, b, first); st != "completed" {
		t.Errorf("o-1 status = %s, want completed", st)
	}
}

func TestIntegrationSignalBroadcastCounts(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "signal.bpmn")
	ids := []string{startProcess(t, b, "broadcast", `{}`), startProcess(t, b, "broadcast", `{}`)}

	if got := b.postJSON("/api/v1/signals", `{"name":"other"}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"triggered":0}` {
		t.Errorf("unrelated signal = %s", got.Body)
	}
	if got := b.postJSON("/api/v1/signals", `{"name":"go","variables":{"went":true}}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"triggered":2}` {
		t.Errorf("broadcast = %s", got.Body)
	}
	for _, id := range ids {
		inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
		if inst["status"] != "completed" || inst["variables"].(map[string]any)["went"] != true {
			t.Errorf("instance = %v", inst)
		}
	}
	if got := b.postJSON("/api/v1/signals", `{"name":"go"}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"triggered":0}` {
		t.Errorf("second broadcast = %s", got.Body)
	}
}

func TestIntegrationEventGatewayRace(t *testing.T) {
	t.Parallel()
	b, rt, clock := setupRealClock(t)
	deployTestdata(t, b, "event_gateway.bpmn")

	// A message and a signal fired at once from two goroutines: exactly one wins.
	wins := map[string]int{}
	for round := range 20 {
		orderID := fmt.Sprintf("race-%d", round)
		id := startProcess(t, b, "race", `{"orderId":"`+orderID+`"}`)
		if inst := b.get("/api/v1/instances/" + id).object(t); len(inst["tracks"].([]any)) != 1 {
			t.Fatalf("round %d: not waiting at the gateway: %v", round, inst)
		}
		var msg, sig *response
		var wg sync.WaitGroup
		go_ := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-go_
			msg = b.postJSON("/api/v1/messages", `{"name":"answer","correlationKey":"`+orderID+`"}`)
		}()
		go func() {
			defer wg.Done()
			<-go_
			sig = b.postJSON("/api/v1/signals", `{"name":"abort"}`)
		}()
		close(go_)
		wg.Wait()

		msgWon := msg.Status == http.StatusOK
		switch {
		case msgWon && string(msg.Body) == `{"correlated":1}` && string(sig.wantStatus(t, http.StatusOK).Body) == `{"triggered":0}`:
			wins["message"]++
		case msg.Status == http.StatusNotFound && string(sig.wantStatus(t, http.StatusOK).Body) == `{"triggered":1}`:
			msg.problem(t, http.StatusNotFound, "not-found")
			wins["signal"]++
		default:
			t.Fatalf("round %d: message answered %d %s, signal %d %s: not exactly one winner", round, msg.Status, msg.Body, sig.Status, sig.Body)
		}
		if st := instanceStatus(t, b, id); st != "completed" {
			t.Fatalf("round %d: status = %s, want completed", round, st)
		}
		done := completedNodes(t, b, id)
		ends := 0
		for _, end := range []string{"answerEnd", "abortEnd", "timeoutEnd"} {
			if done[end] {
				ends++
			}
		}
		wantEnd := map[bool]string{true: "answerEnd", false: "abortEnd"}[msgWon]
		if ends != 1 || !done[wantEnd] {
			t.Fatalf("round %d: completed nodes = %v, want only %s", round, done, wantEnd)
		}
	}
	t.Logf("wins: %v", wins)

	// The timer target: advancing the clock an hour fires it; the other targets are withdrawn.
	id := startProcess(t, b, "race", `{"orderId":"late"}`)
	clock.Advance(time.Hour - time.Millisecond)
	if n, err := rt.FireDueTimers(context.Background()); err != nil || n != 0 {
		t.Fatalf("FireDueTimers before due = %d, %v", n, err)
	}
	clock.Advance(time.Millisecond)
	if n, err := rt.FireDueTimers(context.Background()); err != nil || n != 1 {
		t.Fatalf("FireDueTimers = %d, %v; want 1", n, err)
	}
	if st := instanceStatus(t, b, id); st != "completed" || !completedNodes(t, b, id)["timeoutEnd"] {
		t.Errorf("status = %s, want completed via timeoutEnd", st)
	}
	b.postJSON("/api/v1/messages", `{"name":"answer","correlationKey":"late"}`).problem(t, http.StatusNotFound, "not-found")
	if got := b.postJSON("/api/v1/signals", `{"name":"abort"}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"triggered":0}` {
		t.Errorf("signal after the timer = %s", got.Body)
	}
}

// TestIntegrationScopesShowHandlers checks the real runtime's scope tree on
// the wire: each scope has a state and a handlers array (never null).
func TestIntegrationScopesShowHandlers(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "message.bpmn")
	id := startProcess(t, b, "payment", `{"orderId":"o-1"}`)
	scopes := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)["scopes"].([]any)
	if len(scopes) != 1 {
		t.Fatalf("scopes = %v", scopes)
	}
	root := scopes[0].(map[string]any)
	if root["state"] != "active" || mustJSON(t, root["handlers"]) != "[]" {
		t.Errorf("root scope = %v", root)
	}
}
