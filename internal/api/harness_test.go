package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	gobpm "github.com/gobpm/gobpm"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// Contract is openapi.yaml, loaded and validated once for all tests.
type Contract struct {
	doc    *openapi3.T
	router routers.Router
}

var loadContract = sync.OnceValues(func() (*Contract, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(gobpm.OpenAPI)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &Contract{doc: doc, router: router}, nil
})

// MustContract returns the loaded openapi.yaml or fails the test.
func MustContract(tb testing.TB) *Contract {
	tb.Helper()
	c, err := loadContract()
	if err != nil {
		tb.Fatalf("openapi.yaml: %v", err)
	}
	return c
}

// apiEpoch is the time of the real-runtime tests: the clock stands there
// unless a test moves it (newTestClock).
var apiEpoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// newTestClock is a manual clock at apiEpoch, for tests that move time.
func newTestClock() *clock.Manual { return clock.NewManual(apiEpoch) }

// realAPIAt is the API layer's harness over the real runtime: the
// database at dsn (testdb), a runtime with opts, its clock standing at
// apiEpoch unless opts names one, and the real router; both close when the
// test ends (the runtime first). The scheduler is not started (no Resume):
// due timers fire when the test calls FireDueTimers. Every integration
// test builds on it.
func realAPIAt(t *testing.T, dsn string, opts runtime.Options) (*bundle, *runtime.Runtime) {
	t.Helper()
	db, err := testdb.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if opts.Now == nil && opts.ManualClock == nil {
		opts.Now = func() time.Time { return apiEpoch }
	}
	rt := runtime.New(db, opts)
	t.Cleanup(func() { _ = rt.Close() })
	return setup(t, rt, api.Options{}), rt
}

// setupReal is realAPIAt on a new database with the runtime's defaults.
func setupReal(t *testing.T) *bundle {
	t.Helper()
	b, _ := realAPIAt(t, testdb.DSN(t), runtime.Options{})
	return b
}

// setupRealWith is setupReal with runtime options of the test's own.
func setupRealWith(t *testing.T, opts runtime.Options) *bundle {
	t.Helper()
	b, _ := realAPIAt(t, testdb.DSN(t), opts)
	return b
}

// setupRealClock is setupReal with a manual clock the test moves by hand
// (lock expiry, retry backoff and timers are reached by advancing it,
// never by sleeping); it also returns the runtime so the test can fire due
// timers.
func setupRealClock(t *testing.T) (*bundle, *runtime.Runtime, *clock.Manual) {
	t.Helper()
	clk := newTestClock()
	b, rt := realAPIAt(t, testdb.DSN(t), runtime.Options{Now: clk.Now})
	return b, rt, clk
}

// bundle is one API under test: the real router over a Service.
type bundle struct {
	t       *testing.T
	handler http.Handler
	logs    *syncBuffer
}

// setup builds the real router over svc with a JSON logger the test can read.
func setup(t *testing.T, svc api.Service, opts api.Options) *bundle {
	t.Helper()
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return &bundle{t: t, handler: api.New(svc, logger, opts), logs: logs}
}

// response is a recorded answer.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// do serves req through the router and checks the answer against
// openapi.yaml: the status must be documented for the operation, and the
// content type and body must match it. Unrouted requests (404/405) must
// answer a Problem. A request that succeeded must itself match the contract.
// An /engine-rest exchange is also checked against Camunda 7's own
// document (validateAgainstCamunda7).
func (b *bundle) do(req *http.Request) *response {
	b.t.Helper()
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, req)
	res := &response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	if res.Header.Get(api.HeaderRequestID) == "" {
		b.t.Errorf("%s %s: no %s header", req.Method, req.URL, api.HeaderRequestID)
	}
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	validateAgainstContract(b.t, req, res)
	if strings.HasPrefix(req.URL.Path, "/engine-rest/") {
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
		validateAgainstCamunda7(b.t, req, res)
	}
	return res
}

func validateAgainstContract(t *testing.T, req *http.Request, res *response) {
	t.Helper()
	c := MustContract(t)
	ctx := context.Background()
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		// Not a documented operation: must be a 404/405 problem.
		if !errors.Is(err, routers.ErrPathNotFound) && !errors.Is(err, routers.ErrMethodNotAllowed) {
			t.Errorf("%s %s: finding the route in openapi.yaml: %v", req.Method, req.URL, err)
			return
		}
		if res.Status != http.StatusNotFound && res.Status != http.StatusMethodNotAllowed {
			t.Errorf("%s %s is not in openapi.yaml but answered %d", req.Method, req.URL.Path, res.Status)
		}
		checkProblemShape(t, c, req, res)
		return
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, SkipSettingDefaults: true}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if res.Status < 300 {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			t.Errorf("%s %s: request answered %d but does not match openapi.yaml: %v", req.Method, req.URL, res.Status, err)
		}
	}
	if route.Operation.Responses.Status(res.Status) == nil {
		t.Errorf("%s %s: status %d is not documented in openapi.yaml (body %s)", req.Method, req.URL.Path, res.Status, res.Body)
		return
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.Status, Header: res.Header, Options: opts}
	out.SetBodyBytes(res.Body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("%s %s: response %d does not match openapi.yaml: %v\nbody: %s", req.Method, req.URL, res.Status, err, res.Body)
	}
}

