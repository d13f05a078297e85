package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/cockpit"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store"
)

// Version is set at build time with -ldflags "-X main.Version=…".
var Version = "dev"

// Config is the server configuration.
type Config struct {
	// Addr is the listen address, e.g. 127.0.0.1:8080 (":0" picks a free port).
	Addr string
	// DB is the SQLite file; its directory is created if missing.
	DB string
	// Synchronous is the SQLite durability mode: FULL (default) or NORMAL.
	Synchronous string
	// AllowRemote permits a non-loopback listen address. gobpm has no
	// credentials yet, so anyone who reaches the port may act as any user
	// (DESIGN §9: without credentials the server listens on loopback only).
	AllowRemote bool
	// SecureCookies marks the cockpit's cookies Secure, for serving behind
	// a TLS-terminating proxy.
	SecureCookies bool
	// ShowVersion prints the version and exits.
	ShowVersion bool
	// PprofAddr, when set, serves Go's profiler (net/http/pprof) on this
	// loopback address, apart from the API: for profiling under load.
	PprofAddr string
	// StateCache bounds the decoded instance states kept in memory between
	// steps, in scopes + tracks + waits (runtime.Options.StateCacheWeight):
	// 0 means runtime.DefaultStateCacheWeight, a negative value keeps none.
	StateCache int
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
	fs.StringVar(&c.DB, "db", def("GOBPM_DB", "./data/gobpm.db"), "SQLite database file (GOBPM_DB)")
	fs.StringVar(&c.Synchronous, "sync", def("GOBPM_SYNC", "FULL"), "SQLite synchronous mode: FULL or NORMAL (GOBPM_SYNC)")
	fs.BoolVar(&c.AllowRemote, "allow-remote", getenv("GOBPM_ALLOW_REMOTE") == "true", "listen on a non-loopback address without credentials (GOBPM_ALLOW_REMOTE=true); only behind a trusted proxy")
	fs.BoolVar(&c.SecureCookies, "secure-cookies", getenv("GOBPM_SECURE_COOKIES") == "true", "mark the cockpit's cookies Secure, behind a TLS proxy (GOBPM_SECURE_COOKIES=true)")
	fs.BoolVar(&c.ShowVersion, "version", false, "print the version and exit")
	fs.StringVar(&c.PprofAddr, "pprof", getenv("GOBPM_PPROF"), "serve Go's profiler (/debug/pprof/) on this loopback address, e.g. 127.0.0.1:6060 (GOBPM_PPROF)")
	stateCache, err := intEnv(getenv, "GOBPM_STATE_CACHE", runtime.DefaultStateCacheWeight)
	if err != nil {
		return Config{}, err
	}
	fs.IntVar(&c.StateCache, "state-cache", stateCache, "decoded instance states kept in memory, in scopes + tracks + waits (roughly 0.5 KB each); negative keeps none (GOBPM_STATE_CACHE)")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if !c.AllowRemote && !c.ShowVersion && !isLoopback(c.Addr) {
		return Config{}, fmt.Errorf("refusing to listen on %s without credentials: use a loopback address such as 127.0.0.1:8080, or --allow-remote behind a trusted proxy", c.Addr)
	}
	if c.PprofAddr != "" && !isLoopback(c.PprofAddr) {
		return Config{}, fmt.Errorf("refusing to serve the profiler on %s: use a loopback address such as 127.0.0.1:6060", c.PprofAddr)
	}
	if c.ShowVersion {
		fmt.Fprintln(out, "gobpm-web", Version)
	}
	return c, nil
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
		body, _ := json.Marshal(map[string]any{
			"type": "https://gobpm.dev/problems/forbidden", "title": "Forbidden", "status": http.StatusForbidden,
			"detail":   "this server listens on loopback without credentials and answers only requests for a loopback host (localhost, 127.0.0.1, [::1]), not " + strconv.Quote(r.Host),
			"instance": r.URL.Path,
		})
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write(body)
	})
}

// Main owns the server's parts: store, runtime and HTTP server.
type Main struct {
	cfg    Config
	log    *slog.Logger
	store  *store.DB
	rt     *runtime.Runtime
	srv    *http.Server
	ln     net.Listener
	served chan error
	// prof serves the profiler when Config.PprofAddr is set, on profAddr.
	prof     *http.Server
	profAddr string
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
	db, err := store.Open(ctx, m.cfg.DB, store.Options{Synchronous: m.cfg.Synchronous})
	if err != nil {
		return fmt.Errorf("open store %s: %w", m.cfg.DB, err)
	}
	m.store = db
	m.rt = runtime.New(db, runtime.Options{Logger: m.log, StateCacheWeight: m.cfg.StateCache})
	if _, err := m.rt.Resume(ctx); err != nil {
		m.Close()
		return err
	}
	ln, err := net.Listen("tcp", m.cfg.Addr)
	if err != nil {
		m.Close()
		return fmt.Errorf("listen on %s: %w", m.cfg.Addr, err)
	}
	m.ln = ln
	// The JSON API owns /api/ and /healthz; every other path is the cockpit.
	var handler http.Handler = api.New(m.rt, m.log, api.Options{Fallback: cockpit.New(m.rt, m.log, cockpit.Options{SecureCookies: m.cfg.SecureCookies})})
	if !m.cfg.AllowRemote {
		handler = loopbackHostOnly(handler)
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
	m.served = make(chan error, 1)
	go func() { m.served <- m.srv.Serve(ln) }()
	if m.cfg.PprofAddr != "" {
		if err := m.serveProfiler(); err != nil {
			m.Close()
			return err
		}
	}
	return nil
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
	if m.prof != nil {
		errs = append(errs, m.prof.Close())
		m.prof = nil
	}
	if m.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := m.srv.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("http shutdown: %w", err))
		}
		if err := <-m.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, fmt.Errorf("http serve: %w", err))
		}
		m.srv = nil
	}
	if m.rt != nil {
		errs = append(errs, m.rt.Close())
		m.rt = nil
	}
	if m.store != nil {
		errs = append(errs, m.store.Close())
		m.store = nil
	}
	return errors.Join(errs...)
}
