package runtime_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// clocked is a runtime over a real database (testdb) with an injected clock.
type clocked struct {
	path string
	clk  *clock.Manual
	db   testdb.Store
	rt   *runtime.Runtime
}

func setupClocked(t *testing.T) *clocked {
	t.Helper()
	c := &clocked{path: testdb.DSN(t), clk: clock.NewManual(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))}
	c.open(t)
	t.Cleanup(func() { c.close(t) })
	return c
}

func (c *clocked) open(t *testing.T) {
	t.Helper()
	db, err := testdb.Open(context.Background(), c.path)
	if err != nil {
		t.Fatal(err)
	}
	c.db, c.rt = db, runtime.New(db, runtime.Options{Now: c.clk.Now})
}

func (c *clocked) close(t *testing.T) {
	t.Helper()
	if c.rt != nil {
		c.rt.Close()
		c.db.Close()
		c.rt, c.db = nil, nil
	}
}

func activate(t *testing.T, rt *runtime.Runtime, typ string, timeout time.Duration) []runtime.JobView {
	t.Helper()
	jobs, err := rt.ActivateJobs(context.Background(), runtime.ActivateRequest{Type: typ, Worker: "w1", MaxJobs: 10, LockDuration: time.Minute, RequestTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// held is what the worker that activated j presents to act on it (no user:
// the server runs without authentication).
func held(j runtime.JobView) runtime.JobHolder { return runtime.JobHolder{Token: j.LockToken} }

func start(t *testing.T, rt *runtime.Runtime, key string, vars map[string]any) runtime.InstanceView {
	t.Helper()
	inst, err := rt.StartInstance(context.Background(), runtime.StartRequest{ProcessKey: key, Variables: vars})
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// TestWorkerDrivesProcess is the "done when": start → service task →
// user task → timer → end, driven through the runtime's public methods.
func TestWorkerDrivesProcess(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "worker.bpmn"))
	inst := start(t, c.rt, "worker", map[string]any{"orderId": "o-7"})
	jobs := activate(t, c.rt, "fetch-order", 0)
	if len(jobs) != 1 || jobs[0].Variables["orderId"] != "o-7" || jobs[0].Retries != 2 || jobs[0].InstanceID != inst.ID {
		t.Fatalf("jobs %+v", jobs)
	}
	if again := activate(t, c.rt, "fetch-order", 0); len(again) != 0 {
		t.Fatalf("a locked job was handed out twice: %+v", again)
	}
	if err := c.rt.CompleteJob(ctx, jobs[0].Key, held(jobs[0]), map[string]any{"lines": json.Number("3")}); err != nil {
		t.Fatal(err)
	}
	if err := c.rt.CompleteJob(ctx, jobs[0].Key, held(jobs[0]), nil); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Fatalf("second complete: %v", err)
	}
	tasks, total, err := c.rt.Tasks(ctx, runtime.TaskFilter{CandidateGroup: "clerks"})
	if err != nil || total != 1 || tasks[0].Name != "Review order" {
		t.Fatalf("tasks %v %d %+v", err, total, tasks)
	}
	clerk := runtime.Actor{User: "kim", Groups: []string{"clerks"}}
	if _, err := c.rt.ClaimTask(ctx, tasks[0].ID, runtime.Actor{User: "eve"}); runtime.ErrorCode(err) != runtime.EFORBIDDEN {
		t.Fatalf("non-candidate claim: %v", err)
	}
	claimed, err := c.rt.ClaimTask(ctx, tasks[0].ID, clerk)
	if err != nil || claimed.Assignee != "kim" {
		t.Fatalf("claim: %v %+v", err, claimed)
	}
	if _, err := c.rt.ClaimTask(ctx, tasks[0].ID, runtime.Actor{User: "lee", Groups: []string{"clerks"}}); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Fatalf("claim of a claimed task: %v", err)
	}
	if err := c.rt.CompleteTask(ctx, tasks[0].ID, clerk, map[string]any{"ok": true}); err != nil {
		t.Fatal(err)
	}
	if n, err := c.rt.FireDueTimers(ctx); err != nil || n != 0 {
		t.Fatalf("a timer fired early: %d %v", n, err)
	}
	c.clk.Advance(30 * time.Minute)
	if n, err := c.rt.FireDueTimers(ctx); err != nil || n != 1 {
		t.Fatalf("due timer: %d %v", n, err)
	}
	done, err := c.rt.Instance(ctx, inst.ID)
	if err != nil || done.Status != runtime.StatusCompleted || done.Variables["lines"] != json.Number("3") || done.Variables["ok"] != true {
		t.Fatalf("instance %v %+v", err, done)
	}
}

