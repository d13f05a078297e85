package httpjson

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// status answers code with a JSON body.
func status(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

func TestResultAndErrorExpressions(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", status(200, `{"id": 7, "ok": false, "items": [1, 2]}`))
	mux.HandleFunc("/missing", status(404, `{"reason": "no such item"}`))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	b := setup(t, loopback)
	get := func(path string) [][2]string { return [][2]string{{"GET", "method"}, {srv.URL + path, "url"}} }

	t.Run("result expression", func(t *testing.T) {
		v := b.run(t, task{retries: 1, inputs: get("/ok"), headers: [][2]string{
			{"resultExpression", `={id: body.id, code: status, fromResponse: response.body.items[2], typ: get value(headers, "Content-Type")}`}}}, nil)
		completed(t, v)
		got := fmt.Sprint(v.Variables["id"], " ", v.Variables["code"], " ", v.Variables["fromResponse"], " ", v.Variables["typ"])
		if got != "7 200 2 application/json" {
			t.Fatalf("variables = %v", v.Variables)
		}
		if _, ok := v.Variables["body"]; ok {
			t.Fatalf("the response leaked into the variables: %v", v.Variables)
		}
	})
	t.Run("result expression not a context", func(t *testing.T) {
		v := b.run(t, task{retries: 3, inputs: get("/ok"), headers: [][2]string{{"resultExpression", `=body.id`}}}, nil)
		if msg := incident(t, v); !strings.Contains(msg, "resultExpression must return a context") {
			t.Fatalf("incident = %q", msg)
		}
	})
	t.Run("error expression on success throws", func(t *testing.T) {
		v := b.run(t, task{retries: 1, catch: "NOT_OK", inputs: get("/ok"), headers: [][2]string{
			{"errorExpression", `=if body.ok = false then bpmnError("NOT_OK", "the item is not ok", {item: body.id}) else null`}}}, nil)
		completed(t, v)
		if !passed(t, b, v.ID, "caught") || fmt.Sprint(v.Variables["item"]) != "7" {
			t.Fatalf("not caught, variables %v", v.Variables)
		}
	})
	t.Run("error expression on success passes", func(t *testing.T) {
		v := b.run(t, task{retries: 1, catch: "NOT_OK", inputs: get("/ok"), headers: [][2]string{{"resultVariable", "r"},
			{"errorExpression", `=if body.ok = true then bpmnError("NOT_OK", "x") else null`}}}, nil)
		completed(t, v)
		if passed(t, b, v.ID, "caught") || v.Variables["r"] == nil {
			t.Fatalf("caught, variables %v", v.Variables)
		}
	})
	t.Run("error expression on 404", func(t *testing.T) {
		v := b.run(t, task{retries: 3, catch: "NOT_FOUND", inputs: get("/missing"), headers: [][2]string{
			{"errorExpression", `=if error.code = "404" then bpmnError("NOT_FOUND", error.message, {why: error.variables.response.body.reason}) else null`}}}, nil)
		completed(t, v)
		if !passed(t, b, v.ID, "caught") || v.Variables["why"] != "no such item" {
			t.Fatalf("not caught, variables %v", v.Variables)
		}
	})
	// Camunda's overloads leave trailing arguments out: bpmnError(code,
	// message) throws and jobError(message) fails the job with no retries,
	// where a call FEEL cannot match would evaluate to null and do nothing.
	t.Run("short forms", func(t *testing.T) {
		v := b.run(t, task{retries: 3, catch: "GONE", inputs: get("/missing"), headers: [][2]string{
			{"errorExpression", `=if error.code = "404" then bpmnError("GONE", error.message) else null`}}}, nil)
		completed(t, v)
		if !passed(t, b, v.ID, "caught") {
			t.Fatalf("bpmnError(code, message) not caught, variables %v", v.Variables)
		}
		v = b.run(t, task{retries: 3, inputs: get("/missing"), headers: [][2]string{
			{"errorExpression", `=jobError("client error " + error.code)`}}}, nil)
		if msg := incident(t, v); msg != "client error 404" {
			t.Fatalf("jobError(message): incident = %q", msg)
		}
	})
	t.Run("job error", func(t *testing.T) {
		v := b.run(t, task{retries: 3, inputs: get("/missing"), headers: [][2]string{
			{"errorExpression", `=if matches(error.code, "4[0-9]{2}") then jobError("client error " + error.code, {}, 0, @"PT1S") else null`}}}, nil)
		if msg := incident(t, v); msg != "client error 404" {
			t.Fatalf("incident = %q", msg)
		}
	})
	t.Run("job error with variables", func(t *testing.T) {
		v := b.run(t, task{retries: 3, inputs: get("/missing"), headers: [][2]string{
			{"errorExpression", `=jobError("client error " + error.code, {lastStatus: error.code, why: error.variables.response.body.reason}, 0, @"PT1S")`}}}, nil)
		if msg := incident(t, v); msg != "client error 404" {
			t.Fatalf("incident = %q", msg)
		}
		// Its variables are local variables of the task, not the instance's.
		if _, ok := v.Variables["lastStatus"]; ok {
			t.Errorf("the failure's variables reached the instance: %v", v.Variables)
		}
		var local map[string]any
		for _, sc := range v.Scopes {
			if sc.NodeID == "call" {
				local = sc.Variables
			}
		}
		if local["lastStatus"] != "404" || local["why"] != "no such item" {
			t.Errorf("the task's local variables = %v (scopes %+v)", local, v.Scopes)
		}
	})
	t.Run("4xx without error expression", func(t *testing.T) {
		v := b.run(t, task{retries: 1, inputs: get("/missing")}, nil)
		if msg := incident(t, v); msg != `HTTP 404 Not Found: {"reason": "no such item"}` {
			t.Fatalf("incident = %q", msg)
		}
	})
}

// passed reports whether the instance's history shows element id.
func passed(t *testing.T, b *bundle, id runtime.InstanceID, element string) bool {
	t.Helper()
	facts, err := b.rt.History(context.Background(), id, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range facts {
		if f.NodeID == element {
			return true
		}
	}
	return false
}

func TestRetriesToIncident(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		status(500, strings.Repeat("x", 500))(w, r)
	}))
	defer srv.Close()
	b := setup(t, loopback)
	start := time.Now()
	v := b.run(t, task{retries: 3, inputs: [][2]string{{"POST", "method"}, {srv.URL, "url"}}, headers: [][2]string{{"retryBackoff", "PT0.3S"}}}, nil)
	msg := incident(t, v)
	if !strings.HasPrefix(msg, "HTTP 500 Internal Server Error: xxxx") || len(msg) > 300 {
		t.Fatalf("incident = %q", msg)
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("%d calls, want 3", n)
	}
	if d := time.Since(start); d < 600*time.Millisecond {
		t.Fatalf("three attempts in %v: the backoff was not kept", d)
	}
	// The incident resolved with new retries calls again.
	if _, err := b.rt.RetryIncident(context.Background(), v.Incidents[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	b.await(t, v.ID, func(v runtime.InstanceView) bool { return calls.Load() == 4 && openIncidents(v) == 1 })
}

func TestTimeouts(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	b := setup(t, loopback)
	start := time.Now()
	v := b.run(t, task{retries: 1, inputs: [][2]string{{"GET", "method"}, {srv.URL, "url"}, {"1", "readTimeoutInSeconds"}, {"1", "connectionTimeoutInSeconds"}}}, nil)
	if msg := incident(t, v); !strings.Contains(msg, "timed out") {
		t.Fatalf("incident = %q", msg)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the call took %v", d)
	}
}

func TestBlockedAddresses(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
			return
		}
		if r.URL.Path == "/redirect-local" {
			http.Redirect(w, r, "http://127.0.0.2:1/", http.StatusFound)
			return
		}
		w.WriteHeader(204)
	}))
	defer srv.Close()
	t.Run("loopback without the allow option", func(t *testing.T) {
		b := setup(t, Options{})
		v := b.run(t, task{retries: 1, inputs: [][2]string{{"GET", "method"}, {srv.URL, "url"}}}, nil)
		if msg := incident(t, v); !strings.Contains(msg, ErrBlockedAddress.Error()) || !strings.Contains(msg, "127.0.0.1") {
			t.Fatalf("incident = %q", msg)
		}
		local := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
		v = b.run(t, task{retries: 1, inputs: [][2]string{{"GET", "method"}, {local, "url"}}}, nil)
		if msg := incident(t, v); !strings.Contains(msg, ErrBlockedAddress.Error()) {
			t.Fatalf("incident = %q", msg)
		}
	})
	t.Run("redirects re-checked", func(t *testing.T) {
		b := setup(t, loopback)
		for _, path := range []string{"/redirect", "/redirect-local"} {
			v := b.run(t, task{retries: 1, inputs: [][2]string{{"GET", "method"}, {srv.URL + path, "url"}}}, nil)
			if msg := incident(t, v); !strings.Contains(msg, ErrBlockedAddress.Error()) {
				t.Fatalf("%s: incident = %q", path, msg)
			}
		}
	})
	if hits.Load() != 2 {
		t.Errorf("%d requests reached the server, want the two redirecting ones", hits.Load())
	}
}

