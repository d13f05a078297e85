package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"
)

// Client calls one gobpm server. It is safe for concurrent use.
type Client struct {
	base    string
	hc      *http.Client
	token   string
	user    string
	groups  []string
	retries int
	backoff time.Duration
}

// Option configures a Client.
type Option func(*Client)

// WithToken sends token as a bearer token (servers run with --auth builtin
// or oidc).
func WithToken(token string) Option { return func(c *Client) { c.token = token } }

// WithUser names the acting user and groups in the X-Gobpm-User and
// X-Gobpm-Groups headers: the identity of a server run with --auth none,
// or the user a service token acts for.
func WithUser(user string, groups ...string) Option {
	return func(c *Client) { c.user, c.groups = user, groups }
}

// WithHTTPClient uses hc instead of a client with a 5-minute timeout.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithRetries retries idempotent calls up to n more times (default 3),
// waiting backoff, then twice as long each time (default 100ms, at most 5s).
func WithRetries(n int, backoff time.Duration) Option {
	return func(c *Client) { c.retries, c.backoff = n, backoff }
}

// New returns a client of the server at baseURL, e.g. http://localhost:8080.
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q is not an http(s) URL", baseURL)
	}
	c := &Client{
		base:    strings.TrimRight(baseURL, "/"),
		hc:      &http.Client{Timeout: 5 * time.Minute},
		retries: 3,
		backoff: 100 * time.Millisecond,
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// request is one API call.
type request struct {
	method string
	path   string
	query  url.Values
	// body is a JSON value, or raw bytes with contentType.
	body        any
	raw         []byte
	contentType string
	idemKey     string
	// header receives the answer's headers when set.
	header *http.Header
	// root sends path from the server's root instead of under /api/v1.
	root bool
	// noRetry never retries, e.g. a probe whose 503 is an answer.
	noRetry bool
}

const maxBackoff = 5 * time.Second

// do sends req and decodes a 2xx JSON answer into out (nil: ignore it).
func (c *Client) do(ctx context.Context, req request, out any) error {
	payload, ct := req.raw, req.contentType
	if req.body != nil {
		b, err := json.Marshal(req.body)
		if err != nil {
			return fmt.Errorf("client: encode %s %s: %w", req.method, req.path, err)
		}
		payload, ct = b, "application/json"
	} else if payload == nil && req.method == http.MethodPost {
		payload, ct = []byte("{}"), "application/json"
	}
	u := c.base + "/api/v1" + req.path
	if req.root {
		u = c.base + req.path
	}
	if len(req.query) > 0 {
		u += "?" + req.query.Encode()
	}
	idempotent := (req.method == http.MethodGet || req.idemKey != "") && !req.noRetry
	wait := c.backoff
	for attempt := 0; ; attempt++ {
		err := c.once(ctx, req, u, payload, ct, out)
		if err == nil || !idempotent || attempt >= c.retries || !retryable(err) || ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, maxBackoff)
	}
}

func (c *Client) once(ctx context.Context, req request, u string, payload []byte, ct string, out any) error {
	hr, err := c.httpRequest(ctx, req, u, payload, ct)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(hr)
	if err != nil {
		return &transportError{err: fmt.Errorf("client: %s %s: %w", req.method, req.path, err)}
	}
	defer resp.Body.Close()
	if req.header != nil {
		*req.header = resp.Header
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return &transportError{err: fmt.Errorf("client: read %s %s: %w", req.method, req.path, err)}
	}
	if resp.StatusCode >= 300 {
		return problemOf(resp.StatusCode, data)
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	if raw, ok := out.(*[]byte); ok {
		*raw = data
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("client: decode %s %s: %w", req.method, req.path, err)
	}
	return nil
}

// httpRequest builds req's HTTP request to u with the client's
// credentials.
func (c *Client) httpRequest(ctx context.Context, req request, u string, payload []byte, ct string) (*http.Request, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, u, body)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: %w", req.method, req.path, err)
	}
	if ct != "" {
		hr.Header.Set("Content-Type", ct)
	}
	// The span context of ctx, if any, goes along as a W3C traceparent:
	// the server's request span (and, for a job act, the step it causes)
	// becomes its child (tracing.go).
	propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(hr.Header))
	hr.Header.Set("Accept", "application/json, application/problem+json")
	if c.token != "" {
		hr.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.user != "" {
		hr.Header.Set("X-Gobpm-User", c.user)
		if len(c.groups) > 0 {
			hr.Header.Set("X-Gobpm-Groups", strings.Join(c.groups, ","))
		}
	}
	if req.idemKey != "" {
		hr.Header.Set("Idempotency-Key", req.idemKey)
	}
	return hr, nil
}

