package runtime_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// A batch of completions completes each job as a single completion would,
// answers each on its own (a repeated key and an unknown one refused in
// their items), and the steps of the batch share one group commit.
func TestCompleteJobsSharesOneCommit(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "batch.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	t.Cleanup(func() { rt.Close(); db.Close() })
	if _, err := rt.Deploy(ctx, []runtime.File{fixture(t, "job.bpmn")}); err != nil {
		t.Fatal(err)
	}
	const n = 40
	var ids []runtime.InstanceID
	for range n {
		v, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "job"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, v.ID)
	}
	jobs, err := rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "charge-card", Worker: "w", MaxJobs: n, LockDuration: time.Minute})
	if err != nil || len(jobs) != n {
		t.Fatalf("activate: %d jobs, %v", len(jobs), err)
	}
	var items []runtime.JobCompletion
	for i, j := range jobs {
		items = append(items, runtime.JobCompletion{Ref: runtime.JobRef{Key: j.Key}, Holder: runtime.JobHolder{Token: j.LockToken},
			Variables: map[string]any{"i": i}})
	}
	items = append(items,
		runtime.JobCompletion{Ref: runtime.JobRef{Key: jobs[0].Key}, Holder: runtime.JobHolder{Token: jobs[0].LockToken}},
		runtime.JobCompletion{Ref: runtime.JobRef{Key: "no-such-job"}, Holder: runtime.JobHolder{Token: "x"}})
	before := rt.Metrics().CommitBatches
	errs := rt.CompleteJobs(ctx, items)
	for i := range n {
		if errs[i] != nil {
			t.Errorf("item %d: %v", i, errs[i])
		}
	}
	if got := runtime.ErrorCode(errs[n]); got != runtime.ECONFLICT {
		t.Errorf("repeated key: %v (%s), want ECONFLICT", errs[n], got)
	}
	if got := runtime.ErrorCode(errs[n+1]); got != runtime.ENOTFOUND {
		t.Errorf("unknown key: %v (%s), want ENOTFOUND", errs[n+1], got)
	}
	if got := rt.Metrics().CommitBatches - before; got != 1 {
		t.Errorf("the batch took %d commits, want 1", got)
	}
	for _, id := range ids {
		in, err := rt.Instance(ctx, id)
		if err != nil || in.Status != "completed" {
			t.Errorf("instance %s after the batch: %+v, %v", id, in.Status, err)
		}
	}
	// A second batch with a lock token that is not the job's: that item
	// fails, the others complete.
	for range 3 {
		if _, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "job"}); err != nil {
			t.Fatal(err)
		}
	}
	jobs, err = rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "charge-card", Worker: "w", MaxJobs: 3, LockDuration: time.Minute})
	if err != nil || len(jobs) != 3 {
		t.Fatalf("activate: %d jobs, %v", len(jobs), err)
	}
	errs = rt.CompleteJobs(ctx, []runtime.JobCompletion{
		{Ref: runtime.JobRef{Key: jobs[0].Key}, Holder: runtime.JobHolder{Token: jobs[0].LockToken}},
		{Ref: runtime.JobRef{Key: jobs[1].Key}, Holder: runtime.JobHolder{Token: jobs[2].LockToken}},
		{Ref: runtime.JobRef{Key: jobs[2].Key}, Holder: runtime.JobHolder{Token: jobs[2].LockToken}},
	})
	if errs[0] != nil || errs[2] != nil || errs[1] == nil {
		t.Errorf("mixed batch: %v", errs)
	}
	if got := rt.CompleteJobs(ctx, make([]runtime.JobCompletion, runtime.MaxJobCompletions+1)); runtime.ErrorCode(got[0]) != runtime.EINVALID {
		t.Errorf("an oversized batch: %v, want EINVALID", got[0])
	}
}
