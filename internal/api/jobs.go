package api

import (
	"context"
	"encoding/json"
	"errors"
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

// jobHolder reads the lock token of a job act's body (lockToken, required)
// and pairs it with the caller's identity.
func jobHolder(r *http.Request, members map[string]json.RawMessage) (runtime.JobHolder, error) {
	token, err := requiredStringField(members, "lockToken")
	if err != nil {
		return runtime.JobHolder{}, err
	}
	return runtime.JobHolder{Token: token, User: callerUser(r)}, nil
}

// activateJobs handles POST /api/v1/jobs/activate: {type, worker, maxJobs?,
// lockDurationMs, requestTimeoutMs?, fetchVariables?}. fetchVariables (a
// list of names, as Camunda's clients send it) limits each job's variables
// to those; without it a job carries every variable its task sees. With
// requestTimeoutMs > 0 it long-polls:
// the runtime answers as soon as a job appears, or with no jobs when the
// timeout passes. The request context bounds the wait, so a client that goes
// away ends it. Each job comes with its public key and a lock token, and
// belongs to the caller (callerUser).
func (s *server) activateJobs(w http.ResponseWriter, r *http.Request) error {
	members, err := s.readJSONObject(w, r)
	if err != nil {
		return err
	}
	var req runtime.ActivateRequest
	if req.Type, err = requiredStringField(members, "type"); err != nil {
		return err
	}
	if err := check(r.Context(), auth.PermWork, auth.KindJobType, req.Type); err != nil {
		return err
	}
	if req.Worker, err = requiredStringField(members, "worker"); err != nil {
		return err
	}
	maxJobs, present, err := intField(members, "maxJobs", 1, maxMaxJobs)
	if err != nil {
		return err
	}
	if !present {
		maxJobs = defaultMaxJobs
	}
	lock, err := requiredIntField(members, "lockDurationMs", 1, maxLockDurationMs)
	if err != nil {
		return err
	}
	timeout, _, err := intField(members, "requestTimeoutMs", 0, maxRequestTimeoutMs)
	if err != nil {
		return err
	}
	req.MaxJobs, req.LockDuration, req.RequestTimeout = int(maxJobs), millis(lock), millis(timeout)
	req.User = callerUser(r)
	if req.FetchVariables, err = variableNamesField(members, "fetchVariables"); err != nil {
		return err
	}
	if timeout > 0 {
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

// jobResolver is how a job completion visits the runtime once: the key
// resolved into a reference, authorized on its job type, which the act then
// uses as it is. *runtime.Runtime implements it.
type jobResolver interface {
	ResolveJob(ctx context.Context, key string) (runtime.JobRef, error)
	CompleteResolvedJob(ctx context.Context, ref runtime.JobRef, h runtime.JobHolder, vars map[string]any) error
	CompleteResolvedRouterJob(ctx context.Context, ref runtime.JobRef, h runtime.JobHolder, a runtime.RouterAnswer) error
}

// completeJob handles POST /api/v1/jobs/{key}/complete: {lockToken,
// variables?, activate?}. The variables merge into the instance, which
// continues in the same step. With activate (a list, possibly empty) the
// completion is the answer of an ad-hoc region's router job: the
// activities to start, each {activityId, variables?}; a job that is no
// router job refuses it, and a router job needs it (409). Like every job
// act it needs the lock token of the activation and the activating caller.
// The route's rule (keyJobRef) leaves the check of the job's type to
// authorizedJob, whose resolved job the act takes.
func (s *server) completeJob(w http.ResponseWriter, r *http.Request) error {
	ref, err := s.authorizedJob(r)
	if err != nil {
		return err
	}
	members, err := s.readJSONObject(w, r)
	if err != nil {
		return err
	}
	h, err := jobHolder(r, members)
	if err != nil {
		return err
	}
	vs, err := objectField(members, "variables")
	if err != nil {
		return err
	}
	if !isNull(members["activate"]) {
		acts, err := activationsField(members, "activate")
		if err != nil {
			return err
		}
		if err := s.completeRouterJob(r, ref, h, runtime.RouterAnswer{Activate: acts, Variables: vs}); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	jobs, ok := s.svc.(jobResolver)
	if ok {
		err = jobs.CompleteResolvedJob(r.Context(), ref, h, vs)
	} else {
		err = s.svc.CompleteJob(r.Context(), ref.Key, h, vs)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// completeRouterJob answers a router job with the job completeJob resolved.
func (s *server) completeRouterJob(r *http.Request, ref runtime.JobRef, h runtime.JobHolder, a runtime.RouterAnswer) error {
	if jobs, ok := s.svc.(jobResolver); ok {
		return jobs.CompleteResolvedRouterJob(r.Context(), ref, h, a)
	}
	return s.svc.CompleteRouterJob(r.Context(), ref.Key, h, a)
}

// authorizedJob is the work permission check of a job act on the type of
// job {key}, as the route table's keyJob does it: a caller who may not
// work on the job's type learns nothing more than of an unknown key (404).
// The job is resolved only for a caller whose rights depend on its type;
// for anyone else the reference carries only the key, which the act
// verifies.
func (s *server) authorizedJob(r *http.Request) (runtime.JobRef, error) {
	key := chi.URLParam(r, "key")
	c := callerFrom(r.Context())
	if c.Via == "none" || c.Unrestricted() {
		return runtime.JobRef{Key: key}, nil
	}
	jobs, ok := s.svc.(jobResolver)
	if !ok {
		return runtime.JobRef{}, errors.New("api: the service cannot resolve job keys for authorization")
	}
	ref, err := jobs.ResolveJob(r.Context(), key)
	if err != nil {
		if runtime.ErrorCode(err) == runtime.ENOTFOUND {
			return runtime.JobRef{}, unknownResource(r, keyJob)
		}
		return runtime.JobRef{}, err
	}
	if !c.Allowed(auth.PermWork, auth.KindJobType, ref.Type) {
		return runtime.JobRef{}, unknownResource(r, keyJob)
	}
	return ref, nil
}

// failJob handles POST /api/v1/jobs/{key}/fail: {lockToken, retries?,
// retryBackoffMs?, errorMessage?}. Without retries the job has one retry
// less; 0 retries raises an incident. Without a backoff the default
// schedule applies.
func (s *server) failJob(w http.ResponseWriter, r *http.Request) error {
	members, err := s.readJSONObject(w, r)
	if err != nil {
		return err
	}
	h, err := jobHolder(r, members)
	if err != nil {
		return err
	}
	var req runtime.FailRequest
	retries, present, err := intField(members, "retries", 0, maxRetries)
	if err != nil {
		return err
	}
	if present {
		n := int(retries)
		req.Retries = &n
	}
	backoff, _, err := intField(members, "retryBackoffMs", 0, maxRetryBackoffMs)
	if err != nil {
		return err
	}
	req.RetryBackoff = millis(backoff)
	if req.ErrorMessage, err = stringField(members, "errorMessage"); err != nil {
		return err
	}
	if err := s.svc.FailJob(r.Context(), chi.URLParam(r, "key"), h, req); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// throwJobError handles POST /api/v1/jobs/{key}/error: {lockToken,
// errorCode, errorMessage?, variables?}. It throws a BPMN error at the
// job's task.
func (s *server) throwJobError(w http.ResponseWriter, r *http.Request) error {
	members, err := s.readJSONObject(w, r)
	if err != nil {
		return err
	}
	h, err := jobHolder(r, members)
	if err != nil {
		return err
	}
	code, err := requiredStringField(members, "errorCode")
	if err != nil {
		return err
	}
	msg, err := stringField(members, "errorMessage")
	if err != nil {
		return err
	}
	vs, err := objectField(members, "variables")
	if err != nil {
		return err
	}
	if err := s.svc.ThrowJobError(r.Context(), chi.URLParam(r, "key"), h, code, msg, vs); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// extendJobLock handles POST /api/v1/jobs/{key}/extend: {lockToken,
// lockDurationMs}. The lock then expires lockDurationMs from now.
func (s *server) extendJobLock(w http.ResponseWriter, r *http.Request) error {
	members, err := s.readJSONObject(w, r)
	if err != nil {
		return err
	}
	h, err := jobHolder(r, members)
	if err != nil {
		return err
	}
	lock, err := requiredIntField(members, "lockDurationMs", 1, maxLockDurationMs)
	if err != nil {
		return err
	}
	if err := s.svc.ExtendJobLock(r.Context(), chi.URLParam(r, "key"), h, millis(lock)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// retryIncident handles POST /api/v1/incidents/{id}/retry: {retries?}
// (default 1). It resolves the incident and re-enables its job; the answer
// is the incident.
func (s *server) retryIncident(w http.ResponseWriter, r *http.Request) error {
	members, err := s.readJSONObject(w, r)
	if err != nil {
		return err
	}
	retries, present, err := intField(members, "retries", 1, maxRetries)
	if err != nil {
		return err
	}
	if !present {
		retries = 1
	}
	inc, err := s.svc.RetryIncident(r.Context(), chi.URLParam(r, "id"), int(retries))
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, toIncident(inc))
	return nil
}