// problemOf is the Problem of an answer with status and body data: its
// problem+json, or one made of the status and the text.
func problemOf(status int, data []byte) *Problem {
	p := &Problem{Status: status}
	if json.Unmarshal(data, p) != nil || p.Type == "" {
		p.Type = "about:blank"
		p.Title = http.StatusText(status)
		p.Detail = strings.TrimSpace(string(data))
	}
	p.Status = status
	return p
}

// transportError is a failure to get any answer.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

func retryable(err error) bool {
	var te *transportError
	if errors.As(err, &te) {
		return true
	}
	var p *Problem
	if errors.As(err, &p) {
		switch p.Status {
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
	}
	return false
}

func esc(s string) string { return url.PathEscape(s) }

// Deploy deploys BPMN and DMN files in one deployment. Deploying the same
// content again mints no new version.
func (c *Client) Deploy(ctx context.Context, files ...File) (Deployment, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range files {
		w, err := mw.CreateFormFile("file", f.Name)
		if err != nil {
			return Deployment{}, err
		}
		if _, err := w.Write(f.Content); err != nil {
			return Deployment{}, err
		}
	}
	if err := mw.Close(); err != nil {
		return Deployment{}, err
	}
	var d Deployment
	err := c.do(ctx, request{method: http.MethodPost, path: "/deployments", raw: buf.Bytes(), contentType: mw.FormDataContentType()}, &d)
	return d, err
}

// DeployFiles reads the files at paths and deploys them.
func (c *Client) DeployFiles(ctx context.Context, paths ...string) (Deployment, error) {
	files := make([]File, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return Deployment{}, fmt.Errorf("client: deploy: %w", err)
		}
		files = append(files, File{Name: filepath.Base(p), Content: b})
	}
	return c.Deploy(ctx, files...)
}

// Cluster lists the nodes sharing the server's database, oldest first,
// and names the node that answered (one node on SQLite).
func (c *Client) Cluster(ctx context.Context) (Cluster, error) {
	var out Cluster
	err := c.do(ctx, request{method: http.MethodGet, path: "/cluster"}, &out)
	return out, err
}

// Processes lists the latest version of every process key.
func (c *Client) Processes(ctx context.Context) ([]Process, error) {
	var out struct{ Items []Process }
	err := c.do(ctx, request{method: http.MethodGet, path: "/processes"}, &out)
	return out.Items, err
}

// ProcessVersions lists every version of the process key.
func (c *Client) ProcessVersions(ctx context.Context, key string) ([]Process, error) {
	var out struct{ Items []Process }
	err := c.do(ctx, request{method: http.MethodGet, path: "/processes/" + esc(key) + "/versions"}, &out)
	return out.Items, err
}

// ProcessXML returns the deployed XML of a process version.
func (c *Client) ProcessXML(ctx context.Context, key string, version int) ([]byte, error) {
	var out []byte
	err := c.do(ctx, request{method: http.MethodGet, path: "/processes/" + esc(key) + "/versions/" + strconv.Itoa(version) + "/xml"}, &out)
	return out, err
}

// StartRequest says how to start an instance.
type StartRequest struct {
	Variables   map[string]any `json:"variables,omitempty"`
	BusinessKey string         `json:"businessKey,omitempty"`
	// Version pins a version; 0 starts the latest.
	Version int `json:"version,omitempty"`
	// IdempotencyKey makes the start safe to repeat: the server answers a
	// repeat with the instance the first request created, and the client
	// retries it on transport errors.
	IdempotencyKey string `json:"-"`
}

// Start starts an instance of the process key and returns it after its
// first step.
func (c *Client) Start(ctx context.Context, key string, req StartRequest) (Instance, error) {
	var out Instance
	var h http.Header
	err := c.do(ctx, request{method: http.MethodPost, path: "/processes/" + esc(key) + "/instances", body: req, idemKey: req.IdempotencyKey, header: &h}, &out)
	out.Replayed = h.Get("Idempotent-Replayed") == "true"
	return out, err
}

