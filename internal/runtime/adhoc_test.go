package runtime_test

import (
	"context"
	"os"
	"path/filepath"
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

// TestInvestigationExample runs the README's ad-hoc example end to end.
func TestInvestigationExample(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "investigation.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, runtime.File{Name: "investigation.bpmn", Content: data})
	inst := start(t, c.rt, "investigation", map[string]any{"resolved": false})
	regions, _ := c.rt.AdHocRegions(ctx, inst.ID)
	if len(regions) != 1 || len(regions[0].Candidates) != 3 {
		t.Fatalf("regions %+v", regions)
	}
	for _, a := range []string{"callCustomer", "askBank"} {
		if _, err := c.rt.ActivateAdHoc(ctx, inst.ID, regions[0].ScopeID, a, runtime.Actor{User: "pat"}); err != nil {
			t.Fatal(err)
		}
	}
	completeTask(t, c.rt, inst.ID, "callCustomer", map[string]any{"resolved": true})
	// The completion condition holds: the partner-bank request is cancelled, the region completes.
	completeTask(t, c.rt, inst.ID, "decide", nil)
	if v := instance(t, c.rt, inst.ID); v.Status != runtime.StatusCompleted {
		t.Fatalf("status %s", v.Status)
	}
}
