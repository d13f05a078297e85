package runtime_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store"
)

// flakyStore fails CommitSteps while failing is set.
type flakyStore struct {
	*store.DB
	failing atomic.Bool
}

var errDiskGone = errors.New("disk gone")

func (s *flakyStore) CommitSteps(ctx context.Context, steps []runtime.StepRecord) error {
	if s.failing.Load() {
		return errDiskGone
	}
	return s.DB.CommitSteps(ctx, steps)
}

// TestFailedCommitDoesNotReuseState pins the state cache's rule: a step
// whose commit fails leaves no trace, so the next step starts from what
// the store holds, not from the half-stepped state in memory.
func TestFailedCommitDoesNotReuseState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "gobpm.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fs := &flakyStore{DB: db}
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
	if err := rt.CompleteJob(ctx, jobs[0].Key, map[string]any{"order": "o-1"}); !errors.Is(err, errDiskGone) {
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
	if err := rt.CompleteJob(ctx, jobs[0].Key, map[string]any{"order": "o-2"}); err != nil {
		t.Fatalf("complete again: %v", err)
	}
	if got, err = rt.Instance(ctx, v.ID); err != nil || len(got.Tracks) != 1 || got.Tracks[0].NodeID != "review" || got.Variables["order"] != "o-2" {
		t.Fatalf("after completing: %v, tracks %+v, vars %v", err, got.Tracks, got.Variables)
	}
}

// legacyStore reports one instance as still stored as a format-1
// checkpoint (the given one) until it is replaced.
type legacyStore struct {
	*store.DB
	legacy   runtime.LegacyInstance
	replaced atomic.Bool
}

func (s *legacyStore) LegacyInstances(ctx context.Context, limit int) ([]runtime.LegacyInstance, error) {
	if s.replaced.Load() {
		return nil, nil
	}
	return []runtime.LegacyInstance{s.legacy}, nil
}

func (s *legacyStore) ReplaceState(ctx context.Context, id runtime.InstanceID, revision int64, header []byte, parts []runtime.Part) error {
	s.replaced.Store(true)
	return s.DB.ReplaceState(ctx, id, revision, header, parts)
}

// TestResumeUpgradesLegacyCheckpoints checks that Resume rewrites a state
// still stored as a whole checkpoint as header and parts before anything
// steps, and that the instance carries on from what the checkpoint held.
func TestResumeUpgradesLegacyCheckpoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gobpm.db")
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	mustDeploy(t, rt, fixture(t, "job.bpmn"))
	v, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "job", Variables: map[string]any{"amount": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	rt.Close()

	// The checkpoint an older gobpm wrote for this instance: the same state
	// in one document, with a variable the parts do not have.
	defs, err := bpmn.Parse(fixture(t, "job.bpmn").Content)
	if err != nil {
		t.Fatal(err)
	}
	st := engine.NewState(string(v.ID), "job", 1)
	st, _, err = engine.Apply(defs.Processes[0], st, engine.Start{Variables: map[string]any{"amount": "1", "legacy": true}}, v.CreatedAt, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	row, err := db.InstanceRow(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	st.Waits[0].ID = waitKey(t, rt, db, v.ID) // the job key the store knows
	cp, err := st.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	ls := &legacyStore{DB: db, legacy: runtime.LegacyInstance{InstanceRow: row, Checkpoint: cp}}
	rt = runtime.New(ls, runtime.Options{})
	t.Cleanup(func() { rt.Close(); db.Close() })
	if _, err := rt.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if !ls.replaced.Load() {
		t.Fatal("Resume did not rewrite the legacy checkpoint")
	}
	got, err := rt.Instance(ctx, v.ID)
	if err != nil || got.Variables["legacy"] != true {
		t.Fatalf("after the upgrade: %v, variables %v; want the checkpoint's", err, got.Variables)
	}
	if err := rt.CompleteJob(ctx, st.Waits[0].ID, nil); err != nil {
		t.Fatalf("complete the upgraded instance's job: %v", err)
	}
	if got, err = rt.Instance(ctx, v.ID); err != nil || got.Status != runtime.StatusCompleted {
		t.Fatalf("after completing: %v %s", err, got.Status)
	}
}

// waitKey returns the key of the one open wait of an instance.
func waitKey(t *testing.T, _ *runtime.Runtime, db *store.DB, id runtime.InstanceID) string {
	t.Helper()
	waits, err := db.InstanceWaits(context.Background(), id)
	if err != nil || len(waits) != 1 {
		t.Fatalf("waits of %s: %v, %d", id, err, len(waits))
	}
	return waits[0].ID
}