// InstanceFilter selects instances; zero fields do not filter.
type InstanceFilter struct {
	// Number selects the instance with that number (with ProcessKey, at
	// most one: "order #1042").
	Number      int64
	ProcessKey  string
	Status      string // running, completed, terminated or failed
	BusinessKey string
	ParentID    string
	// Variables keeps the instances whose top-level variables meet every
	// filter: name=value with the value as JSON (orderId="A-17"), or
	// name:op:value with op eq, neq, gt, gte, lt, lte or like
	// (amount:gt:100); see GET /api/v1/instances in openapi.yaml.
	Variables []string
	Limit     int
	Offset    int
	Cursor    string
}

// Instances lists instances, newest first.
func (c *Client) Instances(ctx context.Context, f InstanceFilter) (InstancePage, error) {
	q := url.Values{}
	set(q, "processKey", f.ProcessKey)
	set(q, "status", f.Status)
	set(q, "businessKey", f.BusinessKey)
	set(q, "parentId", f.ParentID)
	for _, v := range f.Variables {
		q.Add("var", v)
	}
	if f.Number > 0 {
		q.Set("number", strconv.FormatInt(f.Number, 10))
	}
	set(q, "cursor", f.Cursor)
	setInt(q, "limit", f.Limit)
	setInt(q, "offset", f.Offset)
	var out InstancePage
	err := c.do(ctx, request{method: http.MethodGet, path: "/instances", query: q}, &out)
	return out, err
}

// Instance returns one instance.
func (c *Client) Instance(ctx context.Context, id string) (Instance, error) {
	var out Instance
	err := c.do(ctx, request{method: http.MethodGet, path: "/instances/" + esc(id)}, &out)
	return out, err
}

// Waits lists what the instance waits for (the first page of up to limit;
// 0 for the server's default).
func (c *Client) Waits(ctx context.Context, id string, limit int) ([]Wait, error) {
	q := url.Values{}
	setInt(q, "limit", limit)
	var out struct{ Items []Wait }
	err := c.do(ctx, request{method: http.MethodGet, path: "/instances/" + esc(id) + "/waits", query: q}, &out)
	return out.Items, err
}

// History lists the instance's history facts after seq afterSeq (up to
// limit; 0 for the server's default).
func (c *Client) History(ctx context.Context, id string, afterSeq int64, limit int) ([]Fact, error) {
	q := url.Values{}
	if afterSeq > 0 {
		q.Set("after", strconv.FormatInt(afterSeq, 10))
	}
	setInt(q, "limit", limit)
	var out struct{ Items []Fact }
	err := c.do(ctx, request{method: http.MethodGet, path: "/instances/" + esc(id) + "/history", query: q}, &out)
	return out.Items, err
}

// Scopes lists a page of the instance's open scopes in creation order:
// pass the page's NextCursor as cursor for the next one ("" on the last).
// limit 0 takes the server's default.
func (c *Client) Scopes(ctx context.Context, id, cursor string, limit int) (ScopePage, error) {
	q := url.Values{}
	set(q, "cursor", cursor)
	setInt(q, "limit", limit)
	var out ScopePage
	err := c.do(ctx, request{method: http.MethodGet, path: "/instances/" + esc(id) + "/scopes", query: q}, &out)
	return out, err
}

// Tracks lists a page of the instance's live tracks (tokens) in creation
// order, paged like Scopes.
func (c *Client) Tracks(ctx context.Context, id, cursor string, limit int) (TrackPage, error) {
	q := url.Values{}
	set(q, "cursor", cursor)
	setInt(q, "limit", limit)
	var out TrackPage
	err := c.do(ctx, request{method: http.MethodGet, path: "/instances/" + esc(id) + "/tracks", query: q}, &out)
	return out, err
}

// AdHocRegions lists the instance's open ad-hoc sub-processes, nested ones
// too, with what a manual region offers now.
func (c *Client) AdHocRegions(ctx context.Context, id string) ([]AdHocRegion, error) {
	var out struct{ Regions []AdHocRegion }
	err := c.do(ctx, request{method: http.MethodGet, path: "/instances/" + esc(id) + "/adhoc"}, &out)
	return out.Regions, err
}

