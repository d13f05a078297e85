package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
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
	// ShowVersion prints the version and exits.
	ShowVersion bool
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
	fs.BoolVar(&c.ShowVersion, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if !c.AllowRemote && !c.ShowVersion && !isLoopback(c.Addr) {
		return Config{}, fmt.Errorf("refusing to listen on %s without credentials: use a loopback address such as 127.0.0.1:8080, or --allow-remote behind a trusted proxy", c.Addr)
	}
	if c.ShowVersion {
		fmt.Fprintln(out, "gobpm-web", Version)
	}
	return c, nil
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

// Main owns the server's parts: store, runtime and HTTP server.
type Main struct {
	cfg    Config
	log    *slog.Logger
	store  *store.DB
	rt     *runtime.Runtime
	srv    *http.Server
	ln     net.Listener
	served chan error
}

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
	m.rt = runtime.New(db, runtime.Options{Logger: m.log})
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
	m.srv = &http.Server{
		// The JSON API owns /api/ and /healthz; every other path is the cockpit.
		Handler:           api.New(m.rt, m.log, api.Options{Fallback: cockpit.New(m.rt, m.log, cockpit.Options{})}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	m.srv.RegisterOnShutdown(m.rt.BeginShutdown) // long polls answer instead of holding shutdown
	m.served = make(chan error, 1)
	go func() { m.served <- m.srv.Serve(ln) }()
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
