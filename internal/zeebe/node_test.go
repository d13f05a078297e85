package zeebe_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/nodetest"
	"github.com/gobpm/gobpm/internal/runtime"
)

// nodeDir holds the Node client, its pinned SDK and its lock file.
var nodeDir = filepath.Join("testdata", "node")

// mustNode returns the node binary with the packages of nodeDir installed
// (nodetest.Node).
func mustNode(t *testing.T) string {
	t.Helper()
	return nodetest.Node(t, nodeDir, "@camunda8/sdk", "the real @camunda8/sdk test")
}

// adminToken is a token of a new admin user of acc.
func adminToken(t *testing.T, acc *access.Service) string {
	t.Helper()
	ctx := context.Background()
	if _, err := acc.CreateUser(ctx, "", access.NewUser{ID: "root"}); err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "root"}, Role: auth.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	tok, _, err := acc.MintToken(ctx, access.NewToken{Owner: "root", Name: "sdk"})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// nodeEvent is one line the Node client prints.
type nodeEvent struct {
	Ev       string  `json:"ev"`
	Key      string  `json:"key"`
	Instance string  `json:"instance"`
	Currency string  `json:"currency"`
	Charged  *bool   `json:"charged"`
	Total    float64 `json:"total"`
	Handled  int     `json:"handled"`
	Paid     float64 `json:"paid"`
	Dup      string  `json:"duplicate"`
	Msg      string  `json:"msg"`
	// Before is how many failures the job's variables counted.
	Before int `json:"before"`
}

// TestCamunda8SDKOverGRPC runs the real @camunda8/sdk against the gateway
// with a bearer token: it deploys, streams jobs (StreamActivatedJobs) that
// complete, throw a BPMN error to a boundary, or fail with a backoff down
// to an incident that the SDK then resolves (UpdateJobRetries and
// ResolveIncident, the job coming back through the stream), awaits
// instances with CreateProcessInstanceWithResult, and publishes messages
// to a waiting instance and before the subscription opens. Every call
// passes gzip-compressed, as the SDK sends them.
func TestCamunda8SDKOverGRPC(t *testing.T) {
	t.Parallel()
	node := mustNode(t)
	acc := accessService(t, access.ModeBuiltin)
	pushes := &pushCounter{}
	b := setupWith(t, acc, slog.New(pushes))
	token := adminToken(t, acc)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "grpc.mjs", "../c8-pay.bpmn", "../c8-quick.bpmn", "../c8-msg.bpmn")
	cmd.Dir = nodeDir
	cmd.Env = append(os.Environ(), "ZEEBE_GRPC_ADDRESS=grpc://"+b.addr, "CAMUNDA_AUTH_STRATEGY=BEARER", "CAMUNDA_OAUTH_TOKEN="+token,
		"CAMUNDA_SECURE_CONNECTION=false", "ZEEBE_INSECURE_CONNECTION=true", "ZEEBE_CLIENT_LOG_LEVEL=NONE", "CAMUNDA_LOG_LEVEL=none")
	var stderr, out bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the Node client printed:\n%s\nstderr:\n%s", out.String(), stderr.String())
		}
	})
	var results, jobs, failures int
	var published, quick, early, resolved, done bool
	var flaky int64
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		out.WriteString(line + "\n")
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var ev nodeEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		switch ev.Ev {
		case "job":
			jobs++
			if ev.Currency != "EUR" {
				t.Errorf("job %s: custom header currency = %q", ev.Key, ev.Currency)
			}
		case "result":
			results++
		case "quick":
			quick = ev.Total == 42
		case "published":
			published = true
			b.awaitStatus(t, instanceKey(t, ev.Instance), string(runtime.StatusCompleted))
		case "early":
			early = ev.Paid == 20
			if ev.Dup != "6" && !strings.Contains(ev.Dup, "ALREADY_EXISTS") {
				t.Errorf("the duplicate publication answered %q, want ALREADY_EXISTS (6)", ev.Dup)
			}
		case "failing":
			// Each failure's variables reach the job's next attempt.
			if ev.Before != failures {
				t.Errorf("failure %d: the job's variables counted %d failures before it", failures+1, ev.Before)
			}
			failures++
		case "flaky":
			// The job fails with a backoff down to an incident: name it.
			incKey := b.awaitIncident(t, instanceKey(t, ev.Instance))
			if _, err := stdin.Write([]byte(strconv.FormatInt(incKey, 10) + "\n")); err != nil {
				t.Fatal(err)
			}
		case "resolved":
			resolved = true
			flaky = instanceKey(t, ev.Instance)
		case "done":
			done = true
		case "error":
			t.Fatalf("the SDK failed: %s", ev.Msg)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node grpc.mjs: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), stderr.String())
	}
	if flaky != 0 {
		v := b.awaitStatus(t, flaky, string(runtime.StatusCompleted))
		// The completion copied the failures' count out of the task's
		// local variables; the local variable itself stayed there.
		if fmt.Sprint(v.Variables["sawFailures"]) != "2" {
			t.Errorf("the flaky job's last attempt saw %v failures, want 2", v.Variables["sawFailures"])
		}
		if _, ok := v.Variables["failedBefore"]; ok {
			t.Errorf("the task's local variable reached the instance: %v", v.Variables)
		}
	}
	// Three payments, and the flaky one three times: two failures, then
	// the completion after the incident's resolution.
	if n := pushes.count.Load(); n != 6 {
		t.Errorf("StreamActivatedJobs pushed %d jobs, want 6 (none came through the SDK's sidecar poll)", n)
	}
	if results != 3 || jobs != 6 || failures != 2 || !quick || !published || !early || !resolved || !done {
		t.Errorf("results %d, jobs %d, failures %d, quick %v, published %v, early %v, resolved %v, done %v\n%s\nstderr:\n%s",
			results, jobs, failures, quick, published, early, resolved, done, out.String(), stderr.String())
	}
}

// instanceKey reads a numeric key the Node client printed.
func instanceKey(t *testing.T, s string) int64 {
	t.Helper()
	k, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("key %q: %v", s, err)
	}
	return k
}

// awaitIncident waits up to 20 s for the instance with numeric key key to
// have an open incident and returns the incident's numeric key.
func (b *bundle) awaitIncident(t *testing.T, key int64) int64 {
	t.Helper()
	ctx := context.Background()
	id := b.instance(t, key).ID
	deadline := time.Now().Add(20 * time.Second)
	for {
		rows, _, err := b.rt.IncidentsPage(ctx, id, true, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) > 0 {
			k, err := b.rt.NumericKey(ctx, runtime.KeyIncident, rows[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			return k
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance %d has no incident after 20 s", key)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pushCounter is a slog handler counting the gateway's "gRPC job pushed"
// records: the jobs StreamActivatedJobs pushed.
type pushCounter struct{ count atomic.Int64 }

func (*pushCounter) Enabled(context.Context, slog.Level) bool { return true }
func (p *pushCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "gRPC job pushed" {
		p.count.Add(1)
	}
	return nil
}
func (p *pushCounter) WithAttrs([]slog.Attr) slog.Handler { return p }
func (p *pushCounter) WithGroup(string) slog.Handler      { return p }