// ActivateAdHoc starts activityID, a candidate of the manual region whose
// scope is scopeID, as the acting user (WithUser or the token's owner), and
// returns the region after it. An activity that is not a candidate is a 409.
func (c *Client) ActivateAdHoc(ctx context.Context, id, scopeID, activityID string) (AdHocRegion, error) {
	var out AdHocRegion
	err := c.do(ctx, request{method: http.MethodPost, path: "/instances/" + esc(id) + "/adhoc/" + esc(scopeID) + "/activate", body: map[string]any{"activityId": activityID}}, &out)
	return out, err
}

// ActivateAdHocWith starts several candidates of the manual region whose
// scope is scopeID in one step, all or nothing, each with variables that
// become local variables of its scope, as the acting user, and returns the
// region after it.
func (c *Client) ActivateAdHocWith(ctx context.Context, id, scopeID string, acts []Activation) (AdHocRegion, error) {
	var out AdHocRegion
	if acts == nil {
		acts = []Activation{}
	}
	err := c.do(ctx, request{method: http.MethodPost, path: "/instances/" + esc(id) + "/adhoc/" + esc(scopeID) + "/activate", body: map[string]any{"activities": acts}}, &out)
	return out, err
}

// CompleteAdHoc ends the region whose scope is scopeID as the acting user
// and returns it as it ended. A region whose activities still run is a 409.
func (c *Client) CompleteAdHoc(ctx context.Context, id, scopeID string) (AdHocRegion, error) {
	var out AdHocRegion
	err := c.do(ctx, request{method: http.MethodPost, path: "/instances/" + esc(id) + "/adhoc/" + esc(scopeID) + "/complete", body: map[string]any{}}, &out)
	return out, err
}

// Ready reports whether the server has resumed the instances a previous
// run left running (GET /readyz): false while it is still at it.
func (c *Client) Ready(ctx context.Context) (bool, error) {
	err := c.do(ctx, request{method: http.MethodGet, path: "/readyz", root: true, noRetry: true}, nil)
	var p *Problem
	if errors.As(err, &p) && p.Status == http.StatusServiceUnavailable {
		return false, nil
	}
	return err == nil, err
}

// Health asks the liveness probe (GET /healthz): nil while the server
// serves HTTP.
func (c *Client) Health(ctx context.Context) error {
	return c.do(ctx, request{method: http.MethodGet, path: "/healthz", root: true, noRetry: true}, nil)
}

// Metrics returns the server's Prometheus text exposition (GET /metrics).
func (c *Client) Metrics(ctx context.Context) ([]byte, error) {
	var out []byte
	err := c.do(ctx, request{method: http.MethodGet, path: "/metrics", root: true}, &out)
	return out, err
}

// OpenAPI returns the API's contract, openapi.yaml, as the server serves it.
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	var out []byte
	err := c.do(ctx, request{method: http.MethodGet, path: "/openapi.yaml"}, &out)
	return out, err
}

// Cancel terminates a running instance.
func (c *Client) Cancel(ctx context.Context, id string) (Instance, error) {
	var out Instance
	err := c.do(ctx, request{method: http.MethodPost, path: "/instances/" + esc(id) + "/cancel"}, &out)
	return out, err
}

// Modification is one instruction of Modify: exactly one of Cancel and
// Activate.
type Modification struct {
	Cancel   *CancelTarget   `json:"cancel,omitempty"`
	Activate *ActivateTarget `json:"activate,omitempty"`
}

// CancelTarget names what a modification cancels: exactly one of a track,
// a scope instance or every instance of an element.
type CancelTarget struct {
	TrackID string `json:"trackId,omitempty"`
	ScopeID string `json:"scopeId,omitempty"`
	NodeID  string `json:"nodeId,omitempty"`
}

// ActivateTarget names an element a modification starts, in scope ScopeID
// or the one open instance of its container; Variables are set there.
type ActivateTarget struct {
	NodeID    string         `json:"nodeId"`
	ScopeID   string         `json:"scopeId,omitempty"`
	Variables map[string]any `json:"variables,omitempty"`
}

