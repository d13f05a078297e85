package runtime_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// TestSuspendedVersionHoldsTimerStart: the timer start events of a
// suspended version do not fire; after the resume the one that came due
// meanwhile fires once and the schedule goes on.
func TestSuspendedVersionHoldsTimerStart(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "scheduled.bpmn"))
	count := func() int {
		_, total, _ := c.rt.ListInstances(ctx, runtime.InstanceFilter{ProcessKey: "scheduled"})
		return total
	}
	if _, err := c.rt.SuspendVersion(ctx, runtime.VersionSuspension{Key: "scheduled", Version: 1}); err != nil {
		t.Fatal(err)
	}
	c.clk.Advance(90 * time.Minute)
	if n, err := c.rt.FireDueTimers(ctx); err != nil || n != 0 || count() != 0 {
		t.Fatalf("a suspended version's timer start fired: %d, %v, %d instances", n, err, count())
	}
	if _, err := c.rt.ResumeVersion(ctx, runtime.VersionSuspension{Key: "scheduled", Version: 1}); err != nil {
		t.Fatal(err)
	}
	if n, err := c.rt.FireDueTimers(ctx); err != nil || n != 1 || count() != 1 {
		t.Fatalf("after the resume: fired %d, %v, %d instances; want the held start once", n, err, count())
	}
	c.clk.Advance(time.Hour)
	if n, _ := c.rt.FireDueTimers(ctx); n != 1 || count() != 2 {
		t.Errorf("the schedule did not go on after the resume: fired %d, %d instances", n, count())
	}
}

// TestSuspendThroughAnotherNode: node 2 holds the instance in its cache
// when node 1 suspends it; node 2's step is refused (its commit finds the
// revision moved on and the re-read finds the flag), its activation skips
// the job; once node 1 resumes it, node 2 acts on it.
func TestSuspendThroughAnotherNode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rts := twoNodes(t, runtime.Options{})
	mustDeploy(t, rts[0], fixture(t, "job.bpmn"))
	inst, err := rts[1].StartInstance(ctx, runtime.StartRequest{ProcessKey: "job"}) // cached on node 2
	if err != nil {
		t.Fatal(err)
	}
	if v, err := rts[0].SuspendInstance(ctx, inst.ID); err != nil || !v.Suspended {
		t.Fatalf("suspend on node 1: %+v, %v", v.InstanceRow, err)
	}
	_, err = rts[1].SetVariables(ctx, inst.ID, "", map[string]any{"a": 1}, false)
	if runtime.ErrorCode(err) != runtime.ECONFLICT || !errors.Is(err, runtime.ErrSuspended) {
		t.Fatalf("node 2's step on the suspended instance: %v", err)
	}
	if jobs, err := rts[1].ActivateJobs(ctx, runtime.ActivateRequest{Type: "charge-card", Worker: "w", MaxJobs: 5, LockDuration: time.Minute}); err != nil || len(jobs) != 0 {
		t.Fatalf("node 2 activated %d jobs of the suspended instance: %v", len(jobs), err)
	}
	if _, err := rts[0].ResumeInstance(ctx, inst.ID); err != nil {
		t.Fatal(err)
	}
	// Node 2 caches the resumed instance; node 1 suspends it again; node
	// 2's resume is not taken for a no-op on its cached row.
	if _, err := rts[1].Instance(ctx, inst.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := rts[0].SuspendInstance(ctx, inst.ID); err != nil {
		t.Fatal(err)
	}
	if v, err := rts[1].ResumeInstance(ctx, inst.ID); err != nil || v.Suspended {
		t.Fatalf("node 2's resume: %+v, %v", v.InstanceRow, err)
	}
	if _, err := rts[1].SetVariables(ctx, inst.ID, "", map[string]any{"a": 1}, false); err != nil {
		t.Fatalf("node 2's step after the resume: %v", err)
	}
	if jobs, err := rts[1].ActivateJobs(ctx, runtime.ActivateRequest{Type: "charge-card", Worker: "w", MaxJobs: 5, LockDuration: time.Minute}); err != nil || len(jobs) != 1 {
		t.Fatalf("node 2 activated %d jobs after the resume: %v", len(jobs), err)
	}
}
