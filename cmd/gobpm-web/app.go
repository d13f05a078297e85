package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/cockpit"
	"github.com/gobpm/gobpm/internal/connector/httpjson"
	"github.com/gobpm/gobpm/internal/deploydir"
	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/httpsec"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/telemetry"
	"github.com/gobpm/gobpm/internal/zeebe"
)

// Version is set at build time with -ldflags "-X main.Version=…".
var Version = "dev"

// Config is the server configuration.
type Config struct {
	// Addr is the listen address, e.g. 127.0.0.1:8080 (":0" picks a free port).
	Addr string
	// DBConfig names the database (a SQLite file or a PostgreSQL URL)
	// and its settings.
	DBConfig
	// AllowRemote is the old switch for a non-loopback address without
	// credentials. It is refused now: a server reachable from a network
	// authenticates (Auth builtin or oidc).
	AllowRemote bool
	// Auth is how callers are authenticated: none (loopback only),
	// builtin or oidc.
	Auth access.Mode
	// TLSCert and TLSKey, both set, serve HTTPS directly.
	TLSCert, TLSKey string
	// PublicURL is the server's external address (https://bpm.example.com):
	// the OIDC redirect is built from it, cookies are Secure when it is
	// https, and requests must name its host (Host check).
	PublicURL string
	// OIDC configures --auth oidc.
	OIDC OIDCConfig
	// BodyTimeout bounds how long one request body may take to arrive.
	BodyTimeout time.Duration
	// SecureCookies marks the cockpit's cookies Secure, for serving behind
	// a TLS-terminating proxy.
	SecureCookies bool
	// ShowVersion prints the version and exits.
	ShowVersion bool
	// GRPCAddr, when set, serves Zeebe's gateway protocol (gRPC) on this
	// address, over TLS with TLSCert and TLSKey when they are set.
	GRPCAddr string
	// PprofAddr, when set, serves Go's profiler (net/http/pprof) on this
	// loopback address, apart from the API: for profiling under load.
	PprofAddr string
	// StateCache bounds the decoded instance states kept in memory between
	// steps, in scopes + tracks + waits (runtime.Options.StateCacheWeight):
	// 0 means runtime.DefaultStateCacheWeight, a negative value keeps none.
	StateCache int
	// Limits are the engine's limits (runtime.Options.Engine): the step
	// budget, the iterations per body and the timer floor. Zero fields
	// are the defaults; a deployment refuses a model that cannot run
	// within them.
	Limits engine.Options
	// TimerStartsPerSecond caps the instances one process's timer start
	// events start per second (runtime.Options.MaxTimerStartsPerSecond).
	TimerStartsPerSecond int
	// BatchRate caps how many instances the batch operations act on per
	// second, all batches together (runtime.Options.BatchRate).
	BatchRate int
	// MetricsLabelLimit bounds the process keys, and the job types, that
	// get series of their own on /metrics (runtime.Options.MetricsLabelLimit);
	// the others are counted under "other".
	MetricsLabelLimit int
	// Dev marks a server for development, tests and demos: it allows
	// settings that break what production relies on (ManualClock) and says
	// so in its log at start. It changes nothing by itself.
	Dev bool
	// ManualClock runs the engine on a clock that only POST /api/v1/clock
	// moves (--clock=manual); refused without Dev.
	ManualClock bool
	// HistoryTTL is how long ended instances are kept when their model
	// sets no time to live (--history-ttl; 0: for ever).
	HistoryTTL time.Duration
	// BackupDir is where POST /api/v1/admin/backup writes ("" refuses it).
	BackupDir string
	// MaxLongPolls and MaxEventStreams cap the job long polls and the
	// cockpit's live-update streams one caller may hold open at once
	// (api.Options.MaxLongPolls, cockpit.Options.MaxEventStreams).
	MaxLongPolls, MaxEventStreams int
	// Connector configures the built-in REST connector worker.
	Connector ConnectorConfig
	// Webhook configures the inbound webhooks.
	Webhook WebhookConfig
	// DeployDir configures deploying from a folder.
	DeployDir DeployDirConfig
	// Telemetry configures OpenTelemetry tracing (--otel-endpoint and the
	// OTEL_* environment; telemetry.go).
	Telemetry telemetry.Config
}