// Modify applies the instructions to a running instance in one step, in
// order (cancel element instances, start elements), and returns the
// instance after it. To move a token, cancel it and activate the element
// it should be at.
func (c *Client) Modify(ctx context.Context, id string, instructions ...Modification) (Instance, error) {
	var out Instance
	err := c.do(ctx, request{method: http.MethodPost, path: "/instances/" + esc(id) + "/modify", body: map[string]any{"instructions": instructions}}, &out)
	return out, err
}

// SetVariables writes variables into the instance from its root scope.
func (c *Client) SetVariables(ctx context.Context, id string, vars map[string]any) (Instance, error) {
	var out Instance
	err := c.do(ctx, request{method: http.MethodPost, path: "/instances/" + esc(id) + "/variables", body: map[string]any{"variables": vars}}, &out)
	return out, err
}

// IncidentFilter selects incidents.
type IncidentFilter struct {
	InstanceID string
	// All includes resolved incidents (with InstanceID only).
	All    bool
	Limit  int
	Cursor string
}

// Incidents lists open incidents, oldest first.
func (c *Client) Incidents(ctx context.Context, f IncidentFilter) ([]Incident, string, error) {
	q := url.Values{}
	set(q, "instanceId", f.InstanceID)
	set(q, "cursor", f.Cursor)
	setInt(q, "limit", f.Limit)
	if f.All {
		q.Set("open", "false")
	}
	var out struct {
		Items      []Incident
		NextCursor string
	}
	err := c.do(ctx, request{method: http.MethodGet, path: "/incidents", query: q}, &out)
	return out.Items, out.NextCursor, err
}

// RetryIncident resolves an incident and gives its job retries more
// attempts (0: one).
func (c *Client) RetryIncident(ctx context.Context, id string, retries int) (Incident, error) {
	body := map[string]any{}
	if retries > 0 {
		body["retries"] = retries
	}
	var out Incident
	err := c.do(ctx, request{method: http.MethodPost, path: "/incidents/" + esc(id) + "/retry", body: body}, &out)
	return out, err
}

// ActivateRequest asks for jobs of one type.
type ActivateRequest struct {
	Type string `json:"type"`
	// Worker names the worker in the lock (for operators).
	Worker  string `json:"worker"`
	MaxJobs int    `json:"maxJobs,omitempty"`
	// LockDuration is how long the jobs stay locked (whole milliseconds).
	LockDuration time.Duration `json:"-"`
	// RequestTimeout > 0 long-polls: the server answers as soon as a job
	// appears, or with none when it passes.
	RequestTimeout time.Duration `json:"-"`
}

// ActivateJobs locks and returns up to MaxJobs jobs of a type.
func (c *Client) ActivateJobs(ctx context.Context, req ActivateRequest) ([]Job, error) {
	body := map[string]any{"type": req.Type, "worker": req.Worker, "lockDurationMs": req.LockDuration.Milliseconds()}
	if req.MaxJobs > 0 {
		body["maxJobs"] = req.MaxJobs
	}
	if req.RequestTimeout > 0 {
		body["requestTimeoutMs"] = req.RequestTimeout.Milliseconds()
	}
	var out struct{ Jobs []Job }
	err := c.do(ctx, request{method: http.MethodPost, path: "/jobs/activate", body: body}, &out)
	return out.Jobs, err
}

// CompleteJob completes an activated job; vars merge into the instance.
func (c *Client) CompleteJob(ctx context.Context, job Job, vars map[string]any) error {
	body := map[string]any{"lockToken": job.LockToken}
	if vars != nil {
		body["variables"] = vars
	}
	return c.do(ctx, request{method: http.MethodPost, path: "/jobs/" + esc(job.Key) + "/complete", body: body}, nil)
}

// CompleteRouterJob answers an activated router job (an ad-hoc region
// with gobpm:router="job"); an empty Activate starts nothing.
func (c *Client) CompleteRouterJob(ctx context.Context, job Job, a RouterAnswer) error {
	if a.Activate == nil {
		a.Activate = []Activation{}
	}
	body := map[string]any{"lockToken": job.LockToken, "activate": a.Activate}
	if a.Variables != nil {
		body["variables"] = a.Variables
	}
	return c.do(ctx, request{method: http.MethodPost, path: "/jobs/" + esc(job.Key) + "/complete", body: body}, nil)
}

