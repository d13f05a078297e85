package camunda7

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Service is what the engine-rest endpoints need from the runtime;
// *runtime.Runtime implements it. The external task id is gobpm's public
// job key. Errors carry runtime error codes (runtime.ErrorCode), which
// errorOf maps to Camunda 7's statuses and exception types.
type Service interface {
	// FetchJobs locks jobs of several types for a worker, long-polling
	// with RequestTimeout > 0; EINVALID for a request out of bounds.
	FetchJobs(ctx context.Context, req runtime.FetchRequest) ([]runtime.WorkerJob, error)
	// CompleteWorkerJob, FailWorkerJob, ThrowWorkerJobError and
	// ExtendWorkerJobLock act on a job the worker holds: ENOTFOUND for an
	// unknown key, ECONFLICT for a job not locked by that worker,
	// EFORBIDDEN for another user, EINVALID for bad input.
	CompleteWorkerJob(ctx context.Context, key string, h runtime.WorkerHolder, vars, localVars map[string]any) error
	FailWorkerJob(ctx context.Context, key string, h runtime.WorkerHolder, req runtime.FailRequest) error
	ThrowWorkerJobError(ctx context.Context, key string, h runtime.WorkerHolder, code, message string, vars map[string]any) error
	ExtendWorkerJobLock(ctx context.Context, key string, h runtime.WorkerHolder, d time.Duration) error
	// LockWorkerJob locks a job for a worker without fetching it, or
	// renews the lock the worker holds: ECONFLICT for a job locked by
	// another worker, backing off or out of retries.
	LockWorkerJob(ctx context.Context, key string, h runtime.WorkerHolder, d time.Duration) error
	// UnlockJob releases a job's lock without a penalty; ENOTFOUND for an
	// unknown key.
	UnlockJob(ctx context.Context, key string) error
	// WorkerJobs lists open jobs (at most runtime.MaxWorkerJobsListed,
	// after f.Offset), CountWorkerJobs counts them, WorkerJob reads one
	// (ENOTFOUND if absent).
	WorkerJobs(ctx context.Context, f runtime.WorkerJobFilter) ([]runtime.WaitRow, error)
	CountWorkerJobs(ctx context.Context, f runtime.WorkerJobFilter) (int, error)
	WorkerJob(ctx context.Context, key string) (runtime.WaitRow, error)
	// SetJobRetries sets a job's retries (0 opens an incident, more
	// resolves it); ENOTFOUND for an unknown key, EINVALID for negative
	// retries.
	SetJobRetries(ctx context.Context, key string, retries int) error
	// WorkerJobErrorDetails returns the details of a job's last failure
	// ("" when none); ENOTFOUND for an unknown key.
	WorkerJobErrorDetails(ctx context.Context, key string) (string, error)

	// Deployments: POST /deployment/create (deployment.go).
	Deployments
	// Definitions: the process definitions and starts (definitions.go).
	Definitions
	// Events: messages and signals (messages.go).
	Events
	// Instances: the process instances (instances.go).
	Instances
	// Tasks: the user tasks (tasks.go).
	Tasks
	// Incidents: the incidents (history.go).
	Incidents
}

// Guard is what the adapter asks about the caller of a request, which the
// mounting API authenticated. A nil Guard lets everybody do everything,
// as user "".
type Guard interface {
	// User is the caller's user id: the identity a task's lock belongs to
	// besides the worker id ("" without authentication).
	User(r *http.Request) string
	// MayWork reports whether the caller may work on jobs of jobType.
	MayWork(r *http.Request, jobType string) bool
	// MayRead reports whether the caller may read instances of a process.
	MayRead(r *http.Request, processKey string) bool
	// Deploying returns the request's context prepared for a deployment:
	// naming the caller as the deployer, with a guard that refuses models
	// the caller may not deploy (the refusal reaches ErrorOf).
	Deploying(r *http.Request) context.Context
	// MayStart reports whether the caller may start instances of a process.
	MayStart(r *http.Request, processKey string) bool
	// MayOperate reports whether the caller may operate (cancel) instances
	// of a process.
	MayOperate(r *http.Request, processKey string) bool
	// Actor is the caller as a user task actor (user and groups).
	Actor(r *http.Request) runtime.Actor
	// ReadsEverything reports whether the caller may read every process
	// (and so see every task).
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
	// refusal of the mounting API's guard) into Camunda 7's answer; ok
	// false leaves it to the adapter (a 500 for an unknown error).
	ErrorOf func(err error) (e *Error, ok bool)
	// Hold, when set, is asked before a long poll waits: ok false refuses
	// it (429, the caller holds too many), release ends the hold.
	Hold func(r *http.Request) (release func(), ok bool)
	// Middlewares run before every route (authentication, audit), in order.
	Middlewares []func(http.Handler) http.Handler
}

