package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	gobpm "github.com/gobpm/gobpm"
	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/connector/webhook"
	"github.com/gobpm/gobpm/internal/httpsec"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/telemetry"
)

// Service is what the API needs from the runtime; *runtime.Runtime
// implements it. Errors carry runtime error codes (runtime.ErrorCode), which
// the error table in problem.go maps to HTTP statuses.
type Service interface {
	// Deploy validates and registers the files. An invalid model fails with
	// *runtime.DeploymentError and nothing is registered.
	Deploy(ctx context.Context, files []runtime.File) (runtime.DeploymentResult, error)
	// Processes returns the latest version of every process key.
	Processes(ctx context.Context) ([]runtime.DefinitionRecord, error)
	// ProcessVersions returns every version of key, ascending; ENOTFOUND for an unknown key.
	ProcessVersions(ctx context.Context, key string) ([]runtime.DefinitionRecord, error)
	// Definition returns one version of key with its XML; ENOTFOUND if absent.
	Definition(ctx context.Context, key string, version int) (runtime.DefinitionRecord, error)
	// Decisions returns the latest version of every decision key.
	Decisions(ctx context.Context) ([]runtime.DefinitionRecord, error)
	// DecisionVersions returns every version of a decision key, ascending;
	// ENOTFOUND for an unknown key.
	DecisionVersions(ctx context.Context, key string) ([]runtime.DefinitionRecord, error)
	// DecisionDefinition returns one version of a decision key with the DMN
	// document it was deployed in; ENOTFOUND if absent.
	DecisionDefinition(ctx context.Context, key string, version int) (runtime.DefinitionRecord, error)
	// EvaluateDecision evaluates the latest version of a decision with vars
	// as its inputs; ENOTFOUND for an unknown key, EINVALID when the
	// evaluation fails (e.g. a UNIQUE table with two matches), with the
	// reasons in the message.
	EvaluateDecision(ctx context.Context, key string, version int, vars map[string]any) (runtime.DecisionResult, error)
	// StartInstance starts an instance and returns it after its first step
	// committed; ENOTFOUND for an unknown key or version, EINVALID for bad input.
	StartInstance(ctx context.Context, req runtime.StartRequest) (runtime.InstanceView, error)
	// Instance returns a snapshot of an instance (its first scopes and
	// tracks, and how many there are); ENOTFOUND if absent.
	Instance(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error)
	// InstanceScopes returns a page of an instance's open scopes after the
	// cursor after and the next cursor ("" on the last page); ENOTFOUND for
	// an unknown instance, EINVALID for a cursor it did not return.
	InstanceScopes(ctx context.Context, id runtime.InstanceID, after string, limit int) ([]runtime.ScopeView, string, error)
	// InstanceTracks pages an instance's live tracks like InstanceScopes.
	InstanceTracks(ctx context.Context, id runtime.InstanceID, after string, limit int) ([]runtime.TrackView, string, error)
	// ListInstances returns a page of instances matching f and the total count.
	ListInstances(ctx context.Context, f runtime.InstanceFilter) ([]runtime.InstanceRow, int, error)
	// IncidentMarks says which of ids have open incidents themselves or
	// further down their call tree (absent: neither), in one lookup.
	IncidentMarks(ctx context.Context, ids []runtime.InstanceID) (map[runtime.InstanceID]runtime.IncidentMark, error)
	// History returns the facts of an instance after afterSeq, at most limit;
	// ENOTFOUND for an unknown instance.
	History(ctx context.Context, id runtime.InstanceID, afterSeq int64, limit int) ([]runtime.FactRow, error)
	// Cancel terminates an instance; ENOTFOUND if absent, ECONFLICT if it already ended.
	Cancel(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error)
	// ModifyInstance applies modification instructions in one step;
	// EINVALID for an instruction that fits nothing, ECONFLICT for an
	// ambiguous container or an ended instance.
	ModifyInstance(ctx context.Context, id runtime.InstanceID, instructions []runtime.Modification) (runtime.InstanceView, error)
	// Incidents lists the incidents of an instance ("" = all instances).
	Incidents(ctx context.Context, id runtime.InstanceID, openOnly bool) ([]runtime.IncidentRow, error)
	// IncidentsPage pages the incidents like Incidents, oldest first, by
	// cursor; EINVALID for a cursor it did not return.
	IncidentsPage(ctx context.Context, id runtime.InstanceID, openOnly bool, cursor string, limit int) ([]runtime.IncidentRow, string, error)

	// ActivateJobs locks up to req.MaxJobs jobs of req.Type for req.Worker
	// and req.User, each with a fresh lock token. With req.RequestTimeout >
	// 0 it waits (bounded by ctx) until a job is activatable, and returns no
	// jobs, not an error, when the timeout passes.
	ActivateJobs(ctx context.Context, req runtime.ActivateRequest) ([]runtime.JobView, error)
	// CompleteJob merges vars and continues the instance. The job acts
	// (CompleteJob, FailJob, ThrowJobError, ExtendJobLock) need h to hold
	// the job's lock: ENOTFOUND for an unknown, stale or forged key,
	// EINVALID without a lock token, ECONFLICT for a job not activated or
	// activated again by someone else, EFORBIDDEN for another user.
	CompleteJob(ctx context.Context, key string, h runtime.JobHolder, vars map[string]any) error
	// CompleteRouterJob answers an ad-hoc region's router job (complete
	// with activate): CompleteJob's codes, and ECONFLICT for a job that is
	// no router job; EINVALID for an activation without an activity.
	CompleteRouterJob(ctx context.Context, key string, h runtime.JobHolder, a runtime.RouterAnswer) error
	// FailJob records a failure; exhausted retries raise an incident.
	FailJob(ctx context.Context, key string, h runtime.JobHolder, req runtime.FailRequest) error
	// ThrowJobError throws a BPMN error with code at the job's task.
	ThrowJobError(ctx context.Context, key string, h runtime.JobHolder, code, message string, vars map[string]any) error
	// ExtendJobLock moves the lock's expiry to d from now; ECONFLICT also
	// if the lock has expired.
	ExtendJobLock(ctx context.Context, key string, h runtime.JobHolder, d time.Duration) error
	// RetryIncident resolves an incident and gives its job retries;
	// ECONFLICT if it is resolved already.
	RetryIncident(ctx context.Context, id string, retries int) (runtime.IncidentRow, error)

	// Tasks returns a page of user tasks matching f and the total count.
	Tasks(ctx context.Context, f runtime.TaskFilter) ([]runtime.TaskView, int, error)
	// CompletedTasks returns a page of completed user tasks, the latest first, and the total.
	CompletedTasks(ctx context.Context, f runtime.CompletedTaskFilter) ([]runtime.CompletedTaskRow, int, error)
	// Form returns the Camunda Form with an id deployed with a process version.
	Form(ctx context.Context, key string, version int, id string) (runtime.FormView, error)
	// Task returns one user task; ENOTFOUND if absent.
	Task(ctx context.Context, id string) (runtime.TaskView, error)
	// ClaimTask makes a the assignee; EFORBIDDEN if a is not a candidate,
	// ECONFLICT if someone else has claimed the task.
	ClaimTask(ctx context.Context, id string, a runtime.Actor) (runtime.TaskView, error)
	// UnclaimTask clears the assignee; EFORBIDDEN if a is not the assignee,
	// ECONFLICT if the task is not claimed.
	UnclaimTask(ctx context.Context, id string, a runtime.Actor) (runtime.TaskView, error)
	// CompleteTask completes the task as a, merging vars into the process.
	CompleteTask(ctx context.Context, id string, a runtime.Actor, vars map[string]any) error

	// SetVariables writes vars (non-empty) into scopeID ("" = the root
	// scope) by the write rule, or into that scope itself with local, and
	// returns the instance; ENOTFOUND for an unknown instance or scope.
	SetVariables(ctx context.Context, id runtime.InstanceID, scopeID string, vars map[string]any, local bool) (runtime.InstanceView, error)
	// TriggerWait continues a receive task without a messageRef (its
	// trigger wait waitID) with vars and returns the instance; ENOTFOUND for
	// an unknown instance or a wait that is no open trigger wait of it,
	// ECONFLICT for an ended instance.
	TriggerWait(ctx context.Context, id runtime.InstanceID, waitID string, vars map[string]any) (runtime.InstanceView, error)
	// Waits lists what an instance waits for, oldest first; ENOTFOUND for an
	// unknown instance.
	Waits(ctx context.Context, id runtime.InstanceID, after string, limit int) ([]runtime.WaitRow, string, error)

	// AdHocRegions lists the open ad-hoc regions of an instance, nested ones
	// too; ENOTFOUND for an unknown instance.
	AdHocRegions(ctx context.Context, id runtime.InstanceID) ([]runtime.RegionView, error)
	// ActivateAdHocWith starts candidates of the manual region in scopeID
	// as a, each with its local variables, all or nothing, and returns the
	// region; EFORBIDDEN without a user, ECONFLICT for a non-candidate, a
	// closed region or a second activity in a sequential region (nothing
	// changes then), EINVALID without an activity.
	ActivateAdHocWith(ctx context.Context, id runtime.InstanceID, scopeID string, acts []runtime.Activation, a runtime.Actor) (runtime.RegionView, error)
	// CompleteAdHoc ends the region in scopeID as a and returns it (closed:
	// its scope id and why it stopped); EFORBIDDEN without a user,
	// ECONFLICT for a closed region or one whose activities still run.
	CompleteAdHoc(ctx context.Context, id runtime.InstanceID, scopeID string, a runtime.Actor) (runtime.RegionView, error)

	// CorrelateMessage delivers a message and returns how many waits or
	// starts it reached; ENOTFOUND when nothing waits for it.
	CorrelateMessage(ctx context.Context, name, correlationKey string, vars map[string]any) (int, error)
	// PublishMessage publishes a message with a time to live: delivered as
	// CorrelateMessage delivers, and buffered for the subscriptions that
	// open before it expires; ECONFLICT for a live duplicate message id.
	PublishMessage(ctx context.Context, p runtime.Publication) (runtime.PublishResult, error)
	// BroadcastSignal triggers every wait for the signal and returns how many.
	BroadcastSignal(ctx context.Context, name string, vars map[string]any) (int, error)
	// EvaluateConditions evaluates the conditional start events (of the
	// latest versions, or of the named version) against the request's
	// variables and starts an instance at each one that holds, returning
	// them; ENOTFOUND when none is deployed, EINVALID wrapping
	// runtime.ErrConditionFailed when a condition fails to evaluate
	// (nothing started).
	EvaluateConditions(ctx context.Context, req runtime.ConditionsRequest) ([]runtime.InstanceView, error)

	// Metrics returns the runtime's counters since start (GET /metrics).
	Metrics() runtime.Metrics
	// WaitCounts counts the open waits per kind (GET /metrics).
	WaitCounts(ctx context.Context) (map[string]int, error)
	// ProcessMetrics returns the series per process key, job type and step
	// trigger, with the open incidents per process read from the store
	// (GET /metrics).
	ProcessMetrics(ctx context.Context) (runtime.ProcessMetrics, error)

	// Operations: the clock, deleting ended instances, backups (ops.go).
	Operations
	// Migrations: instances moved to another process version (migrations.go).
	Migrations
	// Batches: operations on every instance a filter matches (batches.go).
	Batches
	// Statistics returns a process's element statistics over a period and
	// a version (0: all) from the rollups; ENOTFOUND for an unknown key or
	// version, EINVALID for a bad period.
	Statistics(ctx context.Context, f runtime.StatsFilter) (runtime.ProcessStats, error)
	// StatisticsTimeline returns its starts, ends and durations per hour
	// or day; the errors of Statistics, EINVALID for another bucket.
	StatisticsTimeline(ctx context.Context, f runtime.StatsFilter, bucket string) (runtime.Timeline, error)
	// Nodes lists the nodes sharing the database, oldest first (this one
	// alone on SQLite); NodeID names the node that answers.
	Nodes(ctx context.Context) ([]runtime.NodeRow, error)
	NodeID() string
}

