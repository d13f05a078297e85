package cockpit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/httpsec"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web"
	"github.com/gobpm/gobpm/web/templates"
)

// Service is the slice of the runtime the cockpit reads and acts through;
// *runtime.Runtime implements it. Errors carry runtime error codes
// (runtime.ErrorCode): ENOTFOUND for unknown ids, EFORBIDDEN for an act the
// actor may not do, ECONFLICT for a wrong state, EINVALID for bad input.
type Service interface {
	// Deploy validates and registers files; *runtime.DeploymentError when refused.
	Deploy(ctx context.Context, files []runtime.File) (runtime.DeploymentResult, error)
	// Processes returns the latest version of every key.
	Processes(ctx context.Context) ([]runtime.DefinitionRecord, error)
	// ProcessVersions returns every version of key; ENOTFOUND for an unknown key.
	ProcessVersions(ctx context.Context, key string) ([]runtime.DefinitionRecord, error)
	// Definition returns one version (0 = latest) with its XML; ENOTFOUND if absent.
	Definition(ctx context.Context, key string, version int) (runtime.DefinitionRecord, error)
	// StartInstance starts an instance; ENOTFOUND, EINVALID.
	StartInstance(ctx context.Context, req runtime.StartRequest) (runtime.InstanceView, error)
	// Instance returns a snapshot; ENOTFOUND if absent.
	Instance(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error)
	// InstanceScopes returns the open scopes of an instance after the scope
	// with id after ("" from the root), at most limit, and the cursor of the
	// next page ("" on the last); ENOTFOUND, EINVALID for a malformed after.
	InstanceScopes(ctx context.Context, id runtime.InstanceID, after string, limit int) ([]runtime.ScopeView, string, error)
	// InstanceTracks returns the live tracks (tokens) of an instance after
	// the track with id after ("" from the first), at most limit, and the
	// cursor of the next page ("" on the last); ENOTFOUND, EINVALID.
	InstanceTracks(ctx context.Context, id runtime.InstanceID, after string, limit int) ([]runtime.TrackView, string, error)
	// ListInstances returns a page of instances and the total, counted up to
	// maxListTotal: maxListTotal+1 means "more than that".
	ListInstances(ctx context.Context, f runtime.InstanceFilter) ([]runtime.InstanceRow, int, error)
	// History returns facts after afterSeq, at most limit; ENOTFOUND.
	History(ctx context.Context, id runtime.InstanceID, afterSeq int64, limit int) ([]runtime.FactRow, error)
	// Waits returns what an instance waits for; ENOTFOUND.
	Waits(ctx context.Context, id runtime.InstanceID, after string, limit int) ([]runtime.WaitRow, string, error)
	// Cancel terminates an instance and its called children; ECONFLICT once ended.
	Cancel(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error)
	// ModifyInstance cancels and starts elements in one step; EINVALID,
	// ECONFLICT.
	ModifyInstance(ctx context.Context, id runtime.InstanceID, instructions []runtime.Modification) (runtime.InstanceView, error)
	// Elements lists the flow elements of a process version; ENOTFOUND.
	Elements(ctx context.Context, key string, version int) ([]runtime.ElementView, error)
	// CheckMigration validates a migration plan against both versions and
	// each instance it selects, changing nothing; ENOTFOUND, EINVALID.
	CheckMigration(ctx context.Context, plan runtime.MigrationPlan) (runtime.MigrationCheck, error)
	// StartMigration validates a plan and starts its batch; EINVALID or
	// ECONFLICT with the check when it does not fit.
	StartMigration(ctx context.Context, plan runtime.MigrationPlan) (runtime.MigrationView, runtime.MigrationCheck, error)
	// Migration returns a batch with its progress; ENOTFOUND.
	Migration(ctx context.Context, id string) (runtime.MigrationView, error)
	// CountBatch counts the instances a batch request's filter matches
	// now (a dry run), up to maxListTotal+1 (more than that); EINVALID.
	CountBatch(ctx context.Context, req runtime.BatchRequest) (int, error)
	// CreateBatch starts a batch operation over the instances its filter
	// matches; EINVALID.
	CreateBatch(ctx context.Context, req runtime.BatchRequest) (runtime.BatchView, error)
	// Batch returns a batch with its progress; ENOTFOUND.
	Batch(ctx context.Context, id string) (runtime.BatchView, error)
	// Batches lists batches, newest first, and how many f matches.
	Batches(ctx context.Context, f runtime.BatchFilter) ([]runtime.BatchView, int, error)
	// BatchItems returns a page of a batch's items; ENOTFOUND.
	BatchItems(ctx context.Context, id string, f runtime.BatchItemFilter) ([]runtime.BatchItem, error)
	// PauseBatch, ResumeBatch and CancelBatch steer a batch; ECONFLICT
	// when its state does not allow it.
	PauseBatch(ctx context.Context, id string) (runtime.BatchView, error)
	ResumeBatch(ctx context.Context, id string) (runtime.BatchView, error)
	CancelBatch(ctx context.Context, id string) (runtime.BatchView, error)
	// DeleteInstance deletes an ended instance and its history; ECONFLICT
	// while it runs, failed, its caller runs or a delivery is pending.
	DeleteInstance(ctx context.Context, id runtime.InstanceID) error
	// SetVariables writes variables into a scope ("" = root); ENOTFOUND, EINVALID.
	SetVariables(ctx context.Context, id runtime.InstanceID, scopeID string, vars map[string]any, local bool) (runtime.InstanceView, error)
	// Incidents lists the incidents of an instance ("" = every open one).
	Incidents(ctx context.Context, id runtime.InstanceID, openOnly bool) ([]runtime.IncidentRow, error)
	// RetryIncident resolves an incident; ENOTFOUND, ECONFLICT when resolved.
	RetryIncident(ctx context.Context, id string, retries int) (runtime.IncidentRow, error)
	// Tasks returns a page of user tasks and the total.
	Tasks(ctx context.Context, f runtime.TaskFilter) ([]runtime.TaskView, int, error)
	// CompletedTasks lists completed user tasks, the latest first, and the total.
	CompletedTasks(ctx context.Context, f runtime.CompletedTaskFilter) ([]runtime.CompletedTaskRow, int, error)
	// ClaimTask makes a the assignee; EFORBIDDEN, ECONFLICT.
	ClaimTask(ctx context.Context, id string, a runtime.Actor) (runtime.TaskView, error)
	// UnclaimTask clears the assignee; EFORBIDDEN, ECONFLICT.
	UnclaimTask(ctx context.Context, id string, a runtime.Actor) (runtime.TaskView, error)
	// CompleteTask completes the task as a; EFORBIDDEN, ENOTFOUND.
	CompleteTask(ctx context.Context, id string, a runtime.Actor, vars map[string]any) error
	// WaitCounts counts the open waits of every instance by kind (job, task,
	// timer, message, signal, condition, call, offer).
	WaitCounts(ctx context.Context) (map[string]int, error)
	// Nodes lists the gobpm processes sharing the database, oldest first
	// (this one alone on SQLite); NodeID names this one.
	Nodes(ctx context.Context) ([]runtime.NodeRow, error)
	NodeID() string
	// AdHocRegions lists the open ad-hoc regions of an instance, nested ones
	// too; ENOTFOUND.
	AdHocRegions(ctx context.Context, id runtime.InstanceID) ([]runtime.RegionView, error)
	// ActivateAdHoc starts a candidate of a manual region as a: EFORBIDDEN
	// without a user; ECONFLICT for a non-candidate, a closed region or a
	// second activity in a sequential region (nothing changes then).
	ActivateAdHoc(ctx context.Context, id runtime.InstanceID, scopeID, activityID string, a runtime.Actor) (runtime.RegionView, error)
	// InstanceProcessKey returns the process key of an instance, which
	// authorization checks; ENOTFOUND.
	InstanceProcessKey(ctx context.Context, id runtime.InstanceID) (string, error)
	// IncidentProcessKey returns the process key of an incident's
	// instance; ENOTFOUND.
	IncidentProcessKey(ctx context.Context, id string) (string, error)
	// Clock returns the runtime's clock (incident ages are counted on it).
	Clock() runtime.ClockView
	// Decisions returns the latest version of every decision key.
	Decisions(ctx context.Context) ([]runtime.DefinitionRecord, error)
	// DecisionVersions returns every version of a decision key; ENOTFOUND.
	DecisionVersions(ctx context.Context, key string) ([]runtime.DefinitionRecord, error)
	// DecisionDefinition returns one version (0 = latest) of a decision
	// with its DMN document; ENOTFOUND.
	DecisionDefinition(ctx context.Context, key string, version int) (runtime.DefinitionRecord, error)
	// EvaluateDecision evaluates the latest version of a decision;
	// ENOTFOUND, EINVALID when the evaluation fails.
	EvaluateDecision(ctx context.Context, key string, version int, vars map[string]any) (runtime.DecisionResult, error)
	// SubscribeChanges subscribes to the changes of the steps committed
	// from now on (by this node); Close the subscription when done.
	SubscribeChanges() *runtime.ChangeSubscription
	// InstanceRows returns the rows of the instances ids that exist, by
	// id, in one read.
	InstanceRows(ctx context.Context, ids []runtime.InstanceID) (map[runtime.InstanceID]runtime.InstanceRow, error)
	// Task returns one open user task; ENOTFOUND once it is gone.
	Task(ctx context.Context, id string) (runtime.TaskView, error)
	// Form returns the Camunda Form with an id deployed with a process
	// version; ENOTFOUND.
	Form(ctx context.Context, key string, version int, id string) (runtime.FormView, error)
	// StartForm reads a process version's None start event and the form it links.
	StartForm(ctx context.Context, key string, version int) (runtime.StartFormView, error)
	// Outline returns what the pages show of a process version's model
	// (element names and kinds, sequence flows, forms), read from the
	// runtime's parsed model; ENOTFOUND.
	Outline(ctx context.Context, key string, version int) (runtime.Outline, error)
	// DecisionOutline returns what the decision page shows of a decision
	// version's model (0: the latest), read from the parsed model.
	DecisionOutline(ctx context.Context, key string, version int) (runtime.DecisionOutline, error)
	// IncidentMarks says which of ids have open incidents themselves or
	// further down their call tree (absent: neither), in one lookup.
	IncidentMarks(ctx context.Context, ids []runtime.InstanceID) (map[runtime.InstanceID]runtime.IncidentMark, error)
	// ElementCounts counts the tokens and open incidents at each element
	// over every running or failed instance of a process version.
	ElementCounts(ctx context.Context, key string, version int) ([]runtime.ElementCount, error)
	// Statistics returns a process's element statistics over a period and
	// a version (0: all), as the JSON API answers them; ENOTFOUND, EINVALID
	// (also when the store keeps no statistics).
	Statistics(ctx context.Context, f runtime.StatsFilter) (runtime.ProcessStats, error)
	// StatisticsTimeline returns a process's starts, ends and incidents
	// per hour or day (runtime.BucketHour, BucketDay); as Statistics.
	StatisticsTimeline(ctx context.Context, f runtime.StatsFilter, bucket string) (runtime.Timeline, error)
	// StatisticsHistogram returns one element's duration histograms from
	// the rollups Statistics reads; as Statistics.
	StatisticsHistogram(ctx context.Context, f runtime.StatsFilter, node string) (runtime.ElementHistogram, error)
	// ElementInstances lists the slowest and the failed instances at an
	// element over a period, from a bounded sample; as Statistics.
	ElementInstances(ctx context.Context, f runtime.StatsFilter, node string, limit int) (runtime.ElementRuns, error)
	// IncidentTrees places every instance with an open incident in its
	// call tree (its process key, the root and the root's key).
	IncidentTrees(ctx context.Context) (map[runtime.InstanceID]runtime.IncidentTree, error)
}

