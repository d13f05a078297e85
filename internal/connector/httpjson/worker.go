package httpjson

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/runtime"
)

// Jobs is what the worker needs of the runtime: the same job acts an
// external worker uses.
type Jobs interface {
	ActivateJobs(ctx context.Context, req runtime.ActivateRequest) ([]runtime.JobView, error)
	// CompleteJobWithCalls, FailJob (FailRequest.Calls) and
	// ThrowJobErrorWithCalls hand the call the attempt made to the history.
	CompleteJobWithCalls(ctx context.Context, ref runtime.JobRef, holder runtime.JobHolder, vars map[string]any, calls []runtime.ConnectorCall) error
	FailJob(ctx context.Context, key string, holder runtime.JobHolder, req runtime.FailRequest) error
	ThrowJobErrorWithCalls(ctx context.Context, ref runtime.JobRef, holder runtime.JobHolder, code, message string, vars map[string]any, calls []runtime.ConnectorCall) error
	ExtendJobLock(ctx context.Context, key string, holder runtime.JobHolder, d time.Duration) error
}

// Defaults of Options.
const (
	DefaultMaxBodyBytes = 10 << 20
	DefaultConcurrency  = 16
	DefaultLockDuration = time.Minute
	DefaultMaxCallTime  = 10 * time.Minute
)

// WorkerName is the worker name the built-in worker locks jobs under.
const WorkerName = "gobpm-http-connector"

// Types are the job types the worker serves.
var Types = []string{bpmn.HTTPConnectorType, bpmn.GobpmHTTPType}

// Options configure a Worker.
type Options struct {
	// Logger receives one line per call (method, URL without secrets,
	// status, duration); nil discards.
	Logger *slog.Logger
	// Secrets resolve {{secrets.NAME}}; nil resolves none.
	Secrets *Secrets
	// AllowHosts are the patterns of hosts calls may reach although they
	// are loopback, private or link-local: names, *.domain, addresses,
	// networks (CIDR).
	AllowHosts []string
	// MaxBodyBytes caps request and response bodies (0: 10 MiB).
	MaxBodyBytes int64
	// Concurrency caps the calls in flight per job type (0: 16).
	Concurrency int
	// LockDuration is how long a job stays locked per activation and per
	// extension while its call runs (0: one minute).
	LockDuration time.Duration
	// MaxCallTime caps a call's connection plus read time; a timeout of 0
	// seconds (Camunda: none) gets it (0: ten minutes).
	MaxCallTime time.Duration
	// PollTimeout is how long one activation long-polls (0: 30 s).
	PollTimeout time.Duration

	// testDial and testTLS let the package's tests send a model's real
	// host names to a local test server: testDial maps host:port to the
	// address dialled (and checked), testTLS replaces the TLS settings.
	testDial func(addr string) string
	testTLS  *tls.Config
	// testNow is the OAuth token cache's clock (nil: time.Now).
	testNow func() time.Time
}

// Worker is the built-in REST connector worker. Start and Stop are
// idempotent.
type Worker struct {
	jobs   Jobs
	opts   Options
	log    *slog.Logger
	caller *caller
	exprs  programs

	mu     sync.Mutex // guards cancel, done
	cancel context.CancelFunc
	done   chan struct{}
}

