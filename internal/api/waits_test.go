package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
)

// waitsBundle returns a bundle over a fresh fake with the wait seed data.
func waitsBundle(t *testing.T) (*bundle, *fakeService) {
	t.Helper()
	f := newFake()
	return setup(t, f, api.Options{}), f
}

// as sends a JSON POST (body "" sends none) with the given identity headers;
// an empty user sends no user header.
func (b *bundle) as(user, groups, path, body string) *response {
	b.t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if user != "" {
		req.Header.Set(api.HeaderUser, user)
	}
	if groups != "" {
		req.Header.Set(api.HeaderGroups, groups)
	}
	return b.do(req)
}

// noContent checks a 204 answer without a body.
func (r *response) noContent(tb testing.TB) {
	tb.Helper()
	r.wantStatus(tb, http.StatusNoContent)
	if len(r.Body) != 0 || r.Header.Get("Content-Type") != "" {
		tb.Errorf("204 has body %q, Content-Type %q", r.Body, r.Header.Get("Content-Type"))
	}
}

// locked runs fn with the fake's lock held.
func locked[T any](f *fakeService, fn func() T) T {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fn()
}

// fieldCase is a request that must fail with a problem naming field.
type fieldCase struct {
	name, body  string
	status      int
	slug, field string
}

func runFieldCases(t *testing.T, b *bundle, path string, cases []fieldCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct := "application/json"
			if tc.status == http.StatusUnsupportedMediaType {
				ct = "text/plain"
			}
			p := b.send(http.MethodPost, path, ct, tc.body).problem(t, tc.status, tc.slug)
			if p.Field != tc.field {
				t.Errorf("field = %q, want %q (detail %q)", p.Field, tc.field, p.Detail)
			}
		})
	}
}