// Default limits.
const (
	// DefaultMaxUploadBytes caps a deployment upload (all files together).
	DefaultMaxUploadBytes int64 = 16 << 20
	// DefaultMaxConcurrentUploads is how many multipart uploads the
	// cockpit reads at once; more are refused (503) before being read.
	DefaultMaxConcurrentUploads = 4
	// maxFormBytes caps every other form.
	maxFormBytes int64 = 1 << 20
)

// Options tunes the cockpit. The zero value is usable.
type Options struct {
	// MaxUploadBytes caps a deployment upload; 0 means DefaultMaxUploadBytes.
	MaxUploadBytes int64
	// MaxConcurrentUploads caps the multipart uploads read at once (each
	// may hold MaxUploadBytes in memory); 0 means
	// DefaultMaxConcurrentUploads.
	MaxConcurrentUploads int
	// SecureCookies marks the cookies Secure (behind a TLS proxy); they
	// are Secure anyway on a request that came over TLS.
	SecureCookies bool
	// Access authenticates and authorizes the people using the cockpit and
	// keeps the audit trail. Nil or mode none: no logins, the acting-as
	// box names who acts, and everybody may do everything (loopback only).
	// With builtin or oidc every page needs a session (the JSON API's
	// cookie) and shows only what the person may see and do.
	Access *access.Service
	// OIDC runs the login at the identity provider with --auth oidc; its
	// RedirectURL must be the cockpit's /login/oidc/callback. Nil with
	// oidc: the login page says that logins are not configured.
	OIDC *auth.OIDC
	// OIDCName names the identity provider on the login button ("Log in
	// with Keycloak"); "your identity provider" when empty.
	OIDCName string
	// MaxEventStreams caps the live-update streams (GET /events) one
	// person (a logged-in user, else a client address) may hold open at
	// once; one more is 429 with Retry-After and the page polls instead.
	// 0 means httpsec.DefaultMaxHolds, a negative value no cap.
	MaxEventStreams int
}

