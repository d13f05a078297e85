package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The environment variables Config reads itself. The exporters and the
// SDK read the rest (headers, timeouts, TLS, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and its argument).
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"
)

// The OTLP protocols the server exports with.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// ServiceName is the resource's service.name unless OTEL_SERVICE_NAME or
// OTEL_RESOURCE_ATTRIBUTES name another.
const ServiceName = "gobpm"

// instrumentation names the tracer, as OpenTelemetry asks of a library.
const instrumentation = "github.com/gobpm/gobpm"

// Config says whether and where the server exports its traces.
type Config struct {
	// Endpoint is --otel-endpoint: the OTLP receiver's base URL, e.g.
	// http://127.0.0.1:4318 (HTTP: /v1/traces is added to a URL without a
	// path) or http://127.0.0.1:4317 (gRPC). It turns tracing on and
	// overrides the OTEL_ endpoint variables; "" leaves both to them.
	Endpoint string
	// Getenv reads the environment for the rule that turns tracing on and
	// for the protocol; nil reads nothing.
	Getenv func(string) string
	// Version is the server's version, the resource's service.version.
	Version string
}

func (c Config) env(key string) string {
	if c.Getenv == nil {
		return ""
	}
	return strings.TrimSpace(c.Getenv(key))
}

// Enabled reports whether c turns tracing on: --otel-endpoint, or else
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT set,
// unless OTEL_SDK_DISABLED=true.
func (c Config) Enabled() bool {
	if strings.EqualFold(c.env(EnvSDKDisabled), "true") {
		return false
	}
	return c.Endpoint != "" || c.env(EnvTracesEndpoint) != "" || c.env(EnvEndpoint) != ""
}

// Protocol is the OTLP protocol: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else
// OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf. Any other than
// http/protobuf and grpc is refused.
func (c Config) Protocol() (string, error) {
	key, p := EnvTracesProtocol, c.env(EnvTracesProtocol)
	if p == "" {
		key, p = EnvProtocol, c.env(EnvProtocol)
	}
	switch p {
	case "", ProtocolHTTP:
		return ProtocolHTTP, nil
	case ProtocolGRPC:
		return ProtocolGRPC, nil
	}
	return "", fmt.Errorf("%s=%q: want %s or %s", key, p, ProtocolHTTP, ProtocolGRPC)
}

// Check refuses an endpoint that is no http or https URL with a host and
// an unknown protocol.
func (c Config) Check() error {
	if c.Endpoint != "" {
		u, err := url.Parse(c.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--otel-endpoint %q: want an http or https URL, e.g. http://127.0.0.1:4318", c.Endpoint)
		}
	}
	if !c.Enabled() {
		return nil
	}
	_, err := c.Protocol()
	return err
}

// Tracer is the server's tracing. A nil *Tracer traces nothing, at no cost.
type Tracer struct {
	tp *sdktrace.TracerProvider
	tr trace.Tracer
}

// New sets up the OTLP exporter and the tracer provider c asks for, or
// returns nil (tracing off) when c does not turn tracing on. The exporter
// connects lazily: an unreachable receiver fails no start, only exports.
func New(ctx context.Context, c Config) (*Tracer, error) {
	if !c.Enabled() {
		return nil, nil
	}
	if err := c.Check(); err != nil {
		return nil, err
	}
	proto, _ := c.Protocol()
	var (
		exp sdktrace.SpanExporter
		err error
	)
	switch proto {
	case ProtocolGRPC:
		var opts []otlptracegrpc.Option
		if c.Endpoint != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(c.Endpoint))
		}
		exp, err = otlptracegrpc.New(ctx, opts...)
	default:
		var opts []otlptracehttp.Option
		if c.Endpoint != "" {
			opts = append(opts, otlptracehttp.WithEndpointURL(httpTracesURL(c.Endpoint)))
		}
		exp, err = otlptracehttp.New(ctx, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP %s exporter: %w", proto, err)
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", ServiceName)}
	if c.Version != "" {
		attrs = append(attrs, attribute.String("service.version", c.Version))
	}
	// Detectors apply in order, later ones winning: OTEL_SERVICE_NAME and
	// OTEL_RESOURCE_ATTRIBUTES override the defaults above.
	res, err := resource.New(ctx, resource.WithAttributes(attrs...), resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, errors.Join(fmt.Errorf("telemetry: resource: %w", err), exp.Shutdown(ctx))
	}
	return newTracer(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}

// NewWithProcessor returns a tracer whose spans go to p, e.g. a
// sdktrace.NewSimpleSpanProcessor over tracetest's in-memory exporter in
// a test, with every span sampled.
func NewWithProcessor(p sdktrace.SpanProcessor) *Tracer {
	return newTracer(sdktrace.WithSpanProcessor(p), sdktrace.WithSampler(sdktrace.AlwaysSample()))
}

func newTracer(opts ...sdktrace.TracerProviderOption) *Tracer {
	tp := sdktrace.NewTracerProvider(append(opts, sdktrace.WithIDGenerator(idGenerator{}))...)
	return &Tracer{tp: tp, tr: tp.Tracer(instrumentation)}
}

// Shutdown exports what is buffered and stops the exporter; a nil Tracer
// has nothing to stop.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	if err := t.tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("telemetry: shutdown: %w", err)
	}
	return nil
}

// httpTracesURL adds OTLP/HTTP's traces path to a base URL without a path,
// as for OTEL_EXPORTER_OTLP_ENDPOINT.
func httpTracesURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Path != "" && u.Path != "/") {
		return endpoint
	}
	u.Path = "/v1/traces"
	return u.String()
}