func TestJobRetriesIncidentAndRetry(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "worker.bpmn"))
	inst := start(t, c.rt, "worker", nil)
	first := activate(t, c.rt, "fetch-order", 0)[0]
	if err := c.rt.FailJob(ctx, first.Key, held(first), runtime.FailRequest{ErrorMessage: "db down"}); err != nil {
		t.Fatal(err)
	}
	if got := activate(t, c.rt, "fetch-order", 0); len(got) != 0 {
		t.Fatalf("job activatable during its backoff: %+v", got)
	}
	c.clk.Advance(2 * time.Second) // default backoff: 1 s ± 20 %
	jobs := activate(t, c.rt, "fetch-order", 0)
	if len(jobs) != 1 || jobs[0].Retries != 1 {
		t.Fatalf("after backoff: %+v", jobs)
	}
	zero := 0
	if err := c.rt.FailJob(ctx, first.Key, held(first), runtime.FailRequest{Retries: &zero}); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Fatalf("fail with the token of the released lock: %v, want a conflict", err)
	}
	if err := c.rt.FailJob(ctx, jobs[0].Key, held(jobs[0]), runtime.FailRequest{Retries: &zero, ErrorMessage: "still down"}); err != nil {
		t.Fatal(err)
	}
	failed, _ := c.rt.Instance(ctx, inst.ID)
	if failed.Status != runtime.StatusFailed || len(failed.Incidents) != 1 || failed.Incidents[0].Message != "still down" {
		t.Fatalf("after exhausting retries: %+v", failed)
	}
	if got := activate(t, c.rt, "fetch-order", 0); len(got) != 0 {
		t.Fatalf("job with an incident activatable: %+v", got)
	}
	in, err := c.rt.RetryIncident(ctx, failed.Incidents[0].ID, 2)
	if err != nil || in.ResolvedAt.IsZero() {
		t.Fatalf("retry: %v %+v", err, in)
	}
	if _, err := c.rt.RetryIncident(ctx, failed.Incidents[0].ID, 1); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Fatalf("retry twice: %v", err)
	}
	if _, err := c.rt.RetryIncident(ctx, "nope-i1", 1); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Fatalf("retry unknown: %v", err)
	}
	running, _ := c.rt.Instance(ctx, inst.ID)
	if running.Status != runtime.StatusRunning {
		t.Fatalf("status after retry: %s", running.Status)
	}
	if jobs := activate(t, c.rt, "fetch-order", 0); len(jobs) != 1 || jobs[0].Retries != 2 {
		t.Fatalf("after retry: %+v", jobs)
	}
}

