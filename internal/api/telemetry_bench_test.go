package api_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
	"github.com/gobpm/gobpm/internal/telemetry"
)

// benchTracedAPI is benchAPI with tr as both the API's and the runtime's
// tracer (nil: tracing off, as without --otel-endpoint).
func benchTracedAPI(b *testing.B, tr *telemetry.Tracer) http.Handler {
	b.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{Tracer: tr})
	b.Cleanup(func() { rt.Close(); db.Close() })
	h := api.New(rt, nil, api.Options{Tracer: tr})
	if rec := serve(h, http.MethodPost, "/api/v1/deployments", "application/xml", benchJobModel); rec.Code != http.StatusCreated {
		b.Fatalf("deploy: %d %s", rec.Code, rec.Body)
	}
	return h
}

// benchStarts starts instances of the job model one after another (the
// step, its job and its commit) after a few to warm up, reporting
// allocations per start.
func benchStarts(b *testing.B, h http.Handler) {
	for range 3 { // warm: the model's cache, the statements, the job key secret
		if rec := serve(h, http.MethodPost, "/api/v1/processes/job/instances", "application/json", `{"variables":{"n":1}}`); rec.Code != http.StatusCreated {
			b.Fatalf("start: %d %s", rec.Code, rec.Body)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if rec := serve(h, http.MethodPost, "/api/v1/processes/job/instances", "application/json", `{"variables":{"n":1}}`); rec.Code != http.StatusCreated {
			b.Fatalf("start: %d %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkStartTelemetryOff is the REST start path (start → job) with
// tracing off: compare its allocations with BenchmarkREST's straight
// path before tracing existed, and with BenchmarkStartTelemetryOn. The
// hooks of a nil tracer allocate nothing (telemetry's
// TestOffAllocatesNothing).
func BenchmarkStartTelemetryOff(b *testing.B) {
	benchStarts(b, benchTracedAPI(b, nil))
}

// BenchmarkStartTelemetryOn is the same with every span sampled into a
// discarding exporter: the cost tracing adds.
func BenchmarkStartTelemetryOn(b *testing.B) {
	tr := telemetry.NewWithProcessor(sdktrace.NewSimpleSpanProcessor(tracetest.NewNoopExporter()))
	b.Cleanup(func() { _ = tr.Shutdown(context.Background()) })
	benchStarts(b, benchTracedAPI(b, tr))
}