// FailRequest says how a job failed.
type FailRequest struct {
	// Retries is how many retries remain; nil for one less than now.
	// 0 raises an incident.
	Retries *int
	// RetryBackoff is how long until the job may be activated again.
	RetryBackoff time.Duration
	Message      string
}

// FailJob reports that a job failed.
func (c *Client) FailJob(ctx context.Context, job Job, req FailRequest) error {
	body := map[string]any{"lockToken": job.LockToken}
	if req.Retries != nil {
		body["retries"] = *req.Retries
	}
	if req.RetryBackoff > 0 {
		body["retryBackoffMs"] = req.RetryBackoff.Milliseconds()
	}
	if req.Message != "" {
		body["errorMessage"] = req.Message
	}
	return c.do(ctx, request{method: http.MethodPost, path: "/jobs/" + esc(job.Key) + "/fail", body: body}, nil)
}

// ThrowJobError throws the BPMN error e at the job's task.
func (c *Client) ThrowJobError(ctx context.Context, job Job, e BPMNError) error {
	body := map[string]any{"lockToken": job.LockToken, "errorCode": e.Code}
	if e.Message != "" {
		body["errorMessage"] = e.Message
	}
	if e.Variables != nil {
		body["variables"] = e.Variables
	}
	return c.do(ctx, request{method: http.MethodPost, path: "/jobs/" + esc(job.Key) + "/error", body: body}, nil)
}

// ExtendJobLock makes the job's lock expire d from now.
func (c *Client) ExtendJobLock(ctx context.Context, job Job, d time.Duration) error {
	body := map[string]any{"lockToken": job.LockToken, "lockDurationMs": max(d.Milliseconds(), 1)}
	return c.do(ctx, request{method: http.MethodPost, path: "/jobs/" + esc(job.Key) + "/extend", body: body}, nil)
}

// BPMNError is a business error a job handler returns (or ThrowJobError
// sends): an error boundary event with its Code catches it.
type BPMNError struct {
	Code      string
	Message   string
	Variables map[string]any
}

// Error returns the code and message.
func (e BPMNError) Error() string {
	if e.Message == "" {
		return "bpmn error " + e.Code
	}
	return "bpmn error " + e.Code + ": " + e.Message
}

// TaskFilter selects user tasks; zero fields do not filter.
type TaskFilter struct {
	Assignee       string
	CandidateUser  string
	CandidateGroup string
	InstanceID     string
	Limit          int
	Offset         int
}

// Tasks lists open user tasks the caller may see.
func (c *Client) Tasks(ctx context.Context, f TaskFilter) (TaskPage, error) {
	q := url.Values{}
	set(q, "assignee", f.Assignee)
	set(q, "candidateUser", f.CandidateUser)
	set(q, "candidateGroup", f.CandidateGroup)
	set(q, "instanceId", f.InstanceID)
	setInt(q, "limit", f.Limit)
	setInt(q, "offset", f.Offset)
	var out TaskPage
	err := c.do(ctx, request{method: http.MethodGet, path: "/tasks", query: q}, &out)
	return out, err
}

// Task returns one user task.
func (c *Client) Task(ctx context.Context, id string) (Task, error) {
	var out Task
	err := c.do(ctx, request{method: http.MethodGet, path: "/tasks/" + esc(id)}, &out)
	return out, err
}

// ClaimTask assigns the task to the acting user.
func (c *Client) ClaimTask(ctx context.Context, id string) (Task, error) {
	var out Task
	err := c.do(ctx, request{method: http.MethodPost, path: "/tasks/" + esc(id) + "/claim"}, &out)
	return out, err
}

// UnclaimTask gives the task back to its candidates.
func (c *Client) UnclaimTask(ctx context.Context, id string) (Task, error) {
	var out Task
	err := c.do(ctx, request{method: http.MethodPost, path: "/tasks/" + esc(id) + "/unclaim"}, &out)
	return out, err
}

// CompleteTask completes a user task as the acting user.
func (c *Client) CompleteTask(ctx context.Context, id string, vars map[string]any) error {
	body := map[string]any{}
	if vars != nil {
		body["variables"] = vars
	}
	return c.do(ctx, request{method: http.MethodPost, path: "/tasks/" + esc(id) + "/complete", body: body}, nil)
}

