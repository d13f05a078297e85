package zeebe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/camunda/zeebe/clients/go/v8/pkg/pb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// defaultRequestTimeout is the long poll of an ActivateJobs whose
// requestTimeout is 0: the Zeebe gateway's default.
const defaultRequestTimeout = 10 * time.Second

// activation is an activation request in the runtime's terms, checked as
// Zeebe checks ActivateJobs and StreamActivatedJobs.
func activation(ctx context.Context, typ, worker string, timeoutMs int64, fetch []string) (runtime.C8ActivateRequest, error) {
	switch {
	case typ == "":
		return runtime.C8ActivateRequest{}, invalid("Expected to activate jobs of a type, but no type was given")
	case timeoutMs < 1 || time.Duration(timeoutMs)*time.Millisecond > runtime.MaxLockDuration:
		return runtime.C8ActivateRequest{}, invalid("Expected to activate jobs with a timeout between 1 ms and one day, but it was %d ms", timeoutMs)
	}
	if !allowed(ctx, auth.PermWork, auth.KindJobType, typ) {
		return runtime.C8ActivateRequest{}, status.Errorf(codes.PermissionDenied, "the caller may not work on jobs of type '%s'", typ)
	}
	return runtime.C8ActivateRequest{Type: typ, Worker: worker, User: user(ctx), Timeout: time.Duration(timeoutMs) * time.Millisecond,
		FetchVariables: fetch}, nil
}

// ActivateJobs activates up to maxJobsToActivate jobs of a type and
// answers them in one batch, long-polling up to requestTimeout ms (0: the
// gateway's 10 s; negative: answer at once, possibly with no job).
func (g *Gateway) ActivateJobs(in *pb.ActivateJobsRequest, stream pb.Gateway_ActivateJobsServer) error {
	ctx := stream.Context()
	svc, err := g.svc()
	if err != nil {
		return err
	}
	req, err := activation(ctx, in.Type, in.Worker, in.Timeout, in.FetchVariable)
	if err != nil {
		return err
	}
	if in.MaxJobsToActivate < 1 {
		return invalid("Expected to activate at least 1 job, but maxJobsToActivate was %d", in.MaxJobsToActivate)
	}
	req.MaxJobs = min(int(in.MaxJobsToActivate), runtime.MaxJobsPerActivation)
	switch {
	case in.RequestTimeout == 0:
		req.RequestTimeout = defaultRequestTimeout
	case in.RequestTimeout > 0:
		req.RequestTimeout = min(time.Duration(in.RequestTimeout)*time.Millisecond, runtime.MaxRequestTimeout)
	}
	if req.RequestTimeout > 0 {
		release, err := g.hold(ctx)
		if err != nil {
			return err
		}
		defer release()
	}
	jobs, err := svc.ActivateC8Jobs(ctx, req)
	if err != nil {
		return g.statusOf(ctx, "ActivateJobs", err)
	}
	out := &pb.ActivateJobsResponse{Jobs: make([]*pb.ActivatedJob, 0, len(jobs))}
	for _, j := range jobs {
		aj, err := activatedJob(j)
		if err != nil {
			return g.statusOf(ctx, "ActivateJobs", err)
		}
		out.Jobs = append(out.Jobs, aj)
	}
	if err := stream.Send(out); err != nil {
		// The worker went away: its jobs come back when their timeout ends.
		return fmt.Errorf("zeebe: answer ActivateJobs: %w", err)
	}
	return nil
}

// activatedJob is a job as the gateway protocol carries it: variables and
// custom headers as JSON documents, the instance key as the element
// instance key (gobpm keeps none per element instance).
func activatedJob(j runtime.C8Job) (*pb.ActivatedJob, error) {
	vars := j.Variables
	if vars == nil {
		vars = map[string]any{}
	}
	headers := j.CustomHeaders
	if headers == nil {
		headers = map[string]string{}
	}
	v, err := json.Marshal(vars)
	if err != nil {
		return nil, fmt.Errorf("zeebe: job %d: encode variables: %w", j.Key, err)
	}
	h, err := json.Marshal(headers)
	if err != nil {
		return nil, fmt.Errorf("zeebe: job %d: encode custom headers: %w", j.Key, err)
	}
	return &pb.ActivatedJob{Key: j.Key, Type: j.Type, ProcessInstanceKey: j.InstanceKey, BpmnProcessId: j.ProcessID,
		ProcessDefinitionVersion: int32(j.Version), ProcessDefinitionKey: j.DefinitionKey, ElementId: j.ElementID,
		ElementInstanceKey: j.InstanceKey, CustomHeaders: string(h), Worker: j.Worker, Retries: int32(j.Retries),
		Deadline: j.Deadline.UnixMilli(), Variables: string(v)}, nil
}

// jobKey checks the caller may work on the type of the job with key: a
// job of a type they may not work on is unknown to them (NOT_FOUND).
func (g *Gateway) jobKey(ctx context.Context, svc Service, key int64) error {
	notFound := status.Errorf(codes.NotFound, "Expected to act on job with key '%d', but no such job was found", key)
	if key <= 0 {
		return notFound
	}
	c := callerOf(ctx)
	if c.Via == "none" || c.Unrestricted() {
		return nil
	}
	public, err := svc.JobByNumericKey(ctx, key)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return notFound
	}
	if err != nil {
		return err
	}
	typ, err := svc.JobType(ctx, public)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND || (err == nil && !allowed(ctx, auth.PermWork, auth.KindJobType, typ)) {
		return notFound
	}
	return err
}