// ParseConfig reads flags, falling back to GOBPM_* environment variables.
func ParseConfig(args []string, getenv func(string) string, out io.Writer) (Config, error) {
	def := func(key, fallback string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return fallback
	}
	fs := flag.NewFlagSet("gobpm-web", flag.ContinueOnError)
	fs.SetOutput(out)
	var c Config
	fs.StringVar(&c.Addr, "addr", def("GOBPM_ADDR", "127.0.0.1:8080"), "listen address (GOBPM_ADDR)")
	if err := c.Connector.register(fs, getenv); err != nil {
		return Config{}, err
	}
	if err := c.Webhook.register(fs, getenv); err != nil {
		return Config{}, err
	}
	if err := c.DeployDir.register(fs, getenv); err != nil {
		return Config{}, err
	}
	if err := c.DBConfig.register(fs, getenv); err != nil {
		return Config{}, err
	}
	registerTelemetry(fs, &c.Telemetry, getenv)
	fs.StringVar(&c.Synchronous, "sync", def("GOBPM_SYNC", "FULL"), "SQLite synchronous mode: FULL or NORMAL (GOBPM_SYNC)")
	fs.BoolVar(&c.AllowRemote, "allow-remote", getenv("GOBPM_ALLOW_REMOTE") == "true", "no longer supported: a server on a non-loopback address needs --auth builtin or oidc (GOBPM_ALLOW_REMOTE)")
	authMode := fs.String("auth", def("GOBPM_AUTH", "none"), "authentication: none (loopback only), builtin (users, groups and tokens in the store) or oidc (GOBPM_AUTH)")
	fs.StringVar(&c.TLSCert, "tls-cert", getenv("GOBPM_TLS_CERT"), "serve HTTPS with this PEM certificate (chain) file (GOBPM_TLS_CERT)")
	fs.StringVar(&c.TLSKey, "tls-key", getenv("GOBPM_TLS_KEY"), "the PEM private key of --tls-cert (GOBPM_TLS_KEY)")
	fs.StringVar(&c.PublicURL, "public-url", getenv("GOBPM_PUBLIC_URL"), "the server's external URL, e.g. https://bpm.example.com: OIDC redirects, Secure cookies and the Host check (GOBPM_PUBLIC_URL)")
	c.OIDC.register(fs, getenv)
	fs.DurationVar(&c.BodyTimeout, "body-timeout", 2*time.Minute, "how long one request body may take to arrive (a slower client gets 408)")
	fs.BoolVar(&c.SecureCookies, "secure-cookies", getenv("GOBPM_SECURE_COOKIES") == "true", "mark the cockpit's cookies Secure, behind a TLS proxy (GOBPM_SECURE_COOKIES=true)")
	fs.BoolVar(&c.ShowVersion, "version", false, "print the version and exit")
	fs.StringVar(&c.GRPCAddr, "grpc-addr", getenv("GOBPM_GRPC_ADDR"), "serve Zeebe's gateway protocol (gRPC, for Camunda 8 clients) on this address, e.g. 127.0.0.1:26500; off by default; TLS with --tls-cert (GOBPM_GRPC_ADDR)")
	fs.StringVar(&c.PprofAddr, "pprof", getenv("GOBPM_PPROF"), "serve Go's profiler (/debug/pprof/) on this loopback address, e.g. 127.0.0.1:6060 (GOBPM_PPROF)")
	stateCache, err := intEnv(getenv, "GOBPM_STATE_CACHE", runtime.DefaultStateCacheWeight)
	if err != nil {
		return Config{}, err
	}
	fs.IntVar(&c.StateCache, "state-cache", stateCache, "decoded instance states kept in memory, in scopes + tracks + waits (roughly 0.5 KB each); negative keeps none (GOBPM_STATE_CACHE)")
	fs.IntVar(&c.Limits.MaxActivations, "max-activations", 0, "element activations one step may make before it stops in an incident (0: 5 × --max-iterations + 1000)")
	fs.IntVar(&c.Limits.MaxIterations, "max-iterations", engine.DefaultMaxIterations, "iterations one multi-instance or loop body may run")
	minTimer := fs.Duration("min-timer-period", engine.DefaultMinTimerPeriod, "the shortest period a timer cycle may have; shorter ones are refused at deployment (0: no floor)")
	fs.IntVar(&c.BatchRate, "batch-rate", runtime.DefaultBatchRate, "instances the batch operations (POST /api/v1/batches) act on per second, all batches together (less than 1 counts as 1)")
	fs.IntVar(&c.TimerStartsPerSecond, "timer-starts-per-second", runtime.DefaultMaxTimerStartsPerSecond, "instances the timer start events of one process may start per second; more wait for the next seconds (negative: no cap)")
	labelLimit, err := intEnv(getenv, "GOBPM_METRICS_LABEL_LIMIT", runtime.DefaultMetricsLabelLimit)
	if err != nil {
		return Config{}, err
	}
	fs.IntVar(&c.MetricsLabelLimit, "metrics-label-limit", labelLimit, "process keys, and job types, with series of their own on /metrics; the others are counted under \"other\" (GOBPM_METRICS_LABEL_LIMIT)")
	fs.BoolVar(&c.Dev, "dev", getenv("GOBPM_DEV") == "true", "development mode, for tests and demos: allows --clock=manual; never use it in production (GOBPM_DEV=true)")
	clock := fs.String("clock", def("GOBPM_CLOCK", "real"), "the engine's clock: real, or manual (needs --dev; only POST /api/v1/clock moves it) (GOBPM_CLOCK)")
	historyTTL := fs.String("history-ttl", getenv("GOBPM_HISTORY_TTL"), "delete ended instances this long after their end unless their model sets gobpm:historyTimeToLive, e.g. 30d, 12h, P30D (empty: keep for ever) (GOBPM_HISTORY_TTL)")
	fs.StringVar(&c.BackupDir, "backup-dir", getenv("GOBPM_BACKUP_DIR"), "directory POST /api/v1/admin/backup writes into (empty: backups only with 'gobpm-web backup') (GOBPM_BACKUP_DIR)")
	fs.IntVar(&c.MaxLongPolls, "max-long-polls", httpsec.DefaultMaxHolds, "job activations with requestTimeoutMs one caller (user, or address when anonymous) may hold open at once; more get 429 (negative: no cap); the Zeebe gateway's long polls and job streams are capped apart, likewise (RESOURCE_EXHAUSTED)")
	fs.IntVar(&c.MaxEventStreams, "max-event-streams", httpsec.DefaultMaxHolds, "cockpit live-update streams one person (user, or address when anonymous) may hold open at once; more get 429 (negative: no cap)")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	switch *clock {
	case "real":
	case "manual":
		c.ManualClock = true
	default:
		return Config{}, fmt.Errorf("--clock %q: want real or manual", *clock)
	}
	if c.MetricsLabelLimit < 1 {
		return Config{}, fmt.Errorf("--metrics-label-limit %d: want at least 1", c.MetricsLabelLimit)
	}
	if *historyTTL != "" {
		if c.HistoryTTL, err = bpmn.ParseTimeToLive(*historyTTL); err != nil {
			return Config{}, fmt.Errorf("--history-ttl %q: %w", *historyTTL, err)
		}
		if c.HistoryTTL == 0 {
			return Config{}, errors.New("--history-ttl 0 would delete every ended instance as soon as it ends: give a duration such as 30d, or leave it unset to keep history")
		}
	}
	if c.Limits.MinTimerPeriod = *minTimer; c.Limits.MinTimerPeriod == 0 {
		c.Limits.MinTimerPeriod = -1 // engine.Options: negative is no floor, zero the default
	}
	if c.ShowVersion {
		fmt.Fprintln(out, "gobpm-web", Version)
		return c, nil
	}
	if c.Auth, err = access.ParseMode(*authMode); err != nil {
		return Config{}, err
	}
	if err := errors.Join(c.check(), c.DBConfig.check(), c.Connector.check(), c.Webhook.check(), c.DeployDir.check(), c.Telemetry.Check()); err != nil {
		return Config{}, err
	}
	if c.PprofAddr != "" && !isLoopback(c.PprofAddr) {
		return Config{}, fmt.Errorf("refusing to serve the profiler on %s: use a loopback address such as 127.0.0.1:6060", c.PprofAddr)
	}
	return c, nil
}

