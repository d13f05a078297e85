package camunda8

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Service is what the REST v2 endpoints need from the runtime;
// *runtime.Runtime implements it. Errors carry runtime error codes
// (runtime.ErrorCode), which errorOf maps to Camunda 8's statuses.
type Service interface {
	// ActivateC8Jobs activates jobs, long-polling; EINVALID out of bounds.
	ActivateC8Jobs(ctx context.Context, req runtime.C8ActivateRequest) ([]runtime.C8Job, error)
	// CompleteC8Job, FailC8Job, ThrowC8JobError and UpdateC8JobTimeout act
	// on a job the user activated: ENOTFOUND for an unknown key or a job
	// another user holds, ECONFLICT for a job nobody holds, EINVALID.
	CompleteC8Job(ctx context.Context, key int64, user string, vars map[string]any) error
	FailC8Job(ctx context.Context, key int64, user string, f runtime.C8Failure) error
	ThrowC8JobError(ctx context.Context, key int64, user, code, message string, vars map[string]any) error
	UpdateC8JobTimeout(ctx context.Context, key int64, user string, timeout time.Duration) error
	// UpdateC8JobRetries sets a job's retries (whoever holds it); more
	// than 0 resolves its open incident.
	UpdateC8JobRetries(ctx context.Context, key int64, retries int) error
	// JobByNumericKey returns a job's public key (ENOTFOUND if none) and
	// JobType its type, for the work check.
	JobByNumericKey(ctx context.Context, key int64) (string, error)
	JobType(ctx context.Context, key string) (string, error)

	// ResolveC8Process finds a process version by id and version or key.
	ResolveC8Process(ctx context.Context, processID string, version int, key int64) (runtime.C8Process, error)
	// StartC8Instance starts an instance, awaiting its end with await.
	StartC8Instance(ctx context.Context, p runtime.C8Process, vars map[string]any, await *runtime.C8Await) (runtime.C8Instance, error)
	// ByNumericKey, NumericKey and NumericKeys translate numeric keys.
	ByNumericKey(ctx context.Context, kind runtime.KeyKind, key int64) (string, error)
	NumericKey(ctx context.Context, kind runtime.KeyKind, id string) (int64, error)
	NumericKeys(ctx context.Context, kind runtime.KeyKind, ids []string) (map[string]int64, error)
	// InstanceProcessKey, Cancel, ListInstances and InstanceRows serve
	// the instances.
	InstanceProcessKey(ctx context.Context, id runtime.InstanceID) (string, error)
	Cancel(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error)
	ListInstances(ctx context.Context, f runtime.InstanceFilter) ([]runtime.InstanceRow, int, error)
	InstanceRows(ctx context.Context, ids []runtime.InstanceID) (map[runtime.InstanceID]runtime.InstanceRow, error)
	// SetC8Variables writes variables into the instance an element
	// instance key names (a process instance key).
	SetC8Variables(ctx context.Context, elementInstanceKey int64, vars map[string]any, local bool) (runtime.InstanceView, error)

	// DeployC8 deploys resources and answers their numeric keys.
	DeployC8(ctx context.Context, files []runtime.File) (runtime.C8Deployment, error)

	// PublishC8 publishes a message, buffering it for its time to live
	// (nothing waiting is no error; a duplicate message id ECONFLICT).
	PublishC8(ctx context.Context, p runtime.Publication) (runtime.PublishResult, error)
	// BroadcastSignal fires a signal.
	BroadcastSignal(ctx context.Context, name string, vars map[string]any) (int, error)

	// Tasks, Task, ClaimTask, UnclaimTask and CompleteTask serve the user tasks.
	Tasks(ctx context.Context, f runtime.TaskFilter) ([]runtime.TaskView, int, error)
	Task(ctx context.Context, id string) (runtime.TaskView, error)
	ClaimTask(ctx context.Context, id string, a runtime.Actor) (runtime.TaskView, error)
	UnclaimTask(ctx context.Context, id string, a runtime.Actor) (runtime.TaskView, error)
	CompleteTask(ctx context.Context, id string, a runtime.Actor, vars map[string]any) error

	// IncidentsPage pages the open incidents; ResolveC8Incident retries
	// one by numeric key; IncidentProcessKey names its process.
	IncidentsPage(ctx context.Context, id runtime.InstanceID, openOnly bool, cursor string, limit int) ([]runtime.IncidentRow, string, error)
	ResolveC8Incident(ctx context.Context, key int64) (runtime.IncidentRow, error)
	IncidentProcessKey(ctx context.Context, id string) (string, error)
}

