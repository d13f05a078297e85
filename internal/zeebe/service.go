package zeebe

import (
	"context"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Service is what the gateway's RPCs need from the runtime's Camunda 8
// layer; *runtime.Runtime implements it. Errors carry runtime error codes
// (runtime.ErrorCode), which statusOf maps to Zeebe's gRPC status codes.
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
	// JobByNumericKey returns a job's public key (ENOTFOUND if none) and
	// JobType its type, for the work check.
	JobByNumericKey(ctx context.Context, key int64) (string, error)
	JobType(ctx context.Context, key string) (string, error)

	// ResolveC8Process finds a process version by id and version or key.
	ResolveC8Process(ctx context.Context, processID string, version int, key int64) (runtime.C8Process, error)
	// StartC8Instance starts an instance, awaiting its end with await.
	StartC8Instance(ctx context.Context, p runtime.C8Process, vars map[string]any, await *runtime.C8Await) (runtime.C8Instance, error)
	// ByNumericKey translates a numeric key to gobpm's id (ENOTFOUND).
	ByNumericKey(ctx context.Context, kind runtime.KeyKind, key int64) (string, error)
	// InstanceProcessKey names an instance's process; Cancel cancels it.
	InstanceProcessKey(ctx context.Context, id runtime.InstanceID) (string, error)
	Cancel(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error)
	// SetC8Variables writes variables into an instance by numeric key.
	SetC8Variables(ctx context.Context, elementInstanceKey int64, vars map[string]any, local bool) (runtime.InstanceView, error)

	// DeployC8 deploys resources and answers their numeric keys.
	DeployC8(ctx context.Context, files []runtime.File) (runtime.C8Deployment, error)

	// ResolveJob reads an open job by public key (ENOTFOUND); SetJobRetries
	// sets its retries (0 opens an incident, more resolves it).
	ResolveJob(ctx context.Context, key string) (runtime.JobRef, error)
	SetJobRetries(ctx context.Context, key string, retries int) error

	// PublishMessage publishes a message: without a time to live nothing
	// waiting is ENOTFOUND; with one it is buffered, and a duplicate
	// message id is runtime.ErrDuplicateMessage.
	PublishMessage(ctx context.Context, p runtime.Publication) (runtime.PublishResult, error)
	// BroadcastSignal fires a signal.
	BroadcastSignal(ctx context.Context, name string, vars map[string]any) (int, error)

	// ResolveC8Incident retries an incident by numeric key;
	// IncidentProcessKey names its process.
	ResolveC8Incident(ctx context.Context, key int64) (runtime.IncidentRow, error)
	IncidentProcessKey(ctx context.Context, id string) (string, error)
}

// *runtime.Runtime is the Service.
var _ Service = (*runtime.Runtime)(nil)