// check refuses configurations that cannot work or would be unsafe.
func (c Config) check() error {
	if c.Auth == access.ModeNone && !isLoopback(c.Addr) {
		hint := "use a loopback address such as 127.0.0.1:8080, or --auth builtin (or oidc) to serve a network"
		if c.AllowRemote {
			hint = "--allow-remote no longer serves a network without authentication: use --auth builtin (or oidc)"
		}
		return fmt.Errorf("refusing to listen on %s with --auth none: %s", c.Addr, hint)
	}
	if c.Auth == access.ModeNone && c.GRPCAddr != "" && !isLoopback(c.GRPCAddr) {
		return fmt.Errorf("refusing to serve gRPC on %s with --auth none: use a loopback address such as 127.0.0.1:26500, or --auth builtin (or oidc) to serve a network", c.GRPCAddr)
	}
	if c.ManualClock && !c.Dev {
		return errors.New("--clock=manual needs --dev: a manual clock stops timers, lock expiry and backoffs until POST /api/v1/clock moves it, which only tests and demos want")
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("--public-url %q must be an absolute http(s) URL without a path, e.g. https://bpm.example.com", c.PublicURL)
		}
	}
	if c.Auth == access.ModeOIDC {
		if c.PublicURL == "" {
			return errors.New("--auth oidc needs --public-url: the provider redirects the browser back to it")
		}
		if c.OIDC.Issuer == "" || c.OIDC.ClientID == "" {
			return errors.New("--auth oidc needs --oidc-issuer and --oidc-client-id")
		}
	}
	return nil
}

