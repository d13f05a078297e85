package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

var requestID = regexp.MustCompile(`"requestId": "[^"]*"`)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testServer serves the real router over a runtime with a fixed clock,
// counted ids and seeded secrets, so every output is the same each run.
func testServer(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	var n atomic.Int64
	rt := runtime.New(db, runtime.Options{
		Now:   func() time.Time { return time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC) },
		NewID: func() string { return fmt.Sprintf("id-%04d", n.Add(1)) },
		Rand:  rand.NewChaCha8([32]byte{1}),
	})
	t.Cleanup(func() { _ = rt.Close() })
	srv := httptest.NewServer(api.New(rt, nil, api.Options{}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// gobpm runs the command line args against addr and compares what it
// prints (stdout, stderr, exit status) with testdata/<golden>.golden. It
// returns stdout.
func gobpm(t *testing.T, addr, golden string, args ...string) string {
	t.Helper()
	env := map[string]string{"GOBPM_ADDR": addr, "GOBPM_USER": "pat", "GOBPM_GROUPS": "warehouse"}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, func(k string) string { return env[k] }, &stdout, &stderr)
	got := fmt.Sprintf("$ gobpm %s\n%s", strings.Join(args, " "), stdout.String())
	if stderr.Len() > 0 {
		// The request id is random: the one thing a golden file cannot hold.
		got += "--- stderr\n" + requestID.ReplaceAllString(stderr.String(), `"requestId": "…"`)
	}
	got += fmt.Sprintf("--- exit %d\n", code)
	path := filepath.Join("testdata", golden+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return stdout.String()
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("gobpm %s: output differs from %s\n--- got\n%s--- want\n%s", strings.Join(args, " "), path, got, want)
	}
	return stdout.String()
}

func TestCLI(t *testing.T) {
	addr := testServer(t)
	ex := filepath.Join("..", "..", "examples")

	gobpm(t, addr, "deploy", "deploy", filepath.Join(ex, "fulfilment.bpmn"), filepath.Join(ex, "order-approval.bpmn"))
	gobpm(t, addr, "processes", "processes")
	gobpm(t, addr, "processes-json", "-o", "json", "processes")
	gobpm(t, addr, "start", "start", "order-approval", "--var", "quantity=2", "--var", "unitPrice=10", "--business-key", "o-1")

	var inst struct{ ID string }
	out := gobpm(t, addr, "start-json", "-o", "json", "start", "fulfilment", "--var", "orderId=o-2")
	if err := json.Unmarshal([]byte(out), &inst); err != nil || inst.ID == "" {
		t.Fatalf("start -o json: %v %q", err, out)
	}
	gobpm(t, addr, "instances", "instances")
	gobpm(t, addr, "instances-running", "instances", "--status", "running")
	gobpm(t, addr, "instances-where", "instances", "--where", "quantity:gte:2", "--where", "unitPrice:lt:11")
	gobpm(t, addr, "instance", "instance", inst.ID)

	// A job: activate, fail to an incident, retry, activate, complete.
	var jobs []struct{ Key, LockToken string }
	out = gobpm(t, addr, "jobs-activate", "-o", "json", "jobs", "activate", "reserve-stock", "--lock", "1m")
	if err := json.Unmarshal([]byte(out), &jobs); err != nil || len(jobs) != 1 {
		t.Fatalf("jobs activate: %v %q", err, out)
	}
	gobpm(t, addr, "jobs-fail", "jobs", "fail", jobs[0].Key, "--lock-token", jobs[0].LockToken, "--retries", "0", "--message", "warehouse down")
	var incs []struct{ ID string }
	out = gobpm(t, addr, "incidents", "incidents")
	_ = json.Unmarshal([]byte(gobpmQuiet(t, addr, "-o", "json", "incidents")), &incs)
	if len(incs) != 1 {
		t.Fatalf("incidents: %q", out)
	}
	gobpm(t, addr, "retry", "retry", incs[0].ID)
	out = gobpm(t, addr, "jobs-activate-table", "jobs", "activate", "reserve-stock")
	_ = json.Unmarshal([]byte(gobpmQuiet(t, addr, "-o", "json", "jobs", "activate", "reserve-stock")), &jobs)
	if len(jobs) != 0 {
		t.Errorf("a locked job was activated twice")
	}
	key, token := field(out, 1, 0), field(out, 1, 1)
	gobpm(t, addr, "jobs-complete", "jobs", "complete", key, "--lock-token", token, "--var", "reserved=true")

	// A task: list, complete (claiming it).
	var tasks struct{ Items []struct{ ID string } }
	out = gobpm(t, addr, "tasks", "tasks", "--instance", inst.ID)
	_ = json.Unmarshal([]byte(gobpmQuiet(t, addr, "-o", "json", "tasks")), &tasks)
	if len(tasks.Items) != 1 {
		t.Fatalf("tasks: %q", out)
	}
	gobpm(t, addr, "complete-task", "complete-task", tasks.Items[0].ID, "--var", `parcel="P-7"`)
	gobpm(t, addr, "instance-waiting-timer", "instance", inst.ID)
	gobpm(t, addr, "message", "message", "nobody-listens", "--key", "o-2")
	gobpm(t, addr, "signal", "signal", "nobody-listens")
	gobpm(t, addr, "cancel", "cancel", inst.ID)

	// The history export: one answer, and the same facts pulled three at a
	// time by following the cursor.
	one := gobpm(t, addr, "history-export", "history", "export", "--process", "order-approval")
	if all := gobpmQuiet(t, addr, "history", "export", "--all", "--limit", "3"); all != gobpmQuiet(t, addr, "history", "export") || !strings.Contains(all, one) {
		t.Errorf("the export pulled three at a time differs:\n%s", all)
	}
	gobpm(t, addr, "error-history-from", "history", "export", "--from", "yesterday")

	// Errors.
	gobpm(t, addr, "error-not-found", "instance", "nope")
	gobpm(t, addr, "error-not-found-json", "-o", "json", "instance", "nope")
	gobpm(t, addr, "error-usage", "start")
	gobpm(t, addr, "error-unknown", "frobnicate")
	gobpm(t, addr, "error-var", "start", "fulfilment", "--var", "novalue")
}

// gobpmQuiet runs args and returns stdout, without a golden file.
func gobpmQuiet(t *testing.T, addr string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := map[string]string{"GOBPM_ADDR": addr, "GOBPM_USER": "pat", "GOBPM_GROUPS": "warehouse"}
	if code := run(context.Background(), args, func(k string) string { return env[k] }, &stdout, &stderr); code != 0 {
		t.Fatalf("gobpm %v: exit %d: %s", args, code, stderr.String())
	}
	return stdout.String()
}

// field returns column col of table line row.
func field(table string, row, col int) string {
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if row >= len(lines) {
		return ""
	}
	fs := strings.Fields(lines[row])
	if col >= len(fs) {
		return ""
	}
	return fs[col]
}

// TestVersion prints the version set by -ldflags ("dev" in tests) without
// calling a server.
func TestVersion(t *testing.T) {
	t.Parallel()
	gobpm(t, "http://127.0.0.1:1", "version", "version")
	gobpm(t, "http://127.0.0.1:1", "version-flag", "--version")
	gobpm(t, "http://127.0.0.1:1", "version-args", "version", "extra")
}
