package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/telemetry"
)

// registerTelemetry adds --otel-endpoint to fs. The OTEL_* environment
// variables are read as OpenTelemetry defines them (docs/telemetry.md):
// the flag, or else OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
// OTEL_EXPORTER_OTLP_ENDPOINT, turns tracing on.
func registerTelemetry(fs *flag.FlagSet, c *telemetry.Config, getenv func(string) string) {
	c.Getenv, c.Version = getenv, Version
	fs.StringVar(&c.Endpoint, "otel-endpoint", "", "export OpenTelemetry traces over OTLP to this URL, e.g. http://127.0.0.1:4318 (http/protobuf, the default) or http://127.0.0.1:4317 with OTEL_EXPORTER_OTLP_PROTOCOL=grpc; off by default, and on too when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set")
}

// openTracer sets up tracing as configured (nil when off) and says so in
// the log.
func (m *Main) openTracer(ctx context.Context) error {
	t, err := telemetry.New(ctx, m.cfg.Telemetry)
	if err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	if t != nil {
		proto, _ := m.cfg.Telemetry.Protocol()
		m.log.Info("tracing on", "endpoint", m.cfg.Telemetry.Endpoint, "protocol", proto)
	}
	m.tracer = t
	return nil
}

// closeTracer exports the spans still buffered and stops the exporter.
func (m *Main) closeTracer() error {
	if m.tracer == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := m.tracer.Shutdown(ctx)
	m.tracer = nil
	return err
}
