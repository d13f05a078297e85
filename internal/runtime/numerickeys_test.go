package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// mustKey returns the numeric key of an entity through the runtime and
// checks that it resolves back to the entity, and only as its kind.
func mustKey(t *testing.T, rt *runtime.Runtime, kind runtime.KeyKind, id string) int64 {
	t.Helper()
	ctx := context.Background()
	key, err := rt.NumericKey(ctx, kind, id)
	if err != nil {
		t.Fatalf("NumericKey(%s, %s): %v", kind, id, err)
	}
	if key < runtime.FirstKey {
		t.Errorf("key of %s %s = %d, below %d", kind, id, key, runtime.FirstKey)
	}
	if back, err := rt.ByNumericKey(ctx, kind, key); err != nil || back != id {
		t.Errorf("ByNumericKey(%s, %d) = %q, %v; want %q", kind, key, back, err, id)
	}
	for other := runtime.KeyInstance; other <= runtime.KeyProcessVersion; other++ {
		if other == kind {
			continue
		}
		if got, err := rt.ByNumericKey(ctx, other, key); runtime.ErrorCode(err) != runtime.ENOTFOUND {
			t.Errorf("key %d of %s %s resolves as a %s: %q, %v", key, kind, id, other, got, err)
		}
	}
	return key
}

// TestNumericKeys drives a deployment, an instance, its job, an incident
// and a user task through the real runtime: each has a numeric key, found
// back by it and by no other kind, that stays the same through the job's
// failures, the incident's retry and a restart; a completed job's key and
// a made-up one resolve to nothing.
func TestNumericKeys(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	dep := mustDeploy(t, c.rt, fixture(t, "worker.bpmn"))
	kDep := mustKey(t, c.rt, runtime.KeyDeployment, dep.ID)
	if kDep != runtime.FirstKey {
		t.Errorf("the first deployment's key = %d, want %d", kDep, runtime.FirstKey)
	}
	kProc := mustKey(t, c.rt, runtime.KeyProcessVersion, runtime.ProcessVersionID("worker", 1))
	if def, err := c.rt.ProcessVersionByNumericKey(ctx, kProc); err != nil || def.Key != "worker" || def.Version != 1 {
		t.Errorf("ProcessVersionByNumericKey(%d) = %s v%d, %v", kProc, def.Key, def.Version, err)
	}
	inst := start(t, c.rt, "worker", nil)
	kInst := mustKey(t, c.rt, runtime.KeyInstance, string(inst.ID))

	// The job: its numeric key and its public key name the same job.
	job := oneJobOf(t, activate(t, c.rt, "fetch-order", 0))
	kJob, err := c.rt.NumericKeyOfJob(ctx, job.Key)
	if err != nil {
		t.Fatal(err)
	}
	if pub, err := c.rt.JobByNumericKey(ctx, kJob); err != nil || pub != job.Key {
		t.Errorf("JobByNumericKey(%d) = %q, %v; want %q", kJob, pub, err, job.Key)
	}
	// Failed to its last retry, then to an incident: the same job key.
	if err := c.rt.FailJob(ctx, job.Key, held(job), runtime.FailRequest{ErrorMessage: "db down"}); err != nil {
		t.Fatal(err)
	}
	c.clk.Advance(2 * time.Second)
	job = oneJobOf(t, activate(t, c.rt, "fetch-order", 0))
	zero := 0
	if err := c.rt.FailJob(ctx, job.Key, held(job), runtime.FailRequest{Retries: &zero, ErrorMessage: "still down"}); err != nil {
		t.Fatal(err)
	}
	if k, err := c.rt.NumericKeyOfJob(ctx, job.Key); err != nil || k != kJob {
		t.Errorf("job key after two failures = %d, %v; want %d", k, err, kJob)
	}
	failed, err := c.rt.Instance(ctx, inst.ID)
	if err != nil || len(failed.Incidents) != 1 {
		t.Fatalf("incidents: %+v, %v", failed.Incidents, err)
	}
	incID := failed.Incidents[0].ID
	kInc := mustKey(t, c.rt, runtime.KeyIncident, incID)

	// A restart keeps every key.
	c.close(t)
	c.open(t)
	for _, k := range []struct {
		kind runtime.KeyKind
		id   string
		key  int64
	}{
		{runtime.KeyDeployment, dep.ID, kDep},
		{runtime.KeyProcessVersion, runtime.ProcessVersionID("worker", 1), kProc},
		{runtime.KeyInstance, string(inst.ID), kInst},
		{runtime.KeyIncident, incID, kInc},
	} {
		if got := mustKey(t, c.rt, k.kind, k.id); got != k.key {
			t.Errorf("key of %s %s after a restart = %d, want %d", k.kind, k.id, got, k.key)
		}
	}
	if k, err := c.rt.NumericKeyOfJob(ctx, job.Key); err != nil || k != kJob {
		t.Errorf("job key after a restart = %d, %v; want %d", k, err, kJob)
	}

	// The incident retried: it keeps its key, the job its own.
	if _, err := c.rt.RetryIncident(ctx, incID, 1); err != nil {
		t.Fatal(err)
	}
	if got := mustKey(t, c.rt, runtime.KeyIncident, incID); got != kInc {
		t.Errorf("key of the retried incident = %d, want %d", got, kInc)
	}
	job = oneJobOf(t, activate(t, c.rt, "fetch-order", 0))
	if k, err := c.rt.NumericKeyOfJob(ctx, job.Key); err != nil || k != kJob {
		t.Errorf("job key after the incident's retry = %d, %v; want %d", k, err, kJob)
	}
	if err := c.rt.CompleteJob(ctx, job.Key, held(job), nil); err != nil {
		t.Fatal(err)
	}
	// Completed: its key names nothing any more.
	if pub, err := c.rt.JobByNumericKey(ctx, kJob); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("the completed job's key resolves: %q, %v", pub, err)
	}

	// The user task that follows.
	tasks, _, err := c.rt.Tasks(ctx, runtime.TaskFilter{CandidateGroup: "clerks"})
	if err != nil || len(tasks) != 1 {
		t.Fatalf("tasks: %+v, %v", tasks, err)
	}
	kTask := mustKey(t, c.rt, runtime.KeyUserTask, tasks[0].ID)
	keys, err := c.rt.NumericKeys(ctx, runtime.KeyUserTask, []string{tasks[0].ID, "nope"})
	if err != nil || len(keys) != 1 || keys[tasks[0].ID] != kTask {
		t.Errorf("NumericKeys(tasks) = %v, %v", keys, err)
	}
	seen := map[int64]bool{}
	for _, k := range []int64{kDep, kProc, kInst, kInc, kJob, kTask} {
		if seen[k] {
			t.Errorf("key %d is given twice", k)
		}
		seen[k] = true
	}

	// A made-up number is no job, like an unknown public key.
	for _, k := range []int64{0, -5, kTask + 1000} {
		if pub, err := c.rt.JobByNumericKey(ctx, k); runtime.ErrorCode(err) != runtime.ENOTFOUND {
			t.Errorf("JobByNumericKey(%d) = %q, %v; want not found", k, pub, err)
		}
	}
	if _, err := c.rt.NumericKeyOfJob(ctx, "forged.aaaaaaaaaaaaaaaa"); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("NumericKeyOfJob(forged) = %v; want not found", err)
	}
}