// Bounds of the external task protocol, in milliseconds on the wire.
const (
	maxTasks           = 1000
	maxLockMs          = int64(24 * time.Hour / time.Millisecond)
	maxAsyncTimeoutMs  = int64(5 * time.Minute / time.Millisecond)
	maxRetryTimeoutMs  = int64(7 * 24 * time.Hour / time.Millisecond)
	defaultMaxJSONSize = 1 << 20
	defaultMaxDeploy   = 16 << 20
)

// handler serves the engine-rest endpoints.
type handler struct {
	svc   Service
	guard Guard
	log   *slog.Logger
	max   int64
	// maxDeploy caps a deployment's body.
	maxDeploy int64
	hold      func(r *http.Request) (func(), bool)
	errorOfFn func(err error) (*Error, bool)
}

// New returns the handler of Camunda 7's engine-rest endpoints, to be
// mounted at /engine-rest: the external tasks (fetchAndLock, complete,
// failure, bpmnError, extendLock, unlock, lock, the listing), deployment,
// process definitions and starts, messages and signals, process
// instances, user tasks, incidents, history, engine and version. Every answer is
// application/json (no charset) and every refusal Camunda 7's error body.
// The returned router is a chi.Router, so route walkers see its routes.
func New(cfg Config) chi.Router {
	h := &handler{svc: cfg.Service, guard: cfg.Guard, log: cfg.Logger, max: cfg.MaxJSONBytes, maxDeploy: cfg.MaxDeploymentBytes,
		hold: cfg.Hold, errorOfFn: cfg.ErrorOf}
	if h.maxDeploy <= 0 {
		h.maxDeploy = defaultMaxDeploy
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.max <= 0 {
		h.max = defaultMaxJSONSize
	}
	r := chi.NewRouter()
	r.Use(cfg.Middlewares...)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, &Error{Status: http.StatusNotFound, Type: TypeRestException, Msg: "no engine-rest resource " + r.Method + " " + r.URL.Path + " (gobpm serves a subset of engine-rest: see docs/camunda7.md)"})
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, &Error{Status: http.StatusMethodNotAllowed, Type: TypeRestException, Msg: "method " + r.Method + " is not allowed on " + r.URL.Path})
	})
	r.Post("/external-task/fetchAndLock", h.serve(h.fetchAndLock))
	r.Get("/external-task", h.serve(h.list))
	r.Get("/external-task/count", h.serve(h.count))
	r.Get("/external-task/{id}", h.serve(h.get))
	r.Get("/external-task/{id}/errorDetails", h.serve(h.errorDetails))
	r.Put("/external-task/{id}/retries", h.serve(h.setRetries))
	r.Post("/external-task/{id}/complete", h.serve(h.complete))
	r.Post("/external-task/{id}/failure", h.serve(h.failure))
	r.Post("/external-task/{id}/bpmnError", h.serve(h.bpmnError))
	r.Post("/external-task/{id}/extendLock", h.serve(h.extendLock))
	r.Post("/external-task/{id}/unlock", h.serve(h.unlock))
	r.Post("/external-task/{id}/lock", h.serve(h.lock))
	r.Get("/deployment", h.serve(h.listDeployments))
	r.Post("/deployment/create", h.serve(h.createDeployment))
	r.Get("/process-definition", h.serve(h.listDefinitions))
	r.Get("/process-definition/key/{key}", h.serve(h.getDefinitionByKey))
	r.Post("/process-definition/key/{key}/start", h.serve(h.startByKey))
	r.Post("/process-definition/{id}/start", h.serve(h.startByID))
	r.Post("/message", h.serve(h.correlate))
	r.Post("/signal", h.serve(h.signal))
	r.Get("/process-instance", h.serve(h.listInstances))
	r.Get("/process-instance/{id}", h.serve(h.getInstance))
	r.Get("/process-instance/{id}/variables", h.serve(h.instanceVariables))
	r.Delete("/process-instance/{id}", h.serve(h.deleteInstance))
	r.Get("/task", h.serve(h.listTasks))
	r.Get("/task/{id}", h.serve(h.getTask))
	r.Get("/task/{id}/form-variables", h.serve(h.formVariables))
	r.Post("/task/{id}/claim", h.serve(h.claimTask))
	r.Post("/task/{id}/unclaim", h.serve(h.unclaimTask))
	r.Post("/task/{id}/complete", h.serve(h.completeTask))
	r.Get("/incident", h.serve(h.listIncidents))
	r.Get("/history/process-instance", h.serve(h.listHistory))
	r.Get("/engine", h.serve(h.engines))
	r.Get("/version", h.serve(h.version))
	return r
}