// Default body size limits.
const (
	DefaultMaxDeploymentBytes int64 = 16 << 20
	DefaultMaxJSONBytes       int64 = 1 << 20
)

// Options tunes the API. The zero value is usable.
type Options struct {
	// MaxDeploymentBytes caps a deployment request body (all files together);
	// 0 means DefaultMaxDeploymentBytes. Larger bodies get 413.
	MaxDeploymentBytes int64
	// MaxJSONBytes caps a JSON request body; 0 means DefaultMaxJSONBytes.
	MaxJSONBytes int64
	// Access authenticates and authorizes callers and keeps the audit
	// trail. Nil behaves like access mode none: every caller may do
	// everything, acting as the X-Gobpm-User header names.
	Access *access.Service
	// Ready reports whether start-up is done (running instances resumed),
	// for GET /readyz; nil means always ready.
	Ready func() bool
	// SecureCookies marks the session cookie the login sets Secure on
	// every answer, for a server reached over HTTPS through a TLS proxy
	// (--secure-cookies, or an https --public-url); it is Secure anyway on
	// a request that came over TLS.
	SecureCookies bool
	// Fallback serves the requests outside /api/ that no API route takes
	// (the cockpit, mounted at the root); nil answers them 404 problem+json.
	// /healthz and /metrics are API routes and never reach it.
	Fallback http.Handler
	// MaxLongPolls caps the job activations with requestTimeoutMs one
	// caller (an authenticated user, else a client address) may hold open
	// at once; one more is 429 with Retry-After. 0 means
	// httpsec.DefaultMaxHolds, a negative value no cap.
	MaxLongPolls int
	// Webhooks serves /webhooks/{path} (public: each webhook checks its own
	// authentication); nil answers those paths 404.
	Webhooks *webhook.Handler
	// Tracer gives each request a span (tracing.go); nil traces nothing.
	Tracer *telemetry.Tracer
}

