package camunda8

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Bounds of the job protocol, in milliseconds on the wire.
const (
	maxTimeoutMs        = int64(24 * time.Hour / time.Millisecond)
	maxRequestTimeoutMs = int64(5 * time.Minute / time.Millisecond)
	maxBackoffMs        = int64(7 * 24 * time.Hour / time.Millisecond)
	// defaultRequestTimeout is the long poll of a request without
	// requestTimeout (Camunda 8 uses the gateway's default, 10 s).
	defaultRequestTimeout = 10 * time.Second
)

// DefaultTenant is the tenant id every answer names: gobpm has no tenants.
const DefaultTenant = "<default>"

// activationRequest is POST /v2/jobs/activation's body.
type activationRequest struct {
	Type              string       `json:"type"`
	Worker            string       `json:"worker"`
	Timeout           *json.Number `json:"timeout"`
	MaxJobsToActivate *json.Number `json:"maxJobsToActivate"`
	FetchVariable     []string     `json:"fetchVariable"`
	RequestTimeout    *json.Number `json:"requestTimeout"`
	TenantIDs         []string     `json:"tenantIds"`
}

// ActivatedJob is one job of an activation (Camunda 8's ActivatedJobResult).
type ActivatedJob struct {
	Type                     string            `json:"type"`
	ProcessDefinitionID      string            `json:"processDefinitionId"`
	ProcessDefinitionVersion int               `json:"processDefinitionVersion"`
	ElementID                string            `json:"elementId"`
	CustomHeaders            map[string]string `json:"customHeaders"`
	Worker                   string            `json:"worker"`
	Retries                  int               `json:"retries"`
	Deadline                 int64             `json:"deadline"`
	Variables                map[string]any    `json:"variables"`
	TenantID                 string            `json:"tenantId"`
	JobKey                   string            `json:"jobKey"`
	ProcessInstanceKey       string            `json:"processInstanceKey"`
	ProcessDefinitionKey     string            `json:"processDefinitionKey"`
	ElementInstanceKey       string            `json:"elementInstanceKey"`
	Kind                     string            `json:"kind"`
	ListenerEventType        string            `json:"listenerEventType"`
}

// checkTenants refuses tenants other than the default one.
func checkTenants(ids []string) error {
	for _, id := range ids {
		if id != DefaultTenant {
			return invalid(fmt.Sprintf("tenant '%s' is unknown: gobpm has no tenants, only '%s'", id, DefaultTenant))
		}
	}
	return nil
}

// activateJobs handles POST /v2/jobs/activation: it long-polls up to
// requestTimeout (default 10 s; negative: answer at once) and answers the
// jobs it activated.
func (h *handler) activateJobs(w http.ResponseWriter, r *http.Request) error {
	var req activationRequest
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	if req.Type == "" {
		return invalid("No type provided.")
	}
	if err := checkTenants(req.TenantIDs); err != nil {
		return err
	}
	timeout, ok, err := millis(req.Timeout, "timeout", 1, maxTimeoutMs)
	if err != nil {
		return err
	}
	if !ok {
		return invalid("No timeout provided.")
	}
	if req.MaxJobsToActivate == nil {
		return invalid("No maxJobsToActivate provided.")
	}
	maxJobs, _, err := whole(req.MaxJobsToActivate, "maxJobsToActivate", 1, runtime.MaxJobsPerActivation)
	if err != nil {
		return err
	}
	poll := defaultRequestTimeout
	if req.RequestTimeout != nil {
		if n, err := req.RequestTimeout.Int64(); err == nil && n < 0 {
			poll = 0
		} else if d, _, err := millis(req.RequestTimeout, "requestTimeout", 0, maxRequestTimeoutMs); err != nil {
			return err
		} else if d > 0 {
			poll = d
		}
	}
	if !h.mayWork(r, req.Type) {
		return NewProblem(http.StatusForbidden, TitleForbidden, fmt.Sprintf("the caller may not work on jobs of type '%s'", req.Type))
	}
	if poll > 0 && h.hold != nil {
		release, ok := h.hold(r)
		if !ok {
			return NewProblem(http.StatusTooManyRequests, TitleTooMany, "too many long polls of this caller are waiting: wait for one to answer")
		}
		defer release()
	}
	jobs, err := h.svc.ActivateC8Jobs(r.Context(), runtime.C8ActivateRequest{Type: req.Type, Worker: req.Worker, User: h.user(r),
		MaxJobs: int(maxJobs), Timeout: timeout, RequestTimeout: poll, FetchVariables: req.FetchVariable})
	if err != nil {
		return err
	}
	out := struct {
		Jobs []ActivatedJob `json:"jobs"`
	}{Jobs: make([]ActivatedJob, 0, len(jobs))}
	for _, j := range jobs {
		out.Jobs = append(out.Jobs, toActivatedJob(j))
	}
	return writeJSON(w, http.StatusOK, out)
}

// toActivatedJob is a job as REST v2 answers it.
func toActivatedJob(j runtime.C8Job) ActivatedJob {
	headers := j.CustomHeaders
	if headers == nil {
		headers = map[string]string{}
	}
	vars := j.Variables
	if vars == nil {
		vars = map[string]any{}
	}
	return ActivatedJob{Type: j.Type, ProcessDefinitionID: j.ProcessID, ProcessDefinitionVersion: j.Version, ElementID: j.ElementID,
		CustomHeaders: headers, Worker: j.Worker, Retries: j.Retries, Deadline: j.Deadline.UnixMilli(), Variables: vars,
		TenantID: DefaultTenant, JobKey: keyString(j.Key), ProcessInstanceKey: keyString(j.InstanceKey),
		ProcessDefinitionKey: keyString(j.DefinitionKey), ElementInstanceKey: keyString(j.InstanceKey),
		Kind: "BPMN_ELEMENT", ListenerEventType: "UNSPECIFIED"}
}

