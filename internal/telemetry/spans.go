package telemetry

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Span is a span a hook started; nil when tracing is off. The End
// functions of this package take it, and do nothing with nil.
type Span = trace.Span

// HeaderTraceparent is the W3C trace context header (and gRPC metadata
// key, and activated job's custom header) that carries a span context.
const HeaderTraceparent = "traceparent"

// Attribute keys of gobpm's spans (docs/telemetry.md).
const (
	AttrInstanceID     = "gobpm.instance.id"
	AttrProcessKey     = "gobpm.process.key"
	AttrProcessVersion = "gobpm.process.version"
	AttrElementID      = "gobpm.element.id"
	AttrTrigger        = "gobpm.step.trigger"
	AttrJobID          = "gobpm.job.id"
	AttrJobType        = "gobpm.job.type"
	AttrJobRetries     = "gobpm.job.retries"
	AttrJobOutcome     = "gobpm.job.outcome"
)

// The outcomes that end a job's span.
const (
	OutcomeCompleted = "completed"
	OutcomeFailed    = "failed"
	OutcomeError     = "error"
	OutcomeCancelled = "cancelled"
)

// remoteKey carries the span context a request or RPC arrived with (a
// worker's), for the job span it ends to link to.
type remoteKey struct{}

// fixedSpanIDKey carries the span id EndJob gives the span it creates.
type fixedSpanIDKey struct{}

// StartRequest starts the server span of an HTTP request, a child of the
// request's traceparent when it has a valid one. Its name is the method
// until EndRequest names the route.
func (t *Tracer) StartRequest(r *http.Request) (context.Context, Span) {
	if t == nil {
		return r.Context(), nil
	}
	ctx := withRemote(propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header)))
	return t.tr.Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.String("http.request.method", r.Method), attribute.String("url.path", r.URL.Path)))
}

// EndRequest names span by method and route pattern ("" when no route
// matched: the method alone), records the status (5xx is an error) and
// ends it.
func EndRequest(span Span, method, route string, status int) {
	if span == nil {
		return
	}
	if route != "" {
		span.SetName(method + " " + route)
		span.SetAttributes(attribute.String("http.route", route))
	}
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	if status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
	span.End()
}

// metadataCarrier reads gRPC metadata (lower-case keys) as a text map.
type metadataCarrier map[string][]string

