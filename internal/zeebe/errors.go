package zeebe

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gobpm/gobpm/internal/runtime"
)

// statusOf maps an error of the runtime to the gRPC status Zeebe answers
// for it: ENOTFOUND is NOT_FOUND, EINVALID and a refused deployment
// INVALID_ARGUMENT, ECONFLICT FAILED_PRECONDITION, EFORBIDDEN
// PERMISSION_DENIED, an await that ran out DEADLINE_EXCEEDED. A status
// error passes as it is; anything else is INTERNAL, logged, not answered.
func (g *Gateway) statusOf(ctx context.Context, method string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return status.Error(codes.Canceled, "the call was cancelled")
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return status.Error(codes.DeadlineExceeded, "the call's deadline passed")
	}
	var de *runtime.DeploymentError
	if errors.As(err, &de) {
		return status.Error(codes.InvalidArgument, de.Error())
	}
	if errors.Is(err, runtime.ErrAwaitTimeout) {
		return status.Error(codes.DeadlineExceeded, "the process instance did not complete within the request timeout: it goes on running")
	}
	msg := messageOf(err)
	switch runtime.ErrorCode(err) {
	case runtime.ENOTFOUND:
		return status.Error(codes.NotFound, msg)
	case runtime.EINVALID:
		return status.Error(codes.InvalidArgument, msg)
	case runtime.ECONFLICT:
		return status.Error(codes.FailedPrecondition, msg)
	case runtime.EFORBIDDEN:
		return status.Error(codes.PermissionDenied, msg)
	}
	g.log.ErrorContext(ctx, "gRPC call failed", "err", err, "method", method)
	return status.Error(codes.Internal, "internal error: the server logged the cause")
}

// messageOf is the message of a runtime error, without its wrapped cause.
func messageOf(err error) string {
	var e *runtime.Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return err.Error()
}

// invalid is an INVALID_ARGUMENT status.
func invalid(format string, args ...any) error {
	return status.Error(codes.InvalidArgument, fmt.Sprintf(format, args...))
}
