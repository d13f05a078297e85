// Package telemetry is gobpm's OpenTelemetry tracing: it sets up the
// OTLP exporter (over HTTP or gRPC) from --otel-endpoint and the standard
// OTEL_* environment variables, and offers the few hooks the API, the
// runtime and the Zeebe gateway call: a span per request, per step and per
// job.
//
// # Off costs nothing
//
// A nil *Tracer is tracing switched off: every method of it returns at
// once without allocating, so the hooks stay in the hot paths unguarded.
//
// # Job spans across restarts
//
// A job's span lasts from the job's creation to its completion, failure or
// cancellation, which may be days and several restarts apart. So no live
// span is kept: the step that creates a job mints the job span's context
// (NewJob) and the store keeps it with the job as text; the step that ends
// the job creates the span then (EndJob), with the stored span id, parent
// and start time, and ends it at once.
//
// # Imports
//
// It imports the OpenTelemetry modules and nothing of gobpm; engine, the
// pure core, never imports it.
//
// # Example
//
//	tr, err := telemetry.New(ctx, telemetry.Config{Endpoint: "http://127.0.0.1:4318", Getenv: os.Getenv})
//	if err != nil { … }
//	defer tr.Shutdown(ctx) // nil when tracing is off: Shutdown does nothing
package telemetry
