package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/client"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// completionCounter counts the single and the batch completions a server
// receives; with old set it answers the batch route 404, as a server
// without it does.
type completionCounter struct {
	next          http.Handler
	old           bool
	single, batch atomic.Int32
}

func (c *completionCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/jobs/complete":
		c.batch.Add(1)
		if c.old {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"type":"https://gobpm.dev/problems/not-found","title":"Not found","status":404,"detail":"no route"}`))
			return
		}
	case r.Method == http.MethodPost && len(r.URL.Path) > len("/complete") && r.URL.Path[len(r.URL.Path)-len("/complete"):] == "/complete":
		c.single.Add(1)
	}
	c.next.ServeHTTP(w, r)
}

// batchServer is MustServer behind a completionCounter.
func batchServer(tb testing.TB, old bool) (*client.Client, *completionCounter) {
	tb.Helper()
	db := testdb.MustOpen(tb)
	rt := runtime.New(db, runtime.Options{})
	tb.Cleanup(func() { _ = rt.Close() })
	if _, err := rt.Resume(context.Background()); err != nil {
		tb.Fatal(err)
	}
	cc := &completionCounter{next: api.New(rt, nil, api.Options{}), old: old}
	srv := httptest.NewServer(cc)
	tb.Cleanup(srv.Close)
	c, err := client.New(srv.URL, client.WithUser("pat", "warehouse"))
	if err != nil {
		tb.Fatal(err)
	}
	return c, cc
}

// TestWorkerBatchesCompletions: jobs that finish together are completed
// in batch requests (fewer requests than jobs, every job completed with
// its variables); against a server without the batch route the worker
// tries it once, then completes each job alone.
func TestWorkerBatchesCompletions(t *testing.T) {
	t.Parallel()
	for _, old := range []bool{false, true} {
		name := "batch route"
		if old {
			name = "old server"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			const n = 12
			ctx := context.Background()
			c, cc := batchServer(t, old)
			must(c.DeployFiles(ctx, "../examples/fulfilment.bpmn"))
			var ids []string
			for i := range n {
				ids = append(ids, must(c.Start(ctx, "fulfilment", client.StartRequest{Variables: map[string]any{"orderId": i}})).ID)
			}
			// Every handler waits until all n jobs are in hand, so they
			// finish at the same moment.
			var (
				mu      sync.Mutex
				held    int
				release = make(chan struct{})
			)
			ev := newEvents()
			w := client.NewWorker(c, "reserve-stock", func(ctx context.Context, job client.Job) (map[string]any, error) {
				mu.Lock()
				if held++; held == n {
					close(release)
				}
				mu.Unlock()
				<-release
				var in struct{ OrderID int }
				if err := job.Decode(&in); err != nil {
					return nil, err
				}
				return map[string]any{"reservedFor": in.OrderID}, nil
			}, client.WorkerOptions{Concurrency: n, PollTimeout: time.Second, Metrics: ev.hook, CompletionBatchWindow: 5 * time.Millisecond})
			w.Start()
			defer stop(t, w)
			for range n {
				ev.await(t, "completed")
			}
			for i, id := range ids {
				inst := must(c.Instance(ctx, id))
				if v, _ := inst.Variables["reservedFor"].(float64); int(v) != i {
					t.Errorf("instance %d: variables %v", i, inst.Variables)
				}
				if ws := must(c.Waits(ctx, id, 0)); len(ws) != 1 || ws[0].NodeID != "pack" {
					t.Errorf("instance %d: waits %+v", i, ws)
				}
			}
			single, batch := cc.single.Load(), cc.batch.Load()
			t.Logf("%d jobs: %d batch requests, %d single completions", n, batch, single)
			if old {
				if batch != 1 || single != n {
					t.Errorf("old server: %d batch requests, %d single completions; want 1 and %d", batch, single, n)
				}
				return
			}
			if batch == 0 || single+batch >= n {
				t.Errorf("%d batch requests and %d single completions for %d jobs finishing together", batch, single, n)
			}
		})
	}
}

// TestClientCompleteJobs: the client's batch answers per item.
func TestClientCompleteJobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _ := MustServer(t)
	startFulfilment(t, c)
	startFulfilment(t, c)
	jobs := must(c.ActivateJobs(ctx, client.ActivateRequest{Type: "reserve-stock", Worker: "w", MaxJobs: 2, LockDuration: time.Minute}))
	if len(jobs) != 2 {
		t.Fatalf("activated %d jobs", len(jobs))
	}
	wrong := jobs[1]
	wrong.LockToken = jobs[0].LockToken
	errs, err := c.CompleteJobs(ctx, []client.JobCompletion{{Job: jobs[0], Variables: map[string]any{"a": 1}}, {Job: wrong}})
	if err != nil {
		t.Fatal(err)
	}
	if errs[0] != nil || errs[1] == nil {
		t.Fatalf("errs = %v", errs)
	} else if pp, ok := errs[1].(*client.Problem); !ok || pp.Status != http.StatusConflict {
		t.Errorf("the wrong token: %#v, want a 409 problem", errs[1])
	}
	if err := c.CompleteJob(ctx, jobs[1], nil); err != nil {
		t.Errorf("the second job with its own token: %v", err)
	}
}
