package runtime_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// chainDown starts chain n levels deep and returns the instances from the
// top down, checking that every child's id is a fresh 36-character UUID
// whose parent is the level above.
func chainDown(t *testing.T, rt *runtime.Runtime, n int) []runtime.InstanceView {
	t.Helper()
	top := start(t, rt, "chain", map[string]any{"n": json.Number(strconv.Itoa(n))})
	all := []runtime.InstanceView{top}
	for v := top; len(v.Children) > 0; {
		child := instance(t, rt, v.Children[0].InstanceID)
		if len(child.ID) != 36 {
			t.Errorf("depth %d: child id %q is %d characters, want 36", len(all), child.ID, len(child.ID))
		}
		if child.ParentID != v.ID || child.ParentNodeID != "again" {
			t.Errorf("depth %d: parent %s/%s, want %s/again", len(all), child.ParentID, child.ParentNodeID, v.ID)
		}
		all = append(all, child)
		v = child
	}
	if len(all) != n+1 {
		t.Fatalf("%d instances in the chain, want %d", len(all), n+1)
	}
	seen := map[runtime.InstanceID]bool{}
	for _, v := range all {
		if seen[v.ID] {
			t.Fatalf("id %s used twice", v.ID)
		}
		seen[v.ID] = true
	}
	return all
}

// TestCallChainIDs runs a five-deep call chain through the runtime: child
// ids stay 36 characters, parents link up, and a job completion at the
// bottom and a cancel at the top travel the whole chain.
func TestCallChainIDs(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, callFixture(t, "chain.bpmn"))

	t.Run("complete", func(t *testing.T) {
		all := chainDown(t, c.rt, 5)
		job := oneJobOf(t, activateAs(t, c.rt, "chain-leaf", "w", "", time.Minute))
		if job.InstanceID != all[5].ID {
			t.Fatalf("the job belongs to %s, want the deepest instance %s", job.InstanceID, all[5].ID)
		}
		if err := c.rt.CompleteJob(ctx, job.Key, runtime.JobHolder{Token: job.LockToken}, nil); err != nil {
			t.Fatal(err)
		}
		for i, v := range all {
			if got := instance(t, c.rt, v.ID).Status; got != runtime.StatusCompleted {
				t.Errorf("level %d is %s after the job completed", i, got)
			}
		}
	})

	t.Run("cancel", func(t *testing.T) {
		all := chainDown(t, c.rt, 5)
		if _, err := c.rt.Cancel(ctx, all[0].ID); err != nil {
			t.Fatal(err)
		}
		for i, v := range all {
			if got := instance(t, c.rt, v.ID).Status; got != runtime.StatusTerminated {
				t.Errorf("level %d is %s after cancelling the top", i, got)
			}
		}
		if jobs := activateAs(t, c.rt, "chain-leaf", "w", "", time.Minute); len(jobs) != 0 {
			t.Errorf("jobs left after the cancel: %+v", jobs)
		}
	})
	assertOutboxEmpty(t, c.db)
}

// TestInstanceNumbers checks that the runtime's answers carry the number
// the store gave each instance: the start answer (with its called
// children, numbered in the same commit) and the instance view, and that
// a second start goes on counting.
func TestInstanceNumbers(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	mustDeploy(t, c.rt, callFixture(t, "chain.bpmn"))
	first := start(t, c.rt, "chain", map[string]any{"n": json.Number("2")})
	if first.Number != 1 || len(first.Children) != 1 || first.Children[0].Number != 2 || first.Children[0].ProcessKey != "chain" {
		t.Fatalf("start answer: #%d, children %+v; want #1 with child #2", first.Number, first.Children)
	}
	child := instance(t, c.rt, first.Children[0].InstanceID)
	if child.Number != 2 || len(child.Children) != 1 || child.Children[0].Number != 3 {
		t.Errorf("child view: #%d, children %+v; want #2 with child #3", child.Number, child.Children)
	}
	if got := instance(t, c.rt, first.ID).Number; got != 1 {
		t.Errorf("instance view of the first: #%d", got)
	}
	if second := start(t, c.rt, "chain", map[string]any{"n": json.Number("0")}); second.Number != 4 {
		t.Errorf("second start: #%d, want #4", second.Number)
	}
	rows, _, err := c.rt.ListInstances(context.Background(), runtime.InstanceFilter{ProcessKey: "chain", Number: 3})
	if err != nil || len(rows) != 1 || rows[0].ParentID != child.ID {
		t.Errorf("chain #3: %+v, %v", rows, err)
	}
}
