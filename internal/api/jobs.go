package api

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// Bounds of the job-worker protocol, in milliseconds where they are wire values.
const (
	defaultMaxJobs      = 10
	maxMaxJobs          = 1000
	maxLockDurationMs   = int64(24 * time.Hour / time.Millisecond)
	maxRequestTimeoutMs = int64(5 * time.Minute / time.Millisecond)
	maxRetryBackoffMs   = int64(7 * 24 * time.Hour / time.Millisecond)
	maxRetries          = math.MaxInt32
)

// holdRetryAfter is the Retry-After, in seconds, of a long poll refused
// because the caller holds too many: about when one of them may answer.
const holdRetryAfter = 5

// holdKey names the caller of r for the cap on held requests: the
// authenticated user, or — anonymous, or in auth mode none, where any
// header names any user — the client's address.
func holdKey(r *http.Request) string {
	if c := callerFrom(r.Context()); c.Via != "none" && c.Via != "" && c.Authenticated() {
		return "user " + string(c.User)
	}
	return "addr " + clientAddr(r)
}

// callerUser is the user id of the caller of r, the identity a job's lock
// belongs to: the user who activates a job is the only one who may act on
// it. With authentication it is the authenticated caller; without (auth
// mode none, loopback only) the trimmed X-Gobpm-User header ("" without
// one).
func callerUser(r *http.Request) string {
	c := callerFrom(r.Context())
	if c.Via == "none" || c.Via == "" {
		return strings.TrimSpace(r.Header.Get(HeaderUser))
	}
	// The authenticated caller: a token's owner (or, with act-as, the user
	// acted for), never a header the caller chose.
	return string(c.User)
}

// jobHolder pairs the lock token a job act's body presents with the
// caller's identity.
func jobHolder(r *http.Request, lockToken string) runtime.JobHolder {
	return runtime.JobHolder{Token: lockToken, User: callerUser(r)}
}

// activateJobsRequest is the body of POST /api/v1/jobs/activate: {type,
// worker, maxJobs?, lockDurationMs, requestTimeoutMs?, fetchVariables?}.
type activateJobsRequest struct {
	bodyMembers
	Type   string
	Worker string
	// MaxJobs is defaultMaxJobs when the body has none.
	MaxJobs        int
	LockDuration   time.Duration
	RequestTimeout time.Duration
	FetchVariables []string
	// mayWork checks the work permission on Type before the rest of the
	// body is read: a caller who may not work on the type learns nothing
	// of what else the body gets wrong.
	mayWork func(jobType string) error
}

// Validate decodes and checks the members in order: type (then
// mayWork), worker, maxJobs, lockDurationMs, requestTimeoutMs,
// fetchVariables.
func (q *activateJobsRequest) Validate() error {
	var err error
	if q.Type, err = requiredStringField(q.members, "type"); err != nil {
		return err
	}
	if q.mayWork != nil {
		if err := q.mayWork(q.Type); err != nil {
			return err
		}
	}
	if q.Worker, err = requiredStringField(q.members, "worker"); err != nil {
		return err
	}
	maxJobs, present, err := intField(q.members, "maxJobs", 1, maxMaxJobs)
	if err != nil {
		return err
	}
	if !present {
		maxJobs = defaultMaxJobs
	}
	lock, err := requiredIntField(q.members, "lockDurationMs", 1, maxLockDurationMs)
	if err != nil {
		return err
	}
	timeout, _, err := intField(q.members, "requestTimeoutMs", 0, maxRequestTimeoutMs)
	if err != nil {
		return err
	}
	q.MaxJobs, q.LockDuration, q.RequestTimeout = int(maxJobs), millis(lock), millis(timeout)
	q.FetchVariables, err = variableNamesField(q.members, "fetchVariables")
	return err
}