func (m metadataCarrier) Get(key string) string {
	if v := m[strings.ToLower(key)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (m metadataCarrier) Set(key, value string) { m[strings.ToLower(key)] = []string{value} }

func (m metadataCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// StartRPC starts the server span of a gRPC call named by its full
// method, a child of the traceparent in its metadata md when valid.
func (t *Tracer) StartRPC(ctx context.Context, fullMethod string, md map[string][]string) (context.Context, Span) {
	if t == nil {
		return ctx, nil
	}
	ctx = withRemote(propagation.TraceContext{}.Extract(ctx, metadataCarrier(md)))
	service, method, _ := strings.Cut(strings.TrimPrefix(fullMethod, "/"), "/")
	return t.tr.Start(ctx, strings.TrimPrefix(fullMethod, "/"), trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.String("rpc.system", "grpc"), attribute.String("rpc.service", service), attribute.String("rpc.method", method)))
}

// EndRPC records err (nil: success) on span and ends it.
func EndRPC(span Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// withRemote keeps the extracted remote span context of ctx, if any,
// apart, so that the job span a request ends can link to the worker.
func withRemote(ctx context.Context) context.Context {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return ctx
	}
	return context.WithValue(ctx, remoteKey{}, sc)
}

// StartStep starts the span of one step of instance id, triggered by the
// event kind trigger: a child of the request's span (or the step's that
// caused it) in ctx, else a root (a timer, a resume).
func (t *Tracer) StartStep(ctx context.Context, id, trigger string) (context.Context, Span) {
	if t == nil {
		return ctx, nil
	}
	return t.tr.Start(ctx, "step "+trigger, trace.WithAttributes(
		attribute.String(AttrInstanceID, id), attribute.String(AttrTrigger, trigger)))
}

// StepOutcome is what a committed step tells its span.
type StepOutcome struct {
	ProcessKey     string
	ProcessVersion int
	// ElementID is the element the step began at ("" when unknown).
	ElementID string
}

// EndStep records the step's outcome, or its error, on span and ends it.
func EndStep(span Span, out StepOutcome, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	} else {
		span.SetAttributes(attribute.String(AttrProcessKey, out.ProcessKey), attribute.Int(AttrProcessVersion, out.ProcessVersion))
		if out.ElementID != "" {
			span.SetAttributes(attribute.String(AttrElementID, out.ElementID))
		}
	}
	span.End()
}

// NewJob mints the context of the span of a job the step in ctx creates
// at now: the text the store keeps with the job, "traceparent;parent span
// id;start in Unix nanoseconds". It is "" when tracing is off or the step
// is not sampled.
func (t *Tracer) NewJob(ctx context.Context, now time.Time) string {
	if t == nil {
		return ""
	}
	parent := trace.SpanContextFromContext(ctx)
	if !parent.IsValid() || !parent.IsSampled() {
		return ""
	}
	id := newSpanID()
	tid := parent.TraceID()
	return "00-" + tid.String() + "-" + id.String() + "-" + parent.TraceFlags().String() + ";" +
		parent.SpanID().String() + ";" + strconv.FormatInt(now.UnixNano(), 10)
}

// Traceparent returns the W3C traceparent of a job's stored span context
// (the header an activated job carries), or "".
func Traceparent(stored string) string {
	tp, _, _ := strings.Cut(stored, ";")
	return tp
}

// JobEnd is what ends a job's span.
type JobEnd struct {
	// ID is the job's wait id, Type its type, Retries what it has left.
	ID      string
	Type    string
	Retries int
	// Outcome is one of the Outcome constants; Message a failure's text.
	Outcome string
	Message string
}

// EndJob creates the span of a job from its stored context (NewJob) and
// ends it at now: a child of the step that created the job, with the
// stored span id and start time, linked to the span of ctx (the step that
// ended the job) and to the worker's span a request or RPC carried. A
// stored context it cannot read is ignored.
func (t *Tracer) EndJob(ctx context.Context, stored string, end JobEnd, now time.Time) {
	if t == nil || stored == "" {
		return
	}
	sc, parent, start, err := parseJob(stored)
	if err != nil {
		return // written by this package, so only a damaged row lands here: no span rather than a wrong one
	}
	pctx := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: sc.TraceID(), SpanID: parent, TraceFlags: sc.TraceFlags(), Remote: true}))
	pctx = context.WithValue(pctx, fixedSpanIDKey{}, sc.SpanID())
	var links []trace.Link
	if step := trace.SpanContextFromContext(ctx); step.IsValid() {
		links = append(links, trace.Link{SpanContext: step, Attributes: []attribute.KeyValue{attribute.String("gobpm.link", "step")}})
	}
	if worker, ok := ctx.Value(remoteKey{}).(trace.SpanContext); ok {
		links = append(links, trace.Link{SpanContext: worker, Attributes: []attribute.KeyValue{attribute.String("gobpm.link", "worker")}})
	}
	_, span := t.tr.Start(pctx, "job "+end.Type, trace.WithTimestamp(start), trace.WithLinks(links...), trace.WithAttributes(
		attribute.String(AttrJobID, end.ID), attribute.String(AttrJobType, end.Type), attribute.Int(AttrJobRetries, end.Retries),
		attribute.String(AttrJobOutcome, end.Outcome)))
	if end.Outcome == OutcomeFailed || end.Outcome == OutcomeError {
		span.SetStatus(codes.Error, end.Message)
	}
	span.End(trace.WithTimestamp(now))
}

// parseJob reads a stored job span context.
func parseJob(stored string) (sc trace.SpanContext, parent trace.SpanID, start time.Time, err error) {
	parts := strings.Split(stored, ";")
	if len(parts) != 3 {
		return sc, parent, start, fmt.Errorf("telemetry: job span context %q: want 3 parts", stored)
	}
	sc = trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{HeaderTraceparent: parts[0]}))
	if !sc.IsValid() {
		return sc, parent, start, fmt.Errorf("telemetry: job span context %q: bad traceparent", stored)
	}
	if parent, err = trace.SpanIDFromHex(parts[1]); err != nil {
		return sc, parent, start, fmt.Errorf("telemetry: job span context %q: parent: %w", stored, err)
	}
	ns, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return sc, parent, start, fmt.Errorf("telemetry: job span context %q: start: %w", stored, err)
	}
	return sc, parent, time.Unix(0, ns), nil
}

// idGenerator mints random trace and span ids, except the span id that
// EndJob asks for through the context.
type idGenerator struct{}

func (idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	var tid trace.TraceID
	_, _ = rand.Read(tid[:]) // crypto/rand.Read never fails
	return tid, idGenerator{}.NewSpanID(ctx, tid)
}

func (idGenerator) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	if id, ok := ctx.Value(fixedSpanIDKey{}).(trace.SpanID); ok {
		return id
	}
	return newSpanID()
}

func newSpanID() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		_, _ = rand.Read(id[:]) // crypto/rand.Read never fails
	}
	return id
}
