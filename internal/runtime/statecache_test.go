package runtime_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// flakyStore fails CommitSteps while failing is set.
type flakyStore struct {
	testdb.Store
	failing atomic.Bool
}

var errDiskGone = errors.New("disk gone")

func (s *flakyStore) CommitSteps(ctx context.Context, steps []runtime.StepRecord) error {
	if s.failing.Load() {
		return errDiskGone
	}
	return s.Store.CommitSteps(ctx, steps)
}

// TestFailedCommitDoesNotReuseState pins the state cache's rule: a step
// whose commit fails leaves no trace, so the next step starts from what
// the store holds, not from the half-stepped state in memory.
func TestFailedCommitDoesNotReuseState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	fs := &flakyStore{Store: db}
	rt := runtime.New(fs, runtime.Options{})
	t.Cleanup(func() { rt.Close(); db.Close() })
	mustDeploy(t, rt, fixture(t, "worker.bpmn"))
	v, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "worker"})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "fetch-order", Worker: "w", MaxJobs: 1, LockDuration: time.Minute})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("activate: %v, %d jobs", err, len(jobs))
	}
	fs.failing.Store(true)
	if err := rt.CompleteJob(ctx, jobs[0].Key, held(jobs[0]), map[string]any{"order": "o-1"}); !errors.Is(err, errDiskGone) {
		t.Fatalf("complete with a failing store: %v, want the store's error", err)
	}
	fs.failing.Store(false)
	got, err := rt.Instance(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tracks) != 1 || got.Tracks[0].NodeID != "fetch" || got.Variables["order"] != nil {
		t.Fatalf("after a failed commit the instance shows tracks %+v, vars %v; want it still at fetch", got.Tracks, got.Variables)
	}
	if err := rt.CompleteJob(ctx, jobs[0].Key, held(jobs[0]), map[string]any{"order": "o-2"}); err != nil {
		t.Fatalf("complete again: %v", err)
	}
	if got, err = rt.Instance(ctx, v.ID); err != nil || len(got.Tracks) != 1 || got.Tracks[0].NodeID != "review" || got.Variables["order"] != "o-2" {
		t.Fatalf("after completing: %v, tracks %+v, vars %v", err, got.Tracks, got.Variables)
	}
}