// serve adapts a handler that returns an error to Camunda 7's error body.
func (h *handler) serve(fn func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := fn(w, r)
		if err == nil {
			return
		}
		if ctxErr := r.Context().Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return // the client went away (a long poll it gave up): nobody to answer
		}
		e := h.errorOf(r, err)
		WriteError(w, e)
	}
}

// TypeBadUserRequest is the exception type Camunda 7 answers for an act
// the engine refuses, such as a task locked by another worker.
const TypeBadUserRequest = "BadUserRequestException"

// errorOf maps an error to Camunda 7's status and exception type; an
// unknown error is a 500 whose cause is logged, not answered.
func (h *handler) errorOf(r *http.Request, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var de *runtime.DeploymentError
	if errors.As(err, &de) {
		return deploymentRefusal(de)
	}
	msg := messageOf(err)
	switch runtime.ErrorCode(err) {
	case runtime.ENOTFOUND:
		return &Error{Status: http.StatusNotFound, Type: TypeNotFound, Msg: msg}
	case runtime.EINVALID:
		return &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Msg: msg}
	case runtime.ECONFLICT:
		return &Error{Status: http.StatusBadRequest, Type: TypeBadUserRequest, Msg: msg}
	case runtime.EFORBIDDEN:
		return &Error{Status: http.StatusForbidden, Type: TypeAuthorization, Msg: msg}
	}
	if h.errorOfFn != nil {
		if e, ok := h.errorOfFn(err); ok {
			return e
		}
	}
	h.log.ErrorContext(r.Context(), "engine-rest request failed", "err", err, "path", r.URL.Path)
	return &Error{Status: http.StatusInternalServerError, Type: TypeRestException, Msg: "internal error: the server logged the cause"}
}

// readBody decodes the request's JSON body into v; an empty body leaves v
// as it is (Camunda 7's clients send unlock with none).
func (h *handler) readBody(r *http.Request, v any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, h.max+1))
	if err != nil {
		return fmt.Errorf("camunda7: read the request body: %w", err)
	}
	if int64(len(body)) > h.max {
		return &Error{Status: http.StatusRequestEntityTooLarge, Type: TypeInvalidRequest, Msg: fmt.Sprintf("the request body exceeds %d bytes", h.max)}
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

// mayWork refuses a caller who may not work on jobs of jobType.
func (h *handler) mayWork(r *http.Request, jobType string) bool {
	return h.guard == nil || h.guard.MayWork(r, jobType)
}

// user is the caller's user id.
func (h *handler) user(r *http.Request) string {
	if h.guard == nil {
		return ""
	}
	return h.guard.User(r)
}

// fetchTopic is one topic of a fetchAndLock request.
type fetchTopic struct {
	TopicName                   string                     `json:"topicName"`
	LockDuration                *json.Number               `json:"lockDuration"`
	Variables                   []string                   `json:"variables"`
	LocalVariables              bool                       `json:"localVariables"`
	BusinessKey                 *string                    `json:"businessKey"`
	ProcessDefinitionKey        *string                    `json:"processDefinitionKey"`
	ProcessDefinitionKeyIn      []string                   `json:"processDefinitionKeyIn"`
	ProcessDefinitionID         *string                    `json:"processDefinitionId"`
	ProcessDefinitionIDIn       []string                   `json:"processDefinitionIdIn"`
	ProcessDefinitionVersionTag *string                    `json:"processDefinitionVersionTag"`
	ProcessVariables            map[string]json.RawMessage `json:"processVariables"`
	WithoutTenantID             bool                       `json:"withoutTenantId"`
	TenantIDIn                  []string                   `json:"tenantIdIn"`
}

// match is the topic's filters as a runtime match (nil when it has
// none; an empty list is no filter). Camunda 7 ANDs them: processDefinitionKey and
// processDefinitionKeyIn both hold, and so do the two id filters.
// withoutTenantId matches every gobpm instance (none has a tenant) and a
// non-empty tenantIdIn none.
func (t fetchTopic) match() (*runtime.JobMatch, error) {
	m := &runtime.JobMatch{BusinessKey: t.BusinessKey, VersionTag: t.ProcessDefinitionVersionTag, Nothing: len(t.TenantIDIn) > 0}
	if t.ProcessDefinitionKey != nil {
		m.ProcessKeys = []string{*t.ProcessDefinitionKey}
	}
	if len(t.ProcessDefinitionKeyIn) > 0 {
		m.ProcessKeys = intersect(m.ProcessKeys, t.ProcessDefinitionKeyIn, t.ProcessDefinitionKey != nil)
	}
	var ids []string
	if t.ProcessDefinitionID != nil {
		ids = []string{*t.ProcessDefinitionID}
	}
	if len(t.ProcessDefinitionIDIn) > 0 {
		ids = intersect(ids, t.ProcessDefinitionIDIn, t.ProcessDefinitionID != nil)
	}
	if t.ProcessDefinitionID != nil || len(t.ProcessDefinitionIDIn) > 0 {
		m.Versions = []runtime.DefinitionRef{}
		for _, id := range ids {
			if ref, ok := parseDefinitionID(id); ok {
				m.Versions = append(m.Versions, ref)
			}
		}
	}
	for name, raw := range t.ProcessVariables {
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, invalid(fmt.Sprintf("topic %s: processVariables.%s is no JSON value: %v", t.TopicName, name, err))
		}
		if m.Variables == nil {
			m.Variables = map[string]any{}
		}
		m.Variables[name] = v
	}
	if !m.Nothing && m.BusinessKey == nil && m.VersionTag == nil && m.ProcessKeys == nil && m.Versions == nil && m.Variables == nil {
		return nil, nil
	}
	return m, nil
}

