package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func mustTracer(t *testing.T) (*Tracer, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tr := NewWithProcessor(sdktrace.NewSimpleSpanProcessor(exp))
	t.Cleanup(func() { _ = tr.Shutdown(context.Background()) })
	return tr, exp
}

func TestConfig(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		endpoint string
		env      map[string]string
		on       bool
		proto    string
		bad      bool
	}{
		{name: "nothing", proto: ProtocolHTTP},
		{name: "flag", endpoint: "http://127.0.0.1:4318", on: true, proto: ProtocolHTTP},
		{name: "OTEL endpoint", env: map[string]string{EnvEndpoint: "http://c:4318"}, on: true, proto: ProtocolHTTP},
		{name: "OTEL traces endpoint, grpc", env: map[string]string{EnvTracesEndpoint: "http://c:4317", EnvProtocol: "grpc"}, on: true, proto: ProtocolGRPC},
		{name: "traces protocol wins", env: map[string]string{EnvEndpoint: "http://c", EnvProtocol: "grpc", EnvTracesProtocol: "http/protobuf"}, on: true, proto: ProtocolHTTP},
		{name: "disabled", endpoint: "http://127.0.0.1:4318", env: map[string]string{EnvSDKDisabled: "TRUE"}, proto: ProtocolHTTP},
		{name: "no scheme", endpoint: "127.0.0.1:4318", on: true, proto: ProtocolHTTP, bad: true},
		{name: "bad protocol", endpoint: "http://c", env: map[string]string{EnvProtocol: "http/json"}, on: true, bad: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Config{Endpoint: tt.endpoint, Getenv: func(k string) string { return tt.env[k] }}
			if got := c.Enabled(); got != tt.on {
				t.Errorf("Enabled() = %v, want %v", got, tt.on)
			}
			if err := c.Check(); (err != nil) != tt.bad {
				t.Errorf("Check() = %v, want an error: %v", err, tt.bad)
			}
			if p, err := c.Protocol(); err == nil && p != tt.proto {
				t.Errorf("Protocol() = %s, want %s", p, tt.proto)
			}
		})
	}
}

func TestNewOff(t *testing.T) {
	t.Parallel()
	tr, err := New(context.Background(), Config{Getenv: func(string) string { return "" }})
	if tr != nil || err != nil {
		t.Fatalf("New without an endpoint = %v, %v; want nil, nil", tr, err)
	}
}

func TestHTTPTracesURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://c:4318":            "http://c:4318/v1/traces",
		"http://c:4318/":           "http://c:4318/v1/traces",
		"https://c/otlp/v1/traces": "https://c/otlp/v1/traces",
	} {
		if got := httpTracesURL(in); got != want {
			t.Errorf("httpTracesURL(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestOffAllocatesNothing: every hook of a nil Tracer returns at once
// without allocating. Not parallel: AllocsPerRun counts the whole
// process's allocations.
func TestOffAllocatesNothing(t *testing.T) {
	var tr *Tracer
	req := httptest.NewRequest(http.MethodPost, "/api/v1/processes/p/instances", nil)
	ctx := context.Background()
	now := time.Now()
	allocs := testing.AllocsPerRun(100, func() {
		_, span := tr.StartRequest(req)
		EndRequest(span, req.Method, "/x", 201)
		sctx, step := tr.StartStep(ctx, "i", "start")
		if tr.NewJob(sctx, now) != "" {
			t.Fatal("a job context with tracing off")
		}
		tr.EndJob(sctx, "", JobEnd{}, now)
		EndStep(step, StepOutcome{}, nil)
		_, rpc := tr.StartRPC(ctx, "/gateway_protocol.Gateway/CompleteJob", nil)
		EndRPC(rpc, nil)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run with tracing off, want 0", allocs)
	}
}

// TestJobSpan: a job's context minted in one step ends, from its stored
// text alone, as a span with the minted id, the creating step as parent,
// the stored start, links to the ending step and to the worker's span
// the request carried.
func TestJobSpan(t *testing.T) {
	t.Parallel()
	tr, exp := mustTracer(t)
	ctx, create := tr.StartStep(context.Background(), "i1", "start")
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	stored := tr.NewJob(ctx, t0)
	EndStep(create, StepOutcome{ProcessKey: "p", ProcessVersion: 2, ElementID: "start"}, nil)
	tp := Traceparent(stored)
	if !strings.HasPrefix(tp, "00-"+create.SpanContext().TraceID().String()+"-") || strings.Contains(tp, ";") {
		t.Fatalf("traceparent %q of stored %q", tp, stored)
	}

	// The worker's request, with its own span, after a "restart": a new
	// tracer reads the stored text.
	tr2, exp2 := mustTracer(t)
	worker := trace.NewSpanContext(trace.SpanContextConfig{TraceID: create.SpanContext().TraceID(), SpanID: trace.SpanID{9, 9, 9, 9, 9, 9, 9, 9}, TraceFlags: trace.FlagsSampled})
	req := httptest.NewRequest(http.MethodPost, "/api/v1/jobs/k/complete", nil)
	req.Header.Set(HeaderTraceparent, "00-"+worker.TraceID().String()+"-"+worker.SpanID().String()+"-01")
	rctx, rspan := tr2.StartRequest(req)
	sctx, done := tr2.StartStep(rctx, "i1", "job-completed")
	t1 := t0.Add(time.Minute)
	tr2.EndJob(sctx, stored, JobEnd{ID: "i1-w1", Type: "pay", Retries: 3, Outcome: OutcomeCompleted}, t1)
	EndStep(done, StepOutcome{}, nil)
	EndRequest(rspan, req.Method, "/api/v1/jobs/{key}/complete", 204)

	if got := len(exp.GetSpans()); got != 1 {
		t.Fatalf("%d spans of the first tracer, want the creating step", got)
	}
	var job sdktrace.ReadOnlySpan
	for _, s := range exp2.GetSpans().Snapshots() {
		if s.Name() == "job pay" {
			job = s
		}
	}
	if job == nil {
		t.Fatalf("no job span among %v", exp2.GetSpans())
	}
	if want := "00-" + job.SpanContext().TraceID().String() + "-" + job.SpanContext().SpanID().String() + "-01"; want != tp {
		t.Errorf("job span %s, want the stored traceparent %s", want, tp)
	}
	if job.Parent().SpanID() != create.SpanContext().SpanID() {
		t.Errorf("job span's parent %s, want the creating step %s", job.Parent().SpanID(), create.SpanContext().SpanID())
	}
	if !job.StartTime().Equal(t0) || !job.EndTime().Equal(t1) {
		t.Errorf("job span from %v to %v, want %v to %v", job.StartTime(), job.EndTime(), t0, t1)
	}
	var linked []trace.SpanID
	for _, l := range job.Links() {
		linked = append(linked, l.SpanContext.SpanID())
	}
	if len(linked) != 2 || linked[0] != done.SpanContext().SpanID() || linked[1] != worker.SpanID() {
		t.Errorf("job span links %v, want the step %s and the worker %s", linked, done.SpanContext().SpanID(), worker.SpanID())
	}
	if rs := rspan.(sdktrace.ReadOnlySpan); rs.Parent().SpanID() != worker.SpanID() || rs.Name() != "POST /api/v1/jobs/{key}/complete" {
		t.Errorf("request span %q, parent %s; want the route and the worker's span", rs.Name(), rs.Parent().SpanID())
	}

	for _, bad := range []string{"x", "00-zz;00f067aa0ba902b7;1", tp + ";nope;1", tp + ";00f067aa0ba902b7;soon"} {
		tr2.EndJob(sctx, bad, JobEnd{Type: "bad"}, t1)
	}
	for _, s := range exp2.GetSpans() {
		if s.Name == "job bad" {
			t.Errorf("a span from damaged context")
		}
	}
}

// TestUnsampledStepMintsNoJob: a step the sampler dropped gives its jobs
// no context.
func TestUnsampledStepMintsNoJob(t *testing.T) {
	t.Parallel()
	tr := newTracer(sdktrace.WithSampler(sdktrace.NeverSample()))
	ctx, span := tr.StartStep(context.Background(), "i", "start")
	defer span.End()
	if got := tr.NewJob(ctx, time.Now()); got != "" {
		t.Errorf("NewJob in an unsampled step = %q", got)
	}
}
