package client_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/client"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// MustServer serves the real router over a real runtime on a fresh database
// (testdb), on loopback, and returns a client of it acting as
// user "pat" in group "warehouse".
func MustServer(tb testing.TB, opts ...client.Option) (*client.Client, *httptest.Server) {
	tb.Helper()
	db := testdb.MustOpen(tb) // SQLite, or PostgreSQL with GOBPM_TEST_DB=postgres
	rt := runtime.New(db, runtime.Options{})
	tb.Cleanup(func() { _ = rt.Close() })
	// As a server starts it: on PostgreSQL this also registers the node.
	if _, err := rt.Resume(context.Background()); err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(api.New(rt, nil, api.Options{}))
	tb.Cleanup(srv.Close)
	c, err := client.New(srv.URL, append([]client.Option{client.WithUser("pat", "warehouse")}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	return c, srv
}

// must returns v, panicking on err (the test fails with the error; Go has
// no way to pass a multi-value call after a testing.TB argument).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestClientWalkThrough(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _ := MustServer(t)

	dep := must(c.DeployFiles(ctx, "../examples/fulfilment.bpmn", "../examples/order-approval.bpmn", "../examples/discount.dmn", "testdata/events.bpmn"))
	if len(dep.Processes) != 3 || len(dep.Decisions) == 0 {
		t.Fatalf("deployment = %+v", dep)
	}
	procs := must(c.Processes(ctx))
	if len(procs) != 3 {
		t.Errorf("processes = %+v", procs)
	}
	if vs := must(c.ProcessVersions(ctx, "fulfilment")); len(vs) != 1 || vs[0].Version != 1 {
		t.Errorf("versions = %+v", vs)
	}
	if xml := must(c.ProcessXML(ctx, "fulfilment", 1)); len(xml) == 0 {
		t.Error("empty XML")
	}

	// Order approval completes in its first step.
	oa := must(c.Start(ctx, "order-approval", client.StartRequest{Variables: map[string]any{"quantity": 2, "unitPrice": 10}, BusinessKey: "o-1"}))
	if oa.Status != "completed" || oa.Variables["approved"] != true {
		t.Errorf("order-approval = %s %v", oa.Status, oa.Variables)
	}

	// Fulfilment: an idempotent start, replayed.
	req := client.StartRequest{Variables: map[string]any{"orderId": "o-2"}, IdempotencyKey: "order-o-2"}
	inst := must(c.Start(ctx, "fulfilment", req))
	again := must(c.Start(ctx, "fulfilment", req))
	if again.ID != inst.ID || !again.Replayed || inst.Replayed {
		t.Errorf("replay: %s/%v vs %s/%v", again.ID, again.Replayed, inst.ID, inst.Replayed)
	}
	page := must(c.Instances(ctx, client.InstanceFilter{ProcessKey: "fulfilment", Status: "running"}))
	if page.Total != 1 || page.Items[0].ID != inst.ID {
		t.Errorf("instances = %+v", page)
	}
	// Numbers count per process key: the first of each is #1.
	if oa.Number != 1 || inst.Number != 1 || page.Items[0].Number != 1 {
		t.Errorf("numbers: order-approval #%d, fulfilment #%d (listed #%d)", oa.Number, inst.Number, page.Items[0].Number)
	}
	if p := must(c.Instances(ctx, client.InstanceFilter{ProcessKey: "order-approval", Number: 1})); len(p.Items) != 1 || p.Items[0].ID != oa.ID {
		t.Errorf("order-approval #1 = %+v", p)
	}
	if ws := must(c.Waits(ctx, inst.ID, 0)); len(ws) != 1 || ws[0].Kind != "job" || ws[0].Name != "reserve-stock" {
		t.Errorf("waits = %+v", ws)
	}

	// Jobs: activate, extend, fail with 0 retries → incident, retry, complete.
	jobs := must(c.ActivateJobs(ctx, client.ActivateRequest{Type: "reserve-stock", Worker: "w", LockDuration: time.Minute}))
	if len(jobs) != 1 || jobs[0].LockToken == "" || jobs[0].Variables["orderId"] != "o-2" {
		t.Fatalf("jobs = %+v", jobs)
	}
	if err := c.ExtendJobLock(ctx, jobs[0], time.Minute); err != nil {
		t.Fatal(err)
	}
	zero := 0
	if err := c.FailJob(ctx, jobs[0], client.FailRequest{Retries: &zero, Message: "warehouse down"}); err != nil {
		t.Fatal(err)
	}
	incs, _ := must2(t)(c.Incidents(ctx, client.IncidentFilter{InstanceID: inst.ID}))
	if len(incs) != 1 || incs[0].Message != "warehouse down" {
		t.Fatalf("incidents = %+v", incs)
	}
	if incs[0].ProcessKey != inst.ProcessKey || incs[0].InstanceNumber != inst.Number || inst.Number < 1 {
		t.Errorf("incident names %s #%d, want %s #%d", incs[0].ProcessKey, incs[0].InstanceNumber, inst.ProcessKey, inst.Number)
	}
	if retried, err := c.RetryIncident(ctx, incs[0].ID, 2); err != nil {
		t.Fatal(err)
	} else if retried.InstanceNumber != inst.Number {
		t.Errorf("retried incident names #%d, want #%d", retried.InstanceNumber, inst.Number)
	}
	jobs = must(c.ActivateJobs(ctx, client.ActivateRequest{Type: "reserve-stock", Worker: "w", LockDuration: time.Minute, RequestTimeout: 2 * time.Second}))
	if len(jobs) != 1 {
		t.Fatalf("after retry: jobs = %+v", jobs)
	}
	if err := c.CompleteJob(ctx, jobs[0], map[string]any{"reserved": true}); err != nil {
		t.Fatal(err)
	}
	// A second completion with the same token is refused.
	var p *client.Problem
	if err := c.CompleteJob(ctx, jobs[0], nil); !errors.As(err, &p) || p.Status < 400 {
		t.Errorf("second complete: %v", err)
	}

	// Tasks: list, get, claim, unclaim, claim, complete.
	tasks := must(c.Tasks(ctx, client.TaskFilter{InstanceID: inst.ID}))
	if len(tasks.Items) != 1 || tasks.Items[0].Name != "Pack the parcel" {
		t.Fatalf("tasks = %+v", tasks)
	}
	id := tasks.Items[0].ID
	if tk := must(c.Task(ctx, id)); tk.NodeID != "pack" {
		t.Errorf("task = %+v", tk)
	}
	if tk := must(c.ClaimTask(ctx, id)); tk.Assignee == nil || *tk.Assignee != "pat" {
		t.Errorf("claimed = %+v", tk)
	}
	if tk := must(c.UnclaimTask(ctx, id)); tk.Assignee != nil {
		t.Errorf("unclaimed = %+v", tk)
	}
	must(c.ClaimTask(ctx, id))
	if err := c.CompleteTask(ctx, id, map[string]any{"packed": true}); err != nil {
		t.Fatal(err)
	}
	got := must(c.Instance(ctx, inst.ID))
	if got.Variables["packed"] != true || got.Variables["reserved"] != true {
		t.Errorf("variables = %v", got.Variables)
	}
	got = must(c.SetVariables(ctx, inst.ID, map[string]any{"note": "x"}))
	if got.Variables["note"] != "x" {
		t.Errorf("set variables = %v", got.Variables)
	}
	if h := must(c.History(ctx, inst.ID, 0, 0)); len(h) == 0 {
		t.Error("no history")
	}
	// Modify: start "pack" again beside what runs; an unknown element is a 400.
	if _, err := c.Modify(ctx, inst.ID, client.Modification{Activate: &client.ActivateTarget{NodeID: "nope"}}); !errors.As(err, &p) || p.Status != 400 || !strings.Contains(p.Detail, `"nope"`) {
		t.Errorf("modify with an unknown element: %v", err)
	}
	got = must(c.Modify(ctx, inst.ID, client.Modification{Activate: &client.ActivateTarget{NodeID: "pack", Variables: map[string]any{"again": true}}}))
	if got.Variables["again"] != true {
		t.Errorf("after modify: variables %v", got.Variables)
	}
	if tasks := must(c.Tasks(ctx, client.TaskFilter{InstanceID: inst.ID})); len(tasks.Items) != 1 || tasks.Items[0].NodeID != "pack" {
		t.Errorf("tasks after modify = %+v", tasks)
	}
	if got = must(c.Cancel(ctx, inst.ID)); got.Status != "terminated" {
		t.Errorf("cancelled status = %s", got.Status)
	}

	// Messages and signals.
	ev := must(c.Start(ctx, "events", client.StartRequest{Variables: map[string]any{"orderId": "o-3"}}))
	if n := must(c.CorrelateMessage(ctx, client.MessageRequest{Name: "paid", CorrelationKey: "o-3", IdempotencyKey: "paid-o-3"})); n != 1 {
		t.Errorf("correlated = %d", n)
	}
	if n := must(c.BroadcastSignal(ctx, client.SignalRequest{Name: "go"})); n != 1 {
		t.Errorf("triggered = %d", n)
	}
	if got := must(c.Instance(ctx, ev.ID)); got.Status != "completed" {
		t.Errorf("events status = %s", got.Status)
	}
	// A buffered message waits for the subscription that opens later.
	pub := must(c.PublishMessage(ctx, client.MessageRequest{Name: "paid", CorrelationKey: "o-4", TimeToLiveMs: 60000, MessageID: "paid-o-4"}))
	if pub.Correlated != 0 || !pub.Buffered || pub.MessageKey == "" || pub.MessageID != "paid-o-4" || pub.ExpiresAt.IsZero() {
		t.Errorf("publication = %+v", pub)
	}
	var dup *client.Problem
	if _, err := c.PublishMessage(ctx, client.MessageRequest{Name: "paid", CorrelationKey: "o-4", TimeToLiveMs: 60000, MessageID: "paid-o-4"}); !errors.As(err, &dup) || dup.Status != http.StatusConflict {
		t.Errorf("duplicate message id: %v", err)
	}
	ev4 := must(c.Start(ctx, "events", client.StartRequest{Variables: map[string]any{"orderId": "o-4"}}))
	if waits := must(c.Instance(ctx, ev4.ID)); waits.Status != "running" || waits.Variables["orderId"] != "o-4" {
		t.Errorf("o-4 = %+v", waits)
	}
	if n := must(c.BroadcastSignal(ctx, client.SignalRequest{Name: "go"})); n != 1 {
		t.Errorf("o-4 did not pass the buffered message: triggered = %d", n)
	}

	// Decisions.
	ds := must(c.Decisions(ctx))
	if len(ds) != 1 || ds[0].Key != "discount" {
		t.Fatalf("decisions = %+v", ds)
	}
	ev2 := must(c.EvaluateDecision(ctx, "discount", map[string]any{"customer": "vip", "amount": 1500}))
	if ev2.Result != 0.15 || len(ev2.MatchedRules) != 1 || ev2.MatchedRules[0] != "vipLarge" {
		t.Errorf("evaluation = %+v", ev2)
	}
}

func must2(tb testing.TB) func([]client.Incident, string, error) ([]client.Incident, string) {
	return func(v []client.Incident, s string, err error) ([]client.Incident, string) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return v, s
	}
}