// overTLS reports whether users reach the server over TLS: it serves TLS
// itself (--tls-cert), or its public URL is https (a TLS proxy in front).
// Its answers then carry HSTS.
func (c Config) overTLS() bool {
	return c.TLSCert != "" || strings.HasPrefix(strings.ToLower(c.PublicURL), "https://")
}

// intEnv reads an integer environment variable, fallback when unset.
func intEnv(getenv func(string) string, key string, fallback int) (int, error) {
	v := getenv(key)
	if v == "" {
		return fallback, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not a whole number", key, v)
	}
	return n, nil
}

// isLoopback reports whether a listen address binds only loopback interfaces.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackHostOnly answers only requests whose Host names the loopback
// interface (localhost and *.localhost, which browsers never resolve
// through DNS, 127.0.0.0/8, ::1; a request without Host passes).
// Without credentials the server trusts whoever reaches it on loopback, and
// a web page whose DNS name is rebound to 127.0.0.1 reaches it as its own
// origin: past the cross-origin checks, and able to read the cockpit's CSRF
// token. Its requests still name the page's host, and are refused with a
// 403 problem.
func loopbackHostOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		ip := net.ParseIP(host)
		name := strings.ToLower(host)
		if name == "" || name == "localhost" || strings.HasSuffix(name, ".localhost") || (ip != nil && ip.IsLoopback()) {
			next.ServeHTTP(w, r)
			return
		}
		writeHostProblem(w, r, "this server listens on loopback without credentials and answers only requests for a loopback host (localhost, 127.0.0.1, [::1]), not "+strconv.Quote(r.Host))
	})
}

// writeHostProblem refuses a request for a host the server does not serve
// with a 403 problem.
func writeHostProblem(w http.ResponseWriter, r *http.Request, detail string) {
	body, _ := json.Marshal(map[string]any{
		"type": "https://gobpm.dev/problems/forbidden", "title": "Forbidden", "status": http.StatusForbidden,
		"detail": detail, "instance": r.URL.Path,
	})
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(body)
}

// Main owns the server's parts: store, runtime and HTTP server.
type Main struct {
	cfg    Config
	log    *slog.Logger
	store  database
	rt     *runtime.Runtime
	access *access.Service
	oidc   *auth.OIDC // the provider with --auth oidc
	// ready is set once the running instances are resumed (GET /readyz).
	ready        atomic.Bool
	resumeDone   chan struct{}
	cancelResume context.CancelFunc
	srv          *http.Server
	ln           net.Listener
	served       chan error
	// prof serves the profiler when Config.PprofAddr is set, on profAddr.
	prof     *http.Server
	profAddr string
	// grpc serves Zeebe's gateway when Config.GRPCAddr is set, on grpcLn.
	grpc       *grpc.Server
	grpcLn     net.Listener
	grpcServed chan error
	// connector is the REST connector worker (nil when off).
	connector *httpjson.Worker
	// deployDir watches --deploy-dir (nil when off).
	deployDir *deploydir.Watcher
	// tracer exports traces (nil when tracing is off).
	tracer *telemetry.Tracer
}

// GRPCAddr returns the address the Zeebe gateway listens on ("" when off).
func (m *Main) GRPCAddr() string {
	if m.grpcLn == nil {
		return ""
	}
	return m.grpcLn.Addr().String()
}