func (o Options) withDefaults() Options {
	if o.MaxDeploymentBytes <= 0 {
		o.MaxDeploymentBytes = DefaultMaxDeploymentBytes
	}
	if o.MaxJSONBytes <= 0 {
		o.MaxJSONBytes = DefaultMaxJSONBytes
	}
	if o.MaxLongPolls == 0 {
		o.MaxLongPolls = httpsec.DefaultMaxHolds
	}
	return o
}

// server holds the dependencies of the handlers.
type server struct {
	svc    Service
	access *access.Service
	log    *slog.Logger
	opts   Options
	http   *httpMetrics // what the request logger counted, for GET /metrics
	// polls holds the long polls open per caller (Options.MaxLongPolls).
	polls *httpsec.Holds
}

// New returns the HTTP handler of the JSON API: every route of openapi.yaml,
// with request ids, request logging and panic recovery. Every error, unknown
// routes and methods included, is answered with application/problem+json.
// A nil logger discards logs.
func New(svc Service, logger *slog.Logger, opts Options) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &server{svc: svc, access: opts.Access, log: logger, opts: opts.withDefaults(), http: newHTTPMetrics()}
	s.polls = httpsec.NewHolds(s.opts.MaxLongPolls)

	r := chi.NewRouter()
	r.Use(httpsec.Headers, requestID, requestLogger(logger, s.http), traceRequests(opts.Tracer), s.recoverer, s.headerLimit, middleware.GetHead)
	r.NotFound(s.notFound)
	r.MethodNotAllowed(s.methodNotAllowed(r))

	s.mount(r)
	r.Mount(EngineRestPrefix, s.engineRest())
	r.Mount(RestV2Prefix, s.restV2())
	return r
}

