package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/client"
)

// events records a worker's metrics events and lets a test await one.
type events struct {
	mu   sync.Mutex
	seen []client.WorkerEvent
	ch   chan client.WorkerEvent
}

func newEvents() *events { return &events{ch: make(chan client.WorkerEvent, 100)} }

func (e *events) hook(ev client.WorkerEvent) {
	e.mu.Lock()
	e.seen = append(e.seen, ev)
	e.mu.Unlock()
	e.ch <- ev
}

func (e *events) await(tb testing.TB, kind string) client.WorkerEvent {
	tb.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-e.ch:
			if ev.Kind == kind {
				return ev
			}
			if ev.Kind == "act-failed" {
				tb.Fatalf("act failed: %v", ev.Err)
			}
		case <-timeout:
			tb.Fatalf("no %s event", kind)
		}
	}
}

func (e *events) count(kind string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.seen {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

// startFulfilment deploys the README's fulfilment example and starts an
// instance; it waits at "Reserve stock", a reserve-stock job with 3 retries.
func startFulfilment(tb testing.TB, c *client.Client) string {
	tb.Helper()
	ctx := context.Background()
	must(c.DeployFiles(ctx, "../examples/fulfilment.bpmn"))
	return must(c.Start(ctx, "fulfilment", client.StartRequest{Variables: map[string]any{"orderId": "o-1"}})).ID
}

func stop(tb testing.TB, w *client.Worker) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.Stop(ctx); err != nil {
		tb.Error(err)
	}
}

func TestWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fast := func(int) time.Duration { return time.Millisecond }

	t.Run("success merges variables", func(t *testing.T) {
		t.Parallel()
		c, _ := MustServer(t)
		id := startFulfilment(t, c)
		ev := newEvents()
		w := client.NewWorker(c, "reserve-stock", func(ctx context.Context, job client.Job) (map[string]any, error) {
			var in struct{ OrderID string }
			if err := job.Decode(&in); err != nil {
				return nil, err
			}
			return map[string]any{"reservedFor": in.OrderID}, nil
		}, client.WorkerOptions{PollTimeout: time.Second, Metrics: ev.hook})
		w.Start()
		defer stop(t, w)
		ev.await(t, "completed")
		inst := must(c.Instance(ctx, id))
		if inst.Variables["reservedFor"] != "o-1" {
			t.Errorf("variables = %v", inst.Variables)
		}
		if ws := must(c.Waits(ctx, id, 0)); len(ws) != 1 || ws[0].NodeID != "pack" {
			t.Errorf("waits = %+v", ws)
		}
	})

	t.Run("a struct as output variables", func(t *testing.T) {
		t.Parallel()
		c, _ := MustServer(t)
		id := startFulfilment(t, c)
		ev := newEvents()
		type reservation struct {
			ReservedFor string `json:"reservedFor"`
			Units       int64  `json:"units"`
			Note        string `json:"note,omitempty"`
		}
		w := client.NewWorker(c, "reserve-stock", client.TypedHandler(func(ctx context.Context, job client.Job) (*reservation, error) {
			var in struct{ OrderID string }
			if err := job.Decode(&in); err != nil {
				return nil, err
			}
			return &reservation{ReservedFor: in.OrderID, Units: 1 << 53}, nil
		}), client.WorkerOptions{PollTimeout: time.Second, Metrics: ev.hook})
		w.Start()
		defer stop(t, w)
		ev.await(t, "completed")
		inst := must(c.Instance(ctx, id))
		if inst.Variables["reservedFor"] != "o-1" || inst.Variables["units"] != float64(1<<53) {
			t.Errorf("variables = %v", inst.Variables)
		}
		if _, ok := inst.Variables["note"]; ok {
			t.Errorf("an omitempty field was set: %v", inst.Variables)
		}
	})

	t.Run("output that is not an object fails the job", func(t *testing.T) {
		t.Parallel()
		c, _ := MustServer(t)
		startFulfilment(t, c)
		ev := newEvents()
		w := client.NewWorker(c, "reserve-stock", client.TypedHandler(func(ctx context.Context, job client.Job) ([]string, error) {
			return []string{"no"}, nil
		}), client.WorkerOptions{PollTimeout: time.Second, RetryBackoff: fast, Metrics: ev.hook})
		w.Start()
		defer stop(t, w)
		if e := ev.await(t, "failed"); e.Err == nil || !strings.Contains(e.Err.Error(), "JSON object") {
			t.Errorf("failed with %v", e.Err)
		}
	})

	t.Run("an error fails the job until retries run out", func(t *testing.T) {
		t.Parallel()
		c, _ := MustServer(t)
		id := startFulfilment(t, c)
		ev := newEvents()
		w := client.NewWorker(c, "reserve-stock", func(ctx context.Context, job client.Job) (map[string]any, error) {
			return nil, errors.New("warehouse down")
		}, client.WorkerOptions{PollTimeout: 200 * time.Millisecond, RetryBackoff: fast, Metrics: ev.hook})
		w.Start()
		for range 3 {
			ev.await(t, "failed")
		}
		stop(t, w)
		incs, _, err := c.Incidents(ctx, client.IncidentFilter{InstanceID: id})
		if err != nil || len(incs) != 1 || incs[0].Message != "warehouse down" {
			t.Errorf("incidents = %+v, %v", incs, err)
		}
	})

	t.Run("a panic fails the job too", func(t *testing.T) {
		t.Parallel()
		c, _ := MustServer(t)
		startFulfilment(t, c)
		ev := newEvents()
		w := client.NewWorker(c, "reserve-stock", func(ctx context.Context, job client.Job) (map[string]any, error) {
			panic("boom")
		}, client.WorkerOptions{PollTimeout: 200 * time.Millisecond, RetryBackoff: fast, Metrics: ev.hook})
		w.Start()
		defer stop(t, w)
		if e := ev.await(t, "failed"); e.Err == nil || e.Err.Error() != "handler panicked: boom" {
			t.Errorf("event = %+v", e)
		}
	})

	t.Run("a BPMN error goes to the error boundary", func(t *testing.T) {
		t.Parallel()
		c, _ := MustServer(t)
		id := startFulfilment(t, c)
		ev := newEvents()
		w := client.NewWorker(c, "reserve-stock", func(ctx context.Context, job client.Job) (map[string]any, error) {
			return nil, client.BPMNError{Code: "OUT_OF_STOCK", Message: "none left", Variables: map[string]any{"reason": "stock"}}
		}, client.WorkerOptions{PollTimeout: time.Second, Metrics: ev.hook})
		w.Start()
		defer stop(t, w)
		ev.await(t, "bpmn-error")
		inst := must(c.Instance(ctx, id))
		if inst.Status != "completed" {
			t.Errorf("status = %s", inst.Status)
		}
		h := must(c.History(ctx, id, 0, 0))
		if !passed(h, "cancelled") {
			t.Errorf("did not end at Cancelled: %+v", h)
		}
	})

	t.Run("the lock is extended while a slow handler runs", func(t *testing.T) {
		t.Parallel()
		c, _ := MustServer(t)
		id := startFulfilment(t, c)
		ev := newEvents()
		lock := 300 * time.Millisecond
		w := client.NewWorker(c, "reserve-stock", func(ctx context.Context, job client.Job) (map[string]any, error) {
			select {
			case <-time.After(4 * lock):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return nil, nil
		}, client.WorkerOptions{LockDuration: lock, PollTimeout: time.Second, Metrics: ev.hook})
		w.Start()
		defer stop(t, w)
		ev.await(t, "activated")
		// While the handler runs, the job stays locked: after three
		// extensions (one every half lock) the first lock has run out, yet
		// nobody else gets the job.
		for range 3 {
			ev.await(t, "extended")
		}
		if jobs := must(c.ActivateJobs(ctx, client.ActivateRequest{Type: "reserve-stock", Worker: "thief", LockDuration: time.Minute})); len(jobs) != 0 {
			t.Fatalf("the lock lapsed: %+v", jobs)
		}
		ev.await(t, "completed")
		if ws := must(c.Waits(ctx, id, 0)); len(ws) != 1 || ws[0].NodeID != "pack" {
			t.Errorf("waits = %+v", ws)
		}
	})

	t.Run("Stop finishes in-flight jobs", func(t *testing.T) {
		t.Parallel()
		c, _ := MustServer(t)
		id := startFulfilment(t, c)
		ev := newEvents()
		release := make(chan struct{})
		w := client.NewWorker(c, "reserve-stock", func(ctx context.Context, job client.Job) (map[string]any, error) {
			<-release
			return nil, nil
		}, client.WorkerOptions{PollTimeout: 10 * time.Second, Metrics: ev.hook})
		w.Start()
		ev.await(t, "activated")
		go func() { time.Sleep(50 * time.Millisecond); close(release) }()
		stop(t, w) // returns only after the handler and its report
		if ws := must(c.Waits(ctx, id, 0)); len(ws) != 1 || ws[0].NodeID != "pack" {
			t.Errorf("waits = %+v", ws)
		}
	})

	t.Run("Stop gives up on a stuck handler", func(t *testing.T) {
		t.Parallel()
		c, _ := MustServer(t)
		startFulfilment(t, c)
		ev := newEvents()
		w := client.NewWorker(c, "reserve-stock", func(ctx context.Context, job client.Job) (map[string]any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, client.WorkerOptions{PollTimeout: 10 * time.Second, Metrics: ev.hook})
		w.Start()
		ev.await(t, "activated")
		sctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if err := w.Stop(sctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Stop = %v", err)
		}
		if n := ev.count("failed") + ev.count("completed"); n != 0 {
			t.Errorf("an abandoned job was reported")
		}
	})
}

// passed reports whether the history has a fact at node.
func passed(h []client.Fact, node string) bool {
	for _, f := range h {
		if f.NodeID != nil && *f.NodeID == node {
			return true
		}
	}
	return false
}

func TestVariables(t *testing.T) {
	t.Parallel()
	type out struct {
		A string `json:"a"`
		B int    `json:"b,omitempty"`
	}
	var nilMap map[string]any
	for _, tc := range []struct {
		name string
		in   any
		want string // the map's JSON, or "error"
	}{
		{"struct", out{A: "x"}, `{"a":"x"}`},
		{"pointer", &out{A: "x", B: 2}, `{"a":"x","b":2}`},
		{"map", map[string]any{"k": 1}, `{"k":1}`},
		{"typed map", map[string]int{"k": 1}, `{"k":1}`},
		{"nil pointer", (*out)(nil), `null`},
		{"nil map", nilMap, `null`},
		{"nil", nil, `null`},
		{"number", 3, "error"},
		{"list", []int{1}, "error"},
		{"unencodable", struct{ F func() }{}, "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := client.Variables(tc.in)
			if tc.want == "error" {
				if err == nil {
					t.Errorf("Variables(%v) = %v, want an error", tc.in, m)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := json.Marshal(m); string(b) != tc.want {
				t.Errorf("Variables(%v) = %s, want %s", tc.in, b, tc.want)
			}
		})
	}
}
