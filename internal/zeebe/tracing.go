package zeebe

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/gobpm/gobpm/internal/telemetry"
)

// traceUnary gives each call a server span, a child of the traceparent
// in its metadata (telemetry.StartRPC): a worker's span reaches the job's
// completion step this way.
func traceUnary(t *telemetry.Tracer) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		ctx, span := t.StartRPC(ctx, info.FullMethod, md)
		resp, err := handler(ctx, req)
		telemetry.EndRPC(span, err)
		return resp, err
	}
}

// traceStream is traceUnary for streams (StreamActivatedJobs, the long
// ActivateJobs), the span lasting as long as the stream.
func traceStream(t *telemetry.Tracer) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		md, _ := metadata.FromIncomingContext(ss.Context())
		ctx, span := t.StartRPC(ss.Context(), info.FullMethod, md)
		err := handler(srv, tracedStream{ServerStream: ss, ctx: ctx})
		telemetry.EndRPC(span, err)
		return err
	}
}

// tracedStream is a stream whose context carries its span.
type tracedStream struct {
	grpc.ServerStream
	ctx context.Context
}

// Context returns the stream's context with its span.
func (s tracedStream) Context() context.Context { return s.ctx }
