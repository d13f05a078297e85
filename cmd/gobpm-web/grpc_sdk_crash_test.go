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
// address. Every instance completes, its task once, and no job is
// acknowledged as completed twice.
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

	w := exec.Command(node, "stream-worker.mjs")
	w.Dir = sdkDir
	w.Env = append(os.Environ(), "ZEEBE_GRPC_ADDRESS=grpc://"+grpcAddr, "CAMUNDA_AUTH_STRATEGY=NONE", "CAMUNDA_LOG_LEVEL=none", "ZEEBE_CLIENT_LOG_LEVEL=NONE")
	stdout, err := w.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	completed := map[string]int{}
	var jobs int
	streaming := make(chan struct{})
	lines := make(chan struct{}, 1024)
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
	startPayInstances(t, zc, n)
	deadline := time.After(30 * time.Second)
	for done := 0; done < n/3; done++ {
		select {
		case <-lines:
		case <-deadline:
			t.Fatalf("the SDK worker completed %d jobs in 30 s", done)
		}
	}
	killServer(t, s)
	s2 := startServer(t, bin, db, "--grpc-addr", grpcAddr)
	awaitChargedOnce(t, s2.base, n)

	mu.Lock()
	defer mu.Unlock()
	for key, c := range completed {
		if c != 1 {
			t.Errorf("job %s acknowledged as completed %d times", key, c)
		}
	}
	t.Logf("the SDK worker received %d jobs for %d instances, %d completions acknowledged", jobs, n, len(completed))
}