// New returns a stopped worker over jobs.
func New(jobs Jobs, opts Options) (*Worker, error) {
	g, err := newGuard(opts.AllowHosts)
	if err != nil {
		return nil, fmt.Errorf("http connector: %w", err)
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.LockDuration <= 0 {
		opts.LockDuration = DefaultLockDuration
	}
	if opts.MaxCallTime <= 0 {
		opts.MaxCallTime = DefaultMaxCallTime
	}
	if opts.PollTimeout <= 0 {
		opts.PollTimeout = 30 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g.testDial = opts.testDial
	transport := &http.Transport{
		TLSClientConfig:       opts.testTLS,
		Proxy:                 nil, // a proxy would dial what the guard has not checked
		DialContext:           g.dial,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   20 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	client := &http.Client{Transport: transport, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		// The target is dialled through the guard like the first request.
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirect to a %s: URL refused", req.URL.Scheme)
		}
		return nil
	}}
	return &Worker{jobs: jobs, opts: opts, log: log, caller: &caller{client: client, maxBody: opts.MaxBodyBytes, tokens: newTokenCache(opts.testNow)}}, nil
}

// Start starts activating jobs; it returns at once.
func (w *Worker) Start(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancel != nil {
		return
	}
	ctx, w.cancel = context.WithCancel(context.WithoutCancel(ctx))
	w.done = make(chan struct{})
	var wg sync.WaitGroup
	for _, typ := range Types {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.poll(ctx, typ, &wg)
		}()
	}
	go func() {
		<-ctx.Done()
		wg.Wait()
		close(w.done)
	}()
}

// Stop cancels the calls in flight (their jobs are retried after their
// locks run out) and waits for the worker's goroutines to end.
func (w *Worker) Stop() {
	w.mu.Lock()
	cancel, done := w.cancel, w.done
	w.cancel = nil
	w.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}

// poll activates jobs of typ while there are free slots (each type has
// Options.Concurrency of its own: a long poll holds the free ones), each
// call in its own goroutine counted by wg.
func (w *Worker) poll(ctx context.Context, typ string, wg *sync.WaitGroup) {
	slots := make(chan struct{}, w.opts.Concurrency)
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		n := 1
	more:
		for n < w.opts.Concurrency {
			select {
			case slots <- struct{}{}:
				n++
			default:
				break more
			}
		}
		asked := time.Now()
		jobs, err := w.jobs.ActivateJobs(ctx, runtime.ActivateRequest{Type: typ, Worker: WorkerName, MaxJobs: n,
			LockDuration: w.opts.LockDuration, RequestTimeout: w.opts.PollTimeout})
		for range n - len(jobs) {
			<-slots
		}
		pause := time.Duration(0)
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			w.log.Warn("http connector: activation failed", "job_type", typ, "error", err)
			pause = time.Second
		case len(jobs) == 0 && time.Since(asked) < w.opts.PollTimeout/2:
			// The long poll answered early with nothing (the runtime is
			// shutting down): do not spin.
			pause = 250 * time.Millisecond
		}
		if pause > 0 {
			select {
			case <-time.After(pause):
			case <-ctx.Done():
				return
			}
		}
		for _, j := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				w.work(ctx, j)
			}()
		}
	}
}

// work runs one job: the call, with its lock extended while it runs, then
// the job's completion, error or failure.
func (w *Worker) work(ctx context.Context, j runtime.JobView) {
	holder := runtime.JobHolder{Token: j.LockToken}
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	extended := make(chan struct{})
	go func() {
		defer close(extended)
		t := time.NewTicker(w.opts.LockDuration / 3)
		defer t.Stop()
		for {
			select {
			case <-callCtx.Done():
				return
			case <-t.C:
				if err := w.jobs.ExtendJobLock(callCtx, j.Key, holder, w.opts.LockDuration); err != nil {
					// The job is gone (cancelled, its task interrupted) or
					// no longer ours: stop its call.
					cancel()
					return
				}
			}
		}
	}()
	out := w.run(callCtx, j)
	cancel()
	<-extended
	if ctx.Err() != nil || out.abandon {
		return // stopping (the lock runs out, the job is retried) or the job is gone
	}
	log := w.log.With("instance_id", string(j.InstanceID), "element_id", j.NodeID, "job_type", j.Type)
	// The call's history entry commits with the act or not at all: an act
	// refused because the lock was lost records nothing (the log line
	// stays), as the job's next holder makes a call of its own.
	var err error
	ref := runtime.JobRef{Key: j.Key}
	switch {
	case out.throw != nil:
		err = w.jobs.ThrowJobErrorWithCalls(ctx, ref, holder, out.throw.code, out.throw.message, out.throw.vars, out.calls)
	case out.fail != nil:
		req := *out.fail
		req.Calls = out.calls
		err = w.jobs.FailJob(ctx, j.Key, holder, req)
	default:
		err = w.jobs.CompleteJobWithCalls(ctx, ref, holder, out.vars, out.calls)
	}
	if err != nil {
		log.Info("http connector: job not settled", "error", out.mask.mask(err.Error()))
	}
}

