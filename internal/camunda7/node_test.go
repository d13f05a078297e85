package camunda7_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
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
	"github.com/gobpm/gobpm/internal/camunda7/c7spec"
	"github.com/gobpm/gobpm/internal/nodetest"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// nodeDir holds the Node worker, its pinned client and its lock file.
var nodeDir = filepath.Join("testdata", "node")

// mustNode returns the node binary with the packages of nodeDir installed
// (nodetest.Node).
func mustNode(t *testing.T) string {
	t.Helper()
	return nodetest.Node(t, nodeDir, "camunda-external-task-client-js", "the real camunda-external-task-client-js test")
}

// event is one line the Node worker prints.
type event struct {
	Ev       string            `json:"ev"`
	Worker   string            `json:"worker"`
	Topic    string            `json:"topic"`
	Task     string            `json:"task"`
	Instance string            `json:"instance"`
	Action   string            `json:"action"`
	Retries  *int              `json:"retries"`
	Left     int               `json:"left"`
	Msg      string            `json:"msg"`
	Types    map[string]string `json:"types"`
	Customer map[string]any    `json:"customer"`
	Amount   any               `json:"amount"`
}

// fetchWatch observes the fetchAndLock requests of worker node-2 (the
// long-polling report worker): arrived gets each request's number as it
// comes in, and delivered the number of the request whose answer carried
// a task.
type fetchWatch struct {
	next      http.Handler
	mu        sync.Mutex
	seq       int
	arrived   chan int
	delivered chan int
}

func (f *fetchWatch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/external-task/fetchAndLock") {
		f.next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req struct{ WorkerID string }
	_ = json.Unmarshal(body, &req)
	if req.WorkerID != "node-2" {
		f.next.ServeHTTP(w, r)
		return
	}
	f.mu.Lock()
	f.seq++
	n := f.seq
	f.mu.Unlock()
	select {
	case f.arrived <- n:
	default:
	}
	rec := &capture{ResponseWriter: w}
	f.next.ServeHTTP(rec, r)
	if s := strings.TrimSpace(rec.body.String()); s != "" && s != "[]" && rec.status == http.StatusOK {
		f.delivered <- n
	}
}

// shapeCheck checks every exchange the real client makes against the
// document Camunda publishes for Camunda 7's REST API (package c7spec):
// the client's own requests and gobpm's answers to them.
type shapeCheck struct {
	next     http.Handler
	spec     *c7spec.Spec
	mu       sync.Mutex
	checked  int
	problems []error
}

func (c *shapeCheck) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := &capture{ResponseWriter: w}
	c.next.ServeHTTP(rec, r)
	if rec.status == 0 && r.Context().Err() != nil {
		return // the client hung up on a long poll: nobody got an answer
	}
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	sent := r.Clone(context.Background())
	sent.Body = io.NopCloser(bytes.NewReader(body))
	problems := c.spec.Check(sent, status, w.Header(), rec.body.Bytes())
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checked++
	c.problems = append(c.problems, problems...)
}

// report fails the test with what departed from Camunda 7's document.
func (c *shapeCheck) report(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.problems {
		t.Error(p)
	}
	if c.checked == 0 && !t.Skipped() {
		t.Error("no exchange was checked against Camunda 7's document")
	}
}

// syncBuffer is a buffer the server's goroutines log into.
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