func TestLockExpiryRedelivers(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "worker.bpmn"))
	start(t, c.rt, "worker", nil)
	first := activate(t, c.rt, "fetch-order", 0)
	if err := c.rt.ExtendJobLock(ctx, first[0].Key, held(first[0]), 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	c.clk.Advance(90 * time.Second)
	if got := activate(t, c.rt, "fetch-order", 0); len(got) != 0 {
		t.Fatalf("extended lock ignored: %+v", got)
	}
	c.clk.Advance(time.Minute)
	again := activate(t, c.rt, "fetch-order", 0)
	if len(again) != 1 || again[0].Key != first[0].Key || again[0].LockToken == first[0].LockToken {
		t.Fatalf("expired lock not re-delivered under a new token: %+v", again)
	}
	c.clk.Advance(2 * time.Minute)
	if err := c.rt.ExtendJobLock(ctx, again[0].Key, held(again[0]), time.Minute); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Fatalf("extend an expired lock: %v", err)
	}
	if err := c.rt.ExtendJobLock(ctx, "nope", held(again[0]), time.Minute); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Fatalf("extend unknown: %v", err)
	}
	// The first worker lost the job to the second activation: its late
	// completion is refused, whoever holds the job now.
	if err := c.rt.CompleteJob(ctx, first[0].Key, held(first[0]), nil); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Fatalf("completion with the lock token of a lost lock: %v, want a conflict", err)
	}
	// At least once: the second lock expired too, but nobody took the job
	// since, so its holder's late completion still counts, once.
	if err := c.rt.CompleteJob(ctx, again[0].Key, held(again[0]), nil); err != nil {
		t.Fatal(err)
	}
	if err := c.rt.CompleteJob(ctx, again[0].Key, held(again[0]), nil); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Fatalf("second completion: %v, want not found", err)
	}
}

func TestLongPollWakesOnNewJob(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	mustDeploy(t, c.rt, fixture(t, "worker.bpmn"))
	got := make(chan []runtime.JobView, 1)
	go func() {
		jobs, _ := c.rt.ActivateJobs(context.Background(), runtime.ActivateRequest{Type: "fetch-order", Worker: "w", MaxJobs: 1, LockDuration: time.Minute, RequestTimeout: time.Minute})
		got <- jobs
	}()
	start(t, c.rt, "worker", nil)
	select {
	case jobs := <-got:
		if len(jobs) != 1 {
			t.Fatalf("long poll returned %+v", jobs)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("long poll was not woken by the new job")
	}
	// A cancelled request ends the long poll.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "none", Worker: "w", MaxJobs: 1, LockDuration: time.Minute, RequestTimeout: time.Minute})
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("cancelled long poll returned no error")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cancelled long poll did not return")
	}
}

func TestActivateValidation(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	for _, req := range []runtime.ActivateRequest{
		{Worker: "w", MaxJobs: 1, LockDuration: time.Second},
		{Type: "t", MaxJobs: 1, LockDuration: time.Second},
		{Type: "t", Worker: "w", LockDuration: time.Second},
		{Type: "t", Worker: "w", MaxJobs: 1},
		{Type: "t", Worker: "w", MaxJobs: 1, LockDuration: time.Second, RequestTimeout: time.Hour},
	} {
		if _, err := c.rt.ActivateJobs(context.Background(), req); runtime.ErrorCode(err) != runtime.EINVALID {
			t.Errorf("%+v: %v", req, err)
		}
	}
}

func TestJobErrorCaughtByBoundary(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "job.bpmn"))
	inst := start(t, c.rt, "job", nil)
	job := activate(t, c.rt, "charge-card", 0)[0]
	if err := c.rt.ThrowJobError(ctx, job.Key, held(job), "CARD_DECLINED", "declined", nil); err != nil {
		t.Fatal(err)
	}
	done, _ := c.rt.Instance(ctx, inst.ID)
	if done.Status != runtime.StatusCompleted {
		t.Fatalf("status %s", done.Status)
	}
	hist, _ := c.rt.History(ctx, inst.ID, 0, 0)
	found := false
	for _, f := range hist {
		found = found || f.NodeID == "declinedEnd"
	}
	if !found {
		t.Fatal("error did not leave through the boundary")
	}
}