// handler holds the dependencies of the cockpit's handlers.
type handler struct {
	svc        Service
	log        *slog.Logger
	opts       Options
	vendorMiss bool
	// pending holds the OIDC logins in progress, by state.
	pending *pendingLogins
	// uploads holds a slot per multipart upload being read.
	uploads chan struct{}
	// streams holds the event streams open per person (MaxEventStreams).
	streams *httpsec.Holds
}

// New returns the cockpit's HTTP handler: every page of templates' routes,
// the static assets under /static/, and the actions, each a POST guarded
// against cross-site requests. A nil logger discards logs.
func New(svc Service, logger *slog.Logger, opts Options) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxUploadBytes <= 0 {
		opts.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if opts.MaxConcurrentUploads <= 0 {
		opts.MaxConcurrentUploads = DefaultMaxConcurrentUploads
	}
	h := &handler{svc: svc, log: logger, opts: opts, vendorMiss: !web.VendorReady(), pending: newPendingLogins(time.Now),
		uploads: make(chan struct{}, opts.MaxConcurrentUploads), streams: httpsec.NewHolds(streamCap(opts.MaxEventStreams))}
	if h.vendorMiss {
		logger.Warn("cockpit assets missing", slog.String("detail", web.VendorHelpOnMiss))
	}

	r := chi.NewRouter()
	r.Use(noFraming, h.identify)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusNotFound, "There is no page at "+r.URL.Path+".")
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusMethodNotAllowed, "This address does not take "+r.Method+" requests.")
	})

	static := http.StripPrefix("/static/", http.FileServerFS(web.Static()))
	r.Get(templates.RouteStatic, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			// A folder: the assets are served, never listed.
			h.fail(w, r, http.StatusNotFound, "There is no page at this address.")
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=300")
		static.ServeHTTP(w, r)
	})
	for _, rt := range h.routes() {
		h.mount(r, rt)
	}
	return r
}