// capture copies an answer's body on its way out.
type capture struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *capture) WriteHeader(s int) { c.status = s; c.ResponseWriter.WriteHeader(s) }
func (c *capture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

// Flush passes flushes on.
func (c *capture) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// TestCamunda7NodeClient runs the real camunda-external-task-client-js
// (testdata/node, pinned with its lock file) against the real server:
// typed variables both ways, extendLock, handleFailure down to an
// incident, handleBpmnError caught by a boundary event, unlock, a long
// poll woken by a new task, and two workers sharing topics without ever
// holding one task together.
func TestCamunda7NodeClient(t *testing.T) {
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
	if _, err := acc.CreateUser(ctx, "", access.NewUser{ID: "node-worker", Password: "correct horse battery"}); err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "node-worker"}, Role: auth.RoleWorker}); err != nil {
		t.Fatal(err)
	}
	var files []runtime.File
	for _, name := range []string{"c7-order.bpmn", "c7-report.bpmn"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, runtime.File{Name: name, Content: b})
	}
	if _, err := rt.Deploy(ctx, files); err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	spec, err := c7spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	shapes := &shapeCheck{next: api.New(rt, logger, api.Options{Access: acc}), spec: spec}
	t.Cleanup(func() { shapes.report(t) })
	watch := &fetchWatch{next: shapes, arrived: make(chan int, 1000), delivered: make(chan int, 10)}
	srv := httptest.NewServer(watch) // loopback
	t.Cleanup(srv.Close)

	start := func(key string, vars map[string]any) runtime.InstanceID {
		t.Helper()
		inst, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: key, Variables: vars})
		if err != nil {
			t.Fatal(err)
		}
		return inst.ID
	}
	typed := start("c7order", map[string]any{"mode": "typed", "amount": json.Number("42"), "customer": map[string]any{"name": "Ada"}})
	failing := start("c7order", map[string]any{"mode": "fail"})
	declined := start("c7order", map[string]any{"mode": "decline"})
	unlocking := start("c7order", map[string]any{"mode": "unlock"})
	var shared []runtime.InstanceID
	for range 10 {
		shared = append(shared, start("c7order", map[string]any{"mode": "ok"}))
	}

	cmd := exec.Command(node, "worker.mjs", srv.URL+"/engine-rest", "node-worker", "correct horse battery")
	cmd.Dir = nodeDir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close() // the worker stops its clients and exits
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill() // the process this test started
			<-done
		}
		if t.Failed() {
			t.Logf("worker stderr:\n%s", stderr.String())
		}
	})
	events := make(chan event, 1000)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				ev = event{Ev: "error", Msg: "unparsable line: " + sc.Text()}
			}
			events <- ev
		}
		close(events)
	}()

	// Collect events until every instance reached its end or incident.
	var all []event
	var typedEv *event
	reportStarted := false
	var reportID runtime.InstanceID
	inflight := 0
	deliveredBy := 0
	deadline := time.After(2 * time.Minute) // a hang, not a timing assertion
	// Every task's completion (or BPMN error) is reported once the client
	// has its answer: 13 charge tasks (all but the failing one), 12 ship
	// tasks (all but the declined one's) and the report task.
	const wantFinished = 13 + 12 + 1
	finished := 0
	settled := func() bool {
		if finished < wantFinished {
			return false
		}
		for _, id := range append([]runtime.InstanceID{typed, declined, unlocking}, shared...) {
			if v, err := rt.Instance(ctx, id); err != nil || v.Status != runtime.StatusCompleted {
				return false
			}
		}
		v, err := rt.Instance(ctx, failing)
		return err == nil && v.Status == runtime.StatusFailed && deliveredBy != 0
	}
	for !settled() {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the worker exited early; events %v", all)
			}
			if ev.Ev == "error" {
				t.Errorf("worker error: %s (%s)", ev.Msg, ev.Worker)
			}
			if ev.Ev == "typed" {
				typedEv = &ev
			}
			if ev.Ev == "handled" && (ev.Action == "complete" || ev.Action == "bpmnError") {
				finished++
			}
			all = append(all, ev)
		case n := <-watch.arrived:
			// The report worker's long poll is in (or about to be in) the
			// runtime: a new report task must wake this very poll.
			if !reportStarted {
				reportStarted, inflight = true, n
				reportID = start("c7report", nil)
				shared = append(shared, reportID)
			}
		case n := <-watch.delivered:
			deliveredBy = n
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatalf("the instances did not settle; events %v", all)
		}
	}

	// The long poll that was open when the report task appeared delivered it.
	if deliveredBy != inflight {
		t.Errorf("the report task came with poll #%d, want the poll #%d that was waiting when it appeared", deliveredBy, inflight)
	}

	// Typed variables read by the client, and written by it.
	if typedEv == nil {
		t.Fatal("no typed event")
	}
	// The client reports type names in lower case.
	if typedEv.Types["amount"] != "integer" || typedEv.Types["customer"] != "json" || typedEv.Types["mode"] != "string" ||
		typedEv.Customer["name"] != "Ada" || fmt.Sprint(typedEv.Amount) != "42" {
		t.Errorf("typed event = %+v", *typedEv)
	}
	v, err := rt.Instance(ctx, typed)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"txn": "t-1", "qty": "7", "big": "1234567890123", "rate": "0.25", "paid": "true",
		"at": "2026-01-02T03:04:05.000+0000", "receipt": "map[lines:[1 2]]", "note": "<nil>", "shipped": "true"}
	for name, w := range want {
		if got, ok := v.Variables[name]; !ok || fmt.Sprint(got) != w {
			t.Errorf("variable %s = %v (present %v), want %s", name, got, ok, w)
		}
	}

	// handleFailure down to an incident; handleBpmnError caught.
	f, _ := rt.Instance(ctx, failing)
	if len(f.Incidents) != 1 || !strings.Contains(f.Incidents[0].Message, "card service down") {
		t.Errorf("incidents of the failing instance = %+v", f.Incidents)
	}
	d, _ := rt.Instance(ctx, declined)
	if d.Variables["reason"] != "funds" {
		t.Errorf("declined instance variables = %v", d.Variables)
	}

	// Each task was completed once, by one worker; the unlocked task was
	// released without a penalty and completed later.
	completed := map[string]string{}
	unlockedRetries := map[string]int{}
	for _, ev := range all {
		if ev.Ev != "handled" {
			continue
		}
		switch ev.Action {
		case "complete", "bpmnError":
			if w, dup := completed[ev.Task]; dup {
				t.Errorf("task %s handled by %s and again by %s", ev.Task, w, ev.Worker)
			}
			completed[ev.Task] = ev.Worker
			if r, ok := unlockedRetries[ev.Task]; ok && (ev.Retries == nil || *ev.Retries != r) {
				t.Errorf("unlocked task %s came back with retries %v, want %d", ev.Task, ev.Retries, r)
			}
		case "unlock":
			if ev.Retries != nil {
				unlockedRetries[ev.Task] = *ev.Retries
			}
		}
	}
	if len(unlockedRetries) != 1 {
		t.Errorf("unlocked tasks = %v, want one", unlockedRetries)
	}
	if len(completed) != wantFinished {
		t.Errorf("%d tasks finished, want %d", len(completed), wantFinished)
	}
	t.Logf("tasks completed per worker: %v", perWorker(completed))
}

// perWorker counts the completed tasks of each worker.
func perWorker(completed map[string]string) map[string]int {
	out := map[string]int{}
	for _, w := range completed {
		out[w]++
	}
	return out
}
