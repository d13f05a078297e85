package runtime_test

import (
	"context"
	"slices"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

func TestAdHocThroughTheRuntime(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, fixture(t, "adhoc_manual.bpmn"))
	inst := start(t, c.rt, "adhocManual", nil)
	regions, err := c.rt.AdHocRegions(ctx, inst.ID)
	if err != nil || len(regions) != 1 || len(regions[0].Candidates) != 2 || regions[0].Selection != "manual" {
		t.Fatalf("regions %v %+v", err, regions)
	}
	r := regions[0]
	if _, err := c.rt.ActivateAdHoc(ctx, inst.ID, r.ScopeID, "A", runtime.Actor{}); runtime.ErrorCode(err) != runtime.EFORBIDDEN {
		t.Fatalf("no user: %v", err)
	}
	got, err := c.rt.ActivateAdHoc(ctx, inst.ID, r.ScopeID, "A", runtime.Actor{User: "ann"})
	if err != nil || !slices.Equal(got.Running, []string{"A"}) || len(got.Candidates) != 1 {
		t.Fatalf("activate: %v %+v", err, got)
	}
	if _, err := c.rt.ActivateAdHoc(ctx, inst.ID, r.ScopeID, "A", runtime.Actor{User: "ann"}); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Fatalf("activate twice: %v", err)
	}
	completeTask(t, c.rt, inst.ID, "A", nil)
	if _, err := c.rt.ActivateAdHoc(ctx, inst.ID, r.ScopeID, "B", runtime.Actor{User: "ann"}); err != nil {
		t.Fatal(err)
	}
	completeTask(t, c.rt, inst.ID, "B", nil)
	completeTask(t, c.rt, inst.ID, "C", nil)
	completeTask(t, c.rt, inst.ID, "after", nil)
	if v := instance(t, c.rt, inst.ID); v.Status != runtime.StatusCompleted {
		t.Fatalf("status %s", v.Status)
	}
}
