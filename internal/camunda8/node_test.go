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

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/nodetest"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// nodeDir holds the Node clients' script, their pinned packages and lock file.
var nodeDir = filepath.Join("testdata", "node")

// mustNode returns the node binary with the packages of nodeDir installed
// (nodetest.Node).
func mustNode(t *testing.T) string {
	t.Helper()
	return nodetest.Node(t, nodeDir, "@camunda8/orchestration-cluster-api", "the real Camunda 8 client test")
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
// The server runs without authentication (CAMUNDA_AUTH_STRATEGY=NONE).
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
	runClient(t, node, rt, api.Options{}, nil)
}

// TestCamunda8NodeClientsAuthenticated runs the same clients against a
// server with built-in users: the orchestration cluster client with
// CAMUNDA_AUTH_STRATEGY=BASIC (a user's password), the SDK with BEARER (the
// user's gobpm API token as CAMUNDA_OAUTH_TOKEN).
func TestCamunda8NodeClientsAuthenticated(t *testing.T) {
	node := mustNode(t)
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	acc, err := access.New(ctx, access.Config{Mode: access.ModeBuiltin, Store: db, Params: auth.TestParams()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = acc.Close(context.Background()) })
	rt := runtime.New(db, runtime.Options{Reach: acc})
	t.Cleanup(func() { _ = rt.Close() })
	if _, err := acc.CreateUser(ctx, "", access.NewUser{ID: "c8-client", Password: "correct horse battery"}); err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "c8-client"}, Role: auth.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	token, _, err := acc.MintToken(ctx, access.NewToken{Owner: "c8-client", Name: "sdk"})
	if err != nil {
		t.Fatal(err)
	}
	runClient(t, node, rt, api.Options{Access: acc}, []string{"C8_USER=c8-client", "C8_PASSWORD=correct horse battery", "C8_TOKEN=" + token})
}

// runClient serves rt's API on loopback and runs client.mjs against it
// with env added to the environment, checking that every step ran.
func runClient(t *testing.T, node string, rt *runtime.Runtime, opts api.Options, env []string) {
	t.Helper()
	ctx := context.Background()
	if _, err := rt.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := httptest.NewServer(api.New(rt, logger, opts)) // loopback
	t.Cleanup(srv.Close)

	runCtx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(runCtx, node, "client.mjs", srv.URL)
	cmd.Dir = nodeDir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	seen := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(stdout.String()))
	for sc.Scan() {
		var ev map[string]any
		if json.Unmarshal(sc.Bytes(), &ev) == nil {
			if name, ok := ev["ev"].(string); ok {
				seen[name] = ev
			}
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
	if f := seen["incident"]["failures"]; f != float64(2) {
		t.Errorf("failures before the incident = %v, want 2", f)
	}
}