// intersect is b when a is not set, else the members of a also in b.
func intersect(a, b []string, aSet bool) []string {
	if !aSet {
		return b
	}
	out := []string{}
	for _, s := range a {
		if slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// parseDefinitionID reads a process definition id key:version; ok is
// false for anything else (an id no gobpm definition has).
func parseDefinitionID(id string) (runtime.DefinitionRef, bool) {
	i := strings.LastIndexByte(id, ':')
	if i <= 0 {
		return runtime.DefinitionRef{}, false
	}
	v, err := strconv.Atoi(id[i+1:])
	if err != nil || v < 1 {
		return runtime.DefinitionRef{}, false
	}
	return runtime.DefinitionRef{Key: id[:i], Version: v}, true
}

// fetchRequest is fetchAndLock's body.
type fetchRequest struct {
	WorkerID             string       `json:"workerId"`
	MaxTasks             *json.Number `json:"maxTasks"`
	UsePriority          bool         `json:"usePriority"`
	AsyncResponseTimeout *json.Number `json:"asyncResponseTimeout"`
	Topics               []fetchTopic `json:"topics"`
}

// LockedTask is a task fetchAndLock answers (Camunda 7's
// LockedExternalTaskDto).
type LockedTask struct {
	ActivityID           string                `json:"activityId"`
	ActivityInstanceID   *string               `json:"activityInstanceId"`
	ErrorMessage         *string               `json:"errorMessage"`
	ErrorDetails         *string               `json:"errorDetails"`
	ExecutionID          *string               `json:"executionId"`
	ID                   string                `json:"id"`
	LockExpirationTime   string                `json:"lockExpirationTime"`
	ProcessDefinitionID  string                `json:"processDefinitionId"`
	ProcessDefinitionKey string                `json:"processDefinitionKey"`
	ProcessInstanceID    string                `json:"processInstanceId"`
	TenantID             *string               `json:"tenantId"`
	Retries              *int                  `json:"retries"`
	WorkerID             string                `json:"workerId"`
	Priority             int64                 `json:"priority"`
	TopicName            string                `json:"topicName"`
	BusinessKey          *string               `json:"businessKey"`
	Variables            map[string]TypedValue `json:"variables"`
	ExtensionProperties  map[string]string     `json:"extensionProperties"`
}

// wholeNumber reads an optional JSON number as a whole number in lo..hi.
func wholeNumber(n *json.Number, field string, lo, hi int64) (int64, bool, error) {
	if n == nil {
		return 0, false, nil
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil || i < lo || i > hi {
		return 0, true, invalid(fmt.Sprintf("%s must be a whole number between %d and %d, not %s", field, lo, hi, n.String()))
	}
	return i, true, nil
}

// fetchAndLock handles POST /external-task/fetchAndLock. One call serves
// every topic; with asyncResponseTimeout it long-polls: it answers as soon
// as a task of any topic can be locked, or [] when the timeout passes.
// Each topic needs work on its job type.
func (h *handler) fetchAndLock(w http.ResponseWriter, r *http.Request) error {
	var body fetchRequest
	if err := h.readBody(r, &body); err != nil {
		return err
	}
	if body.WorkerID == "" {
		return invalid("workerId is required")
	}
	max, present, err := wholeNumber(body.MaxTasks, "maxTasks", 0, maxTasks)
	if err != nil {
		return err
	}
	if !present {
		return invalid("maxTasks is required")
	}
	timeout, _, err := wholeNumber(body.AsyncResponseTimeout, "asyncResponseTimeout", 0, maxAsyncTimeoutMs)
	if err != nil {
		return err
	}
	req := runtime.FetchRequest{Worker: body.WorkerID, User: h.user(r), MaxJobs: int(max), RequestTimeout: time.Duration(timeout) * time.Millisecond}
	for i, t := range body.Topics {
		if t.TopicName == "" {
			return invalid(fmt.Sprintf("topics[%d].topicName is required", i))
		}
		match, err := t.match()
		if err != nil {
			return err
		}
		if !h.mayWork(r, t.TopicName) {
			return &Error{Status: http.StatusForbidden, Type: TypeAuthorization,
				Msg: fmt.Sprintf("the user may not work on external tasks of topic %s", t.TopicName)}
		}
		lock, present, err := wholeNumber(t.LockDuration, fmt.Sprintf("topics[%d].lockDuration", i), 1, maxLockMs)
		if err != nil {
			return err
		}
		if !present {
			return invalid(fmt.Sprintf("topics[%d].lockDuration is required", i))
		}
		req.Topics = append(req.Topics, runtime.FetchTopic{Type: t.TopicName, LockDuration: time.Duration(lock) * time.Millisecond, FetchVariables: t.Variables, Match: match})
	}
	if max == 0 || len(req.Topics) == 0 {
		writeJSON(w, http.StatusOK, []LockedTask{})
		return nil
	}
	if timeout > 0 && h.hold != nil {
		release, ok := h.hold(r)
		if !ok {
			w.Header().Set("Retry-After", "5")
			return &Error{Status: http.StatusTooManyRequests, Type: TypeInvalidRequest,
				Msg: "this caller already holds the most long polls one caller may: wait for one to answer, or fetch without asyncResponseTimeout"}
		}
		defer release()
	}
	jobs, err := h.svc.FetchJobs(r.Context(), req)
	if err != nil {
		return err
	}
	out := make([]LockedTask, 0, len(jobs))
	for _, j := range jobs {
		vars, err := ToTypedMap(j.Variables)
		if err != nil {
			return err
		}
		retries := j.Retries
		t := LockedTask{ActivityID: j.NodeID, ID: j.Key, LockExpirationTime: FormatDate(j.Deadline),
			ProcessDefinitionID: definitionID(j.ProcessKey, j.ProcessVersion), ProcessDefinitionKey: j.ProcessKey,
			ProcessInstanceID: string(j.InstanceID), Retries: &retries, WorkerID: j.Worker, TopicName: j.Type,
			Variables: vars, ExtensionProperties: j.CustomHeaders}
		if j.ErrorMessage != "" {
			t.ErrorMessage = &j.ErrorMessage
		}
		if j.ErrorDetails != "" {
			t.ErrorDetails = &j.ErrorDetails
		}
		if t.ExtensionProperties == nil {
			t.ExtensionProperties = map[string]string{}
		}
		out = append(out, t)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// definitionID is a process version's id in Camunda 7's form key:version.
func definitionID(key string, version int) string {
	return key + ":" + strconv.Itoa(version)
}

// task resolves the task {id} for an act: a caller who may not work on
// its type learns nothing more than of an unknown id (404), as on
// /api/v1/jobs.
func (h *handler) task(r *http.Request) (runtime.WaitRow, error) {
	id := chi.URLParam(r, "id")
	row, err := h.svc.WorkerJob(r.Context(), id)
	if err != nil {
		if runtime.ErrorCode(err) == runtime.ENOTFOUND {
			return runtime.WaitRow{}, notFound(id)
		}
		return runtime.WaitRow{}, err
	}
	if !h.mayWork(r, row.Name) {
		return runtime.WaitRow{}, notFound(id)
	}
	return row, nil
}

// actRefusal is Camunda 7's answer for an act on an unknown task (404
// NotFoundException); other errors stay as they are.
func actRefusal(err error, id string) error {
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return notFound(id)
	}
	return err
}

// notFound is Camunda 7's answer for an unknown external task.
func notFound(id string) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeNotFound, Msg: fmt.Sprintf("External task with id %s does not exist", id)}
}

// actBody is the body of complete, failure, bpmnError, extendLock and lock.
type actBody struct {
	WorkerID       string                `json:"workerId"`
	Variables      map[string]TypedValue `json:"variables"`
	LocalVariables map[string]TypedValue `json:"localVariables"`
	ErrorMessage   string                `json:"errorMessage"`
	ErrorDetails   string                `json:"errorDetails"`
	ErrorCode      string                `json:"errorCode"`
	Retries        *json.Number          `json:"retries"`
	RetryTimeout   *json.Number          `json:"retryTimeout"`
	NewDuration    *json.Number          `json:"newDuration"`
	LockDuration   *json.Number          `json:"lockDuration"`
}

// act reads an act's body and resolves its task and holder.
func (h *handler) act(r *http.Request) (runtime.WaitRow, actBody, runtime.WorkerHolder, error) {
	row, err := h.task(r)
	if err != nil {
		return row, actBody{}, runtime.WorkerHolder{}, err
	}
	var body actBody
	if err := h.readBody(r, &body); err != nil {
		return row, body, runtime.WorkerHolder{}, err
	}
	if body.WorkerID == "" {
		return row, body, runtime.WorkerHolder{}, invalid("workerId is required")
	}
	return row, body, runtime.WorkerHolder{Worker: body.WorkerID, User: h.user(r)}, nil
}

// complete handles POST /external-task/{id}/complete: {workerId,
// variables?, localVariables?}.
func (h *handler) complete(w http.ResponseWriter, r *http.Request) error {
	row, body, holder, err := h.act(r)
	if err != nil {
		return err
	}
	vars, err := FromTypedMap(body.Variables)
	if err != nil {
		return err
	}
	local, err := FromTypedMap(body.LocalVariables)
	if err != nil {
		return err
	}
	if err := h.svc.CompleteWorkerJob(r.Context(), row.ID, holder, vars, local); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// failure handles POST /external-task/{id}/failure: {workerId,
// errorMessage?, errorDetails?, retries?, retryTimeout?}. retries 0 raises
// an incident; without retries the task has one retry less.
func (h *handler) failure(w http.ResponseWriter, r *http.Request) error {
	row, body, holder, err := h.act(r)
	if err != nil {
		return err
	}
	req := runtime.FailRequest{ErrorMessage: body.ErrorMessage, ErrorDetails: body.ErrorDetails}
	retries, present, err := wholeNumber(body.Retries, "retries", 0, 1<<31-1)
	if err != nil {
		return err
	}
	if present {
		n := int(retries)
		req.Retries = &n
	}
	timeout, _, err := wholeNumber(body.RetryTimeout, "retryTimeout", 0, maxRetryTimeoutMs)
	if err != nil {
		return err
	}
	req.RetryBackoff = time.Duration(timeout) * time.Millisecond
	if req.ErrorMessage == "" && body.ErrorDetails != "" {
		req.ErrorMessage = firstLine(body.ErrorDetails) // gobpm's incident needs a message
	}
	if err := h.svc.FailWorkerJob(r.Context(), row.ID, holder, req); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// firstLine is the first line of s (a stack trace's message).
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// bpmnError handles POST /external-task/{id}/bpmnError: {workerId,
// errorCode, errorMessage?, variables?}.
func (h *handler) bpmnError(w http.ResponseWriter, r *http.Request) error {
	row, body, holder, err := h.act(r)
	if err != nil {
		return err
	}
	if body.ErrorCode == "" {
		return invalid("errorCode is required")
	}
	vars, err := FromTypedMap(body.Variables)
	if err != nil {
		return err
	}
	if err := h.svc.ThrowWorkerJobError(r.Context(), row.ID, holder, body.ErrorCode, body.ErrorMessage, vars); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// extendLock handles POST /external-task/{id}/extendLock: {workerId,
// newDuration}; the lock then ends newDuration ms from now.
func (h *handler) extendLock(w http.ResponseWriter, r *http.Request) error {
	row, body, holder, err := h.act(r)
	if err != nil {
		return err
	}
	d, present, err := wholeNumber(body.NewDuration, "newDuration", 1, maxLockMs)
	if err != nil {
		return err
	}
	if !present {
		return invalid("newDuration is required")
	}
	if err := h.svc.ExtendWorkerJobLock(r.Context(), row.ID, holder, time.Duration(d)*time.Millisecond); err != nil {
		return lockRefusal(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// lockRefusal answers a refused lock change as Camunda 7 does: 400
// InvalidRequestException when the task is not locked by the worker.
func lockRefusal(err error) error {
	if runtime.ErrorCode(err) == runtime.ECONFLICT {
		return invalid(messageOf(err))
	}
	return err
}

// messageOf is a runtime error's message, without its wrapped causes.
func messageOf(err error) string {
	var re *runtime.Error
	if errors.As(err, &re) && re.Message != "" {
		return re.Message
	}
	return err.Error()
}

// lock handles POST /external-task/{id}/lock: {workerId, lockDuration}.
// It locks a task nobody holds, or renews the lock of one the worker holds
// (a new duration from now, as Camunda 7 does for the same worker); a task
// locked by another worker is 400 InvalidRequestException.
func (h *handler) lock(w http.ResponseWriter, r *http.Request) error {
	row, body, holder, err := h.act(r)
	if err != nil {
		return err
	}
	d, present, err := wholeNumber(body.LockDuration, "lockDuration", 1, maxLockMs)
	if err != nil {
		return err
	}
	if !present {
		return invalid("lockDuration is required")
	}
	if err := h.svc.LockWorkerJob(r.Context(), row.ID, holder, time.Duration(d)*time.Millisecond); err != nil {
		return lockRefusal(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// unlock handles POST /external-task/{id}/unlock (no body, no content
// type): the lock is released without a penalty. Only the user who locked
// the task may release it.
func (h *handler) unlock(w http.ResponseWriter, r *http.Request) error {
	row, err := h.task(r)
	if err != nil {
		return err
	}
	if row.LockOwner != "" && row.LockUser != h.user(r) {
		return &Error{Status: http.StatusForbidden, Type: TypeAuthorization, Msg: fmt.Sprintf("external task %s was locked by another user: only that user may unlock it", row.ID)}
	}
	if err := h.svc.UnlockJob(r.Context(), row.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Task is an external task as GET /external-task shows it (Camunda 7's
// ExternalTaskDto).
type Task struct {
	ActivityID           string  `json:"activityId"`
	ActivityInstanceID   *string `json:"activityInstanceId"`
	ErrorMessage         *string `json:"errorMessage"`
	ExecutionID          *string `json:"executionId"`
	ID                   string  `json:"id"`
	LockExpirationTime   *string `json:"lockExpirationTime"`
	CreateTime           string  `json:"createTime"`
	ProcessDefinitionID  string  `json:"processDefinitionId"`
	ProcessDefinitionKey string  `json:"processDefinitionKey"`
	ProcessInstanceID    string  `json:"processInstanceId"`
	TenantID             *string `json:"tenantId"`
	Retries              *int    `json:"retries"`
	Suspended            bool    `json:"suspended"`
	WorkerID             *string `json:"workerId"`
	Priority             int64   `json:"priority"`
	TopicName            string  `json:"topicName"`
	BusinessKey          *string `json:"businessKey"`
}

// toTask renders a job row.
func toTask(row runtime.WaitRow) Task {
	retries := row.Retries
	t := Task{ActivityID: row.NodeID, ID: row.ID, CreateTime: FormatDate(row.CreatedAt),
		ProcessDefinitionID: definitionID(row.ProcessKey, row.ProcessVersion), ProcessDefinitionKey: row.ProcessKey,
		ProcessInstanceID: string(row.InstanceID), Retries: &retries, TopicName: row.Name}
	if row.ErrorMessage != "" {
		msg := row.ErrorMessage
		t.ErrorMessage = &msg
	}
	if row.LockOwner != "" && !row.LockExpiresAt.IsZero() {
		worker, until := row.LockOwner, FormatDate(row.LockExpiresAt)
		t.WorkerID, t.LockExpirationTime = &worker, &until
	}
	return t
}

// visibleJob reads the task {id} for a read: a task the caller may not
// see is ENOTFOUND, as an unknown one.
func (h *handler) visibleJob(r *http.Request) (runtime.WaitRow, string, error) {
	id := chi.URLParam(r, "id")
	row, err := h.svc.WorkerJob(r.Context(), id)
	if err == nil && !h.visible(r, row) {
		err = &runtime.Error{Code: runtime.ENOTFOUND}
	}
	return row, id, err
}

// readRefusal is Camunda 7's answer for a read of an unknown task (404
// RestException); other errors stay as they are.
func readRefusal(err error, id string) error {
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return &Error{Status: http.StatusNotFound, Type: TypeRestException, Msg: fmt.Sprintf("External task with id %s does not exist", id)}
	}
	return err
}

// get handles GET /external-task/{id}.
func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	row, id, err := h.visibleJob(r)
	if err != nil {
		return readRefusal(err, id)
	}
	writeJSON(w, http.StatusOK, toTask(row))
	return nil
}

// errorDetails handles GET /external-task/{id}/errorDetails: the details
// of the task's last failure as text/plain, as Camunda 7 answers them;
// 204 without details (Camunda 7's answer for null); an unknown task is
// 404 RestException, as for GET /external-task/{id}.
func (h *handler) errorDetails(w http.ResponseWriter, r *http.Request) error {
	_, id, err := h.visibleJob(r)
	var details string
	if err == nil {
		details, err = h.svc.WorkerJobErrorDetails(r.Context(), id)
	}
	if err != nil {
		return readRefusal(err, id)
	}
	if details == "" {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, details)
	return nil
}

// setRetries handles PUT /external-task/{id}/retries {"retries": n}: 0
// raises the task's incident, more resolves it (204). It needs operate on
// the task's process, as retrying an incident does; a task the caller
// may not see is 404.
func (h *handler) setRetries(w http.ResponseWriter, r *http.Request) error {
	row, id, err := h.visibleJob(r)
	if err != nil {
		return actRefusal(err, id)
	}
	if h.guard != nil && !h.guard.MayOperate(r, row.ProcessKey) {
		return &Error{Status: http.StatusForbidden, Type: TypeAuthorization,
			Msg: fmt.Sprintf("the user may not operate instances of process %s", row.ProcessKey)}
	}
	var body struct {
		Retries *json.Number `json:"retries"`
	}
	if err := h.readBody(r, &body); err != nil {
		return err
	}
	n, present, err := wholeNumber(body.Retries, "retries", 0, 1<<31-1)
	if err != nil {
		return err
	}
	if !present {
		return invalid("retries is required")
	}
	if err := h.svc.SetJobRetries(r.Context(), id, int(n)); err != nil {
		return actRefusal(err, id)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// visible reports whether the caller may see a job: they may work on its
// type or read its process.
func (h *handler) visible(r *http.Request, row runtime.WaitRow) bool {
	return h.guard == nil || h.guard.MayWork(r, row.Name) || h.guard.MayRead(r, row.ProcessKey)
}

// listFilter reads GET /external-task's filters: the runtime's filter,
// with the caller's visibility and the retries filters in Keep, so the
// runtime pages and counts what the caller may see.
func (h *handler) listFilter(r *http.Request) (runtime.WorkerJobFilter, error) {
	q := r.URL.Query()
	f := runtime.WorkerJobFilter{Key: q.Get("externalTaskId"), InstanceID: runtime.InstanceID(q.Get("processInstanceId")),
		Type: q.Get("topicName"), Worker: q.Get("workerId"), ProcessKey: q.Get("processDefinitionKey")}
	for _, name := range []string{"locked", "notLocked", "withRetriesLeft", "noRetriesLeft"} {
		if v := q.Get(name); v != "" && v != "true" && v != "false" {
			return f, invalid(fmt.Sprintf("%s must be true or false, not %q", name, v))
		}
	}
	switch {
	case q.Get("locked") == "true":
		locked := true
		f.Locked = &locked
	case q.Get("notLocked") == "true":
		locked := false
		f.Locked = &locked
	}
	withRetries, noRetries := q.Get("withRetriesLeft") == "true", q.Get("noRetriesLeft") == "true"
	f.Keep = func(row runtime.WaitRow) bool {
		return h.visible(r, row) && !(withRetries && row.Retries == 0) && !(noRetries && row.Retries > 0)
	}
	return f, nil
}

// list handles GET /external-task: topicName, workerId, locked, notLocked,
// processInstanceId, processDefinitionKey, externalTaskId,
// withRetriesLeft, noRetriesLeft, firstResult, maxResults. It answers at
// most runtime.MaxWorkerJobsListed tasks (maxResults absent or above:
// that many); firstResult pages on.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	f, err := h.listFilter(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	first, err := queryInt(q.Get("firstResult"), "firstResult", 0)
	if err != nil {
		return err
	}
	max, err := queryInt(q.Get("maxResults"), "maxResults", runtime.MaxWorkerJobsListed)
	if err != nil {
		return err
	}
	out := []Task{}
	if max == 0 {
		writeJSON(w, http.StatusOK, out)
		return nil
	}
	f.Offset, f.Limit = first, max
	rows, err := h.svc.WorkerJobs(r.Context(), f)
	if err != nil {
		return err
	}
	for _, row := range rows {
		out = append(out, toTask(row))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// count handles GET /external-task/count with list's filters: {"count":n}.
func (h *handler) count(w http.ResponseWriter, r *http.Request) error {
	f, err := h.listFilter(r)
	if err != nil {
		return err
	}
	n, err := h.svc.CountWorkerJobs(r.Context(), f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]int{"count": n})
	return nil
}

// queryInt reads a non-negative whole-number query parameter (def when
// absent).
func queryInt(s, name string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, invalid(fmt.Sprintf("%s must be a non-negative whole number, not %q", name, s))
	}
	return n, nil
}