// Guard is what the adapter asks about the caller of a request, which the
// mounting API authenticated. A nil Guard lets everybody do everything,
// as user "".
type Guard interface {
	// User is the caller's user id: the identity a job's activation is
	// bound to ("" without authentication).
	User(r *http.Request) string
	// MayWork reports whether the caller may work on jobs of jobType.
	MayWork(r *http.Request, jobType string) bool
	// MayRead reports whether the caller may read instances of a process.
	MayRead(r *http.Request, processKey string) bool
	// MayStart reports whether the caller may start instances of a process.
	MayStart(r *http.Request, processKey string) bool
	// MayOperate reports whether the caller may operate instances of a process.
	MayOperate(r *http.Request, processKey string) bool
	// Deploying returns the request's context prepared for a deployment
	// (the deployer and the deploy guard).
	Deploying(r *http.Request) context.Context
	// Actor is the caller as a user task actor.
	Actor(r *http.Request) runtime.Actor
	// ReadsEverything reports whether the caller may read every process.
	ReadsEverything(r *http.Request) bool
}

// Config configures the handler New returns.
type Config struct {
	// Service is the runtime (required).
	Service Service
	// Guard authorizes each act; nil allows everything.
	Guard Guard
	// Logger logs internal errors; nil discards them.
	Logger *slog.Logger
	// MaxJSONBytes caps a request body; 0 means 1 MiB.
	MaxJSONBytes int64
	// MaxDeploymentBytes caps a deployment's multipart body; 0 means 16 MiB.
	MaxDeploymentBytes int64
	// ErrorOf, when set, translates an error the adapter does not know (a
	// refusal of the mounting API's guard) into a problem; ok false leaves
	// it to the adapter (a 500).
	ErrorOf func(err error) (p *Problem, ok bool)
	// Hold, when set, is asked before a long poll waits: ok false refuses
	// it (429), release ends the hold.
	Hold func(r *http.Request) (release func(), ok bool)
	// Version is the server's version, answered by the topology.
	Version string
	// Middlewares run before every route (authentication, audit), in order.
	Middlewares []func(http.Handler) http.Handler
}

const (
	defaultMaxJSONSize = 1 << 20
	defaultMaxDeploy   = 16 << 20
)

// handler serves the REST v2 endpoints.
type handler struct {
	svc       Service
	guard     Guard
	log       *slog.Logger
	max       int64
	maxDeploy int64
	hold      func(r *http.Request) (func(), bool)
	errorOfFn func(err error) (*Problem, bool)
	version   string
}