// MessageRequest is a message to correlate.
type MessageRequest struct {
	Name           string         `json:"name"`
	CorrelationKey string         `json:"correlationKey,omitempty"`
	Variables      map[string]any `json:"variables,omitempty"`
	// TimeToLiveMs, when positive, buffers the message that many
	// milliseconds for subscriptions that open later (PublishMessage).
	TimeToLiveMs int64 `json:"timeToLive,omitempty"`
	// MessageID, with TimeToLiveMs, refuses a second message with the
	// same name, correlation key and id while the first is buffered.
	MessageID string `json:"messageId,omitempty"`
	// IdempotencyKey makes the call safe to repeat (and to retry).
	IdempotencyKey string `json:"-"`
}

// CorrelateMessage delivers a message and returns how many waits it reached.
func (c *Client) CorrelateMessage(ctx context.Context, m MessageRequest) (int, error) {
	var out struct{ Correlated int }
	err := c.do(ctx, request{method: http.MethodPost, path: "/messages", body: m, idemKey: m.IdempotencyKey}, &out)
	return out.Correlated, err
}

// Publication is what publishing a buffered message did.
type Publication struct {
	// Correlated counts the process keys with a waiting subscription when
	// it was published (each got the message), else the starts it made.
	Correlated int `json:"correlated"`
	// Buffered is set when the message is kept until ExpiresAt under
	// MessageKey.
	Buffered   bool      `json:"buffered"`
	MessageKey string    `json:"messageKey"`
	MessageID  string    `json:"messageId"`
	ExpiresAt  time.Time `json:"expiresAt"`
}

// PublishMessage publishes a message with m.TimeToLiveMs: delivered at
// once where something waits, and buffered for the subscriptions that
// open before it expires. A live duplicate m.MessageID is a 409 Problem.
func (c *Client) PublishMessage(ctx context.Context, m MessageRequest) (Publication, error) {
	var out Publication
	err := c.do(ctx, request{method: http.MethodPost, path: "/messages", body: m, idemKey: m.IdempotencyKey}, &out)
	return out, err
}

// SignalRequest is a signal to broadcast.
type SignalRequest struct {
	Name      string         `json:"name"`
	Variables map[string]any `json:"variables,omitempty"`
	// IdempotencyKey makes the call safe to repeat (and to retry).
	IdempotencyKey string `json:"-"`
}

// BroadcastSignal broadcasts a signal and returns how many waits it triggered.
func (c *Client) BroadcastSignal(ctx context.Context, s SignalRequest) (int, error) {
	var out struct{ Triggered int }
	err := c.do(ctx, request{method: http.MethodPost, path: "/signals", body: s, idemKey: s.IdempotencyKey}, &out)
	return out.Triggered, err
}

// Decisions lists the latest version of every decision key.
func (c *Client) Decisions(ctx context.Context) ([]Process, error) {
	var out struct{ Items []Process }
	err := c.do(ctx, request{method: http.MethodGet, path: "/decisions"}, &out)
	return out.Items, err
}

// DecisionVersions lists every version of the decision key, ascending.
func (c *Client) DecisionVersions(ctx context.Context, key string) ([]DecisionVersion, error) {
	var out struct{ Items []DecisionVersion }
	err := c.do(ctx, request{method: http.MethodGet, path: "/decisions/" + esc(key) + "/versions"}, &out)
	return out.Items, err
}

// DecisionXML returns the DMN document a decision version was deployed in,
// byte for byte (it may hold other decisions too).
func (c *Client) DecisionXML(ctx context.Context, key string, version int) ([]byte, error) {
	var out []byte
	err := c.do(ctx, request{method: http.MethodGet, path: "/decisions/" + esc(key) + "/versions/" + strconv.Itoa(version) + "/xml"}, &out)
	return out, err
}

// EvaluateDecision evaluates the latest version of a decision.
func (c *Client) EvaluateDecision(ctx context.Context, key string, vars map[string]any) (DecisionEvaluation, error) {
	if vars == nil {
		vars = map[string]any{}
	}
	var out DecisionEvaluation
	err := c.do(ctx, request{method: http.MethodPost, path: "/decisions/" + esc(key) + "/evaluate", body: map[string]any{"variables": vars}}, &out)
	return out, err
}

func set(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

func setInt(q url.Values, k string, v int) {
	if v > 0 {
		q.Set(k, strconv.Itoa(v))
	}
}