func checkProblemShape(t *testing.T, c *Contract, req *http.Request, res *response) {
	t.Helper()
	if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("%s %s: Content-Type = %q, want application/problem+json", req.Method, req.URL.Path, ct)
	}
	var v any
	if err := json.Unmarshal(res.Body, &v); err != nil {
		t.Errorf("%s %s: problem body is not JSON: %v", req.Method, req.URL.Path, err)
		return
	}
	schema := c.doc.Components.Schemas["Problem"].Value
	if err := schema.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("%s %s: problem does not match the Problem schema: %v", req.Method, req.URL.Path, err)
	}
}

// get, postJSON, postXML and postMultipart build and serve requests.
func (b *bundle) get(path string) *response {
	b.t.Helper()
	return b.do(httptest.NewRequest(http.MethodGet, path, nil))
}

func (b *bundle) send(method, path, contentType, body string) *response {
	b.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return b.do(req)
}

func (b *bundle) postJSON(path, body string) *response {
	b.t.Helper()
	return b.send(http.MethodPost, path, "application/json", body)
}

func (b *bundle) postXML(path, body string) *response {
	b.t.Helper()
	return b.send(http.MethodPost, path, "application/xml", body)
}

// part is one multipart part; an empty field defaults to "file".
type part struct {
	field, filename, content string
}

func (b *bundle) postMultipart(path string, parts ...part) *response {
	b.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		field := p.field
		if field == "" {
			field = "file"
		}
		var w io.Writer
		var err error
		if p.filename != "" {
			h := make(map[string][]string)
			h["Content-Disposition"] = []string{mime.FormatMediaType("form-data", map[string]string{"name": field, "filename": p.filename})}
			h["Content-Type"] = []string{"application/xml"}
			w, err = mw.CreatePart(h)
		} else {
			w, err = mw.CreateFormField(field)
		}
		if err != nil {
			b.t.Fatal(err)
		}
		_, _ = io.WriteString(w, p.content)
	}
	if err := mw.Close(); err != nil {
		b.t.Fatal(err)
	}
	return b.send(http.MethodPost, path, mw.FormDataContentType(), buf.String())
}

// wantStatus fails the test unless the answer has status want.
func (r *response) wantStatus(tb testing.TB, want int) *response {
	tb.Helper()
	if r.Status != want {
		tb.Fatalf("status = %d, want %d; body: %s", r.Status, want, r.Body)
	}
	return r
}

// object decodes a JSON object answer, keeping numbers exact.
func (r *response) object(tb testing.TB) map[string]any {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		tb.Fatalf("answer is not a JSON object: %v; body: %s", err, r.Body)
	}
	return m
}

// items returns the "items" array of a list answer.
func (r *response) items(tb testing.TB) []any {
	tb.Helper()
	items, ok := r.object(tb)["items"].([]any)
	if !ok {
		tb.Fatalf("answer has no items array: %s", r.Body)
	}
	return items
}

// problem checks a problem answer's status and type slug and returns it.
func (r *response) problem(tb testing.TB, status int, slug string) api.Problem {
	tb.Helper()
	r.wantStatus(tb, status)
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		tb.Errorf("Content-Type = %q, want application/problem+json", ct)
	}
	var p api.Problem
	if err := json.Unmarshal(r.Body, &p); err != nil {
		tb.Fatalf("problem is not JSON: %v; body: %s", err, r.Body)
	}
	if want := "https://gobpm.dev/problems/" + slug; p.Type != want {
		tb.Errorf("problem type = %q, want %q; detail: %s", p.Type, want, p.Detail)
	}
	if p.Status != status || p.Title == "" || p.Detail == "" || p.Instance == "" || p.RequestID == "" {
		tb.Errorf("problem lacks members: %+v", p)
	}
	return p
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// records returns the decoded log records.
func (s *syncBuffer) records(tb testing.TB) []map[string]any {
	tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(s.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			tb.Fatalf("log line is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// String returns everything logged so far.
func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}
