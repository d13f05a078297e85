package zeebe

import (
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

// start resolves and starts the instance a CreateProcessInstanceRequest
// names, awaiting its end with await.
func (g *Gateway) start(ctx context.Context, method string, in *pb.CreateProcessInstanceRequest, await *runtime.C8Await) (runtime.C8Instance, error) {
	svc, err := g.svc()
	if err != nil {
		return runtime.C8Instance{}, err
	}
	if in == nil {
		return runtime.C8Instance{}, invalid("Expected a process instance creation request, but none was given")
	}
	if len(in.StartInstructions) > 0 {
		return runtime.C8Instance{}, invalid("start instructions are not supported by gobpm: an instance starts at its none start event")
	}
	vars, err := document(in.Variables, "variables")
	if err != nil {
		return runtime.C8Instance{}, err
	}
	p, err := svc.ResolveC8Process(ctx, in.BpmnProcessId, int(in.Version), in.ProcessDefinitionKey)
	if err != nil {
		return runtime.C8Instance{}, g.statusOf(ctx, method, err)
	}
	if !allowed(ctx, auth.PermStart, auth.KindProcess, p.ProcessID) {
		return runtime.C8Instance{}, status.Errorf(codes.PermissionDenied, "the caller may not start instances of process '%s'", p.ProcessID)
	}
	inst, err := svc.StartC8Instance(ctx, p, vars, await)
	if err != nil {
		return runtime.C8Instance{}, g.statusOf(ctx, method, err)
	}
	return inst, nil
}

// CreateProcessInstance starts an instance of the process named by its
// key, or by its BPMN process id and version (-1: the latest).
func (g *Gateway) CreateProcessInstance(ctx context.Context, in *pb.CreateProcessInstanceRequest) (*pb.CreateProcessInstanceResponse, error) {
	inst, err := g.start(ctx, "CreateProcessInstance", in, nil)
	if err != nil {
		return nil, err
	}
	return &pb.CreateProcessInstanceResponse{ProcessDefinitionKey: inst.Process.Key, BpmnProcessId: inst.Process.ProcessID,
		Version: int32(inst.Process.Version), ProcessInstanceKey: inst.Key}, nil
}

// CreateProcessInstanceWithResult starts an instance and answers when it
// completes, with its variables (fetchVariables; empty: all of them).
// requestTimeout ms bounds the wait (0: the call's deadline, else 10 s);
// an instance still running then is DEADLINE_EXCEEDED (it goes on).
func (g *Gateway) CreateProcessInstanceWithResult(ctx context.Context, in *pb.CreateProcessInstanceWithResultRequest) (*pb.CreateProcessInstanceWithResultResponse, error) {
	timeout := time.Duration(in.RequestTimeout) * time.Millisecond
	if timeout <= 0 {
		timeout = defaultRequestTimeout
		if d, ok := ctx.Deadline(); ok {
			timeout = time.Until(d)
		}
	}
	if timeout <= 0 {
		return nil, status.Error(codes.DeadlineExceeded, "the call's deadline passed")
	}
	inst, err := g.start(ctx, "CreateProcessInstanceWithResult", in.Request, &runtime.C8Await{Timeout: timeout, FetchVariables: in.FetchVariables})
	if err != nil {
		return nil, err
	}
	vars, err := json.Marshal(inst.Variables)
	if err != nil {
		return nil, g.statusOf(ctx, "CreateProcessInstanceWithResult", fmt.Errorf("zeebe: instance %d: encode variables: %w", inst.Key, err))
	}
	return &pb.CreateProcessInstanceWithResultResponse{ProcessDefinitionKey: inst.Process.Key, BpmnProcessId: inst.Process.ProcessID,
		Version: int32(inst.Process.Version), ProcessInstanceKey: inst.Key, Variables: string(vars)}, nil
}

// instance resolves the instance with numeric key key for an act needing
// perm: NOT_FOUND for an unknown key or an instance of a process the
// caller may not read, PERMISSION_DENIED without perm.
func (g *Gateway) instance(ctx context.Context, svc Service, key int64, perm auth.Permission) (runtime.InstanceID, error) {
	notFound := status.Errorf(codes.NotFound, "Expected to find process instance with key '%d', but none was found", key)
	id, err := svc.ByNumericKey(ctx, runtime.KeyInstance, key)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return "", notFound
	}
	if err != nil {
		return "", err
	}
	pk, err := svc.InstanceProcessKey(ctx, runtime.InstanceID(id))
	if runtime.ErrorCode(err) == runtime.ENOTFOUND || (err == nil && !allowed(ctx, auth.PermRead, auth.KindProcess, pk)) {
		return "", notFound
	}
	if err != nil {
		return "", err
	}
	if !allowed(ctx, perm, auth.KindProcess, pk) {
		return "", status.Errorf(codes.PermissionDenied, "the caller may not %s instances of process '%s'", perm, pk)
	}
	return runtime.InstanceID(id), nil
}