// jobKey reads the path's job key and checks the caller may work on the
// job's type: a job of a type they may not work on is unknown to them.
func (h *handler) jobKey(r *http.Request) (int64, error) {
	key, err := pathKey(r, "jobKey")
	if err != nil {
		return 0, err
	}
	if h.guard == nil {
		return key, nil
	}
	public, err := h.svc.JobByNumericKey(r.Context(), key)
	if err != nil {
		if runtime.ErrorCode(err) == runtime.ENOTFOUND {
			return 0, jobNotFound(key)
		}
		return 0, err
	}
	typ, err := h.svc.JobType(r.Context(), public)
	if err != nil {
		if runtime.ErrorCode(err) == runtime.ENOTFOUND {
			return 0, jobNotFound(key)
		}
		return 0, err
	}
	if !h.mayWork(r, typ) {
		return 0, jobNotFound(key)
	}
	return key, nil
}

// jobNotFound is Camunda 8's answer for a job key that names no job.
func jobNotFound(key int64) *Problem {
	return notFound(fmt.Sprintf("Job with key '%d' not found", key))
}

// completeJob handles POST /v2/jobs/{jobKey}/completion.
func (h *handler) completeJob(w http.ResponseWriter, r *http.Request) error {
	key, err := h.jobKey(r)
	if err != nil {
		return err
	}
	var req struct {
		Variables json.RawMessage `json:"variables"`
		Result    json.RawMessage `json:"result"`
	}
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	if len(req.Result) > 0 && string(req.Result) != "null" {
		return invalid("a job result (user task listeners, ad-hoc sub-process jobs) is not supported by gobpm")
	}
	vars, err := variables(req.Variables, "variables")
	if err != nil {
		return err
	}
	if err := h.svc.CompleteC8Job(r.Context(), key, h.user(r), vars); err != nil {
		return err
	}
	return noContent(w)
}

// failJob handles POST /v2/jobs/{jobKey}/failure.
func (h *handler) failJob(w http.ResponseWriter, r *http.Request) error {
	key, err := h.jobKey(r)
	if err != nil {
		return err
	}
	var req struct {
		Retries      *json.Number    `json:"retries"`
		ErrorMessage string          `json:"errorMessage"`
		RetryBackOff *json.Number    `json:"retryBackOff"`
		Variables    json.RawMessage `json:"variables"`
	}
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	retries := 0
	if req.Retries != nil {
		n, err := req.Retries.Int64()
		if err != nil || n < 0 || n > 1<<31-1 {
			return invalid("retries must be a whole number, at least 0, not " + req.Retries.String())
		}
		retries = int(n)
	}
	backoff, _, err := millis(req.RetryBackOff, "retryBackOff", 0, maxBackoffMs)
	if err != nil {
		return err
	}
	vars, err := variables(req.Variables, "variables")
	if err != nil {
		return err
	}
	if err := h.svc.FailC8Job(r.Context(), key, h.user(r), runtime.C8Failure{Retries: retries, RetryBackoff: backoff, ErrorMessage: req.ErrorMessage, Variables: vars}); err != nil {
		return err
	}
	return noContent(w)
}

// throwError handles POST /v2/jobs/{jobKey}/error.
func (h *handler) throwError(w http.ResponseWriter, r *http.Request) error {
	key, err := h.jobKey(r)
	if err != nil {
		return err
	}
	var req struct {
		ErrorCode    string          `json:"errorCode"`
		ErrorMessage string          `json:"errorMessage"`
		Variables    json.RawMessage `json:"variables"`
	}
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	if req.ErrorCode == "" {
		return invalid("No errorCode provided.")
	}
	vars, err := variables(req.Variables, "variables")
	if err != nil {
		return err
	}
	if err := h.svc.ThrowC8JobError(r.Context(), key, h.user(r), req.ErrorCode, req.ErrorMessage, vars); err != nil {
		return err
	}
	return noContent(w)
}

// updateJob handles PATCH /v2/jobs/{jobKey}: a changeset's timeout moves
// the deadline of a job the caller activated to that long from now (the
// holder rule); its retries set the job's retries whoever holds it, and
// more than 0 resolve the job's open incident at once (a resolution sent
// after it then finds the incident resolved: 204).
func (h *handler) updateJob(w http.ResponseWriter, r *http.Request) error {
	key, err := h.jobKey(r)
	if err != nil {
		return err
	}
	var req struct {
		Changeset *struct {
			Retries *json.Number `json:"retries"`
			Timeout *json.Number `json:"timeout"`
		} `json:"changeset"`
	}
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	if req.Changeset == nil || (req.Changeset.Retries == nil && req.Changeset.Timeout == nil) {
		return invalid("No changeset provided: give retries or timeout.")
	}
	retries, setRetries, err := whole(req.Changeset.Retries, "changeset.retries", 0, 1<<31-1)
	if err != nil {
		return err
	}
	timeout, setTimeout, err := millis(req.Changeset.Timeout, "changeset.timeout", 1, maxTimeoutMs)
	if err != nil {
		return err
	}
	if setTimeout {
		if err := h.svc.UpdateC8JobTimeout(r.Context(), key, h.user(r), timeout); err != nil {
			return err
		}
	}
	if setRetries {
		if err := h.svc.UpdateC8JobRetries(r.Context(), key, int(retries)); err != nil {
			return err
		}
	}
	return noContent(w)
}
