package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/camunda/zeebe/clients/go/v8/pkg/zbc"

	"github.com/gobpm/gobpm/internal/nodetest"
)

// sdkDir holds the Camunda 8 SDK's Node clients and their lock file
// (internal/zeebe's testdata).
var sdkDir = filepath.Join("..", "..", "internal", "zeebe", "testdata", "node")

// mustSDK returns the node binary with the packages of sdkDir installed
// (nodetest.Node).
func mustSDK(t *testing.T) string {
	t.Helper()
	return nodetest.Node(t, sdkDir, "@camunda8/sdk", "the @camunda8/sdk crash test")
}

// TestCrashWhileAnSDKWorkerStreamsJobs: a worker written with the real
// @camunda8/sdk streams jobs (StreamActivatedJobs) while the real server
// is killed (SIGKILL) under it and restarted on the same database and
// address. The kill comes while jobs are in flight: after a third of the
// instances completed, the test makes the worker hold the jobs it
// receives (stream-worker.mjs's HOLD_FILE), starts the last third and
// kills the server once the worker reports one held (activated and not
// completed); their completions go to the restarted server once it is
// up, and each in-flight job is acknowledged once. Every instance
// completes, its task once, and no job is acknowledged as completed
// twice. Nothing depends on timing: each stage waits for what the worker
// or the server reports, under generous deadlines.
func TestCrashWhileAnSDKWorkerStreamsJobs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	node := mustSDK(t)
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "gobpm.db")
	grpcAddr := freeLoopbackAddr(t)
	s := startServer(t, bin, db, "--grpc-addr", grpcAddr)
	deployTestdata(t, s.base, "c8-pay.bpmn")

	hold := filepath.Join(t.TempDir(), "hold")
	w := exec.Command(node, "stream-worker.mjs")
	w.Dir = sdkDir
	w.Env = append(os.Environ(), "HOLD_FILE="+hold, "ZEEBE_GRPC_ADDRESS=grpc://"+grpcAddr, "CAMUNDA_AUTH_STRATEGY=NONE", "CAMUNDA_LOG_LEVEL=none", "ZEEBE_CLIENT_LOG_LEVEL=NONE")
	stdout, err := w.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	completed := map[string]int{}
	held := map[string]bool{}
	var jobs int
	streaming := make(chan struct{})
	lines := make(chan struct{}, 1024)
	heldOne := make(chan struct{}, 1)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev struct{ Ev, Key, Msg string }
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			mu.Lock()
			switch ev.Ev {
			case "streaming":
				close(streaming)
			case "job":
				jobs++
			case "held":
				held[ev.Key] = true
				select {
				case heldOne <- struct{}{}:
				default:
				}
			case "completed":
				completed[ev.Key]++
				select {
				case lines <- struct{}{}:
				default:
				}
			}
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = w.Process.Kill() // the worker this test started
		<-read
		_ = w.Wait()
	})
	select {
	case <-streaming:
	case <-time.After(30 * time.Second):
		t.Fatal("the SDK worker did not open its stream in 30 s")
	}

	zc, err := zbc.NewClient(&zbc.ClientConfig{GatewayAddress: grpcAddr, UsePlaintextConnection: true})
	if err != nil {
		t.Fatal(err)
	}
	defer zc.Close()
	const n = 60
	startPayInstances(t, zc, 2*n/3)
	deadline := time.After(2 * time.Minute)
	for done := 0; done < n/3; done++ {
		select {
		case <-lines:
		case <-deadline:
			t.Fatalf("the SDK worker completed %d jobs in 2 minutes", done)
		}
	}
	// Hold the jobs the worker receives from now on, and kill the server
	// as soon as one is in flight: activated, its completion not sent.
	// The last third of the instances starts only now, so some job comes
	// to be held however fast the worker got through the others.
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	startPayInstances(t, zc, n/3)
	select {
	case <-heldOne:
	case <-time.After(2 * time.Minute):
		t.Fatal("the SDK worker received no job to hold in 2 minutes")
	}
	killServer(t, s)
	mu.Lock()
	inFlight := make([]string, 0, len(held))
	for key := range held {
		if completed[key] == 0 {
			inFlight = append(inFlight, key)
		}
	}
	mu.Unlock()
	if len(inFlight) == 0 {
		t.Fatal("no job was in flight when the server was killed")
	}
	// The held completions reach the restarted server (or their jobs,
	// their locks having run out, come back through the stream).
	s2 := startServer(t, bin, db, "--grpc-addr", grpcAddr)
	if err := os.Remove(hold); err != nil {
		t.Fatal(err)
	}
	awaitChargedOnce(t, s2.base, n)

	mu.Lock()
	defer mu.Unlock()
	for key, c := range completed {
		if c != 1 {
			t.Errorf("job %s acknowledged as completed %d times", key, c)
		}
	}
	for _, key := range inFlight {
		if completed[key] != 1 {
			t.Errorf("job %s, in flight at the kill, acknowledged as completed %d times after the restart", key, completed[key])
		}
	}
	t.Logf("the SDK worker received %d jobs for %d instances, %d completions acknowledged; %d jobs were in flight at the kill", jobs, n, len(completed), len(inFlight))
}