func TestActivateJobs(t *testing.T) {
	t.Parallel()

	t.Run("defaults and job shape", func(t *testing.T) {
		t.Parallel()
		b, f := waitsBundle(t)
		got := b.postJSON("/api/v1/jobs/activate", `{"type":"mail","worker":"w1","lockDurationMs":60000}`).wantStatus(t, http.StatusOK).object(t)
		jobs := got["jobs"].([]any)
		if len(jobs) != 2 {
			t.Fatalf("jobs = %v", jobs)
		}
		want := `{"customHeaders":{},"deadline":"2025-03-01T11:01:00.123456789Z","instanceId":"inst-1","key":"job-1","lockToken":"lock-job-1","nodeId":"Send_1","retries":3,"type":"mail","variables":{"to":"a@example.com"}}`
		if s := mustJSON(t, jobs[0]); s != want {
			t.Errorf("job = %s, want %s", s, want)
		}
		if s := mustJSON(t, jobs[1].(map[string]any)["variables"]); s != "{}" {
			t.Errorf("variables of a job without any = %s, want {}", s)
		}
		req := locked(f, func() runtime.ActivateRequest { return f.waits.lastActivate })
		wantReq := runtime.ActivateRequest{Type: "mail", Worker: "w1", MaxJobs: 10, LockDuration: time.Minute}
		if !reflect.DeepEqual(req, wantReq) {
			t.Errorf("request = %+v, want %+v", req, wantReq)
		}
		// Both are locked now: nothing more, and an empty array, not null.
		res := b.postJSON("/api/v1/jobs/activate", `{"type":"mail","worker":"w1","lockDurationMs":60000,"requestTimeoutMs":0,"maxJobs":null}`).wantStatus(t, http.StatusOK)
		if string(res.Body) != `{"jobs":[]}` {
			t.Errorf("answer = %s", res.Body)
		}
	})

	t.Run("parameters are passed on", func(t *testing.T) {
		t.Parallel()
		b, f := waitsBundle(t)
		got := b.postJSON("/api/v1/jobs/activate", `{"type":"mail","worker":"w2","maxJobs":1,"lockDurationMs":86400000,"requestTimeoutMs":300000,"extra":true}`).
			wantStatus(t, http.StatusOK).object(t)
		if n := len(got["jobs"].([]any)); n != 1 {
			t.Errorf("jobs = %d, want 1", n)
		}
		req := locked(f, func() runtime.ActivateRequest { return f.waits.lastActivate })
		wantReq := runtime.ActivateRequest{Type: "mail", Worker: "w2", MaxJobs: 1, LockDuration: 24 * time.Hour, RequestTimeout: 5 * time.Minute}
		if !reflect.DeepEqual(req, wantReq) {
			t.Errorf("request = %+v, want %+v", req, wantReq)
		}
		b.postJSON("/api/v1/jobs/activate", `{"type":"mail","worker":"w2","maxJobs":1000,"lockDurationMs":1}`).wantStatus(t, http.StatusOK)
		if n := locked(f, func() int { return f.waits.lastActivate.MaxJobs }); n != 1000 {
			t.Errorf("maxJobs = %d, want 1000", n)
		}
		// The caller's identity is the user the jobs belong to.
		b.as(" ann ", "", "/api/v1/jobs/activate", `{"type":"mail","worker":"w2","lockDurationMs":1}`).wantStatus(t, http.StatusOK)
		if u := locked(f, func() string { return f.waits.lastActivate.User }); u != "ann" {
			t.Errorf("user = %q, want ann", u)
		}
	})

	t.Run("long poll times out empty", func(t *testing.T) {
		t.Parallel()
		b, f := waitsBundle(t)
		res := b.postJSON("/api/v1/jobs/activate", `{"type":"none","worker":"w","lockDurationMs":1000,"requestTimeoutMs":20}`).wantStatus(t, http.StatusOK)
		if string(res.Body) != `{"jobs":[]}` {
			t.Errorf("answer = %s", res.Body)
		}
		if d := locked(f, func() time.Duration { return f.waits.lastActivate.RequestTimeout }); d != 20*time.Millisecond {
			t.Errorf("request timeout = %v", d)
		}
	})

	t.Run("long poll answers when a job appears", func(t *testing.T) {
		t.Parallel()
		b, f := waitsBundle(t)
		done := make(chan *response, 1)
		go func() {
			done <- b.postJSON("/api/v1/jobs/activate", `{"type":"late","worker":"w","lockDurationMs":1000,"requestTimeoutMs":60000}`)
		}()
		waitFor(t, f.waits.pollStarted, "the long poll to start")
		key := f.AddJob("late")
		select {
		case res := <-done:
			jobs := res.wantStatus(t, http.StatusOK).object(t)["jobs"].([]any)
			if len(jobs) != 1 || jobs[0].(map[string]any)["key"] != key {
				t.Errorf("jobs = %v, want %s", jobs, key)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the long poll did not answer when a job appeared")
		}
	})

	t.Run("internal error", func(t *testing.T) {
		t.Parallel()
		b, _ := waitsBundle(t)
		p := b.postJSON("/api/v1/jobs/activate", `{"type":"explode","worker":"w","lockDurationMs":1000}`).problem(t, http.StatusInternalServerError, "internal")
		if strings.Contains(p.Detail, "corrupt") {
			t.Errorf("cause leaked: %q", p.Detail)
		}
	})

	b, _ := waitsBundle(t)
	const ok = `"type":"mail","worker":"w","lockDurationMs":1000`
	runFieldCases(t, b, "/api/v1/jobs/activate", []fieldCase{
		{"empty body", ``, 400, "invalid-request", "type"},
		{"no type", `{"worker":"w","lockDurationMs":1000}`, 400, "invalid-request", "type"},
		{"blank type", `{"type":" ","worker":"w","lockDurationMs":1000}`, 400, "invalid-request", "type"},
		{"type a number", `{"type":7,"worker":"w","lockDurationMs":1000}`, 400, "invalid-request", "type"},
		{"no worker", `{"type":"mail","lockDurationMs":1000}`, 400, "invalid-request", "worker"},
		{"worker an object", `{"type":"mail","worker":{},"lockDurationMs":1000}`, 400, "invalid-request", "worker"},
		{"maxJobs zero", `{` + ok + `,"maxJobs":0}`, 400, "invalid-request", "maxJobs"},
		{"maxJobs too many", `{` + ok + `,"maxJobs":1001}`, 400, "invalid-request", "maxJobs"},
		{"maxJobs a fraction", `{` + ok + `,"maxJobs":1.5}`, 400, "invalid-request", "maxJobs"},
		{"maxJobs a string", `{` + ok + `,"maxJobs":"5"}`, 400, "invalid-request", "maxJobs"},
		{"no lock", `{"type":"mail","worker":"w"}`, 400, "invalid-request", "lockDurationMs"},
		{"null lock", `{"type":"mail","worker":"w","lockDurationMs":null}`, 400, "invalid-request", "lockDurationMs"},
		{"zero lock", `{"type":"mail","worker":"w","lockDurationMs":0}`, 400, "invalid-request", "lockDurationMs"},
		{"negative lock", `{"type":"mail","worker":"w","lockDurationMs":-5}`, 400, "invalid-request", "lockDurationMs"},
		{"lock over a day", `{"type":"mail","worker":"w","lockDurationMs":86400001}`, 400, "invalid-request", "lockDurationMs"},
		{"lock exponent", `{"type":"mail","worker":"w","lockDurationMs":1e3}`, 400, "invalid-request", "lockDurationMs"},
		{"negative timeout", `{` + ok + `,"requestTimeoutMs":-1}`, 400, "invalid-request", "requestTimeoutMs"},
		{"timeout over 5 min", `{` + ok + `,"requestTimeoutMs":300001}`, 400, "invalid-request", "requestTimeoutMs"},
		{"timeout a bool", `{` + ok + `,"requestTimeoutMs":true}`, 400, "invalid-request", "requestTimeoutMs"},
		{"malformed", `{"type":`, 400, "malformed-json", ""},
		{"not an object", `["mail"]`, 400, "invalid-request", ""},
		{"text body", `{` + ok + `}`, 415, "unsupported-media-type", ""},
	})
}

// waitFor receives from ch or fails after a generous timeout.
func waitFor[T any](tb testing.TB, ch <-chan T, what string) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		tb.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// TestActivateJobsClientGoes checks that the long poll ends with the
// request: the service sees its context cancelled, and the server logs a
// client-closed request, not an internal error.
func TestActivateJobsClientGoes(t *testing.T) {
	t.Parallel()
	const body = `{"type":"none","worker":"w","lockDurationMs":1000,"requestTimeoutMs":300000}`

	t.Run("request context", func(t *testing.T) {
		t.Parallel()
		b, f := waitsBundle(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req := httptest.NewRequest(http.MethodPost, "/api/v1/jobs/activate", strings.NewReader(body)).WithContext(ctx)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		served := make(chan struct{})
		go func() {
			b.handler.ServeHTTP(rec, req)
			close(served)
		}()
		waitFor(t, f.waits.pollStarted, "the long poll to start")
		cancel()
		if err := waitFor(t, f.waits.pollEnded, "the service to see the cancellation"); err != context.Canceled {
			t.Errorf("service saw %v, want context.Canceled", err)
		}
		waitFor(t, served, "the handler to return")
		if rec.Code != 499 {
			t.Errorf("status = %d, want 499 (client closed request)", rec.Code)
		}
		var line map[string]any
		for _, rec := range b.logs.records(t) {
			if rec["path"] == "/api/v1/jobs/activate" {
				line = rec
			}
		}
		if line == nil || line["level"] != "WARN" || line["status"] != float64(499) || line["error"] != nil {
			t.Errorf("log line = %v, want a WARN 499 without an error", line)
		}
	})

	t.Run("client disconnects", func(t *testing.T) {
		t.Parallel()
		b, f := waitsBundle(t)
		srv := httptest.NewServer(b.handler)
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/api/v1/jobs/activate", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		errc := make(chan error, 1)
		go func() {
			res, err := srv.Client().Do(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, res.Body)
				_ = res.Body.Close()
			}
			errc <- err
		}()
		waitFor(t, f.waits.pollStarted, "the long poll to start")
		cancel()
		if err := waitFor(t, errc, "the client to give up"); err == nil {
			t.Error("the cancelled client got an answer")
		}
		if err := waitFor(t, f.waits.pollEnded, "the service to see the disconnect"); err != context.Canceled {
			t.Errorf("service saw %v, want context.Canceled", err)
		}
	})
}

func TestJobActions(t *testing.T) {
	t.Parallel()

	t.Run("complete", func(t *testing.T) {
		t.Parallel()
		b, f := waitsBundle(t)
		b.postJSON("/api/v1/jobs/job-1/complete", `{"lockToken":"t1","variables":{"sent":true,"amount":0.1}}`).noContent(t)
		key, vs := locked(f, func() string { return f.waits.lastJobKey }), locked(f, func() map[string]any { return f.waits.lastVars })
		if key != "job-1" || vs["amount"] != json.Number("0.1") || vs["sent"] != true {
			t.Errorf("completed %s with %v", key, vs)
		}
		if h := locked(f, func() runtime.JobHolder { return f.waits.lastHolder }); h != (runtime.JobHolder{Token: "t1"}) {
			t.Errorf("holder = %+v, want token t1 and no user", h)
		}
		b.postJSON("/api/v1/jobs/job-1/complete", `{"lockToken":"t1"}`).problem(t, http.StatusNotFound, "not-found")
		b.as("ann", "", "/api/v1/jobs/job-2/complete", `{"lockToken":"t2"}`).noContent(t)
		if vs := locked(f, func() map[string]any { return f.waits.lastVars }); vs == nil || len(vs) != 0 {
			t.Errorf("variables of a body without any = %#v, want an empty map", vs)
		}
		if h := locked(f, func() runtime.JobHolder { return f.waits.lastHolder }); h != (runtime.JobHolder{Token: "t2", User: "ann"}) {
			t.Errorf("holder = %+v, want token t2 of ann", h)
		}
	})
	b, _ := waitsBundle(t)
	runFieldCases(t, b, "/api/v1/jobs/job-1/complete", []fieldCase{
		{"no lock token", `{"variables":{"a":1}}`, 400, "invalid-request", "lockToken"},
		{"empty body", ``, 400, "invalid-request", "lockToken"},
		{"empty lock token", `{"lockToken":" "}`, 400, "invalid-request", "lockToken"},
		{"lock token a number", `{"lockToken":7}`, 400, "invalid-request", "lockToken"},
		{"variables an array", `{"lockToken":"t","variables":[1]}`, 400, "invalid-request", "variables"},
		{"runtime rejects a variable", `{"lockToken":"t","variables":{"__bad":1}}`, 400, "invalid-request", "variables.__bad"},
		{"lock lost", `{"lockToken":"stale"}`, 409, "conflict", ""},
		{"malformed", `{`, 400, "malformed-json", ""},
		{"text body", `{"lockToken":"t"}`, 415, "unsupported-media-type", ""},
	})
	runFieldCases(t, b, "/api/v1/jobs/nope/complete", []fieldCase{{"unknown key", `{"lockToken":"t"}`, 404, "not-found", ""}})
	b.as("mallory", "", "/api/v1/jobs/job-2/complete", `{"lockToken":"t"}`).problem(t, http.StatusForbidden, "forbidden")

	t.Run("fail", func(t *testing.T) {
		t.Parallel()
		b, f := waitsBundle(t)
		b.postJSON("/api/v1/jobs/job-1/fail", `{"lockToken":"t","retries":0,"retryBackoffMs":5000,"errorMessage":"smtp down"}`).noContent(t)
		req := locked(f, func() runtime.FailRequest { return f.waits.lastFail })
		if req.Retries == nil || *req.Retries != 0 || req.RetryBackoff != 5*time.Second || req.ErrorMessage != "smtp down" {
			t.Errorf("fail request = %+v", req)
		}
		b.postJSON("/api/v1/jobs/job-1/fail", `{"lockToken":"t","retries":null,"retryBackoffMs":604800000}`).noContent(t)
		req = locked(f, func() runtime.FailRequest { return f.waits.lastFail })
		if req.Retries != nil || req.RetryBackoff != 7*24*time.Hour || req.ErrorMessage != "" {
			t.Errorf("fail request = %+v, want retries nil", req)
		}
		b.postJSON("/api/v1/jobs/job-1/fail", `{"lockToken":"t"}`).noContent(t)
		if h := locked(f, func() runtime.JobHolder { return f.waits.lastHolder }); h != (runtime.JobHolder{Token: "t"}) {
			t.Errorf("holder = %+v", h)
		}
		b.postJSON("/api/v1/jobs/nope/fail", `{"lockToken":"t"}`).problem(t, http.StatusNotFound, "not-found")
	})
	runFieldCases(t, b, "/api/v1/jobs/job-2/fail", []fieldCase{
		{"empty body", ``, 400, "invalid-request", "lockToken"},
		{"no lock token", `{"retries":1}`, 400, "invalid-request", "lockToken"},
		{"negative retries", `{"lockToken":"t","retries":-1}`, 400, "invalid-request", "retries"},
		{"retries a string", `{"lockToken":"t","retries":"2"}`, 400, "invalid-request", "retries"},
		{"retries a fraction", `{"lockToken":"t","retries":2.5}`, 400, "invalid-request", "retries"},
		{"negative backoff", `{"lockToken":"t","retryBackoffMs":-1}`, 400, "invalid-request", "retryBackoffMs"},
		{"backoff over 7 days", `{"lockToken":"t","retryBackoffMs":604800001}`, 400, "invalid-request", "retryBackoffMs"},
		{"message a number", `{"lockToken":"t","errorMessage":5}`, 400, "invalid-request", "errorMessage"},
		{"lock lost", `{"lockToken":"stale"}`, 409, "conflict", ""},
	})

	t.Run("error", func(t *testing.T) {
		t.Parallel()
		b, f := waitsBundle(t)
		b.postJSON("/api/v1/jobs/job-1/error", `{"lockToken":"t","errorCode":"NO_STOCK","errorMessage":"out of stock","variables":{"sku":"A-1"}}`).noContent(t)
		got := locked(f, func() [2]string { return f.waits.lastError })
		if vs := locked(f, func() map[string]any { return f.waits.lastVars }); got != [2]string{"NO_STOCK", "out of stock"} || vs["sku"] != "A-1" {
			t.Errorf("thrown %v with %v", got, vs)
		}
		b.postJSON("/api/v1/jobs/job-1/error", `{"lockToken":"t","errorCode":"NO_STOCK"}`).problem(t, http.StatusNotFound, "not-found")
		b.as("bo", "", "/api/v1/jobs/job-2/error", `{"lockToken":"t2","errorCode":"X","errorMessage":null,"variables":null}`).noContent(t)
		if h := locked(f, func() runtime.JobHolder { return f.waits.lastHolder }); h != (runtime.JobHolder{Token: "t2", User: "bo"}) {
			t.Errorf("holder = %+v", h)
		}
	})
	runFieldCases(t, b, "/api/v1/jobs/job-2/error", []fieldCase{
		{"no lock token", `{"errorCode":"E"}`, 400, "invalid-request", "lockToken"},
		{"empty body", ``, 400, "invalid-request", "lockToken"},
		{"no code", `{"lockToken":"t","errorMessage":"m"}`, 400, "invalid-request", "errorCode"},
		{"empty code", `{"lockToken":"t","errorCode":""}`, 400, "invalid-request", "errorCode"},
		{"code a number", `{"lockToken":"t","errorCode":3}`, 400, "invalid-request", "errorCode"},
		{"message an array", `{"lockToken":"t","errorCode":"E","errorMessage":[]}`, 400, "invalid-request", "errorMessage"},
		{"variables a string", `{"lockToken":"t","errorCode":"E","variables":"x"}`, 400, "invalid-request", "variables"},
		{"lock lost", `{"lockToken":"stale","errorCode":"E"}`, 409, "conflict", ""},
	})

	t.Run("extend", func(t *testing.T) {
		t.Parallel()
		b, f := waitsBundle(t)
		b.postJSON("/api/v1/jobs/job-1/extend", `{"lockToken":"t","lockDurationMs":1000}`).problem(t, http.StatusConflict, "conflict")
		b.postJSON("/api/v1/jobs/activate", `{"type":"mail","worker":"w","maxJobs":1,"lockDurationMs":1000}`).wantStatus(t, http.StatusOK)
		b.postJSON("/api/v1/jobs/job-1/extend", `{"lockToken":"lock-job-1","lockDurationMs":90000}`).noContent(t)
		if d := locked(f, func() time.Duration { return f.waits.lastExtend }); d != 90*time.Second {
			t.Errorf("extended by %v", d)
		}
		if h := locked(f, func() runtime.JobHolder { return f.waits.lastHolder }); h != (runtime.JobHolder{Token: "lock-job-1"}) {
			t.Errorf("holder = %+v", h)
		}
		b.postJSON("/api/v1/jobs/nope/extend", `{"lockToken":"t","lockDurationMs":1000}`).problem(t, http.StatusNotFound, "not-found")
	})
	runFieldCases(t, b, "/api/v1/jobs/job-1/extend", []fieldCase{
		{"empty body", ``, 400, "invalid-request", "lockToken"},
		{"no lock token", `{"lockDurationMs":1000}`, 400, "invalid-request", "lockToken"},
		{"no duration", `{"lockToken":"t"}`, 400, "invalid-request", "lockDurationMs"},
		{"zero", `{"lockToken":"t","lockDurationMs":0}`, 400, "invalid-request", "lockDurationMs"},
		{"over a day", `{"lockToken":"t","lockDurationMs":86400001}`, 400, "invalid-request", "lockDurationMs"},
		{"a string", `{"lockToken":"t","lockDurationMs":"1000"}`, 400, "invalid-request", "lockDurationMs"},
		{"lock lost", `{"lockToken":"stale","lockDurationMs":1000}`, 409, "conflict", ""},
	})
}

func TestRetryIncident(t *testing.T) {
	t.Parallel()
	b, f := waitsBundle(t)
	got := b.postJSON("/api/v1/incidents/inc-9/retry", `{"retries":3}`).wantStatus(t, http.StatusOK).object(t)
	if got["id"] != "inc-9" || got["resolvedAt"] == nil || got["message"] != "smtp down" {
		t.Errorf("incident = %v", got)
	}
	if n := locked(f, func() int { return f.waits.lastRetries }); n != 3 {
		t.Errorf("retries = %d", n)
	}
	b.postJSON("/api/v1/incidents/inc-9/retry", `{}`).problem(t, http.StatusConflict, "conflict")
	if n := locked(f, func() int { return f.waits.lastRetries }); n != 1 {
		t.Errorf("default retries = %d, want 1", n)
	}
	b.send(http.MethodPost, "/api/v1/incidents/inc-10/retry", "", "").problem(t, http.StatusConflict, "conflict")
	b.postJSON("/api/v1/incidents/nope/retry", `{}`).problem(t, http.StatusNotFound, "not-found")
	runFieldCases(t, b, "/api/v1/incidents/inc-9/retry", []fieldCase{
		{"zero", `{"retries":0}`, 400, "invalid-request", "retries"},
		{"a string", `{"retries":"1"}`, 400, "invalid-request", "retries"},
		{"malformed", `{"retries":}`, 400, "malformed-json", ""},
	})
}

func TestTasks(t *testing.T) {
	t.Parallel()

	t.Run("list with defaults", func(t *testing.T) {
		t.Parallel()
		b, f := waitsBundle(t)
		page := b.get("/api/v1/tasks").wantStatus(t, http.StatusOK).object(t)
		if page["total"] != json.Number("4") || page["limit"] != json.Number("50") || page["offset"] != json.Number("0") {
			t.Errorf("page = %v", page)
		}
		items := page["items"].([]any)
		want := `{"assignee":null,"businessKey":null,"candidateGroups":["managers"],"candidateUsers":["alice"],"createdAt":"2025-03-01T11:00:00Z","formId":null,"id":"task-1","instanceId":"inst-1","name":"Approve order","nodeId":"Approve","processKey":"","processVersion":0}`
		if s := mustJSON(t, items[0]); s != want {
			t.Errorf("task = %s, want %s", s, want)
		}
		second := items[1].(map[string]any)
		if second["assignee"] != "bob" || mustJSON(t, second["candidateUsers"]) != "[]" || mustJSON(t, second["candidateGroups"]) != "[]" {
			t.Errorf("assigned task = %v", second)
		}
		if due := items[3].(map[string]any)["dueAt"]; due != "2025-03-01T12:00:00Z" {
			t.Errorf("dueAt = %v", due)
		}
		if flt := locked(f, func() runtime.TaskFilter { return f.waits.lastTaskFilter }); !reflect.DeepEqual(flt, runtime.TaskFilter{Limit: 50}) {
			t.Errorf("filter = %+v", flt)
		}
	})

	t.Run("filters and paging", func(t *testing.T) {
		t.Parallel()
		b, f := waitsBundle(t)
		page := b.get("/api/v1/tasks?assignee=bob&candidateUser=alice&candidateGroup=managers&instanceId=inst-1&limit=2&offset=1").wantStatus(t, http.StatusOK).object(t)
		want := runtime.TaskFilter{Assignee: "bob", CandidateUser: "alice", CandidateGroup: "managers", InstanceID: "inst-1", Limit: 2, Offset: 1}
		if flt := locked(f, func() runtime.TaskFilter { return f.waits.lastTaskFilter }); !reflect.DeepEqual(flt, want) {
			t.Errorf("filter = %+v, want %+v", flt, want)
		}
		if page["limit"] != json.Number("2") || page["offset"] != json.Number("1") || len(page["items"].([]any)) != 0 {
			t.Errorf("page = %v", page)
		}
		if items := b.get("/api/v1/tasks?candidateGroup=ops").items(t); len(items) != 1 {
			t.Errorf("ops tasks = %v", items)
		}
	})

	b, _ := waitsBundle(t)
	for _, q := range []struct{ query, field string }{
		{"limit=0", "limit"}, {"limit=501", "limit"}, {"limit=x", "limit"}, {"offset=-1", "offset"},
	} {
		t.Run("bad query "+q.query, func(t *testing.T) {
			if p := b.get("/api/v1/tasks?"+q.query).problem(t, http.StatusBadRequest, "invalid-request"); p.Field != q.field {
				t.Errorf("field = %q, want %q", p.Field, q.field)
			}
		})
	}

	t.Run("get", func(t *testing.T) {
		if got := b.get("/api/v1/tasks/task-2").wantStatus(t, http.StatusOK).object(t); got["assignee"] != "bob" {
			t.Errorf("task = %v", got)
		}
		b.get("/api/v1/tasks/nope").problem(t, http.StatusNotFound, "not-found")
	})
}

func TestTaskActionsNeedAUser(t *testing.T) {
	t.Parallel()
	b, f := waitsBundle(t)
	for _, action := range []string{"claim", "unclaim", "complete"} {
		for _, tc := range []struct{ name, user, groups, body string }{
			{"no headers", "", "", ""},
			{"groups only", "", "managers", ""},
			{"blank user", "  ", "", ""},
			{"bad body too", "", "", `{"variables":[]}`},
		} {
			t.Run(action+" "+tc.name, func(t *testing.T) {
				p := b.as(tc.user, tc.groups, "/api/v1/tasks/task-3/"+action, tc.body).problem(t, http.StatusForbidden, "forbidden")
				if p.Field != api.HeaderUser || !strings.Contains(p.Detail, api.HeaderUser) {
					t.Errorf("problem = %+v, want it to name %s", p, api.HeaderUser)
				}
			})
		}
	}
	if a := locked(f, func() *runtime.Actor { return f.waits.lastActor }); a != nil {
		t.Errorf("the service was called as %+v without a user", a)
	}
	if got := b.get("/api/v1/tasks/task-3").object(t); got["assignee"] != nil {
		t.Errorf("task-3 changed: %v", got)
	}
}

func TestTaskAuthorization(t *testing.T) {
	t.Parallel()
	b, f := waitsBundle(t)
	lastActor := func() runtime.Actor { return *locked(f, func() *runtime.Actor { return f.waits.lastActor }) }

	// task-1: candidates alice and group managers.
	b.as("carol", "sales", "/api/v1/tasks/task-1/claim", "").problem(t, http.StatusForbidden, "forbidden")
	b.as("carol", "", "/api/v1/tasks/task-1/complete", `{}`).problem(t, http.StatusConflict, "conflict") // claim first
	b.as("dave", "", "/api/v1/tasks/task-1/unclaim", "").problem(t, http.StatusConflict, "conflict")

	got := b.as(" dave ", " sales, managers ,, ", "/api/v1/tasks/task-1/claim", "").wantStatus(t, http.StatusOK).object(t)
	if got["assignee"] != "dave" {
		t.Errorf("claimed task = %v", got)
	}
	if a := lastActor(); a.User != "dave" || strings.Join(a.Groups, "|") != "sales|managers" {
		t.Errorf("actor = %+v, want dave in sales and managers", a)
	}
	b.as("alice", "", "/api/v1/tasks/task-1/claim", "").problem(t, http.StatusConflict, "conflict")
	if got := b.as("dave", "", "/api/v1/tasks/task-1/claim", "").wantStatus(t, http.StatusOK).object(t); got["assignee"] != "dave" {
		t.Errorf("re-claimed task = %v", got) // claiming your own task again is a no-op
	}
	b.as("alice", "", "/api/v1/tasks/task-1/unclaim", "").problem(t, http.StatusForbidden, "forbidden")
	b.as("alice", "", "/api/v1/tasks/task-1/complete", `{}`).problem(t, http.StatusForbidden, "forbidden")
	if got := b.as("dave", "", "/api/v1/tasks/task-1/unclaim", "").wantStatus(t, http.StatusOK).object(t); got["assignee"] != nil {
		t.Errorf("unclaimed task = %v", got)
	}
	b.as("alice", "", "/api/v1/tasks/task-1/claim", "").wantStatus(t, http.StatusOK)
	b.as("alice", "", "/api/v1/tasks/task-1/complete", `{"variables":{"approved":true,"limit":1e2}}`).noContent(t)
	if vs := locked(f, func() map[string]any { return f.waits.lastVars }); vs["approved"] != true || vs["limit"] != json.Number("1e2") {
		t.Errorf("form variables = %v", vs)
	}
	b.as("alice", "", "/api/v1/tasks/task-1/complete", `{}`).problem(t, http.StatusNotFound, "not-found")

	// task-2: assigned to bob.
	b.as("alice", "", "/api/v1/tasks/task-2/complete", `{}`).problem(t, http.StatusForbidden, "forbidden")
	b.as("bob", "", "/api/v1/tasks/task-2/complete", `{"variables":{"__bad":1}}`).problem(t, http.StatusBadRequest, "invalid-request")
	b.as("bob", "", "/api/v1/tasks/task-2/complete", `{"variables":"x"}`).problem(t, http.StatusBadRequest, "invalid-request")
	b.as("bob", "", "/api/v1/tasks/task-2/complete", `{`).problem(t, http.StatusBadRequest, "malformed-json")
	b.as("bob", "", "/api/v1/tasks/task-2/complete", "").noContent(t)

	// task-3: no assignee, no candidates: anyone (with a user header).
	b.as("zed", "", "/api/v1/tasks/task-3/complete", `{"variables":null}`).noContent(t)

	// Multiple group header lines are all read.
	req := httptest.NewRequest(http.MethodPost, "/api/v1/tasks/task-4/claim", nil)
	req.Header.Set(api.HeaderUser, "olga")
	req.Header.Add(api.HeaderGroups, "dev")
	req.Header.Add(api.HeaderGroups, "ops")
	b.do(req).wantStatus(t, http.StatusOK)
	if a := lastActor(); strings.Join(a.Groups, "|") != "dev|ops" {
		t.Errorf("groups = %v", a.Groups)
	}

	for _, action := range []string{"claim", "unclaim", "complete"} {
		b.as("alice", "", "/api/v1/tasks/nope/"+action, "").problem(t, http.StatusNotFound, "not-found")
	}
	req = httptest.NewRequest(http.MethodPost, "/api/v1/tasks/task-4/complete", strings.NewReader("{}"))
	req.Header.Set(api.HeaderUser, "olga")
	req.Header.Set("Content-Type", "text/plain")
	b.do(req).problem(t, http.StatusUnsupportedMediaType, "unsupported-media-type")
}

func TestMessagesAndSignals(t *testing.T) {
	t.Parallel()
	b, f := waitsBundle(t)

	got := b.postJSON("/api/v1/messages", `{"name":"payment","correlationKey":"order-1","variables":{"paid":12.50}}`).wantStatus(t, http.StatusOK)
	if string(got.Body) != `{"correlated":1}` {
		t.Errorf("answer = %s", got.Body)
	}
	if msg, vs := locked(f, func() [2]string { return f.waits.lastMessage }), locked(f, func() map[string]any { return f.waits.lastVars }); msg != [2]string{"payment", "order-1"} || vs["paid"] != json.Number("12.50") {
		t.Errorf("message %v with %v", msg, vs)
	}
	p := b.postJSON("/api/v1/messages", `{"name":"payment","correlationKey":"order-1"}`).problem(t, http.StatusNotFound, "not-found")
	if !strings.Contains(p.Detail, "order-1") {
		t.Errorf("detail = %q", p.Detail)
	}
	runFieldCases(t, b, "/api/v1/messages", []fieldCase{
		{"no name", `{"correlationKey":"k"}`, 400, "invalid-request", "name"},
		{"empty body", ``, 400, "invalid-request", "name"},
		{"name a number", `{"name":1}`, 400, "invalid-request", "name"},
		{"key a number", `{"name":"m","correlationKey":42}`, 400, "invalid-request", "correlationKey"},
		{"variables an array", `{"name":"m","variables":[]}`, 400, "invalid-request", "variables"},
		{"malformed", `{"name"`, 400, "malformed-json", ""},
		{"text body", `{"name":"m"}`, 415, "unsupported-media-type", ""},
	})

	got = b.postJSON("/api/v1/signals", `{"name":"alarm","variables":{"level":3}}`).wantStatus(t, http.StatusOK)
	if string(got.Body) != `{"triggered":2}` {
		t.Errorf("answer = %s", got.Body)
	}
	if name := locked(f, func() string { return f.waits.lastSignal }); name != "alarm" {
		t.Errorf("signal = %q", name)
	}
	if got := b.postJSON("/api/v1/signals", `{"name":"quiet"}`).wantStatus(t, http.StatusOK); string(got.Body) != `{"triggered":0}` {
		t.Errorf("answer = %s", got.Body)
	}
	runFieldCases(t, b, "/api/v1/signals", []fieldCase{
		{"no name", `{}`, 400, "invalid-request", "name"},
		{"blank name", `{"name":""}`, 400, "invalid-request", "name"},
		{"variables a number", `{"name":"s","variables":1}`, 400, "invalid-request", "variables"},
		{"text body", `{"name":"s"}`, 415, "unsupported-media-type", ""},
	})
}

func TestWaitRoutesMethods(t *testing.T) {
	t.Parallel()
	b, _ := waitsBundle(t)
	for _, tc := range []struct{ method, path, allow string }{
		{http.MethodGet, "/api/v1/jobs/activate", "POST"},
		{http.MethodGet, "/api/v1/jobs/job-1/complete", "POST"},
		{http.MethodPost, "/api/v1/tasks", "GET"},
		{http.MethodDelete, "/api/v1/tasks/task-1", "GET"},
		{http.MethodGet, "/api/v1/tasks/task-1/claim", "POST"},
		{http.MethodGet, "/api/v1/messages", "POST"},
		{http.MethodPut, "/api/v1/signals", "POST"},
		{http.MethodGet, "/api/v1/incidents/inc-9/retry", "POST"},
	} {
		res := b.send(tc.method, tc.path, "", "")
		res.problem(t, http.StatusMethodNotAllowed, "method-not-allowed")
		if got := res.Header.Get("Allow"); got != tc.allow {
			t.Errorf("%s %s: Allow = %q, want %q", tc.method, tc.path, got, tc.allow)
		}
	}
}