func TestClientProblems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _ := MustServer(t)

	tests := []struct {
		name   string
		call   func() error
		status int
		slug   string
		field  string
	}{
		{"unknown instance", func() error { _, err := c.Instance(ctx, "nope"); return err }, 404, "not-found", ""},
		{"unknown process", func() error { _, err := c.Start(ctx, "nope", client.StartRequest{}); return err }, 404, "not-found", ""},
		{"bad status", func() error { _, err := c.Instances(ctx, client.InstanceFilter{Status: "sleeping"}); return err }, 400, "invalid-request", "status"},
		{"invalid model", func() error {
			_, err := c.Deploy(ctx, client.File{Name: "x.bpmn", Content: []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p" isExecutable="true"><sequenceFlow id="f" sourceRef="a" targetRef="b"/></process></definitions>`)})
			return err
		}, 422, "invalid-model", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var p *client.Problem
			if !errors.As(err, &p) {
				t.Fatalf("err = %v, want *client.Problem", err)
			}
			if p.Status != tt.status || p.Slug() != tt.slug || p.Field != tt.field || p.Detail == "" {
				t.Errorf("problem = %+v", p)
			}
			if tt.slug == "invalid-model" && len(p.Errors) == 0 {
				t.Error("invalid-model without errors")
			}
		})
	}
}

