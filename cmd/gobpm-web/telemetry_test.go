package main

import (
	"context"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/gobpm/gobpm/client"
)

// tracedModel is start → a service task of type traced-pay → end.
const tracedModel = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs" targetNamespace="urn:test">
  <bpmn:process id="traced" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="pay">
      <bpmn:extensionElements><zeebe:taskDefinition type="traced-pay" retries="3" /></bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="pay" />
    <bpmn:sequenceFlow id="f2" sourceRef="pay" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`

// otlpReceiver is a tiny OTLP/HTTP trace receiver on loopback: it decodes
// each ExportTraceServiceRequest and keeps its spans.
type otlpReceiver struct {
	mu       sync.Mutex
	spans    []*tracepb.Span
	requests int
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	if r.URL.Path != "/v1/traces" || err != nil {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	o.requests++
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			o.spans = append(o.spans, ss.Spans...)
		}
	}
	o.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// named returns the received spans called name.
func (o *otlpReceiver) named(name string) []*tracepb.Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range o.spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func (o *otlpReceiver) one(t *testing.T, name string) *tracepb.Span {
	t.Helper()
	got := o.named(name)
	if len(got) != 1 {
		o.mu.Lock()
		var names []string
		for _, s := range o.spans {
			names = append(names, s.Name)
		}
		o.mu.Unlock()
		t.Fatalf("%d spans named %q, want 1; received %v", len(got), name, names)
	}
	return got[0]
}

// attr returns the attribute key of s as text ("" when absent).
func attr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key != key {
			continue
		}
		if v, ok := kv.Value.Value.(*commonpb.AnyValue_IntValue); ok {
			return strconv.FormatInt(v.IntValue, 10)
		}
		return kv.Value.GetStringValue()
	}
	return ""
}

func hexID(b []byte) string { return hex.EncodeToString(b) }

// runTraced runs the traced model once through a server configured by
// args (and env), with a worker of the Go client traced by its own
// tracer provider, and returns the job the worker saw.
func runTraced(t *testing.T, args []string, env map[string]string, callerTP, workerTP *sdktrace.TracerProvider) (*Main, client.Job) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "gobpm.db")
	cfg, err := ParseConfig(append([]string{"--addr", "127.0.0.1:0", "--db", db}, args...), func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.DiscardHandler))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	c, err := client.New("http://" + m.Addr())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Deploy(ctx, client.File{Name: "traced.bpmn", Content: []byte(tracedModel)}); err != nil {
		t.Fatal(err)
	}
	seen := make(chan client.Job, 1)
	w := client.NewWorker(c, "traced-pay", func(ctx context.Context, job client.Job) (map[string]any, error) {
		seen <- job
		return map[string]any{"paid": true}, nil
	}, client.WorkerOptions{Name: "payer", PollTimeout: time.Second, Tracer: workerTP.Tracer("worker")})
	w.Start()
	defer func() { _ = w.Stop(context.Background()) }()

	sctx, span := callerTP.Tracer("caller").Start(ctx, "caller")
	inst, err := c.Start(sctx, "traced", client.StartRequest{})
	span.End()
	if err != nil {
		t.Fatal(err)
	}
	job := <-seen
	deadline := time.Now().Add(15 * time.Second)
	for {
		got, err := c.Instance(ctx, inst.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance %s is %s", inst.ID, got.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return m, job
}

// TestTracingEndToEnd runs start → job → end with --otel-endpoint on an
// OTLP/HTTP receiver in the test and a traced Go worker: the start
// request's span is a child of the caller's traceparent, the first step a
// child of the request, the job span a child of that step and the worker's
// span a child of the job's; the completion request is a child of the
// worker's span, its step a child of it, and the job span links to both.
func TestTracingEndToEnd(t *testing.T) {
	t.Parallel()
	recv := &otlpReceiver{}
	collector := httptest.NewServer(recv)
	defer collector.Close()
	caller, worker := tracetest.NewInMemoryExporter(), tracetest.NewInMemoryExporter()
	callerTP := sdktrace.NewTracerProvider(sdktrace.WithSyncer(caller))
	workerTP := sdktrace.NewTracerProvider(sdktrace.WithSyncer(worker))
	m, job := runTraced(t, []string{"--otel-endpoint", collector.URL}, nil, callerTP, workerTP)
	if m.tracer == nil {
		t.Fatal("--otel-endpoint set, but no tracer")
	}
	if err := m.Close(); err != nil { // flushes the batch
		t.Fatal(err)
	}

	callerSpan := caller.GetSpans()[0]
	start := recv.one(t, "POST /api/v1/processes/{key}/instances")
	if hexID(start.TraceId) != callerSpan.SpanContext.TraceID().String() || hexID(start.ParentSpanId) != callerSpan.SpanContext.SpanID().String() {
		t.Errorf("start request span: trace %x parent %x; want the caller's %s", start.TraceId, start.ParentSpanId, callerSpan.SpanContext.SpanID())
	}
	if start.Kind != tracepb.Span_SPAN_KIND_SERVER || attr(start, "http.route") != "/api/v1/processes/{key}/instances" || attr(start, "http.response.status_code") != "201" {
		t.Errorf("start request span: kind %v, attributes %v", start.Kind, start.Attributes)
	}
	first := recv.one(t, "step start")
	if hexID(first.ParentSpanId) != hexID(start.SpanId) {
		t.Errorf("first step's parent %x, want the start request %x", first.ParentSpanId, start.SpanId)
	}
	if attr(first, "gobpm.process.key") != "traced" || attr(first, "gobpm.process.version") != "1" || attr(first, "gobpm.instance.id") == "" || attr(first, "gobpm.element.id") != "start" {
		t.Errorf("first step's attributes: %v", first.Attributes)
	}
	jobSpan := recv.one(t, "job traced-pay")
	if hexID(jobSpan.ParentSpanId) != hexID(first.SpanId) || hexID(jobSpan.TraceId) != hexID(start.TraceId) {
		t.Errorf("job span: parent %x trace %x; want the first step %x in trace %x", jobSpan.ParentSpanId, jobSpan.TraceId, first.SpanId, start.TraceId)
	}
	if attr(jobSpan, "gobpm.job.type") != "traced-pay" || attr(jobSpan, "gobpm.job.outcome") != "completed" || attr(jobSpan, "gobpm.job.retries") != "3" || attr(jobSpan, "gobpm.job.id") == "" {
		t.Errorf("job span attributes: %v", jobSpan.Attributes)
	}
	if jobSpan.StartTimeUnixNano < first.StartTimeUnixNano || jobSpan.EndTimeUnixNano <= jobSpan.StartTimeUnixNano {
		t.Errorf("job span from %d to %d; the first step started at %d", jobSpan.StartTimeUnixNano, jobSpan.EndTimeUnixNano, first.StartTimeUnixNano)
	}
	tp := job.CustomHeaders["traceparent"]
	if want := "00-" + hexID(jobSpan.TraceId) + "-" + hexID(jobSpan.SpanId) + "-01"; tp != want {
		t.Errorf("activated job's traceparent = %q, want the job span's %q", tp, want)
	}
	ws := worker.GetSpans()
	if len(ws) != 1 || ws[0].Name != "work traced-pay" || ws[0].Parent.SpanID().String() != hexID(jobSpan.SpanId) {
		t.Fatalf("worker spans %+v; want one, a child of the job span %x", ws, jobSpan.SpanId)
	}
	workerSpan := ws[0].SpanContext
	complete := recv.one(t, "POST /api/v1/jobs/{key}/complete")
	if hexID(complete.ParentSpanId) != workerSpan.SpanID().String() || hexID(complete.TraceId) != workerSpan.TraceID().String() {
		t.Errorf("complete request's parent %x, want the worker's span %s", complete.ParentSpanId, workerSpan.SpanID())
	}
	done := recv.one(t, "step job-completed")
	if hexID(done.ParentSpanId) != hexID(complete.SpanId) || attr(done, "gobpm.element.id") != "pay" {
		t.Errorf("completion step: parent %x (want %x), attributes %v", done.ParentSpanId, complete.SpanId, done.Attributes)
	}
	links := map[string]string{}
	for _, l := range jobSpan.Links {
		for _, kv := range l.Attributes {
			if kv.Key == "gobpm.link" {
				links[kv.Value.GetStringValue()] = hexID(l.SpanId)
			}
		}
	}
	if links["step"] != hexID(done.SpanId) || links["worker"] != workerSpan.SpanID().String() {
		t.Errorf("job span links %v; want the completion step %x and the worker %s", links, done.SpanId, workerSpan.SpanID())
	}
}

// TestTracingOff runs the same without --otel-endpoint or an OTEL_
// endpoint: no tracer, no exporter, no traceparent in the job, and the
// worker's handler context carries no span context of the server's.
func TestTracingOff(t *testing.T) {
	t.Parallel()
	recv := &otlpReceiver{}
	collector := httptest.NewServer(recv)
	defer collector.Close()
	noop := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))
	// OTEL_EXPORTER_OTLP_PROTOCOL alone turns nothing on.
	m, job := runTraced(t, nil, map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, noop, noop)
	if m.tracer != nil {
		t.Fatal("tracing off, but a tracer")
	}
	if tp, ok := job.CustomHeaders["traceparent"]; ok {
		t.Errorf("activated job carries traceparent %q with tracing off", tp)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	recv.mu.Lock()
	defer recv.mu.Unlock()
	if recv.requests != 0 {
		t.Errorf("%d exports with tracing off", recv.requests)
	}
}

// TestTelemetryConfig checks the rule that turns tracing on and the
// refusals of a bad endpoint or protocol.
func TestTelemetryConfig(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		on   bool
		bad  string
	}{
		{name: "off by default"},
		{name: "flag", args: []string{"--otel-endpoint", "http://127.0.0.1:4318"}, on: true},
		{name: "endpoint variable", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, on: true},
		{name: "traces endpoint variable", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, on: true},
		{name: "sdk disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"}},
		{name: "protocol alone", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}},
		{name: "grpc", args: []string{"--otel-endpoint", "http://127.0.0.1:4317"}, env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, on: true},
		{name: "no URL", args: []string{"--otel-endpoint", "127.0.0.1:4318"}, bad: "--otel-endpoint"},
		{name: "json", args: []string{"--otel-endpoint", "http://127.0.0.1:4318"}, env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, bad: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := ParseConfig(append([]string{"--addr", "127.0.0.1:0"}, tt.args...), func(k string) string { return tt.env[k] }, io.Discard)
			if tt.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tt.bad) {
					t.Fatalf("ParseConfig = %v, want an error naming %s", err, tt.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Telemetry.Enabled(); got != tt.on {
				t.Errorf("Enabled() = %v, want %v", got, tt.on)
			}
		})
	}
}
