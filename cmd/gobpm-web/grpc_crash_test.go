package main

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/camunda/zeebe/clients/go/v8/pkg/entities"
	"github.com/camunda/zeebe/clients/go/v8/pkg/worker"
	"github.com/camunda/zeebe/clients/go/v8/pkg/zbc"
)

// freeLoopbackAddr is a loopback address with a port free right now: the
// gRPC gateway must come back on the same address after the restart, as
// a worker keeps the address it was given.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// TestCrashWhileAZeebeWorkerRuns: the real Zeebe Go client's job worker
// works through instances over gRPC while the real server is killed
// (SIGKILL) under it and restarted on the same database and address. The
// worker reconnects by itself; every instance completes, and each job's
// completion counts once: its task completes once in the history, and no
// job is answered as completed twice — whether the crash came before a
// completion's commit (the job comes back when its timeout ends) or
// between its commit and its answer.
func TestCrashWhileAZeebeWorkerRuns(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "gobpm.db")
	grpcAddr := freeLoopbackAddr(t)
	s := startServer(t, bin, db, "--grpc-addr", grpcAddr)
	deployTestdata(t, s.base, "c8-pay.bpmn")

	zc, err := zbc.NewClient(&zbc.ClientConfig{GatewayAddress: grpcAddr, UsePlaintextConnection: true})
	if err != nil {
		t.Fatal(err)
	}
	defer zc.Close()
	ctx := context.Background()
	const n = 60
	startPayInstances(t, zc, n)

	var mu sync.Mutex
	completedAnswers := map[int64]int{} // job key → completions answered OK
	var handled atomic.Int64
	w := zc.NewJobWorker().JobType("c8-charge").Handler(func(c worker.JobClient, job entities.Job) {
		handled.Add(1)
		time.Sleep(10 * time.Millisecond) // the work: the crash lands among the jobs
		if _, err := c.NewCompleteJobCommand().JobKey(job.Key).Send(ctx); err == nil {
			mu.Lock()
			completedAnswers[job.Key]++
			mu.Unlock()
		}
	}).Timeout(2 * time.Second).MaxJobsActive(4).Concurrency(4).RequestTimeout(time.Second).PollInterval(50 * time.Millisecond).Open()
	defer func() {
		w.Close()
		w.AwaitClose()
	}()

	deadline := time.Now().Add(20 * time.Second)
	for handled.Load() < n/3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if handled.Load() < n/3 {
		t.Fatalf("the worker handled %d jobs in 20 s", handled.Load())
	}
	killServer(t, s)
	s2 := startServer(t, bin, db, "--grpc-addr", grpcAddr)

	awaitChargedOnce(t, s2.base, n)
	mu.Lock()
	defer mu.Unlock()
	for key, c := range completedAnswers {
		if c != 1 {
			t.Errorf("job %d answered as completed %d times", key, c)
		}
	}
	t.Logf("%d jobs handled for %d instances, %d completions answered", handled.Load(), n, len(completedAnswers))
}

// startPayInstances starts n instances of c8-pay through the Zeebe Go
// client.
func startPayInstances(t *testing.T, zc zbc.Client, n int) {
	t.Helper()
	for i := range n {
		cmd, err := zc.NewCreateInstanceCommand().BPMNProcessId("c8-pay").LatestVersion().VariablesFromMap(map[string]any{"n": i})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cmd.Send(context.Background()); err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
	}
}

// awaitChargedOnce waits up to two minutes for n completed c8-pay instances
// and checks each completed its charge task exactly once.
func awaitChargedOnce(t *testing.T, base string, n int) {
	t.Helper()
	var items []any
	deadline := time.Now().Add(2 * time.Minute)
	for {
		code, page := get(t, base+"/api/v1/instances?processKey=c8-pay&status=completed&limit=500")
		if code != http.StatusOK {
			t.Fatalf("instances: %d %v", code, page)
		}
		items, _ = page["items"].([]any)
		if len(items) == n || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(items) != n {
		t.Fatalf("%d of %d instances completed after the restart", len(items), n)
	}
	for _, it := range items {
		id := it.(map[string]any)["id"].(string)
		perNode, _ := callFacts(historyOf(t, base, id), "element-completed")
		if perNode["charge"] != 1 {
			t.Errorf("instance %s: charge completed %d times", id, perNode["charge"])
		}
	}
}