// New returns the handler of Camunda 8's REST v2 endpoints, to be mounted
// at /v2. Every answer is application/json and every refusal an RFC 9457
// problem. The returned router is a chi.Router, so route walkers see its
// routes.
func New(cfg Config) chi.Router {
	h := &handler{svc: cfg.Service, guard: cfg.Guard, log: cfg.Logger, max: cfg.MaxJSONBytes, maxDeploy: cfg.MaxDeploymentBytes,
		hold: cfg.Hold, errorOfFn: cfg.ErrorOf, version: cfg.Version}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.max <= 0 {
		h.max = defaultMaxJSONSize
	}
	if h.maxDeploy <= 0 {
		h.maxDeploy = defaultMaxDeploy
	}
	if h.version == "" {
		h.version = "8.8.0"
	}
	r := chi.NewRouter()
	r.Use(cfg.Middlewares...)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		WriteProblem(w, r, notFound("no REST v2 resource "+r.Method+" "+r.URL.Path+" (gobpm serves a part of Camunda 8's REST v2 API: see docs/camunda8.md)"))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		WriteProblem(w, r, NewProblem(http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "method "+r.Method+" is not allowed on "+r.URL.Path))
	})
	r.Post("/jobs/activation", h.serve(h.activateJobs))
	r.Post("/jobs/{jobKey}/completion", h.serve(h.completeJob))
	r.Post("/jobs/{jobKey}/failure", h.serve(h.failJob))
	r.Post("/jobs/{jobKey}/error", h.serve(h.throwError))
	r.Patch("/jobs/{jobKey}", h.serve(h.updateJob))
	r.Post("/process-instances", h.serve(h.createInstance))
	r.Post("/process-instances/{processInstanceKey}/cancellation", h.serve(h.cancelInstance))
	r.Post("/process-instances/search", h.serve(h.searchInstances))
	r.Put("/element-instances/{elementInstanceKey}/variables", h.serve(h.setVariables))
	r.Post("/deployments", h.serve(h.deploy))
	r.Post("/messages/publication", h.serve(h.publishMessage))
	r.Post("/messages/correlation", h.serve(h.correlateMessage))
	r.Post("/signals/broadcast", h.serve(h.broadcastSignal))
	r.Post("/user-tasks/search", h.serve(h.searchTasks))
	r.Post("/user-tasks/{userTaskKey}/assignment", h.serve(h.assignTask))
	r.Delete("/user-tasks/{userTaskKey}/assignee", h.serve(h.unassignTask))
	r.Post("/user-tasks/{userTaskKey}/completion", h.serve(h.completeTask))
	r.Post("/incidents/search", h.serve(h.searchIncidents))
	r.Post("/incidents/{incidentKey}/resolution", h.serve(h.resolveIncident))
	r.Get("/topology", h.serve(h.topology))
	r.Get("/license", h.serve(h.license))
	return r
}

// serve adapts a handler that returns an error to Camunda 8's problems.
func (h *handler) serve(fn func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := fn(w, r)
		if err == nil {
			return
		}
		if ctxErr := r.Context().Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return // the client went away: nobody to answer
		}
		WriteProblem(w, r, h.errorOf(r, err))
	}
}

// errorOf maps an error to Camunda 8's status and title; an unknown error
// is a 500 whose cause is logged, not answered.
func (h *handler) errorOf(r *http.Request, err error) *Problem {
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	var de *runtime.DeploymentError
	if errors.As(err, &de) {
		return invalid(de.Error())
	}
	if errors.Is(err, runtime.ErrDuplicateMessage) {
		return NewProblem(http.StatusConflict, TitleAlreadyExists, messageOf(err))
	}
	if errors.Is(err, runtime.ErrAwaitTimeout) {
		return NewProblem(http.StatusGatewayTimeout, TitleDeadline, "the process instance did not complete within the request timeout: it goes on running")
	}
	msg := messageOf(err)
	switch runtime.ErrorCode(err) {
	case runtime.ENOTFOUND:
		return notFound(msg)
	case runtime.EINVALID:
		return invalid(msg)
	case runtime.ECONFLICT:
		return NewProblem(http.StatusConflict, TitleInvalidState, msg)
	case runtime.EFORBIDDEN:
		return NewProblem(http.StatusForbidden, TitleForbidden, msg)
	}
	if h.errorOfFn != nil {
		if p, ok := h.errorOfFn(err); ok {
			return p
		}
	}
	h.log.ErrorContext(r.Context(), "REST v2 request failed", "err", err, "path", r.URL.Path)
	return NewProblem(http.StatusInternalServerError, TitleInternal, "internal error: the server logged the cause")
}

// messageOf is the message of a runtime error, without its wrapped cause.
func messageOf(err error) string {
	var e *runtime.Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return err.Error()
}

