package client_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/client"
)

// TestRouterWorker drives examples/triage.bpmn's router job with a router
// worker: the snapshot arrives typed, the answer starts activities with
// their arguments, an empty answer ends the region.
func TestRouterWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _ := MustServer(t)
	must(c.DeployFiles(ctx, "../examples/triage.bpmn"))
	inst := must(c.Start(ctx, "incident-triage", client.StartRequest{Variables: map[string]any{"severity": "critical"}}))
	if rs := must(c.AdHocRegions(ctx, inst.ID)); len(rs) != 1 || rs[0].Router != "job" || !rs[0].Deciding {
		t.Fatalf("regions = %+v", rs)
	}

	var mu sync.Mutex
	var seen []client.RouterSnapshot
	ev := newEvents()
	w := client.NewRouterWorker(c, "triage-router", func(_ context.Context, _ client.Job, s client.RouterSnapshot) (client.RouterAnswer, error) {
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
		if s.Progress.Trigger == nil {
			return client.RouterAnswer{Activate: []client.Activation{{ActivityID: "pageOnCall", Variables: map[string]any{"urgency": "high"}}}, Variables: map[string]any{"decided": true}}, nil
		}
		return client.RouterAnswer{}, nil
	}, client.WorkerOptions{PollTimeout: time.Second, Metrics: ev.hook})
	w.Start()
	defer stop(t, w)
	ev.await(t, "completed")

	page := must(c.ActivateJobs(ctx, client.ActivateRequest{Type: "page-on-call", Worker: "t", MaxJobs: 1, LockDuration: time.Minute, RequestTimeout: 5 * time.Second}))
	if len(page) != 1 || page[0].Variables["urgency"] != "high" || page[0].Variables["decided"] != true {
		t.Fatalf("page jobs = %+v", page)
	}
	if _, err := page[0].RouterSnapshot(); err == nil {
		t.Error("a task's job read as a router snapshot")
	}
	var p *client.Problem
	if err := c.CompleteRouterJob(ctx, page[0], client.RouterAnswer{}); !errors.As(err, &p) || p.Status != http.StatusConflict {
		t.Errorf("a router answer for a task's job: %v", err)
	}
	must(0, c.CompleteJob(ctx, page[0], nil))
	ev.await(t, "completed")
	if got := must(c.Instance(ctx, inst.ID)); got.Status != "completed" {
		t.Fatalf("status %s", got.Status)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Fatalf("%d snapshots", len(seen))
	}
	first, second := seen[0], seen[1]
	if first.Region.ID != "triage" || first.Region.Selection != "automatic" || len(first.Candidates) != 4 || first.Variables["severity"] != "critical" {
		t.Errorf("first snapshot = %+v", first)
	}
	if c := first.Candidates[2]; c.ID != "pageOnCall" || c.Kind != "serviceTask" || c.Documentation == "" || len(c.Inputs) != 1 || c.Inputs[0].Name != "urgency" {
		t.Errorf("candidate = %+v", c)
	}
	if second.Progress.Trigger == nil || *second.Progress.Trigger != "pageOnCall" || !slices.Equal(second.Progress.Triggers, []string{"pageOnCall"}) || second.Progress.Completed["pageOnCall"] != 1 {
		t.Errorf("second snapshot progress = %+v", second.Progress)
	}
}

// TestActivateAdHocWithAndComplete activates two candidates with inputs in
// one call and ends a re-offering region explicitly.
func TestActivateAdHocWithAndComplete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _ := MustServer(t)
	must(c.Deploy(ctx, client.File{Name: "case.bpmn", Content: []byte(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" id="d" targetNamespace="urn:t">
  <process id="case" isExecutable="true">
    <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="r"/>
    <adHocSubProcess id="r" gobpm:router="standard" gobpm:selection="manual" gobpm:reoffer="true">
      <task id="a"/><task id="b"/>
    </adHocSubProcess>
    <sequenceFlow id="f2" sourceRef="r" targetRef="e"/><endEvent id="e"/>
  </process>
</definitions>`)}))
	inst := must(c.Start(ctx, "case", client.StartRequest{}))
	r := must(c.AdHocRegions(ctx, inst.ID))[0]
	after := must(c.ActivateAdHocWith(ctx, inst.ID, r.ScopeID, []client.Activation{{ActivityID: "a", Variables: map[string]any{"x": 1}}, {ActivityID: "b"}}))
	if after.Completed["a"] != 1 || after.Completed["b"] != 1 || len(after.Candidates) != 2 {
		t.Fatalf("after = %+v", after)
	}
	var p *client.Problem
	if _, err := c.ActivateAdHocWith(ctx, inst.ID, r.ScopeID, []client.Activation{{ActivityID: "a"}, {ActivityID: "zz"}}); !errors.As(err, &p) || p.Status != http.StatusConflict {
		t.Errorf("activating a non-candidate: %v", err)
	}
	done := must(c.CompleteAdHoc(ctx, inst.ID, r.ScopeID))
	if done.Stopped == nil || *done.Stopped != "completed by pat" {
		t.Errorf("done = %+v", done)
	}
	if got := must(c.Instance(ctx, inst.ID)); got.Status != "completed" {
		t.Fatalf("status %s", got.Status)
	}
}