// ProfilerAddr returns the address the profiler listens on ("" when off).
func (m *Main) ProfilerAddr() string { return m.profAddr }

// NewMain returns an unstarted server.
func NewMain(cfg Config, logger *slog.Logger) *Main {
	return &Main{cfg: cfg, log: logger}
}

// Run opens and migrates the store, resumes running instances, and starts
// serving HTTP. It returns once the listener is open.
func (m *Main) Run(ctx context.Context) error {
	db, err := m.cfg.DBConfig.open(ctx)
	if err != nil {
		return err
	}
	m.store = db
	// Listen first: the node registers (PostgreSQL) with the address it
	// answers on. Nothing is served before the runtime is prepared.
	ln, err := net.Listen("tcp", m.cfg.Addr)
	if err != nil {
		m.Close()
		return fmt.Errorf("listen on %s: %w", m.cfg.Addr, err)
	}
	m.ln = ln
	address := m.cfg.PublicURL
	if address == "" {
		address = ln.Addr().String()
	}
	// Access first: the runtime checks the dynamic references of running
	// models against their deployers' rights through it.
	if err := m.openAccess(ctx); err != nil {
		m.Close()
		return err
	}
	if err := m.openTracer(ctx); err != nil {
		m.Close()
		return err
	}
	opts := m.runtimeOptions()
	opts.Tracer = m.tracer
	opts.Node = runtime.NodeInfo{Address: address, Version: Version}
	opts.NodeTimeout, opts.Heartbeat = m.cfg.NodeTimeout, m.cfg.NodeTimeout/5
	if m.cfg.Auth != access.ModeNone {
		opts.Reach = m.access
	}
	m.rt = runtime.New(db, opts)
	if err := m.rt.Prepare(ctx); err != nil {
		m.Close()
		return err
	}
	// The folder's models are deployed before anything is served.
	if err := m.startDeployDir(ctx); err != nil {
		m.Close()
		return err
	}
	secure := m.cfg.SecureCookies || strings.HasPrefix(m.cfg.PublicURL, "https://")
	hooks, err := m.webhooks()
	if err != nil {
		m.Close()
		return err
	}
	// The JSON API owns /api/ and /healthz; every other path is the cockpit.
	var handler http.Handler = api.New(m.rt, m.log, api.Options{Access: m.access, Ready: m.ready.Load, SecureCookies: secure, MaxLongPolls: m.cfg.MaxLongPolls, Webhooks: hooks, Tracer: m.tracer,
		Fallback: cockpit.New(m.rt, m.log, cockpit.Options{SecureCookies: secure, Access: m.access, OIDC: m.oidc, OIDCName: m.cfg.OIDC.Name,
			MaxEventStreams: m.cfg.MaxEventStreams})})
	handler = bodyDeadline(handler, m.cfg.BodyTimeout)
	switch {
	case m.cfg.Auth == access.ModeNone:
		handler = loopbackHostOnly(handler)
	case m.cfg.PublicURL != "":
		handler = publicHostOnly(handler, m.cfg.PublicURL)
	default:
		m.log.Warn("no --public-url: requests for any Host name are answered; set it to the server's external URL")
	}
	if m.cfg.overTLS() {
		handler = httpsec.StrictTransport(handler) // outermost: refusals carry it too
	}
	m.srv = &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// No WriteTimeout, deliberately: a job activation long-polls for up
		// to five minutes (requestTimeoutMs) and a write deadline would cut
		// its answer off; the request context ends the wait when the client
		// goes. No ReadTimeout either: request bodies are size-capped
		// instead, and a large upload on a slow link must not fail.
	}
	m.srv.RegisterOnShutdown(m.rt.BeginShutdown) // long polls answer instead of holding shutdown
	if err := m.startConnector(ctx); err != nil {
		m.Close()
		return err
	}
	m.resumeDone = make(chan struct{})
	resumeCtx, cancelResume := context.WithCancel(context.WithoutCancel(ctx))
	m.cancelResume = cancelResume
	go func() {
		// Instances a previous run left running are resumed while the
		// server already answers; /readyz says when it is done.
		defer close(m.resumeDone)
		if _, err := m.rt.ResumeInstances(resumeCtx); err != nil && resumeCtx.Err() == nil {
			m.log.Error("resume failed", "error", err)
			return
		}
		m.ready.Store(resumeCtx.Err() == nil)
	}()
	m.served = make(chan error, 1)
	if m.cfg.TLSCert != "" {
		go func() { m.served <- m.srv.ServeTLS(ln, m.cfg.TLSCert, m.cfg.TLSKey) }()
	} else {
		go func() { m.served <- m.srv.Serve(ln) }()
	}
	if m.cfg.GRPCAddr != "" {
		if err := m.serveGRPC(); err != nil {
			m.Close()
			return err
		}
	}
	if m.cfg.PprofAddr != "" {
		if err := m.serveProfiler(); err != nil {
			m.Close()
			return err
		}
	}
	return nil
}