func TestGuard(t *testing.T) {
	t.Parallel()
	g, err := newGuard([]string{"api.internal", "*.corp.example", "10.1.0.0/16", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]bool{"api.internal": true, "API.internal.": true, "x.corp.example": true, "corp.example": false, "other": false} {
		if got := g.nameAllowed(host); got != want {
			t.Errorf("nameAllowed(%s) = %v", host, got)
		}
	}
	for addr, want := range map[string]bool{"10.1.2.3": true, "10.2.0.1": false, "::1": true, "127.0.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "100.64.0.1": false, "::ffff:127.0.0.1": false, "fd00::1": false, "fe80::1": false, "0.0.0.0": false,
		"93.184.216.34": true, "2606:4700::1111": true} {
		if got := g.addrAllowed(mustAddr(t, addr)); got != want {
			t.Errorf("addrAllowed(%s) = %v", addr, got)
		}
	}
	if _, err := newGuard([]string{"10.0.0.0/99"}); err == nil {
		t.Error("a bad network was accepted")
	}
	_, err = g.dial(context.Background(), "tcp", "127.0.0.1:1")
	if !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("dial 127.0.0.1 = %v", err)
	}
}

func TestBodyLimits(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("y", 2000))
	}))
	defer srv.Close()
	b := setup(t, Options{AllowHosts: []string{"127.0.0.1"}, MaxBodyBytes: 1000})
	v := b.run(t, task{retries: 1, inputs: [][2]string{{"GET", "method"}, {srv.URL, "url"}}}, nil)
	if msg := incident(t, v); !strings.Contains(msg, "body too large") {
		t.Fatalf("incident = %q", msg)
	}
	v = b.run(t, task{retries: 1, inputs: [][2]string{{"POST", "method"}, {srv.URL, "url"}, {"=big", "body"}}}, map[string]any{"big": strings.Repeat("z", 1500)})
	if msg := incident(t, v); !strings.Contains(msg, "request body too large") {
		t.Fatalf("incident = %q", msg)
	}
}