// MaxHeaderBytes bounds a request's header fields and target together; a
// larger request gets a 431 problem. (The HTTP server's own, larger limit
// answers in plain text before any handler runs.)
const MaxHeaderBytes = 64 << 10

// headerLimit answers 431 problem+json to a request whose header fields and
// target exceed MaxHeaderBytes.
func (s *server) headerLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := len(r.RequestURI)
		for k, vs := range r.Header {
			for _, v := range vs {
				n += len(k) + len(v) + 4
			}
		}
		if n > MaxHeaderBytes {
			s.writeError(w, r, errorf(kindHeaderTooLarge, "", fmt.Sprintf("the request's header fields and target take %d bytes; at most %d are accepted", n, MaxHeaderBytes)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// crossOrigin refuses state-changing requests a browser sends from another
// origin (http.CrossOriginProtection: Sec-Fetch-Site, else Origin against
// Host) with a 403 problem. Without credentials the API acts for whoever
// reaches the loopback port, and browsers send form-like requests to other
// origins without a CORS preflight (a form post to /cancel, a body without
// Content-Type to a JSON route, a multipart deployment), so any web page the
// operator visits could otherwise act through it. Clients outside a browser
// send neither header and pass; GET, HEAD and OPTIONS always pass.
func (s *server) crossOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, errorf(kindForbidden, "", "cross-origin request refused: a browser sent it from another site (Sec-Fetch-Site, Origin); "+
			"the API acts only for clients and pages of its own origin"))
	}))
	return cop.Handler(next)
}