// serveGRPC serves Zeebe's gateway protocol on Config.GRPCAddr, over TLS
// with the HTTP server's certificate when it has one.
func (m *Main) serveGRPC() error {
	opts := zeebe.Options{Service: m.rt, Logger: m.log, MaxLongPolls: m.cfg.MaxLongPolls, Tracer: m.tracer}
	if m.cfg.Auth != access.ModeNone {
		opts.Credentials = m.access
	}
	if m.cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(m.cfg.TLSCert, m.cfg.TLSKey)
		if err != nil {
			return fmt.Errorf("gRPC: loading --tls-cert and --tls-key: %w", err)
		}
		opts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", m.cfg.GRPCAddr)
	if err != nil {
		return fmt.Errorf("listen on %s for gRPC: %w", m.cfg.GRPCAddr, err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	p, _ := strconv.Atoi(port)
	opts.Node = zeebe.Node{Host: host, Port: int32(p)}
	m.grpcLn = ln
	m.grpc = zeebe.NewServer(opts)
	m.grpcServed = make(chan error, 1)
	go func() { m.grpcServed <- m.grpc.Serve(ln) }()
	m.log.Info("Zeebe gateway (gRPC) listening", "addr", ln.Addr().String(), "tls", opts.TLS != nil)
	return nil
}

// stopGRPC stops the gateway: calls in flight get until timeout to end
// (long polls answer at once, as the runtime is shutting down), then the
// rest are cut off.
func (m *Main) stopGRPC(timeout time.Duration) error {
	if m.grpc == nil {
		return nil
	}
	done := make(chan struct{})
	go func() { m.grpc.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		m.grpc.Stop()
		<-done
	}
	err := <-m.grpcServed
	m.grpc, m.grpcLn = nil, nil
	if err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return fmt.Errorf("gRPC serve: %w", err)
	}
	return nil
}

// runtimeOptions are the runtime's options of the configuration.
func (m *Main) runtimeOptions() runtime.Options {
	opts := runtime.Options{Logger: m.log, StateCacheWeight: m.cfg.StateCache, Engine: m.cfg.Limits,
		MaxTimerStartsPerSecond: m.cfg.TimerStartsPerSecond,
		BatchRate:               m.cfg.BatchRate,
		MetricsLabelLimit:       m.cfg.MetricsLabelLimit,
		Retention:               runtime.RetentionOptions{HistoryTTL: m.cfg.HistoryTTL},
		BackupDir:               m.cfg.BackupDir}
	if m.cfg.Dev {
		m.log.Warn("development mode (--dev): not for production")
	}
	if m.cfg.ManualClock {
		opts.ManualClock = clock.NewManual(time.Now())
		m.log.Warn("manual clock (--clock=manual): timers, job locks and backoffs wait for POST /api/v1/clock", "time", opts.ManualClock.Now())
	}
	return opts
}

// openAccess starts the access service of Config.Auth. On a builtin
// server without users it logs the one-time set-up token.
func (m *Main) openAccess(ctx context.Context) error {
	cfg := access.Config{Mode: m.cfg.Auth, Store: m.store, Logger: m.log}
	if m.cfg.Auth == access.ModeOIDC {
		oc, err := m.cfg.OIDC.config(m.cfg.PublicURL)
		if err != nil {
			return err
		}
		provider, err := auth.NewOIDC(ctx, oc)
		if err != nil {
			return fmt.Errorf("oidc provider %s: %w", m.cfg.OIDC.Issuer, err)
		}
		cfg.OIDC, cfg.AdminGroups = provider, m.cfg.OIDC.adminGroups()
		m.oidc = provider
	}
	acc, err := access.New(ctx, cfg)
	if err != nil {
		return err
	}
	m.access = acc
	if tok := acc.SetupToken(); tok != "" {
		m.log.Warn("no user exists yet: open /setup in the cockpit with this one-time set-up token to create the first admin, or run 'gobpm-web admin create --user NAME --role admin' (password on standard input)",
			"setupToken", tok)
	}
	return nil
}

// bodyDeadline bounds the time a request's body may take to arrive: a
// client sending it a byte a second cannot hold a connection for ever. The
// deadline is lifted once the body is read, so a long poll (whose handler
// waits after reading its small body) is never cut off. (http.Server's
// ReadTimeout would also end long polls, which wait up to five minutes.)
func bodyDeadline(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d <= 0 || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(d)); err != nil {
			next.ServeHTTP(w, r) // a writer without deadlines (tests): nothing to bound
			return
		}
		r.Body = &deadlineBody{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the read deadline when the body has been read to its
// end.
type deadlineBody struct {
	io.ReadCloser
	lift func()
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.lift()
	}
	return n, err
}

// publicHostOnly answers only requests for the host of the public URL (or
// a loopback host, for probes on the machine itself): a server behind a
// name does not answer for names it was not given.
func publicHostOnly(next http.Handler, publicURL string) http.Handler {
	u, _ := url.Parse(publicURL)
	want := strings.ToLower(u.Hostname())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.ToLower(strings.Trim(host, "[]"))
		if ip := net.ParseIP(host); host == want || host == "localhost" || (ip != nil && ip.IsLoopback()) {
			next.ServeHTTP(w, r)
			return
		}
		writeHostProblem(w, r, "this server answers requests for "+strconv.Quote(want)+" (--public-url), not "+strconv.Quote(r.Host))
	})
}