// noFraming sets the server's security headers (httpsec) on the cockpit's
// answers also when it is served on its own: among them, other sites may
// not frame it (clickjacking: its buttons act for the person) and only its
// own scripts run.
func noFraming(next http.Handler) http.Handler { return httpsec.Headers(next) }

// noStore keeps browsers from caching pages: a page and its live fragment
// share a URL.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Add("Vary", HeaderHXRequest)
		next.ServeHTTP(w, r)
	})
}

// layout fills what every page shares.
func (h *handler) layout(w http.ResponseWriter, r *http.Request, title, nav string) templates.Layout {
	a := h.actor(r)
	var manual time.Time
	if h.svc != nil { // a cockpit without a runtime still answers its 404s
		if c := h.svc.Clock(); c.Manual {
			manual = c.Now
		}
	}
	return templates.Layout{
		ManualClock:   manual,
		Title:         title,
		Nav:           nav,
		Actor:         templates.Actor{User: a.User, Groups: a.Groups},
		CSRF:          h.csrfToken(w, r),
		Flash:         h.takeFlash(w, r),
		VendorMissing: h.vendorMiss,
		Here:          r.URL.RequestURI(),
		Auth:          h.authOn(),
		Can: templates.Can{
			Read:      h.mayAny(r, auth.PermRead, auth.KindProcess),
			Decisions: h.mayAny(r, auth.PermRead, auth.KindDecision),
			Deploy:    h.mayAny(r, auth.PermDeploy, auth.KindProcess) || h.mayAny(r, auth.PermDeploy, auth.KindDecision),
			Admin:     h.authOn() && h.may(r, auth.PermAdmin, auth.KindSystem, ""),
		},
	}
}