func TestClientRetries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"type":"https://gobpm.dev/problems/unavailable","status":503,"detail":"busy"}`))
	}))
	t.Cleanup(srv.Close)
	c := must(client.New(srv.URL, client.WithRetries(2, time.Millisecond)))

	tests := []struct {
		name string
		call func() error
		want int32
	}{
		{"GET is retried", func() error { _, err := c.Processes(ctx); return err }, 3},
		{"POST without a key is not", func() error { _, err := c.Start(ctx, "p", client.StartRequest{}); return err }, 1},
		{"POST with a key is", func() error { _, err := c.Start(ctx, "p", client.StartRequest{IdempotencyKey: "k"}); return err }, 3},
		{"a job act is not", func() error { return c.CompleteJob(ctx, client.Job{Key: "k", LockToken: "t"}, nil) }, 1},
	}
	for _, tt := range tests {
		calls.Store(0)
		err := tt.call()
		var p *client.Problem
		if !errors.As(err, &p) || p.Status != 503 {
			t.Errorf("%s: err = %v", tt.name, err)
		}
		if got := calls.Load(); got != tt.want {
			t.Errorf("%s: %d calls, want %d", tt.name, got, tt.want)
		}
	}
	if _, err := client.New("localhost:8080"); err == nil {
		t.Error("New accepted a URL without scheme")
	}
}

// TestClientInspect covers decision versions and XML, paged scopes and
// tracks, ad-hoc regions and activation, and the readiness probe.
func TestClientInspect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _ := MustServer(t)
	if err := c.Health(ctx); err != nil {
		t.Errorf("Health: %v", err)
	}
	if m := must(c.Metrics(ctx)); !bytes.Contains(m, []byte("gobpm_steps_committed_total")) {
		t.Errorf("Metrics: %.200s", m)
	}
	if doc := must(c.OpenAPI(ctx)); !bytes.HasPrefix(doc, []byte("openapi: 3.1.0")) {
		t.Errorf("OpenAPI: %.80s", doc)
	}
	if ready := must(c.Ready(ctx)); !ready {
		t.Error("not ready")
	}
	if cl := must(c.Cluster(ctx)); len(cl.Items) != 1 || !cl.Items[0].Self || cl.Items[0].ID != cl.Node || cl.Node == "" || cl.Items[0].StartedAt == "" {
		t.Errorf("Cluster = %+v, want the one node that answers", cl)
	}
	must(c.DeployFiles(ctx, "../examples/discount.dmn", "../examples/investigation.bpmn"))
	if vs := must(c.DecisionVersions(ctx, "discount")); len(vs) != 1 || vs[0].Version != 1 || vs[0].DeploymentID == "" {
		t.Errorf("decision versions = %+v", vs)
	}
	if xml := must(c.DecisionXML(ctx, "discount", 1)); !strings.Contains(string(xml), `<decision id="discount"`) {
		t.Errorf("decision XML = %.80s", xml)
	}
	var p *client.Problem
	if _, err := c.DecisionXML(ctx, "discount", 9); !errors.As(err, &p) || p.Status != http.StatusNotFound {
		t.Errorf("missing version: %v", err)
	}

	inst := must(c.Start(ctx, "investigation", client.StartRequest{}))
	regions := must(c.AdHocRegions(ctx, inst.ID))
	if len(regions) != 1 || regions[0].NodeID != "investigate" || regions[0].Selection != "manual" || len(regions[0].Candidates) != 3 {
		t.Fatalf("regions = %+v", regions)
	}
	r := must(c.ActivateAdHoc(ctx, inst.ID, regions[0].ScopeID, "callCustomer"))
	if len(r.Running) != 1 || r.Running[0] != "callCustomer" {
		t.Errorf("after activation: %+v", r)
	}
	if _, err := c.ActivateAdHoc(ctx, inst.ID, regions[0].ScopeID, "nope"); !errors.As(err, &p) || p.Status != http.StatusConflict {
		t.Errorf("activate a non-candidate: %v", err)
	}

	// Pages of one: the cursor walks every scope and track.
	var scopes []client.Scope
	for cursor := ""; ; {
		page := must(c.Scopes(ctx, inst.ID, cursor, 1))
		scopes = append(scopes, page.Items...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if len(scopes) < 2 || len(scopes) != must(c.Instance(ctx, inst.ID)).ScopeCount {
		t.Errorf("scopes = %+v", scopes)
	}
	var tracks []client.Track
	for cursor := ""; ; {
		page := must(c.Tracks(ctx, inst.ID, cursor, 1))
		tracks = append(tracks, page.Items...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if len(tracks) == 0 || len(tracks) != must(c.Instance(ctx, inst.ID)).TrackCount {
		t.Errorf("tracks = %+v", tracks)
	}
	if _, err := c.Scopes(ctx, inst.ID, "bogus", 0); !errors.As(err, &p) || p.Status != http.StatusBadRequest {
		t.Errorf("bogus cursor: %v", err)
	}
}
