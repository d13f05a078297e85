package zeebe_test

import (
	"context"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc/metadata"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/telemetry"
	"github.com/gobpm/gobpm/internal/testdb"
	"github.com/gobpm/gobpm/internal/zeebe"
)

// TestTracing: with a tracer, each RPC has a server span, the activated
// job carries its span's traceparent in customHeaders, and the worker's
// traceparent in CompleteJob's metadata parents the RPC's span and so the
// completion step.
func TestTracing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	exp := tracetest.NewInMemoryExporter()
	tr := telemetry.NewWithProcessor(sdktrace.NewSimpleSpanProcessor(exp))
	rt := runtime.New(db, runtime.Options{Tracer: tr})
	t.Cleanup(func() {
		_ = rt.Close()
		_ = db.Close()
	})
	zc := client(t, serve(t, zeebe.Options{Service: rt, Tracer: tr}), "")
	deploy(t, zc, "c8-pay.bpmn")
	start(t, zc, "c8-pay", nil)
	jobs := activate(t, zc, "c8-charge")
	if len(jobs) != 1 {
		t.Fatalf("jobs = %v", jobs)
	}
	headers, err := jobs[0].GetCustomHeadersAsMap()
	if err != nil {
		t.Fatal(err)
	}
	tp := headers[telemetry.HeaderTraceparent]
	if !strings.HasPrefix(tp, "00-") {
		t.Fatalf("custom headers %v: no traceparent", headers)
	}
	const worker = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	wctx := metadata.AppendToOutgoingContext(ctx, telemetry.HeaderTraceparent, worker)
	if _, err := zc.NewCompleteJobCommand().JobKey(jobs[0].Key).Send(wctx); err != nil {
		t.Fatal(err)
	}
	var rpc, step, job *tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		switch s.Name {
		case "gateway_protocol.Gateway/CompleteJob":
			rpc = &s
		case "step job-completed":
			step = &s
		case "job c8-charge":
			job = &s
		}
	}
	if rpc == nil || step == nil || job == nil {
		t.Fatalf("spans: %v", exp.GetSpans())
	}
	if rpc.Parent.SpanID().String() != "00f067aa0ba902b7" || rpc.Parent.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("CompleteJob's span parent %s, want the worker's", rpc.Parent.SpanID())
	}
	if step.Parent.SpanID() != rpc.SpanContext.SpanID() {
		t.Errorf("completion step's parent %s, want the RPC %s", step.Parent.SpanID(), rpc.SpanContext.SpanID())
	}
	if "00-"+job.SpanContext.TraceID().String()+"-"+job.SpanContext.SpanID().String()+"-01" != tp {
		t.Errorf("job span %s, want the activated job's %s", job.SpanContext.SpanID(), tp)
	}
	linked := false
	for _, l := range job.Links {
		linked = linked || l.SpanContext.SpanID().String() == "00f067aa0ba902b7"
	}
	if !linked {
		t.Errorf("job span links %v: not to the worker's span", job.Links)
	}
}