// CancelProcessInstance cancels a running instance; one that has ended is
// NOT_FOUND, as Zeebe no longer knows it.
func (g *Gateway) CancelProcessInstance(ctx context.Context, in *pb.CancelProcessInstanceRequest) (*pb.CancelProcessInstanceResponse, error) {
	svc, err := g.svc()
	if err != nil {
		return nil, err
	}
	id, err := g.instance(ctx, svc, in.ProcessInstanceKey, auth.PermOperate)
	if err != nil {
		return nil, g.statusOf(ctx, "CancelProcessInstance", err)
	}
	if _, err := svc.Cancel(ctx, id); err != nil {
		if runtime.ErrorCode(err) == runtime.ECONFLICT {
			return nil, status.Errorf(codes.NotFound, "Expected to cancel a process instance with key '%d', but it has ended", in.ProcessInstanceKey)
		}
		return nil, g.statusOf(ctx, "CancelProcessInstance", err)
	}
	return &pb.CancelProcessInstanceResponse{}, nil
}

// SetVariables writes variables into an instance: gobpm keeps numeric
// keys per process instance only, so elementInstanceKey must be a process
// instance key (an activated job's elementInstanceKey is one).
func (g *Gateway) SetVariables(ctx context.Context, in *pb.SetVariablesRequest) (*pb.SetVariablesResponse, error) {
	svc, err := g.svc()
	if err != nil {
		return nil, err
	}
	vars, err := document(in.Variables, "variables")
	if err != nil {
		return nil, err
	}
	if _, err := g.instance(ctx, svc, in.ElementInstanceKey, auth.PermOperate); err != nil {
		return nil, g.statusOf(ctx, "SetVariables", err)
	}
	if _, err := svc.SetC8Variables(ctx, in.ElementInstanceKey, vars, in.Local); err != nil {
		return nil, g.statusOf(ctx, "SetVariables", err)
	}
	return &pb.SetVariablesResponse{Key: eventKey()}, nil
}

// ResolveIncident resolves an open incident: a job incident gets one
// retry, a stopped element runs again. One already resolved (by a retries
// update, which Zeebe's clients send first) answers success.
func (g *Gateway) ResolveIncident(ctx context.Context, in *pb.ResolveIncidentRequest) (*pb.ResolveIncidentResponse, error) {
	svc, err := g.svc()
	if err != nil {
		return nil, err
	}
	notFound := status.Errorf(codes.NotFound, "Expected to resolve incident with key '%d', but no such incident was found", in.IncidentKey)
	id, err := svc.ByNumericKey(ctx, runtime.KeyIncident, in.IncidentKey)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return nil, notFound
	}
	if err != nil {
		return nil, g.statusOf(ctx, "ResolveIncident", err)
	}
	pk, err := svc.IncidentProcessKey(ctx, id)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND || (err == nil && !allowed(ctx, auth.PermRead, auth.KindProcess, pk)) {
		return nil, notFound
	}
	if err != nil {
		return nil, g.statusOf(ctx, "ResolveIncident", err)
	}
	if !allowed(ctx, auth.PermOperate, auth.KindProcess, pk) {
		return nil, status.Errorf(codes.PermissionDenied, "the caller may not operate instances of process '%s'", pk)
	}
	// An incident resolved already is no error: UpdateJobRetries resolves a
	// job's incident itself, and Zeebe's clients send ResolveIncident after
	// it (as REST v2's resolution answers 204 then).
	if _, err := svc.ResolveC8Incident(ctx, in.IncidentKey); err != nil && runtime.ErrorCode(err) != runtime.ECONFLICT {
		return nil, g.statusOf(ctx, "ResolveIncident", err)
	}
	return &pb.ResolveIncidentResponse{}, nil
}
