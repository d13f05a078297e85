package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// activateC8 activates the jobs of typ for user through the Camunda 8 layer.
func activateC8(t *testing.T, rt *runtime.Runtime, typ, user string) []runtime.C8Job {
	t.Helper()
	jobs, err := rt.ActivateC8Jobs(context.Background(), runtime.C8ActivateRequest{Type: typ, User: user, MaxJobs: 10, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("ActivateC8Jobs(%s): %v", typ, err)
	}
	return jobs
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := runtime.ErrorCode(err); got != code {
		t.Errorf("%s: %v (code %s), want %s", what, err, got, code)
	}
}

// TestC8Jobs drives jobs through the Camunda 8 layer: activation answers
// numeric keys of the job, its instance and its process version; the
// holder rule binds the acts to the activating user; failures count down
// to an incident that resolves by its numeric key; a BPMN error reaches
// its boundary event.
func TestC8Jobs(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	dep, err := c.rt.DeployC8(ctx, []runtime.File{fixture(t, "job.bpmn")})
	if err != nil {
		t.Fatal(err)
	}
	if len(dep.Processes) != 1 || dep.Processes[0].ProcessID != "job" || dep.Processes[0].Version != 1 || dep.Processes[0].ResourceName != "job.bpmn" {
		t.Fatalf("deployment = %+v", dep)
	}
	if id, err := c.rt.ByNumericKey(ctx, runtime.KeyDeployment, dep.Key); err != nil || id != dep.ID {
		t.Errorf("deployment key %d = %q, %v", dep.Key, id, err)
	}
	proc := dep.Processes[0]
	inst, err := c.rt.StartC8Instance(ctx, proc, map[string]any{"amount": json.Number("3")}, nil)
	if err != nil {
		t.Fatal(err)
	}

	if _, err := c.rt.ActivateC8Jobs(ctx, runtime.C8ActivateRequest{Type: "charge-card", MaxJobs: 0, Timeout: time.Minute}); runtime.ErrorCode(err) != runtime.EINVALID {
		t.Errorf("maxJobsToActivate 0: %v", err)
	}
	jobs := activateC8(t, c.rt, "charge-card", "ann")
	if len(jobs) != 1 {
		t.Fatalf("jobs = %+v", jobs)
	}
	j := jobs[0]
	if j.InstanceKey != inst.Key || j.DefinitionKey != proc.Key || j.ProcessID != "job" || j.Version != 1 || j.ElementID != "charge" ||
		j.Worker != runtime.DefaultC8Worker || j.Retries != 2 || j.Variables["amount"] == nil {
		t.Errorf("job = %+v (instance key %d, process key %d)", j, inst.Key, proc.Key)
	}
	if id, err := c.rt.ByNumericKey(ctx, runtime.KeyJob, j.Key); err != nil || id == "" {
		t.Errorf("job key %d: %q, %v", j.Key, id, err)
	}

	// The holder rule: another user, a made-up key, another kind's key.
	wantCode(t, "another user completes", c.rt.CompleteC8Job(ctx, j.Key, "bob", nil), runtime.ENOTFOUND)
	wantCode(t, "made-up key", c.rt.CompleteC8Job(ctx, 99999999, "ann", nil), runtime.ENOTFOUND)
	wantCode(t, "instance key as job key", c.rt.CompleteC8Job(ctx, inst.Key, "ann", nil), runtime.ENOTFOUND)
	wantCode(t, "timeout by another user", c.rt.UpdateC8JobTimeout(ctx, j.Key, "bob", time.Minute), runtime.ENOTFOUND)
	if err := c.rt.UpdateC8JobTimeout(ctx, j.Key, "ann", 2*time.Minute); err != nil {
		t.Errorf("UpdateC8JobTimeout: %v", err)
	}

	// Failures: with a backoff the job is not activatable until it passes;
	// a job nobody holds refuses acts; at 0 retries an incident opens.
	if err := c.rt.FailC8Job(ctx, j.Key, "ann", runtime.C8Failure{Retries: 1, RetryBackoff: time.Minute, ErrorMessage: "down"}); err != nil {
		t.Fatalf("FailC8Job: %v", err)
	}
	wantCode(t, "complete a job nobody holds", c.rt.CompleteC8Job(ctx, j.Key, "ann", nil), runtime.ECONFLICT)
	if got := activateC8(t, c.rt, "charge-card", "ann"); len(got) != 0 {
		t.Errorf("activated during the backoff: %+v", got)
	}
	c.clk.Advance(time.Minute)
	jobs = activateC8(t, c.rt, "charge-card", "ann")
	if len(jobs) != 1 || jobs[0].Key != j.Key || jobs[0].Retries != 1 {
		t.Fatalf("after the backoff: %+v", jobs)
	}
	if err := c.rt.FailC8Job(ctx, j.Key, "ann", runtime.C8Failure{Retries: 0, ErrorMessage: "still down"}); err != nil {
		t.Fatalf("FailC8Job to 0: %v", err)
	}
	view, err := c.rt.InstanceByC8Key(ctx, inst.Key)
	if err != nil || len(view.Incidents) != 1 {
		t.Fatalf("instance %d: %+v, %v", inst.Key, view.Incidents, err)
	}
	incKey, err := c.rt.NumericKey(ctx, runtime.KeyIncident, view.Incidents[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "retries of a made-up job", c.rt.UpdateC8JobRetries(ctx, 99999999, 1), runtime.ENOTFOUND)
	if _, err := c.rt.ResolveC8Incident(ctx, incKey); err != nil {
		t.Fatalf("ResolveC8Incident: %v", err)
	}
	if _, err := c.rt.ResolveC8Incident(ctx, incKey); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Errorf("resolve twice: %v", err)
	}

	// A BPMN error thrown by the holder reaches the boundary event.
	jobs = activateC8(t, c.rt, "charge-card", "ann")
	if len(jobs) != 1 {
		t.Fatalf("after the resolution: %+v", jobs)
	}
	wantCode(t, "error without code", c.rt.ThrowC8JobError(ctx, jobs[0].Key, "ann", "", "", nil), runtime.EINVALID)
	if err := c.rt.ThrowC8JobError(ctx, jobs[0].Key, "ann", "CARD_DECLINED", "declined", map[string]any{"why": "limit"}); err != nil {
		t.Fatalf("ThrowC8JobError: %v", err)
	}
	view, err = c.rt.Instance(ctx, inst.ID)
	if err != nil || view.Status != runtime.StatusCompleted || view.Variables["why"] != "limit" {
		t.Errorf("after the error: %s %v, %v", view.Status, view.Variables, err)
	}
	wantCode(t, "complete a completed job", c.rt.CompleteC8Job(ctx, jobs[0].Key, "ann", nil), runtime.ENOTFOUND)
}

// TestC8StartAwait starts instances by BPMN process id and by key, and
// awaits their end: one that ends in its start step, one that ends when a
// worker completes its job, one that does not end in time, and one that
// is cancelled meanwhile.
func TestC8StartAwait(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "straight.bpmn"), fixture(t, "job.bpmn"))

	if _, err := c.rt.ResolveC8Process(ctx, "nope", 0, 0); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("unknown process id: %v", err)
	}
	if _, err := c.rt.ResolveC8Process(ctx, "", 0, 12345); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("unknown process key: %v", err)
	}
	straight, err := c.rt.ResolveC8Process(ctx, "straight", -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	byKey, err := c.rt.ResolveC8Process(ctx, "", 0, straight.Key)
	if err != nil || byKey != straight {
		t.Fatalf("by key %d: %+v, %v; want %+v", straight.Key, byKey, err, straight)
	}
	got, err := c.rt.StartC8Instance(ctx, straight, map[string]any{"amount": json.Number("2")},
		&runtime.C8Await{Timeout: time.Second, FetchVariables: []string{"total"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Variables) != 1 || got.Variables["total"] == nil {
		t.Errorf("awaited variables = %v, want only total", got.Variables)
	}

	job, err := c.rt.ResolveC8Process(ctx, "job", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		jobs, err := c.rt.ActivateC8Jobs(ctx, runtime.C8ActivateRequest{Type: "charge-card", MaxJobs: 1, Timeout: time.Minute, RequestTimeout: 10 * time.Second})
		if err == nil && len(jobs) != 1 {
			err = errors.New("no job")
		}
		if err == nil {
			err = c.rt.CompleteC8Job(ctx, jobs[0].Key, "", map[string]any{"charged": true})
		}
		done <- err
	}()
	got, err = c.rt.StartC8Instance(ctx, job, nil, &runtime.C8Await{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got.Variables["charged"] != true {
		t.Errorf("awaited variables = %v", got.Variables)
	}

	if _, err := c.rt.StartC8Instance(ctx, job, nil, &runtime.C8Await{Timeout: 50 * time.Millisecond}); !errors.Is(err, runtime.ErrAwaitTimeout) {
		t.Errorf("an instance that does not end: %v", err)
	}

	cancelled := make(chan error, 1)
	go func() {
		_, err := c.rt.StartC8Instance(ctx, job, nil, &runtime.C8Await{Timeout: 10 * time.Second})
		cancelled <- err
	}()
	// The started instance is the newest running one of "job".
	deadline := time.Now().Add(5 * time.Second)
	for {
		rows, _, err := c.rt.ListInstances(ctx, runtime.InstanceFilter{ProcessKey: "job", Status: runtime.StatusRunning})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 2 {
			for _, r := range rows {
				if _, err := c.rt.Cancel(ctx, r.ID); err != nil {
					t.Fatal(err)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("running instances: %d", len(rows))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := <-cancelled; runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Errorf("awaiting a cancelled instance: %v", err)
	}
}

// TestC8FailureVariables fails a job with variables through the Camunda 8
// layer: they become local variables of the job's task, committed with the
// failure (a restart keeps them), seen by the job's next attempt and not by
// the instance; the task's completion drops them.
func TestC8FailureVariables(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	dep, err := c.rt.DeployC8(ctx, []runtime.File{fixture(t, "job.bpmn")})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := c.rt.StartC8Instance(ctx, dep.Processes[0], map[string]any{"amount": json.Number("3")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	jobs := activateC8(t, c.rt, "charge-card", "ann")
	if len(jobs) != 1 {
		t.Fatalf("jobs = %+v", jobs)
	}
	vars := map[string]any{"lastTry": "declined", "tries": json.Number("1")}
	if err := c.rt.FailC8Job(ctx, jobs[0].Key, "ann", runtime.C8Failure{Retries: 1, RetryBackoff: time.Second, ErrorMessage: "down", Variables: vars}); err != nil {
		t.Fatalf("FailC8Job with variables: %v", err)
	}
	view, err := c.rt.Instance(ctx, inst.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := view.Variables["lastTry"]; ok {
		t.Errorf("the instance's variables hold the failure's: %v", view.Variables)
	}
	var local *runtime.ScopeView
	for i, s := range view.Scopes {
		if s.NodeID == "charge" {
			local = &view.Scopes[i]
		}
	}
	if local == nil || local.Variables["lastTry"] != "declined" {
		t.Fatalf("no scope of the task holds the failure's variables: %+v", view.Scopes)
	}

	// The failure committed them: a restarted runtime hands them out.
	c.close(t)
	c.open(t)
	c.clk.Advance(time.Second)
	jobs = activateC8(t, c.rt, "charge-card", "ann")
	if len(jobs) != 1 || jobs[0].Variables["lastTry"] != "declined" || jobs[0].Variables["amount"] == nil {
		t.Fatalf("after the failure and a restart: %+v", jobs)
	}
	if err := c.rt.CompleteC8Job(ctx, jobs[0].Key, "ann", map[string]any{"charged": true}); err != nil {
		t.Fatalf("CompleteC8Job: %v", err)
	}
	view, err = c.rt.Instance(ctx, inst.ID)
	if err != nil || view.Status != runtime.StatusCompleted || view.Variables["charged"] != true {
		t.Fatalf("after the completion: %s %v, %v", view.Status, view.Variables, err)
	}
	if _, ok := view.Variables["lastTry"]; ok {
		t.Errorf("the task's locals outlived it: %v", view.Variables)
	}
}