// CompleteJob completes an activated job with its variables.
func (g *Gateway) CompleteJob(ctx context.Context, in *pb.CompleteJobRequest) (*pb.CompleteJobResponse, error) {
	err := g.jobAct(ctx, "CompleteJob", in.JobKey, in.Variables, func(svc Service, vars map[string]any) error {
		return svc.CompleteC8Job(ctx, in.JobKey, user(ctx), vars)
	})
	if err != nil {
		return nil, err
	}
	return &pb.CompleteJobResponse{}, nil
}

// FailJob records a failed attempt: retries left (0: an incident),
// retryBackOff ms before the next activation, errorMessage; variables
// become local variables of the job's task, as in Zeebe.
func (g *Gateway) FailJob(ctx context.Context, in *pb.FailJobRequest) (*pb.FailJobResponse, error) {
	err := g.jobAct(ctx, "FailJob", in.JobKey, in.Variables, func(svc Service, vars map[string]any) error {
		return svc.FailC8Job(ctx, in.JobKey, user(ctx), runtime.C8Failure{Retries: max(int(in.Retries), 0),
			RetryBackoff: time.Duration(max(in.RetryBackOff, 0)) * time.Millisecond, ErrorMessage: in.ErrorMessage, Variables: vars})
	})
	if err != nil {
		return nil, err
	}
	return &pb.FailJobResponse{}, nil
}

// ThrowError throws a BPMN error with errorCode at the job's task.
func (g *Gateway) ThrowError(ctx context.Context, in *pb.ThrowErrorRequest) (*pb.ThrowErrorResponse, error) {
	err := g.jobAct(ctx, "ThrowError", in.JobKey, in.Variables, func(svc Service, vars map[string]any) error {
		return svc.ThrowC8JobError(ctx, in.JobKey, user(ctx), in.ErrorCode, in.ErrorMessage, vars)
	})
	if err != nil {
		return nil, err
	}
	return &pb.ThrowErrorResponse{}, nil
}

// updateJobTimeout moves an activated job's deadline to timeoutMs from now.
func (g *Gateway) updateJobTimeout(ctx context.Context, key, timeoutMs int64) error {
	return g.jobAct(ctx, "UpdateJobTimeout", key, "", func(svc Service, _ map[string]any) error {
		return svc.UpdateC8JobTimeout(ctx, key, user(ctx), time.Duration(timeoutMs)*time.Millisecond)
	})
}

// jobAct checks the job key, reads the variables document and runs act,
// answering Zeebe's status codes.
func (g *Gateway) jobAct(ctx context.Context, method string, key int64, variables string, act func(svc Service, vars map[string]any) error) error {
	svc, err := g.svc()
	if err != nil {
		return err
	}
	if err := g.jobKey(ctx, svc, key); err != nil {
		return g.statusOf(ctx, method, err)
	}
	vars, err := document(variables, "variables")
	if err != nil {
		return err
	}
	return g.statusOf(ctx, method, act(svc, vars))
}

// document reads a JSON document whose root is an object ("" or "null":
// none), numbers kept exact; anything else is INVALID_ARGUMENT.
func document(s, field string) (map[string]any, error) {
	t := bytes.TrimSpace([]byte(s))
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || dec.More() {
		return nil, invalid("Expected to retrieve %s as a JSON document whose root is an object, but it was '%s'", field, s)
	}
	return m, nil
}

// UpdateJobRetries sets the retries left of a job, whoever holds it: an
// operator's act (operate on the job's process, as retrying an incident;
// a job the caller may neither work on nor read is NOT_FOUND). Retries
// above 0 resolve the job's open incident, so it is activatable again.
func (g *Gateway) UpdateJobRetries(ctx context.Context, in *pb.UpdateJobRetriesRequest) (*pb.UpdateJobRetriesResponse, error) {
	svc, err := g.svc()
	if err != nil {
		return nil, err
	}
	notFound := status.Errorf(codes.NotFound, "Expected to update retries for job with key '%d', but no such job was found", in.JobKey)
	if in.JobKey <= 0 {
		return nil, notFound
	}
	public, err := svc.JobByNumericKey(ctx, in.JobKey)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return nil, notFound
	}
	if err != nil {
		return nil, g.statusOf(ctx, "UpdateJobRetries", err)
	}
	ref, err := svc.ResolveJob(ctx, public)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND ||
		(err == nil && !allowed(ctx, auth.PermWork, auth.KindJobType, ref.Type) && !allowed(ctx, auth.PermRead, auth.KindProcess, ref.ProcessKey)) {
		return nil, notFound
	}
	if err != nil {
		return nil, g.statusOf(ctx, "UpdateJobRetries", err)
	}
	if !allowed(ctx, auth.PermOperate, auth.KindProcess, ref.ProcessKey) {
		return nil, status.Errorf(codes.PermissionDenied, "the caller may not operate instances of process '%s'", ref.ProcessKey)
	}
	if in.Retries < 1 {
		return nil, invalid("Expected to update retries for job with key '%d' with a positive amount of retries, but the amount given was '%d'", in.JobKey, in.Retries)
	}
	if err := svc.SetJobRetries(ctx, public, int(in.Retries)); err != nil {
		if runtime.ErrorCode(err) == runtime.ENOTFOUND {
			return nil, notFound
		}
		return nil, g.statusOf(ctx, "UpdateJobRetries", err)
	}
	return &pb.UpdateJobRetriesResponse{}, nil
}