func TestCancelledWithItsJob(t *testing.T) {
	t.Parallel()
	gone := make(chan struct{})
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
			close(gone)
		case <-time.After(20 * time.Second):
		}
	}))
	defer srv.Close()
	b := setup(t, Options{AllowHosts: []string{"127.0.0.1"}, LockDuration: 300 * time.Millisecond})
	ctx := context.Background()
	if _, err := b.rt.Deploy(ctx, []runtime.File{{Name: "p.bpmn", Content: []byte(model(task{retries: 1,
		inputs: [][2]string{{"GET", "method"}, {srv.URL, "url"}, {"30", "readTimeoutInSeconds"}}}))}}); err != nil {
		t.Fatal(err)
	}
	v, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "p"})
	if err != nil {
		t.Fatal(err)
	}
	<-arrived
	time.Sleep(700 * time.Millisecond) // past the first lock: it is being extended
	if w := b.waits(t, v.ID); w != 1 {
		t.Fatalf("%d waits while the call runs", w)
	}
	if _, err := b.rt.Cancel(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the call went on after its instance was cancelled")
	}
}

// waits counts the instance's open waits.
func (b *bundle) waits(t *testing.T, id runtime.InstanceID) int {
	t.Helper()
	v, err := b.rt.Instance(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return v.WaitCount
}
