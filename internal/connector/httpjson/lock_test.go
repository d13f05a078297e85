package httpjson

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// TestLockExpiry stops the worker in the middle of a call: the job is left
// locked, and once its lock runs out another worker gets it and finishes
// it — delivery is at least once, as for any worker.
func TestLockExpiry(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	first := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			close(first)
			<-r.Context().Done()
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	b := setup(t, Options{AllowHosts: []string{"127.0.0.1"}, LockDuration: 600 * time.Millisecond})
	ctx := context.Background()
	if _, err := b.rt.Deploy(ctx, []runtime.File{{Name: "p.bpmn", Content: []byte(model(task{retries: 1,
		inputs: [][2]string{{"GET", "method"}, {srv.URL, "url"}}, headers: [][2]string{{"resultVariable", "r"}}}))}}); err != nil {
		t.Fatal(err)
	}
	v, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "p"})
	if err != nil {
		t.Fatal(err)
	}
	<-first
	stopped := time.Now()
	b.w.Stop()
	second, err := New(b.rt, Options{AllowHosts: []string{"127.0.0.1"}, LockDuration: time.Second, PollTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	second.Start(ctx)
	defer second.Stop()
	done := b.await(t, v.ID, func(v runtime.InstanceView) bool { return v.Status != "running" })
	completed(t, done)
	if calls.Load() != 2 {
		t.Fatalf("%d calls, want 2", calls.Load())
	}
	if d := time.Since(stopped); d < 300*time.Millisecond {
		t.Fatalf("the job came back after %v, before its lock ran out", d)
	}
}