// render writes a page, or only its live fragment for an htmx poll.
func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	var err error
	if isLivePoll(r) {
		err = templ.RenderFragments(r.Context(), buf, c, templates.FragmentLive)
	} else {
		err = c.Render(r.Context(), buf)
	}
	if err != nil {
		h.log.Error("cockpit render failed", slog.String("path", r.URL.Path), slog.Any("error", err))
		http.Error(w, "The page could not be drawn; the details are in the server log.", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail answers with an error page in plain words.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	title := "Not found"
	switch {
	case status == http.StatusForbidden:
		title = "Refused"
	case status == http.StatusUnauthorized:
		title = "Not logged in"
	case status == http.StatusTooManyRequests:
		title = "Too many attempts"
	case status >= 500:
		title = "Something went wrong"
	case status != http.StatusNotFound:
		title = "Not possible"
	}
	h.render(w, r, status, templates.ErrorView(templates.ErrorPage{Layout: h.layout(w, r, title, ""), Status: status, Message: msg,
		LoginURL: h.loginTarget(r)}))
}

// failErr answers a read that failed: unknown ids as 404, anything else 500.
func (h *handler) failErr(w http.ResponseWriter, r *http.Request, err error) {
	h.fail(w, r, statusOf(err), h.plain(r, err))
}

func statusOf(err error) int {
	switch runtime.ErrorCode(err) {
	case runtime.ENOTFOUND:
		return http.StatusNotFound
	case runtime.EFORBIDDEN:
		return http.StatusForbidden
	case runtime.ECONFLICT:
		return http.StatusConflict
	case runtime.EINVALID:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// plain says what went wrong in words a person can act on. Internal errors
// are logged here, once, and described without their details.
func (h *handler) plain(r *http.Request, err error) string {
	var re *runtime.Error
	if errors.As(err, &re) {
		msg := sentence(re.Message)
		switch re.Code {
		case runtime.ENOTFOUND:
			return msg
		case runtime.EFORBIDDEN:
			return "Not allowed: " + msg
		case runtime.ECONFLICT:
			return "Not possible in the current state: " + msg
		case runtime.EINVALID:
			return "Invalid input: " + msg
		}
	}
	var de *runtime.DeploymentError
	if errors.As(err, &de) {
		return fmt.Sprintf("The deployment was refused (%d problems); nothing was registered.", len(de.Problems))
	}
	if errors.Is(err, context.Canceled) {
		return "The request was cancelled."
	}
	h.log.Error("cockpit request failed", slog.String("path", r.URL.Path), slog.Any("error", err))
	return "Something went wrong on the server; the details are in its log."
}

// sentence capitalises a message and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// done ends an action: a flash message and a 303 back to a page. An error
// message marks the act failed in the audit trail (unless the handler
// said more, see noteStatus).
func (h *handler) done(w http.ResponseWriter, r *http.Request, to, kind, msg string) {
	if kind == "error" {
		noteStatus(r, http.StatusBadRequest)
	}
	h.flash(w, r, kind, msg)
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// actFailed ends a refused action with the reason in plain words.
func (h *handler) actFailed(w http.ResponseWriter, r *http.Request, to string, err error) {
	noteStatus(r, statusOf(err))
	h.done(w, r, to, "error", h.plain(r, err))
}