// outcome is how a job ends: vars to complete it with, a BPMN error to
// throw or a failure.
type outcome struct {
	vars  map[string]any
	throw *thrown
	fail  *runtime.FailRequest
	mask  masker
	// calls are the calls the attempt made, for the history (none when it
	// failed before calling: a bad input, a missing secret).
	calls []runtime.ConnectorCall
	// abandon leaves the job alone: its call was cancelled.
	abandon bool
}

// thrown is a BPMN error an error expression asked for.
type thrown struct {
	code, message string
	vars          map[string]any
}

// run makes the job's call and decides its outcome.
func (w *Worker) run(ctx context.Context, j runtime.JobView) outcome {
	headers := j.CustomHeaders
	rv := &resolver{secrets: w.opts.Secrets}
	vars, _ := rv.value(j.Variables).(map[string]any)
	mask := newMasker(rv.used)
	out := outcome{mask: mask}
	backoff, err := parseBackoff(headers["retryBackoff"])
	if err != nil {
		return w.failed(j, out, 0, 0, err.Error())
	}
	if len(rv.missing) > 0 {
		return w.failed(j, out, j.Retries-1, backoff, fmt.Sprintf("secret %s is not set (GOBPM_SECRET_%s or --secrets-file)", rv.missing[0], rv.missing[0]))
	}
	logURL := mask.mask(str(j.Variables["url"])) // as written: placeholders, not values
	req, err := parseRequest(vars, w.opts.MaxCallTime)
	if err != nil {
		return w.failed(j, out, 0, 0, mask.mask(err.Error()))
	}
	start := time.Now()
	resp, err := w.caller.do(ctx, req)
	call := runtime.ConnectorCall{Method: req.method, URL: logURL, StartedAt: start, Duration: time.Since(start)}
	attrs := []any{"instance_id", string(j.InstanceID), "element_id", j.NodeID, "method", req.method, "url", logURL,
		"duration_ms", call.Duration.Milliseconds()}
	if err == nil {
		call.Status = resp.status
		attrs = append(attrs, "status", resp.status)
	} else {
		// The entry names the URL already: the error without it.
		call.Error = strings.TrimPrefix(mask.mask(describe(err, logURL)), logURL+": ")
		attrs = append(attrs, "error", mask.mask(err.Error()))
	}
	out.calls = []runtime.ConnectorCall{call}
	w.log.Info("http connector call", attrs...)
	if ctx.Err() != nil && err != nil {
		out.abandon = true // cancelled with its job, or the worker stops
		return out
	}
	if err == nil && resp.status >= 400 {
		err = &httpError{resp}
	}
	job := map[string]any{"retries": j.Retries}
	if err != nil {
		var ie *inputError
		retries := j.Retries - 1
		if errors.As(err, &ie) {
			retries = 0
		}
		msg := mask.mask(describe(err, logURL))
		if src := headers["errorExpression"]; src != "" {
			e := map[string]any{"message": msg, "type": "io.camunda.connector.api.error.ConnectorException"}
			var he *httpError
			if errors.As(err, &he) {
				e["code"] = strconv.Itoa(he.resp.status)
				e["variables"] = map[string]any{"response": map[string]any{"headers": he.resp.headers, "body": he.resp.body}}
			}
			if o, ok := w.errorExpression(j, out, src, mask.value(map[string]any{"error": e, "job": job}).(map[string]any)); ok {
				return o
			}
		}
		return w.failed(j, out, retries, backoff, msg)
	}
	rc := mask.value(resp.context()).(map[string]any)
	result := map[string]any{}
	if name := headers["resultVariable"]; name != "" {
		result[name] = rc
	}
	if src := headers["resultExpression"]; src != "" {
		s := scope{"response": rc}
		for k, v := range rc {
			s[k] = v
		}
		v, err := w.exprs.eval(src, s)
		if err != nil {
			return w.failed(j, out, 0, 0, mask.mask(fmt.Sprintf("resultExpression: %v", err)))
		}
		switch m := v.(type) {
		case nil:
		case map[string]any:
			for k, e := range m {
				result[k] = e
			}
		default:
			return w.failed(j, out, 0, 0, fmt.Sprintf("resultExpression must return a context, not %s", kind(v)))
		}
	}
	if src := headers["errorExpression"]; src != "" {
		s := scope{"response": rc, "job": job}
		for k, v := range rc {
			s[k] = v
		}
		if o, ok := w.errorExpression(j, out, src, s); ok {
			return o
		}
	}
	out.vars = mask.value(result).(map[string]any)
	return out
}