// readBody decodes the request's JSON body into v (numbers as
// json.Number); an empty body leaves v as it is.
func (h *handler) readBody(r *http.Request, v any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, h.max+1))
	if err != nil {
		return fmt.Errorf("camunda8: read the request body: %w", err)
	}
	if int64(len(body)) > h.max {
		return NewProblem(http.StatusRequestEntityTooLarge, TitleInvalidArgument, fmt.Sprintf("the request body exceeds %d bytes", h.max))
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return invalid("the request body is no valid JSON of this resource: " + err.Error())
	}
	return nil
}

// writeJSON answers v with status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		return fmt.Errorf("camunda8: write the answer: %w", err)
	}
	return nil
}

// noContent answers 204.
func noContent(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// pathKey reads the numeric key in the path parameter name: a string of
// digits; anything else is a 400 as Camunda 8 answers it.
func pathKey(r *http.Request, name string) (int64, error) {
	s := chi.URLParam(r, name)
	k, err := strconv.ParseInt(s, 10, 64)
	if err != nil || k <= 0 {
		return 0, invalid(fmt.Sprintf("the value for %s is '%s' but must be a numeric key (a positive 64-bit integer)", name, s))
	}
	return k, nil
}

// keyOf reads an optional numeric key of a body: a string of digits (or
// a JSON number); 0 when absent.
func keyOf(raw json.RawMessage, field string) (int64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	s := string(raw)
	var str string
	if json.Unmarshal(raw, &str) == nil {
		s = str
	}
	k, err := strconv.ParseInt(s, 10, 64)
	if err != nil || k <= 0 {
		return 0, invalid(fmt.Sprintf("%s must be a numeric key (a string of digits), not %s", field, string(raw)))
	}
	return k, nil
}

// keyString is a numeric key as REST v2 writes it.
func keyString(k int64) string { return strconv.FormatInt(k, 10) }

// whole reads an optional JSON whole number in lo..hi.
func whole(n *json.Number, field string, lo, hi int64) (int64, bool, error) {
	if n == nil {
		return 0, false, nil
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil || i < lo || i > hi {
		return 0, true, invalid(fmt.Sprintf("%s must be a whole number between %d and %d, not %s", field, lo, hi, n.String()))
	}
	return i, true, nil
}

// millis reads an optional whole number of milliseconds in lo..hi.
func millis(n *json.Number, field string, lo, hi int64) (time.Duration, bool, error) {
	i, ok, err := whole(n, field, lo, hi)
	return time.Duration(i) * time.Millisecond, ok, err
}

// user is the caller's user id.
func (h *handler) user(r *http.Request) string {
	if h.guard == nil {
		return ""
	}
	return h.guard.User(r)
}

// mayWork, mayRead, mayStart and mayOperate ask the guard (nil: yes).
func (h *handler) mayWork(r *http.Request, t string) bool {
	return h.guard == nil || h.guard.MayWork(r, t)
}
func (h *handler) mayRead(r *http.Request, p string) bool {
	return h.guard == nil || h.guard.MayRead(r, p)
}
func (h *handler) mayStart(r *http.Request, p string) bool {
	return h.guard == nil || h.guard.MayStart(r, p)
}
func (h *handler) mayOperate(r *http.Request, p string) bool {
	return h.guard == nil || h.guard.MayOperate(r, p)
}

// actor is the caller as a task actor.
func (h *handler) actor(r *http.Request) runtime.Actor {
	if h.guard == nil {
		return runtime.Actor{}
	}
	return h.guard.Actor(r)
}

// readsEverything reports whether the caller may read every process.
func (h *handler) readsEverything(r *http.Request) bool {
	return h.guard == nil || h.guard.ReadsEverything(r)
}

// variables reads a variables object ({} or null: none).
func variables(raw json.RawMessage, field string) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, invalid(field + " must be a JSON object")
	}
	return m, nil
}

// timeString is a date-time as REST v2 writes it (RFC 3339, UTC, ms).
func timeString(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// optTime is timeString, nil for the zero time.
func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := timeString(t)
	return &s
}

// *runtime.Runtime is the Service.
var _ Service = (*runtime.Runtime)(nil)