func TestMessagesAndSignals(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "messages.bpmn"), fixture(t, "starts.bpmn"))
	a := start(t, c.rt, "messages", map[string]any{"orderId": "a"})
	b := start(t, c.rt, "messages", map[string]any{"orderId": "b"})
	if _, err := c.rt.CorrelateMessage(ctx, "order-paid", "zzz", nil); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Fatalf("no subscription: %v", err)
	}
	n, err := c.rt.CorrelateMessage(ctx, "order-paid", "b", map[string]any{"paid": true})
	if err != nil || n != 1 {
		t.Fatalf("correlate: %d %v", n, err)
	}
	if got, _ := c.rt.Instance(ctx, b.ID); got.Status != runtime.StatusCompleted || got.Variables["paid"] != true {
		t.Fatalf("b: %+v", got)
	}
	if got, _ := c.rt.Instance(ctx, a.ID); got.Status != runtime.StatusRunning {
		t.Fatalf("a was touched by b's message: %+v", got)
	}
	// stop-all reaches a's non-interrupting boundary only (b ended).
	n, err = c.rt.BroadcastSignal(ctx, "stop-all", nil)
	if err != nil || n != 1 {
		t.Fatalf("signal: %d %v", n, err)
	}
	// A message start event starts an instance with the key as business key.
	n, err = c.rt.CorrelateMessage(ctx, "order-placed", "k-1", map[string]any{"x": true})
	if err != nil || n != 1 {
		t.Fatalf("message start: %d %v", n, err)
	}
	rows, total, _ := c.rt.ListInstances(ctx, runtime.InstanceFilter{ProcessKey: "starts", BusinessKey: "k-1"})
	if total != 1 || rows[0].Status != runtime.StatusCompleted {
		t.Fatalf("message-started instance: %d %+v", total, rows)
	}
	// A signal start throws "go" again: the chain is broadcast but bounded.
	if n, err := c.rt.BroadcastSignal(ctx, "go", nil); err != nil || n != 1 {
		t.Fatalf("signal start: %d %v", n, err)
	}
	if _, total, _ := c.rt.ListInstances(ctx, runtime.InstanceFilter{ProcessKey: "starts"}); total < 3 {
		t.Fatalf("the thrown signal started no further instance: %d", total)
	}
	// Every signal the steps threw (the bounded "go" chain too) was performed
	// and its row deleted.
	assertOutboxEmpty(t, c.db)
}

func TestTimerStartSchedule(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "scheduled.bpmn"))
	count := func() int {
		_, total, _ := c.rt.ListInstances(ctx, runtime.InstanceFilter{ProcessKey: "scheduled"})
		return total
	}
	if n, _ := c.rt.FireDueTimers(ctx); n != 0 || count() != 0 {
		t.Fatal("schedule fired early")
	}
	for i := 1; i <= 3; i++ {
		c.clk.Advance(time.Hour)
		c.rt.FireDueTimers(ctx)
	}
	if got := count(); got != 2 {
		t.Fatalf("R2 schedule started %d instances, want 2", got)
	}
}