// errorExpression evaluates an error expression against s; ok reports
// whether it asked for a BPMN error or a job error.
func (w *Worker) errorExpression(j runtime.JobView, out outcome, src string, s map[string]any) (outcome, bool) {
	v, err := w.exprs.eval(src, scope(s))
	if err != nil {
		return w.failed(j, out, 0, 0, out.mask.mask(fmt.Sprintf("errorExpression: %v", err))), true
	}
	m, _ := v.(map[string]any)
	switch m["errorType"] {
	case errorTypeBPMN:
		code := str(m["errorCode"])
		if code == "" {
			return out, false
		}
		vars, _ := m["variables"].(map[string]any)
		out.throw = &thrown{code: code, message: out.mask.mask(str(m["errorMessage"])), vars: maskMap(out.mask, vars)}
		return out, true
	case errorTypeJob:
		retries, err := strconv.Atoi(str(m["retries"]))
		if err != nil {
			retries = 0
		}
		backoff, _ := parseBackoff(str(m["retryBackoff"]))
		out = w.failed(j, out, retries, backoff, out.mask.mask(str(m["errorMessage"])))
		// The failure's variables become local variables of the job's
		// task, as Camunda's connector runtime fails the job with them.
		if vars, _ := m["variables"].(map[string]any); len(vars) > 0 {
			out.fail.Variables = maskMap(out.mask, vars)
		}
		return out, true
	}
	return out, false
}

// failed is a failure outcome.
func (w *Worker) failed(_ runtime.JobView, out outcome, retries int, backoff time.Duration, msg string) outcome {
	if retries < 0 {
		retries = 0
	}
	out.fail = &runtime.FailRequest{Retries: &retries, RetryBackoff: backoff, ErrorMessage: msg}
	return out
}

// describe words a call error for the job's error message, naming the URL
// as written (without secret values).
func describe(err error, logURL string) string {
	if he, ok := err.(*httpError); ok {
		return he.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("%s: timed out", logURL)
	}
	return fmt.Sprintf("%s: %v", logURL, err)
}

// kind names the JSON kind of v.
func kind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("%T", v)
}

// maskMap masks a variables map, nil staying nil.
func maskMap(m masker, v map[string]any) map[string]any {
	if v == nil {
		return nil
	}
	out, _ := m.value(v).(map[string]any)
	return out
}

// newMasker masks the secret values a call used, also as they appear
// percent-encoded.
func newMasker(used []string) masker {
	var m masker
	seen := map[string]bool{}
	for _, v := range used {
		for _, f := range []string{v, url.QueryEscape(v), url.PathEscape(v)} {
			if f != "" && !seen[f] {
				seen[f] = true
				m = append(m, f)
			}
		}
	}
	return m
}
