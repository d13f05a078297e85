package runtime_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

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

// TestCallActivityInAdHocRegion: a router job starts a call activity with
// an argument; the child runs with its declared input, its output comes
// back, and the router is asked again about the call's completion.
func TestCallActivityInAdHocRegion(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, callFixture(t, "adhoc_caller.bpmn"), callFixture(t, "callee.bpmn"))
	inst := start(t, c.rt, "adhocCaller", nil)
	answer := func(acts ...runtime.Activation) {
		t.Helper()
		jobs, err := c.rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "pick", Worker: "w", MaxJobs: 1, LockDuration: time.Minute})
		if err != nil || len(jobs) != 1 {
			t.Fatalf("router jobs %v %v", jobs, err)
		}
		if err := c.rt.CompleteRouterJob(ctx, jobs[0].Key, runtime.JobHolder{Token: jobs[0].LockToken}, runtime.RouterAnswer{Activate: acts}); err != nil {
			t.Fatal(err)
		}
	}
	answer(runtime.Activation{ActivityID: "callIt", Variables: map[string]any{"order": map[string]any{"amount": json.Number("5")}}})
	v := instance(t, c.rt, inst.ID)
	if len(v.Children) != 1 || v.Children[0].NodeID != "callIt" {
		t.Fatalf("children %+v", v.Children)
	}
	child := instance(t, c.rt, v.Children[0].InstanceID)
	if o, _ := child.Variables["order"].(map[string]any); o == nil || o["amount"] != json.Number("5") {
		t.Fatalf("the activation's argument did not reach the child: %v", child.Variables)
	}
	completeTask(t, c.rt, child.ID, "work", nil)
	v = instance(t, c.rt, inst.ID)
	if v.Variables["total"] != json.Number("10") {
		t.Fatalf("output not bound: %v", v.Variables)
	}
	regions, err := c.rt.AdHocRegions(ctx, inst.ID)
	if err != nil || len(regions) != 1 || !regions[0].Deciding || regions[0].Completed["callIt"] != 1 {
		t.Fatalf("regions %v %+v", err, regions)
	}
	answer()
	if v := instance(t, c.rt, inst.ID); v.Status != runtime.StatusCompleted {
		t.Fatalf("status %s", v.Status)
	}
}