// serveProfiler serves net/http/pprof on Config.PprofAddr (loopback only).
func (m *Main) serveProfiler() error {
	ln, err := net.Listen("tcp", m.cfg.PprofAddr)
	if err != nil {
		return fmt.Errorf("listen on %s for the profiler: %w", m.cfg.PprofAddr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	m.prof = &http.Server{Handler: loopbackHostOnly(mux), ReadHeaderTimeout: 10 * time.Second}
	m.profAddr = ln.Addr().String()
	go func() { _ = m.prof.Serve(ln) }()
	m.log.Info("profiler listening", "addr", ln.Addr().String())
	return nil
}

// Addr returns the address the server listens on.
func (m *Main) Addr() string {
	if m.ln == nil {
		return ""
	}
	return m.ln.Addr().String()
}

// Close stops HTTP (letting requests in flight finish), drains the runtime
// and closes the store, in that order.
func (m *Main) Close() error {
	var errs []error
	if m.deployDir != nil {
		m.deployDir.Stop() // a deployment in flight ends first
		m.deployDir = nil
	}
	if m.connector != nil {
		m.connector.Stop() // calls in flight end; their jobs are retried when their locks run out
		m.connector = nil
	}
	if m.prof != nil {
		errs = append(errs, m.prof.Close())
		m.prof = nil
	}
	if m.rt != nil && m.grpc != nil {
		m.rt.BeginShutdown() // long polls answer instead of holding the stop
	}
	errs = append(errs, m.stopGRPC(15*time.Second))
	if m.grpcLn != nil {
		errs = append(errs, m.grpcLn.Close())
		m.grpcLn = nil
	}
	if m.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := m.srv.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("http shutdown: %w", err))
		}
		if m.served != nil { // nil when Run failed before serving
			if err := <-m.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
				errs = append(errs, fmt.Errorf("http serve: %w", err))
			}
		} else if m.ln != nil {
			errs = append(errs, m.ln.Close())
		}
		m.srv = nil
	} else if m.ln != nil {
		errs = append(errs, m.ln.Close()) // Run failed before serving
	}
	m.ln = nil
	if m.cancelResume != nil {
		m.cancelResume()
		<-m.resumeDone
		m.cancelResume = nil
	}
	if m.access != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		errs = append(errs, m.access.Close(ctx))
		m.access = nil
	}
	if m.rt != nil {
		errs = append(errs, m.rt.Close())
		m.rt = nil
	}
	if m.store != nil {
		errs = append(errs, m.store.Close())
		m.store = nil
	}
	errs = append(errs, m.closeTracer()) // last: the spans of the drain go out too
	return errors.Join(errs...)
}
