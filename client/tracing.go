package client

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// HeaderTraceparent is the custom header of an activated job that carries
// the W3C traceparent of the job's span on the server (while it traces).
const HeaderTraceparent = "traceparent"

// JobContext returns ctx carrying the span context of job's traceparent
// (CustomHeaders) as its remote parent, or ctx itself when the job has
// none: spans started from it continue the job's trace, and the client's
// calls with it send it along.
func JobContext(ctx context.Context, job Job) context.Context {
	tp := job.CustomHeaders[HeaderTraceparent]
	if tp == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{HeaderTraceparent: tp})
}

// traceJob gives the handler's context the job's span context and, with
// WorkerOptions.Tracer, a span of the worker's own around the handler.
func (w *Worker) traceJob(ctx context.Context, job Job) (context.Context, trace.Span) {
	ctx = JobContext(ctx, job)
	if w.opts.Tracer == nil {
		return ctx, nil
	}
	return w.opts.Tracer.Start(ctx, "work "+job.Type, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attrJobType.String(job.Type), attrJobKey.String(job.Key)))
}

// endJobSpan records the handler's error on span (nil when untraced) and
// ends it.
func endJobSpan(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// actContext is the context of a job's act after its handler returned:
// no deadline or cancellation of the handler's, but its span context (the
// worker's span, or the job's), which the act sends as its traceparent.
func actContext(handler context.Context) context.Context {
	sc := trace.SpanContextFromContext(handler)
	if !sc.IsValid() {
		return context.Background()
	}
	return trace.ContextWithSpanContext(context.Background(), sc)
}

// Attribute keys of the worker's span.
const (
	attrJobType = attribute.Key("gobpm.job.type")
	attrJobKey  = attribute.Key("gobpm.job.key")
)
