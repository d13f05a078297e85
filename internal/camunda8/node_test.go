package camunda8_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// nodeDir holds the Node clients' script, their pinned packages and lock file.
var nodeDir = filepath.Join("testdata", "node")

// mustNode returns the node binary after installing the clients (npm ci)
// when node_modules is missing. Without node or npm the test is skipped,
// or fails when CI=true.
func mustNode(t *testing.T) string {
	t.Helper()
	node, nerr := exec.LookPath("node")
	npm, merr := exec.LookPath("npm")
	if nerr != nil || merr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node and npm are needed for the Camunda 8 client test (node: %v, npm: %v)", nerr, merr)
		}
		t.Skipf("node or npm not found, skipping the real Camunda 8 client test (node: %v, npm: %v)", nerr, merr)
	}
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "@camunda8", "orchestration-cluster-api")); err != nil {
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = nodeDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", nodeDir, err, out)
		}
	}
	return node
}

// syncBuffer is a bytes.Buffer safe for the server's log goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestCamunda8NodeClients runs the real @camunda8/orchestration-cluster-api
// (strict validation: every answer must match Camunda's schema, and a job
// whose key is not numeric would be dropped) and the @camunda8/sdk's REST
// client against the real server over /v2 (testdata/node/client.mjs):
// topology, deployment, an awaited start, a job worker that completes,
// fails with backoff down to an incident that is resolved, and throws a
// BPMN error to a boundary event, a message to a waiting instance, user
// task search/assignment/completion, a message published before its
// subscription opens (timeToLive), cancellation, a signal, the licence.
func TestCamunda8NodeClients(t *testing.T) {
	node := mustNode(t)
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	rt := runtime.New(db, runtime.Options{})
	t.Cleanup(func() { _ = rt.Close() })
	if _, err := rt.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := httptest.NewServer(api.New(rt, logger, api.Options{})) // loopback, no authentication
	t.Cleanup(srv.Close)

	runCtx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(runCtx, node, "client.mjs", srv.URL)
	cmd.Dir = nodeDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	seen := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(stdout.String()))
	for sc.Scan() {
		var ev map[string]any
		if json.Unmarshal(sc.Bytes(), &ev) == nil {
			seen[ev["ev"].(string)] = ev
		}
	}
	if runErr != nil || seen["done"] == nil {
		t.Fatalf("client.mjs: %v\nstdout:\n%s\nstderr:\n%s\nserver log:\n%s", runErr, stdout.String(), stderr.String(), logs.String())
	}
	for _, step := range []string{"topology", "deployed", "awaited", "worked", "incident", "resolved", "usertask", "buffered", "cancelled", "sdk"} {
		if seen[step] == nil {
			t.Errorf("step %s did not run:\n%s", step, stdout.String())
		}
	}
	t.Logf("client.mjs:\n%s", stdout.String())
	if f := seen["incident"]["failures"]; f != float64(2) {
		t.Errorf("failures before the incident = %v, want 2", f)
	}
}