// TestRestartKeepsEveryWait restarts the runtime over the same file while
// a job, a user task, a timer and a subscription are open; each completes after.
func TestRestartKeepsEveryWait(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "worker.bpmn"), fixture(t, "messages.bpmn"), fixture(t, "timers.bpmn"))
	jobInst := start(t, c.rt, "worker", nil)
	taskInst := start(t, c.rt, "worker", nil)
	key := activate(t, c.rt, "fetch-order", 0)
	if len(key) != 2 {
		t.Fatalf("jobs %+v", key)
	}
	if err := c.rt.CompleteJob(ctx, key[1].Key, held(key[1]), nil); err != nil {
		t.Fatal(err)
	}
	msgInst := start(t, c.rt, "messages", map[string]any{"orderId": "r"})
	timerInst := start(t, c.rt, "timers", nil)

	c.close(t)
	c.open(t)
	if _, err := c.rt.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.rt.CompleteJob(ctx, key[0].Key, held(key[0]), nil); err != nil {
		t.Fatalf("job after restart: %v", err)
	}
	tasks, _, _ := c.rt.Tasks(ctx, runtime.TaskFilter{InstanceID: taskInst.ID})
	if len(tasks) != 1 {
		t.Fatalf("task after restart: %+v", tasks)
	}
	if err := c.rt.CompleteTask(ctx, tasks[0].ID, runtime.Actor{User: "u", Groups: []string{"clerks"}}, nil); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Fatalf("complete before claim: %v", err)
	}
	if _, err := c.rt.ClaimTask(ctx, tasks[0].ID, runtime.Actor{User: "u", Groups: []string{"clerks"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.rt.CompleteTask(ctx, tasks[0].ID, runtime.Actor{User: "u"}, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := c.rt.CorrelateMessage(ctx, "order-paid", "r", nil); err != nil || n != 1 {
		t.Fatalf("message after restart: %d %v", n, err)
	}
	c.clk.Advance(10 * time.Minute)
	if _, err := c.rt.FireDueTimers(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []runtime.InstanceID{msgInst.ID} {
		if got, _ := c.rt.Instance(ctx, id); got.Status != runtime.StatusCompleted {
			t.Errorf("%s: %s", id, got.Status)
		}
	}
	if got, _ := c.rt.Instance(ctx, timerInst.ID); len(got.Tracks) != 1 || got.Tracks[0].NodeID != "work" {
		t.Errorf("timer instance after restart: %+v", got.Tracks)
	}
	if got, _ := c.rt.Instance(ctx, jobInst.ID); got.Tracks[0].NodeID != "review" {
		t.Errorf("job instance after restart: %+v", got.Tracks)
	}
}

func TestBeginShutdownEndsLongPolls(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	done := make(chan []runtime.JobView, 1)
	go func() {
		jobs, _ := c.rt.ActivateJobs(context.Background(), runtime.ActivateRequest{Type: "t", Worker: "w", MaxJobs: 1, LockDuration: time.Minute, RequestTimeout: 5 * time.Minute})
		done <- jobs
	}()
	c.rt.BeginShutdown()
	select {
	case jobs := <-done:
		if jobs == nil || len(jobs) != 0 {
			t.Fatalf("jobs = %#v, want an empty list", jobs)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("long poll held shutdown")
	}
}

func TestMetricsCount(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	mustDeploy(t, c.rt, fixture(t, "worker.bpmn"), fixture(t, "straight.bpmn"))
	start(t, c.rt, "straight", map[string]any{"amount": json.Number("1")})
	start(t, c.rt, "worker", nil)
	activate(t, c.rt, "fetch-order", 0)
	m := c.rt.Metrics()
	if m.InstancesStarted != 2 || m.InstancesEnded != 1 || m.JobsActivated != 1 || m.StepsCommitted != 2 || m.CommitBatches < 1 {
		t.Fatalf("metrics %+v", m)
	}
}

// TestMultipleAndInstantiatingStarts: a multiple start event starts an
// instance at its message and at its timer; an instantiating event-based
// gateway at its message (the instance runs on after that catch) and at
// its timer, scheduled at deployment like a timer start.
func TestMultipleAndInstantiatingStarts(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "multiple_starts.bpmn"))
	byStatus := func() map[string]int {
		rows, _, err := c.rt.ListInstances(ctx, runtime.InstanceFilter{ProcessKey: "multipleStarts"})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, r := range rows {
			out[r.Status]++
		}
		return out
	}
	for _, name := range []string{"kick", "wake"} {
		if n, err := c.rt.CorrelateMessage(ctx, name, "", nil); err != nil || n != 1 {
			t.Fatalf("%s: %d %v", name, n, err)
		}
	}
	if got := byStatus(); got[runtime.StatusCompleted] != 1 || got[runtime.StatusRunning] != 1 {
		t.Fatalf("after the messages: %v", got)
	}
	c.clk.Advance(30 * time.Minute)
	if n, err := c.rt.FireDueTimers(ctx); err != nil || n != 1 {
		t.Fatalf("the start event's timer: %d %v", n, err)
	}
	c.clk.Advance(30 * time.Minute)
	if n, err := c.rt.FireDueTimers(ctx); err != nil || n != 1 {
		t.Fatalf("the gateway's timer: %d %v", n, err)
	}
	if got := byStatus(); got[runtime.StatusCompleted] != 3 || got[runtime.StatusRunning] != 1 {
		t.Fatalf("after the timers: %v", got)
	}
	tasks, _, err := c.rt.Tasks(ctx, runtime.TaskFilter{})
	if err != nil || len(tasks) != 1 || tasks[0].NodeID != "work" {
		t.Fatalf("tasks %+v %v", tasks, err)
	}
}