// activateJobs handles POST /api/v1/jobs/activate (activateJobsRequest).
// fetchVariables (a list of names, as Camunda's clients send it) limits
// each job's variables to those; without it a job carries every variable
// its task sees. With requestTimeoutMs > 0 it long-polls: the runtime
// answers as soon as a job appears, or with no jobs when the timeout
// passes. The request context bounds the wait, so a client that goes away
// ends it. Each job comes with its public key and a lock token, and
// belongs to the caller (callerUser).
func (s *server) activateJobs(w http.ResponseWriter, r *http.Request) error {
	q := activateJobsRequest{mayWork: func(jobType string) error {
		return check(r.Context(), auth.PermWork, auth.KindJobType, jobType)
	}}
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	req := runtime.ActivateRequest{
		Type: q.Type, Worker: q.Worker, MaxJobs: q.MaxJobs, LockDuration: q.LockDuration, RequestTimeout: q.RequestTimeout,
		User: callerUser(r), FetchVariables: q.FetchVariables,
	}
	if req.RequestTimeout > 0 {
		release, ok := s.polls.Acquire(holdKey(r))
		if !ok {
			w.Header().Set("Retry-After", strconv.Itoa(holdRetryAfter))
			return errorf(kindTooManyRequests, "requestTimeoutMs", fmt.Sprintf(
				"this caller already holds %d long polls open, the most one caller may: wait for one to answer, or activate without requestTimeoutMs", s.polls.Max()))
		}
		defer release()
	}

	jobs, err := s.svc.ActivateJobs(r.Context(), req)
	if err != nil {
		return err
	}
	out := ActivatedJobs{Jobs: make([]Job, 0, len(jobs))}
	for _, j := range jobs {
		out.Jobs = append(out.Jobs, toJob(j))
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// maxFetchVariables bounds the names one activation's fetchVariables
// lists.
const maxFetchVariables = 1000

// variableNamesField decodes an optional member that must be a list of
// variable names (non-empty strings, at most maxFetchVariables); absent or
// null gives nil, [] an empty list. Repeated names count once.
func variableNamesField(members map[string]json.RawMessage, name string) ([]string, error) {
	raw := members[name]
	if isNull(raw) {
		return nil, nil
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil, errorf(kindInvalidRequest, name, name+" must be an array of variable names (strings)")
	}
	if len(names) > maxFetchVariables {
		return nil, errorf(kindInvalidRequest, name, fmt.Sprintf("%s names %d variables; at most %d", name, len(names), maxFetchVariables))
	}
	out := make([]string, 0, len(names))
	seen := make(map[string]bool, len(names))
	for i, n := range names {
		if n == "" {
			return nil, errorf(kindInvalidRequest, fmt.Sprintf("%s[%d]", name, i), name+" must not hold an empty name")
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}

// jobResolver is how a job act visits the runtime once: authorization
// resolves the key into a reference (authorizeJob), which the act then
// uses as it is. *runtime.Runtime implements it; a service that does not
// gets the key-based acts of Service.
type jobResolver interface {
	ResolveJob(ctx context.Context, key string) (runtime.JobRef, error)
	CompleteResolvedJob(ctx context.Context, ref runtime.JobRef, h runtime.JobHolder, vars map[string]any) error
	CompleteResolvedRouterJob(ctx context.Context, ref runtime.JobRef, h runtime.JobHolder, a runtime.RouterAnswer) error
	FailResolvedJob(ctx context.Context, ref runtime.JobRef, h runtime.JobHolder, req runtime.FailRequest) error
	ThrowResolvedJobError(ctx context.Context, ref runtime.JobRef, h runtime.JobHolder, code, message string, vars map[string]any) error
	ExtendResolvedJobLock(ctx context.Context, ref runtime.JobRef, h runtime.JobHolder, d time.Duration) error
}

// completeJobRequest is the body of POST /api/v1/jobs/{key}/complete:
// {lockToken, variables?, activate?, result?}.
type completeJobRequest struct {
	bodyMembers
	LockToken string
	Variables map[string]any
	// Answered is true when the body has activate (a list, possibly
	// empty): the completion answers a router job.
	Answered bool
	Activate []runtime.Activation
	// Result is a user task listener's job result (jobResultField), nil
	// when the body has none.
	Result *runtime.JobResult
}

// Validate decodes and checks lockToken, variables, activate and result,
// in that order.
func (q *completeJobRequest) Validate() error {
	var err error
	if q.LockToken, err = requiredStringField(q.members, "lockToken"); err != nil {
		return err
	}
	if q.Variables, err = objectField(q.members, "variables"); err != nil {
		return err
	}
	if q.Answered = !isNull(q.members["activate"]); q.Answered {
		if q.Activate, err = activationsField(q.members, "activate"); err != nil {
			return err
		}
	}
	if q.Result, err = jobResultField(q.members, "result"); err != nil {
		return err
	}
	switch {
	case q.Result != nil && q.Answered:
		return errorf(kindInvalidRequest, "result", "result and activate exclude each other: a router job takes an answer, a task listener's job a result")
	case q.Result != nil && len(q.Variables) > 0:
		return errorf(kindInvalidRequest, "variables", "a task listener's job takes no variables: correct the task with result.corrections")
	}
	return nil
}

// completeJob handles POST /api/v1/jobs/{key}/complete
// (completeJobRequest). The variables merge into the instance, which
// continues in the same step. With activate the completion is the answer
// of an ad-hoc region's router job: the activities to start, each
// {activityId, variables?}; a job that is no router job refuses it, and a
// router job needs it (409). With result the completion is a user task
// listener's (Camunda 8.8's job result): {denied?, deniedReason?,
// corrections?}; a job that is no task listener's refuses it (409). Like every job act it needs the lock token of
// the activation and the activating caller, and acts on the job
// authorization resolved (jobRefOf).
func (s *server) completeJob(w http.ResponseWriter, r *http.Request) error {
	var q completeJobRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	ref, h := jobRefOf(r), jobHolder(r, q.LockToken)
	jobs, resolved := s.svc.(jobResolver)
	var err error
	switch resulter, ok := s.svc.(jobResulter); {
	case q.Result != nil && (!ok || !resolved):
		return errorf(kindInvalidRequest, "result", "this server does not complete jobs with a result")
	case q.Result != nil:
		err = resulter.CompleteResolvedJobWithResult(r.Context(), ref, h, *q.Result)
	case q.Answered && resolved:
		err = jobs.CompleteResolvedRouterJob(r.Context(), ref, h, runtime.RouterAnswer{Activate: q.Activate, Variables: q.Variables})
	case q.Answered:
		err = s.svc.CompleteRouterJob(r.Context(), ref.Key, h, runtime.RouterAnswer{Activate: q.Activate, Variables: q.Variables})
	case resolved:
		err = jobs.CompleteResolvedJob(r.Context(), ref, h, q.Variables)
	default:
		err = s.svc.CompleteJob(r.Context(), ref.Key, h, q.Variables)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// failJobRequest is the body of POST /api/v1/jobs/{key}/fail: {lockToken,
// retries?, retryBackoffMs?, errorMessage?}.
type failJobRequest struct {
	bodyMembers
	LockToken string
	// Fail is what the act records: Retries nil without retries.
	Fail runtime.FailRequest
}

// Validate decodes and checks lockToken, retries, retryBackoffMs and
// errorMessage, in that order.
func (q *failJobRequest) Validate() error {
	var err error
	if q.LockToken, err = requiredStringField(q.members, "lockToken"); err != nil {
		return err
	}
	retries, present, err := intField(q.members, "retries", 0, maxRetries)
	if err != nil {
		return err
	}
	if present {
		n := int(retries)
		q.Fail.Retries = &n
	}
	backoff, _, err := intField(q.members, "retryBackoffMs", 0, maxRetryBackoffMs)
	if err != nil {
		return err
	}
	q.Fail.RetryBackoff = millis(backoff)
	q.Fail.ErrorMessage, err = stringField(q.members, "errorMessage")
	return err
}

// failJob handles POST /api/v1/jobs/{key}/fail (failJobRequest). Without
// retries the job has one retry less; 0 retries raises an incident.
// Without a backoff the default schedule applies.
func (s *server) failJob(w http.ResponseWriter, r *http.Request) error {
	var q failJobRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	ref, h := jobRefOf(r), jobHolder(r, q.LockToken)
	var err error
	if jobs, ok := s.svc.(jobResolver); ok {
		err = jobs.FailResolvedJob(r.Context(), ref, h, q.Fail)
	} else {
		err = s.svc.FailJob(r.Context(), ref.Key, h, q.Fail)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// jobErrorRequest is the body of POST /api/v1/jobs/{key}/error:
// {lockToken, errorCode, errorMessage?, variables?}.
type jobErrorRequest struct {
	bodyMembers
	LockToken    string
	ErrorCode    string
	ErrorMessage string
	Variables    map[string]any
}

// Validate decodes and checks lockToken, errorCode, errorMessage and
// variables, in that order.
func (q *jobErrorRequest) Validate() error {
	var err error
	if q.LockToken, err = requiredStringField(q.members, "lockToken"); err != nil {
		return err
	}
	if q.ErrorCode, err = requiredStringField(q.members, "errorCode"); err != nil {
		return err
	}
	if q.ErrorMessage, err = stringField(q.members, "errorMessage"); err != nil {
		return err
	}
	q.Variables, err = objectField(q.members, "variables")
	return err
}

// throwJobError handles POST /api/v1/jobs/{key}/error (jobErrorRequest).
// It throws a BPMN error at the job's task.
func (s *server) throwJobError(w http.ResponseWriter, r *http.Request) error {
	var q jobErrorRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	ref, h := jobRefOf(r), jobHolder(r, q.LockToken)
	var err error
	if jobs, ok := s.svc.(jobResolver); ok {
		err = jobs.ThrowResolvedJobError(r.Context(), ref, h, q.ErrorCode, q.ErrorMessage, q.Variables)
	} else {
		err = s.svc.ThrowJobError(r.Context(), ref.Key, h, q.ErrorCode, q.ErrorMessage, q.Variables)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// extendJobLockRequest is the body of POST /api/v1/jobs/{key}/extend:
// {lockToken, lockDurationMs}.
type extendJobLockRequest struct {
	bodyMembers
	LockToken    string
	LockDuration time.Duration
}

// Validate decodes and checks lockToken and lockDurationMs, in that
// order.
func (q *extendJobLockRequest) Validate() error {
	var err error
	if q.LockToken, err = requiredStringField(q.members, "lockToken"); err != nil {
		return err
	}
	lock, err := requiredIntField(q.members, "lockDurationMs", 1, maxLockDurationMs)
	q.LockDuration = millis(lock)
	return err
}

// extendJobLock handles POST /api/v1/jobs/{key}/extend
// (extendJobLockRequest). The lock then expires lockDurationMs from now.
func (s *server) extendJobLock(w http.ResponseWriter, r *http.Request) error {
	var q extendJobLockRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	ref, h := jobRefOf(r), jobHolder(r, q.LockToken)
	var err error
	if jobs, ok := s.svc.(jobResolver); ok {
		err = jobs.ExtendResolvedJobLock(r.Context(), ref, h, q.LockDuration)
	} else {
		err = s.svc.ExtendJobLock(r.Context(), ref.Key, h, q.LockDuration)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// retryIncidentRequest is the body of POST /api/v1/incidents/{id}/retry:
// {retries?}.
type retryIncidentRequest struct {
	bodyMembers
	// Retries is 1 when the body has none.
	Retries int
}

// Validate decodes and checks retries.
func (q *retryIncidentRequest) Validate() error {
	retries, present, err := intField(q.members, "retries", 1, maxRetries)
	if err != nil {
		return err
	}
	if !present {
		retries = 1
	}
	q.Retries = int(retries)
	return nil
}

// retryIncident handles POST /api/v1/incidents/{id}/retry
// (retryIncidentRequest; retries default 1). It resolves the incident and re-enables its job; the answer
// is the incident.
func (s *server) retryIncident(w http.ResponseWriter, r *http.Request) error {
	var q retryIncidentRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	inc, err := s.svc.RetryIncident(r.Context(), chi.URLParam(r, "id"), q.Retries)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, toIncident(inc))
	return nil
}
