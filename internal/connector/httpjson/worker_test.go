package httpjson

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// syncBuffer is a log sink safe for the worker's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// bundle is a real runtime on SQLite with the worker running.
type bundle struct {
	rt  *runtime.Runtime
	dir string
	log *syncBuffer
	w   *Worker
}

// setup starts a runtime on SQLite in a temp dir and the worker with opts
// (a short lock, so extensions and cancellations show quickly).
func setup(t *testing.T, opts Options) *bundle {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	if err := rt.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if opts.LockDuration == 0 {
		opts.LockDuration = 900 * time.Millisecond
	}
	opts.PollTimeout = 200 * time.Millisecond
	w, err := New(rt, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.Start(ctx)
	t.Cleanup(func() { _ = db.Close() })
	t.Cleanup(func() { _ = rt.Close() })
	t.Cleanup(w.Stop)
	return &bundle{rt: rt, dir: dir, log: logs, w: w}
}

// task describes one REST connector task of a test model.
type task struct {
	inputs  [][2]string // source, target
	headers [][2]string // key, value
	retries int
	// catch adds an error boundary event catching this code.
	catch string
}

// model is a process "p": start → the task "call" → end "done", and with
// task.catch an error boundary → end "caught".
func model(tk task) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs" targetNamespace="urn:test">
  <bpmn:error id="err" errorCode="%s" />
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="call" zeebe:modelerTemplate="io.camunda.connectors.HttpJson.v2">
      <bpmn:extensionElements>
        <zeebe:taskDefinition type="io.camunda:http-json:1" retries="%d" />
        <zeebe:ioMapping>
`, html.EscapeString(tk.catch), tk.retries)
	for _, in := range tk.inputs {
		fmt.Fprintf(&b, "          <zeebe:input source=\"%s\" target=\"%s\" />\n", html.EscapeString(in[0]), in[1])
	}
	b.WriteString("        </zeebe:ioMapping>\n        <zeebe:taskHeaders>\n")
	for _, h := range tk.headers {
		fmt.Fprintf(&b, "          <zeebe:header key=\"%s\" value=\"%s\" />\n", h[0], html.EscapeString(h[1]))
	}
	b.WriteString(`        </zeebe:taskHeaders>
      </bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:endEvent id="done" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="call" />
    <bpmn:sequenceFlow id="f2" sourceRef="call" targetRef="done" />
`)
	if tk.catch != "" {
		b.WriteString(`    <bpmn:boundaryEvent id="onError" attachedToRef="call"><bpmn:errorEventDefinition errorRef="err" /></bpmn:boundaryEvent>
    <bpmn:endEvent id="caught" />
    <bpmn:sequenceFlow id="f3" sourceRef="onError" targetRef="caught" />
`)
	}
	b.WriteString("  </bpmn:process>\n</bpmn:definitions>\n")
	return b.String()
}

// run deploys tk's model, starts it with vars and waits until it ends or
// has an open incident.
func (b *bundle) run(t *testing.T, tk task, vars map[string]any) runtime.InstanceView {
	t.Helper()
	return b.runXML(t, "p", []byte(model(tk)), vars)
}

func (b *bundle) runXML(t *testing.T, key string, xml []byte, vars map[string]any) runtime.InstanceView {
	t.Helper()
	ctx := context.Background()
	if _, err := b.rt.Deploy(ctx, []runtime.File{{Name: key + ".bpmn", Content: xml}}); err != nil {
		t.Fatalf("deploy: %v", err)
	}
	v, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: key, Variables: vars})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return b.await(t, v.ID, func(v runtime.InstanceView) bool { return v.Status != "running" || openIncidents(v) > 0 })
}

// await polls the instance until ok.
func (b *bundle) await(t *testing.T, id runtime.InstanceID, ok func(runtime.InstanceView) bool) runtime.InstanceView {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		v, err := b.rt.Instance(context.Background(), id)
		if err != nil {
			t.Fatalf("instance: %v", err)
		}
		if ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance %s still %s with %d incidents; log:\n%s", id, v.Status, len(v.Incidents), b.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func openIncidents(v runtime.InstanceView) int {
	n := 0
	for _, i := range v.Incidents {
		if i.ResolvedAt.IsZero() {
			n++
		}
	}
	return n
}

// incident returns the message of the instance's one open incident.
func incident(t *testing.T, v runtime.InstanceView) string {
	t.Helper()
	for _, i := range v.Incidents {
		if i.ResolvedAt.IsZero() {
			return i.Message
		}
	}
	t.Fatalf("instance %s (%s) has no open incident; variables %v", v.ID, v.Status, v.Variables)
	return ""
}

// completed fails unless v completed.
func completed(t *testing.T, v runtime.InstanceView) {
	t.Helper()
	if v.Status != "completed" {
		msg := ""
		if openIncidents(v) > 0 {
			msg = incident(t, v)
		}
		t.Fatalf("instance %s is %s: %s", v.ID, v.Status, msg)
	}
}

// echo answers every request with what it received as JSON.
func echo(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	user, pass, _ := r.BasicAuth()
	out := map[string]any{"method": r.Method, "path": r.URL.Path, "query": r.URL.Query(), "contentType": r.Header.Get("Content-Type"),
		"authorization": r.Header.Get("Authorization"), "apiKey": r.Header.Get("X-Api-Key"), "user": user, "password": pass,
		"text": string(body), "header": r.Header.Get("X-Test")}
	var js any
	if json.Unmarshal(body, &js) == nil {
		out["json"] = js
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Echo", "yes")
	_ = json.NewEncoder(w).Encode(out)
}

// loopback allows the test servers, which listen on 127.0.0.1.
var loopback = Options{AllowHosts: []string{"127.0.0.1"}}

// body returns the echoed body in v's variable name.
func body(t *testing.T, v runtime.InstanceView, name string) map[string]any {
	t.Helper()
	r, ok := v.Variables[name].(map[string]any)
	if !ok {
		t.Fatalf("variable %s = %#v (variables %v)", name, v.Variables[name], v.Variables)
	}
	b, ok := r["body"].(map[string]any)
	if !ok {
		t.Fatalf("%s.body = %#v", name, r["body"])
	}
	return b
}

func TestMethodsAndBodies(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(echo))
	defer srv.Close()
	b := setup(t, loopback)
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		t.Run(m, func(t *testing.T) {
			v := b.run(t, task{retries: 1, inputs: [][2]string{
				{"noAuth", "authentication.type"}, {m, "method"}, {srv.URL + "/items", "url"},
				{`={"X-Test": "h1"}`, "headers"}, {`={q: "a b", n: 2}`, "queryParameters"},
				{`={name: "Jane", n: 1}`, "body"},
			}, headers: [][2]string{{"resultVariable", "response"}}}, nil)
			completed(t, v)
			got := body(t, v, "response")
			if got["method"] != m || got["path"] != "/items" || got["header"] != "h1" || got["contentType"] != "application/json" {
				t.Fatalf("echo = %v", got)
			}
			if q := got["query"].(map[string]any); fmt.Sprint(q["q"]) != "[a b]" || fmt.Sprint(q["n"]) != "[2]" {
				t.Fatalf("query = %v", q)
			}
			if js, _ := got["json"].(map[string]any); fmt.Sprint(js["name"]) != "Jane" {
				t.Fatalf("json body = %v", got["json"])
			}
			if status := fmt.Sprint(v.Variables["response"].(map[string]any)["status"]); status != "200" {
				t.Fatalf("status = %s", status)
			}
		})
	}
	t.Run("text body", func(t *testing.T) {
		v := b.run(t, task{retries: 1, inputs: [][2]string{{"POST", "method"}, {srv.URL, "url"}, {"hello there", "body"}},
			headers: [][2]string{{"resultVariable", "r"}}}, nil)
		completed(t, v)
		if got := body(t, v, "r"); got["text"] != "hello there" || !strings.HasPrefix(fmt.Sprint(got["contentType"]), "text/plain") {
			t.Fatalf("echo = %v", got)
		}
	})
	t.Run("text answer", func(t *testing.T) {
		txt := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "plain words") }))
		defer txt.Close()
		v := b.run(t, task{retries: 1, inputs: [][2]string{{"GET", "method"}, {txt.URL, "url"}},
			headers: [][2]string{{"resultVariable", "r"}}}, nil)
		completed(t, v)
		if got := v.Variables["r"].(map[string]any)["body"]; got != "plain words" {
			t.Fatalf("body = %#v", got)
		}
	})
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	var tokenCalls sync.Map
	mux := http.NewServeMux()
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		id, secret, basic := r.BasicAuth()
		if !basic {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if r.PostForm.Get("grant_type") != "client_credentials" || id != "client" || secret != "s3cret" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		tokenCalls.Store(fmt.Sprintf("basic=%v audience=%s scope=%s", basic, r.PostForm.Get("audience"), r.PostForm.Get("scope")), true)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"access_token":"tok-123","token_type":"Bearer","expires_in":60}`)
	})
	mux.HandleFunc("/", echo)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	b := setup(t, loopback)
	cases := []struct {
		name   string
		inputs [][2]string
		check  func(map[string]any) bool
	}{
		{"none", [][2]string{{"noAuth", "authentication.type"}}, func(e map[string]any) bool { return e["authorization"] == "" }},
		{"basic", [][2]string{{"basic", "authentication.type"}, {"ann", "authentication.username"}, {"pw", "authentication.password"}},
			func(e map[string]any) bool { return e["user"] == "ann" && e["password"] == "pw" }},
		{"bearer", [][2]string{{"bearer", "authentication.type"}, {"abc", "authentication.token"}},
			func(e map[string]any) bool { return e["authorization"] == "Bearer abc" }},
		{"api key", [][2]string{{"apiKey", "authentication.type"}, {"headers", "authentication.apiKeyLocation"}, {"X-Api-Key", "authentication.name"}, {"k1", "authentication.value"}},
			func(e map[string]any) bool { return e["apiKey"] == "k1" }},
		{"oauth in body", [][2]string{{"oauth-client-credentials-flow", "authentication.type"}, {srv.URL + "/token", "authentication.oauthTokenEndpoint"},
			{"client", "authentication.clientId"}, {"s3cret", "authentication.clientSecret"}, {"api", "authentication.audience"},
			{"credentialsBody", "authentication.clientAuthentication"}, {"read write", "authentication.scopes"}},
			func(e map[string]any) bool { return e["authorization"] == "Bearer tok-123" }},
		{"oauth basic header", [][2]string{{"oauth-client-credentials-flow", "authentication.type"}, {srv.URL + "/token", "authentication.oauthTokenEndpoint"},
			{"client", "authentication.clientId"}, {"s3cret", "authentication.clientSecret"}, {"basicAuthHeader", "authentication.clientAuthentication"}},
			func(e map[string]any) bool { return e["authorization"] == "Bearer tok-123" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := append([][2]string{{"GET", "method"}, {srv.URL, "url"}}, c.inputs...)
			v := b.run(t, task{retries: 1, inputs: in, headers: [][2]string{{"resultVariable", "r"}}}, nil)
			completed(t, v)
			if e := body(t, v, "r"); !c.check(e) {
				t.Fatalf("echo = %v", e)
			}
		})
	}
	for _, want := range []string{"basic=false audience=api scope=read write", "basic=true audience= scope="} {
		if _, ok := tokenCalls.Load(want); !ok {
			t.Errorf("no token request with %s", want)
		}
	}
	t.Run("oauth refused", func(t *testing.T) {
		v := b.run(t, task{retries: 1, inputs: [][2]string{{"GET", "method"}, {srv.URL, "url"}, {"oauth-client-credentials-flow", "authentication.type"},
			{srv.URL + "/token", "authentication.oauthTokenEndpoint"}, {"client", "authentication.clientId"}, {"wrong", "authentication.clientSecret"}}}, nil)
		if msg := incident(t, v); !strings.Contains(msg, "oauth token: HTTP 401") {
			t.Fatalf("incident = %q", msg)
		}
	})
}