func (s *server) notFound(w http.ResponseWriter, r *http.Request) {
	if s.opts.Fallback != nil && !strings.HasPrefix(r.URL.Path, "/api/") {
		s.opts.Fallback.ServeHTTP(w, r)
		return
	}
	markUnmatched(r)
	s.writeError(w, r, errorf(kindNotFound, "", "no route for "+r.Method+" "+r.URL.Path))
}

// markUnmatched notes on the request's log state that no route took it.
func markUnmatched(r *http.Request) {
	if st := logStateFrom(r.Context()); st != nil {
		st.unmatched = true
	}
}

// methodNotAllowed answers 405 with the Allow header RFC 9110 requires; chi
// hands a custom handler no method list, so it asks the router.
func (s *server) methodNotAllowed(routes chi.Routes) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		markUnmatched(r)
		var allowed []string
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions} {
			if routes.Match(chi.NewRouteContext(), m, r.URL.Path) {
				allowed = append(allowed, m)
			}
		}
		if len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
		}
		s.writeError(w, r, errorf(kindMethodNotAllowed, "", "method "+r.Method+" is not allowed on "+r.URL.Path))
	}
}

// healthz is the liveness probe: it answers as long as the process serves HTTP.
func (s *server) healthz(w http.ResponseWriter, r *http.Request) error {
	s.writeJSON(w, r, http.StatusOK, Health{Status: "ok"})
	return nil
}

// readyz is the readiness probe: 200 once start-up resumed the running
// instances, 503 while it is still at it (the server answers requests
// meanwhile; instances not resumed yet are resumed under their own lock
// before or after a request touches them, never during).
func (s *server) readyz(w http.ResponseWriter, r *http.Request) error {
	if s.opts.Ready != nil && !s.opts.Ready() {
		s.writeJSON(w, r, http.StatusServiceUnavailable, Health{Status: "resuming"})
		return nil
	}
	s.writeJSON(w, r, http.StatusOK, Health{Status: "ready"})
	return nil
}

// openAPI serves the embedded contract.
func (s *server) openAPI(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "application/yaml")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(gobpm.OpenAPI)
	return nil
}
