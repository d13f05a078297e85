// Command gobpm-load drives a real gobpm-web server over its REST API and
// prints what it measured: completed process instances per second,
// start→completion latencies (p50/p95/p99), the cost of one job completion
// in a small and in a huge multi-instance, bytes stored per waiting instance,
// and the latency of the instance list's filtered first pages over many
// stored instances.
//
// It speaks only HTTP and JSON (openapi.yaml), never gobpm's internal
// packages, so one build measures any server version. It deploys its own
// models (embedded, in models/).
//
// # Scenarios
//
//   - straight: start → end, closed loop (as fast as -concurrency clients go),
//     then open loop at half that rate (or at -rate only).
//   - job: start → service task → end; starters POST instances while workers
//     long-poll jobs/activate and complete; an instance counts when its job
//     completion returns. Same two phases.
//   - mi: one job completion in a -mi-small vs a -mi-size parallel
//     multi-instance (median/p99 of -sample completions each, and the ratio);
//     start, GET and cancel of the big one.
//   - bytes: database bytes per waiting start→job instance (needs the DB file:
//     -spawn, or -db with -addr).
//   - list: seeds -stored instances, then times the first page of each
//     filter, a deep offset page and (when offered) a deep cursor page.
//
// # Usage
//
//	gobpm-load -spawn -server bin/gobpm-web -scenario all -duration 20s
//	gobpm-load -addr 127.0.0.1:8080 -scenario job -rate 1000 -duration 30s
//	gobpm-load -spawn -nodes 3 -db postgres://… -scenario job -duration 20s
//	gobpm-load -addr 127.0.0.1:8081,127.0.0.1:8082 -scenario job
//
// # Several nodes
//
// With -nodes N (spawned, on the PostgreSQL database -db names) or a list
// of addresses in -addr, the straight and job scenarios spread the load
// over the nodes: starts go round-robin to them and worker i talks to node
// i mod N. The other scenarios, the counts and the checks use the first
// node; CPU is that of the first node's process.
//
// With -spawn the tool starts the given server binary on a free loopback port
// with a fresh temporary database per scenario (or the one -db names, kept
// and shared), and stops it (SIGTERM to that pid) at the end. Only loopback
// addresses are accepted. The exit status is 1 when a consistency check fails
// or a request failed.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Config is the tool's configuration (its flags).
type Config struct {
	// Scenario is job, straight, mi, bytes, list, all, or a comma-separated list.
	Scenario string
	// Addr is an already running server (host:port on loopback), or a
	// comma-separated list of the nodes of one cluster.
	Addr string
	// Nodes is how many servers -spawn starts on one database (more than
	// one needs a postgres:// -db).
	Nodes int
	// Spawn starts Server for the run instead of using Addr.
	Spawn bool
	// Server is the gobpm-web binary to spawn (and to ask for its version).
	Server string
	// DB is the server's SQLite file: with Spawn, one file kept and shared by
	// every scenario (fresh temporary files otherwise); with Addr, the file
	// the bytes scenario measures.
	DB string
	// Sync is the synchronous mode a spawned server runs with.
	Sync string
	// Duration is each throughput phase's measurement window.
	Duration time.Duration
	// Concurrency is the number of starting clients in closed loops.
	Concurrency int
	// Workers is the number of job workers; Batch the maxJobs of each activation.
	Workers, Batch int
	// Inflight bounds started-but-unfinished instances in the job scenario's
	// closed loop (0: 4 × Concurrency).
	Inflight int
	// Rate is the open-loop rate in PI/s; 0 measures the closed-loop maximum
	// first and then runs the open loop at half of it.
	Rate float64
	// MISize and MISmall are the iterations of the big and the small
	// multi-instance; Sample the job completions timed in each.
	MISize, MISmall, Sample int
	// Waiting is the number of waiting instances the bytes scenario stores.
	Waiting int
	// Stored is the number of instances the list scenario stores (counting
	// what the server already has); Reps the calls per list query.
	Stored, Reps int
	// SeedTimeout bounds the list scenario's seeding.
	SeedTimeout time.Duration
	// JSON prints the report as JSON instead of markdown.
	JSON bool
	// Quiet suppresses progress lines on stderr.
	Quiet bool
}

var allScenarios = []string{"straight", "job", "mi", "bytes", "list"}

// ParseConfig reads the flags.
func ParseConfig(args []string, out io.Writer) (Config, error) {
	fs := flag.NewFlagSet("gobpm-load", flag.ContinueOnError)
	fs.SetOutput(out)
	var c Config
	fs.StringVar(&c.Scenario, "scenario", "all", "job|straight|mi|bytes|list|all, or a comma-separated list")
	fs.StringVar(&c.Addr, "addr", "", "host:port of a running server, or a comma-separated list of nodes of one cluster (loopback only)")
	fs.IntVar(&c.Nodes, "nodes", 1, "with -spawn: servers to start on the one database -db names (more than 1 needs a postgres:// -db)")
	fs.BoolVar(&c.Spawn, "spawn", false, "start -server on a free loopback port with a fresh database, stop it at the end")
	fs.StringVar(&c.Server, "server", "bin/gobpm-web", "the gobpm-web binary for -spawn (also asked for its version)")
	fs.StringVar(&c.DB, "db", "", "with -spawn: one database file for all scenarios, kept; with -addr: the server's file, for the bytes scenario")
	fs.StringVar(&c.Sync, "sync", "FULL", "synchronous mode of a spawned server (FULL for the published figures)")
	fs.DurationVar(&c.Duration, "duration", 10*time.Second, "measurement window of each throughput phase")
	fs.IntVar(&c.Concurrency, "concurrency", 32, "starting clients in closed loops")
	fs.IntVar(&c.Workers, "workers", 8, "job workers (each long-polls jobs/activate and completes its batch concurrently)")
	fs.IntVar(&c.Batch, "batch", 16, "maxJobs per activation")
	fs.IntVar(&c.Inflight, "inflight", 0, "job scenario: bound on started-but-unfinished instances in the closed loop (0: 4 × concurrency)")
	fs.Float64Var(&c.Rate, "rate", 0, "open-loop rate in PI/s; 0 measures the closed-loop maximum and then runs at half of it")
	fs.IntVar(&c.MISize, "mi-size", 10000, "iterations of the big multi-instance")
	fs.IntVar(&c.MISmall, "mi-small", 10, "iterations of the small multi-instance")
	fs.IntVar(&c.Sample, "sample", 200, "job completions timed in each multi-instance")
	fs.IntVar(&c.Waiting, "waiting", 10000, "bytes scenario: waiting instances to store")
	fs.IntVar(&c.Stored, "stored", 100000, "list scenario: instances stored before timing (1000000 for the full run)")
	fs.IntVar(&c.Reps, "reps", 9, "list scenario: calls per query (median and max reported)")
	fs.DurationVar(&c.SeedTimeout, "seed-timeout", 30*time.Minute, "list scenario: bound on seeding")
	fs.BoolVar(&c.JSON, "json", false, "print the report as JSON")
	fs.BoolVar(&c.Quiet, "quiet", false, "no progress lines on stderr")
	fs.Usage = func() {
		fmt.Fprint(out, `gobpm-load drives a gobpm-web server over its REST API and prints PI/s, latencies,
bytes per instance and list latencies (markdown, or -json).

  gobpm-load -spawn -server bin/gobpm-web [-scenario all] [-duration 20s] [-stored 1000000]
  gobpm-load -addr 127.0.0.1:8080 -scenario job -rate 1000

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if c.Spawn == (c.Addr != "") {
		return Config{}, errors.New("give exactly one of -spawn or -addr")
	}
	for _, a := range c.addrs() {
		if !isLoopback(a) {
			return Config{}, fmt.Errorf("-addr %s: only loopback addresses (127.0.0.1, ::1, localhost)", a)
		}
	}
	switch {
	case c.Nodes < 1:
		return Config{}, errors.New("-nodes must be at least 1")
	case c.Nodes > 1 && !c.Spawn:
		return Config{}, errors.New("-nodes starts servers: use it with -spawn (or list the running nodes in -addr)")
	case c.Nodes > 1 && !isPostgres(c.DB):
		return Config{}, errors.New("-nodes > 1 needs a postgres:// -db: several servers share one PostgreSQL database, never a SQLite file")
	}
	if _, err := c.scenarios(); err != nil {
		return Config{}, err
	}
	for name, v := range map[string]int{"-concurrency": c.Concurrency, "-workers": c.Workers, "-batch": c.Batch, "-mi-size": c.MISize,
		"-mi-small": c.MISmall, "-sample": c.Sample, "-waiting": c.Waiting, "-stored": c.Stored, "-reps": c.Reps} {
		if v < 1 {
			return Config{}, fmt.Errorf("%s must be at least 1", name)
		}
	}
	if c.Batch > 1000 {
		return Config{}, errors.New("-batch must be at most 1000 (the API's maxJobs)")
	}
	if c.Duration < 500*time.Millisecond || c.Rate < 0 {
		return Config{}, errors.New("-duration must be at least 500ms and -rate not negative")
	}
	if c.Inflight == 0 {
		c.Inflight = 4 * c.Concurrency
	}
	return c, nil
}

// addrs returns the addresses of -addr.
func (c Config) addrs() []string {
	var out []string
	for _, a := range strings.Split(c.Addr, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// isPostgres reports whether db is a PostgreSQL URL rather than a file.
func isPostgres(db string) bool {
	lower := strings.ToLower(db)
	return strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://")
}

// scenarios returns the scenarios to run, in the order of allScenarios.
func (c Config) scenarios() ([]string, error) {
	want := map[string]bool{}
	for _, s := range strings.Split(c.Scenario, ",") {
		s = strings.TrimSpace(s)
		switch {
		case s == "all":
			for _, a := range allScenarios {
				want[a] = true
			}
		case slices.Contains(allScenarios, s):
			want[s] = true
		default:
			return nil, fmt.Errorf("unknown scenario %q (want %s or all)", s, strings.Join(allScenarios, ", "))
		}
	}
	var out []string
	for _, a := range allScenarios {
		if want[a] {
			out = append(out, a)
		}
	}
	return out, nil
}

// isLoopback reports whether host:port names the loopback interface.
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := ParseConfig(os.Args[1:], os.Stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "gobpm-load:", err)
		}
		os.Exit(2)
	}
	rep, err := Run(ctx, cfg, os.Stderr)
	if rep != nil {
		rep.Command = "gobpm-load " + strings.Join(os.Args[1:], " ")
		if cfg.JSON {
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(rep)
		} else {
			rep.Markdown(os.Stdout)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gobpm-load:", err)
		os.Exit(1)
	}
	for _, r := range rep.Scenarios {
		if !r.OK() {
			fmt.Fprintf(os.Stderr, "gobpm-load: scenario %s: a check failed or requests failed\n", r.Scenario)
			os.Exit(1)
		}
	}
}

// env is what a scenario runs against.
type env struct {
	cfg Config
	// c is the first node's client; cs has one client per node (c first).
	c  *Client
	cs []*Client
	// srv is the first spawned server (nil for external ones), srvs all.
	srv  *Server
	srvs []*Server
	db   string // the database file or URL, "" when unknown
	// next picks the node of the next start (round-robin).
	next atomic.Uint64
	logw io.Writer
	errs *errorLog
}

// logf prints a progress line to stderr.
func (e *env) logf(format string, args ...any) {
	if !e.cfg.Quiet {
		fmt.Fprintf(e.logw, "gobpm-load: "+format+"\n", args...)
	}
}

// connect (re)creates the client for the current server address.
func (e *env) connect() {
	for _, c := range e.cs {
		c.Close()
	}
	addrs := e.cfg.addrs()
	if e.srvs != nil {
		addrs = addrs[:0]
		for _, s := range e.srvs {
			addrs = append(addrs, s.Addr)
		}
	}
	e.cs = e.cs[:0]
	for _, a := range addrs {
		e.cs = append(e.cs, NewClient("http://"+a, 4*(e.cfg.Concurrency+e.cfg.Workers*e.cfg.Batch)+64))
	}
	e.c = e.cs[0]
}

// starter returns the client of the node the next start goes to.
func (e *env) starter() *Client { return e.cs[(e.next.Add(1)-1)%uint64(len(e.cs))] }

// closeClients drops the idle connections of every node's client.
func (e *env) closeClients() {
	for _, c := range e.cs {
		c.Close()
	}
}

// Run runs the configured scenarios and returns the report; progress goes to
// logw.
func Run(ctx context.Context, cfg Config, logw io.Writer) (*Report, error) {
	names, err := cfg.scenarios()
	if err != nil {
		return nil, err
	}
	rep := &Report{Time: time.Now().UTC().Format(time.RFC3339), Machine: machine()}
	rep.ServerRef = ServerRef{Version: "unknown (not exposed over REST; give -server)", Mode: "external", Addr: cfg.Addr, Sync: "server default (FULL unless started with --sync)",
		Nodes: len(cfg.addrs())}
	if cfg.Spawn {
		rep.ServerRef = ServerRef{Version: Version(cfg.Server), Mode: "spawned", Sync: cfg.Sync, Nodes: cfg.Nodes}
		if isPostgres(cfg.DB) {
			rep.ServerRef.Sync = "PostgreSQL: the server's synchronous_commit"
		}
	} else if _, err := os.Stat(cfg.Server); err == nil {
		rep.ServerRef.Version = Version(cfg.Server) + " (of -server; the running one is not asked)"
	}

	var shared []*Server
	if cfg.Spawn && cfg.DB != "" {
		logs := cfg.DB
		if isPostgres(cfg.DB) {
			dir, err := os.MkdirTemp("", "gobpm-load-")
			if err != nil {
				return rep, err
			}
			defer os.RemoveAll(dir)
			logs = filepath.Join(dir, "node")
		} else if err := os.MkdirAll(filepath.Dir(cfg.DB), 0o755); err != nil {
			return rep, err
		}
		for i := range cfg.Nodes {
			s := &Server{Bin: cfg.Server, DB: cfg.DB, Sync: cfg.Sync, Log: fmt.Sprintf("%s.server%d.log", logs, i+1)}
			if err := s.Start(ctx); err != nil {
				return rep, err
			}
			defer s.Stop()
			shared = append(shared, s)
		}
	}
	for _, name := range names {
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		e := &env{cfg: cfg, logw: logw, errs: &errorLog{}}
		var cleanup func()
		switch {
		case shared != nil:
			e.srv, e.srvs, e.db = shared[0], shared, cfg.DB
		case cfg.Spawn:
			dir, err := os.MkdirTemp("", "gobpm-load-")
			if err != nil {
				return rep, err
			}
			e.srv = &Server{Bin: cfg.Server, DB: filepath.Join(dir, "gobpm.db"), Sync: cfg.Sync, Log: filepath.Join(dir, "server.log")}
			e.db, e.srvs = e.srv.DB, []*Server{e.srv}
			if err := e.srv.Start(ctx); err != nil {
				os.RemoveAll(dir)
				return rep, err
			}
			srv := e.srv
			cleanup = func() {
				if err := srv.Stop(); err != nil {
					fmt.Fprintln(logw, "gobpm-load: stop server:", err)
				}
				os.RemoveAll(dir)
			}
		default:
			e.db = cfg.DB
		}
		e.connect()
		e.logf("scenario %s on %s", name, e.c.base)
		t0 := time.Now()
		cpu0 := readCPU(e.srv)
		commits0, commitsOK := e.c.readCommits(ctx)
		r, err := runScenario(ctx, e, name)
		if r != nil {
			r.Seconds = time.Since(t0).Seconds()
			r.CPU = cpu0.since(e.srv)
			if commits1, ok := e.c.readCommits(ctx); ok && commitsOK {
				r.Commits = commits0.since(commits1)
			}
			r.Errors = e.errs.n.Load()
			r.ErrorSamples = e.errs.Samples()
			rep.Scenarios = append(rep.Scenarios, r)
		}
		e.closeClients()
		if cleanup != nil {
			cleanup()
		}
		if err != nil {
			return rep, fmt.Errorf("scenario %s: %w", name, err)
		}
	}
	return rep, nil
}

func runScenario(ctx context.Context, e *env, name string) (*Result, error) {
	if err := deployModels(ctx, e.c); err != nil {
		return nil, err
	}
	switch name {
	case "straight":
		return runStraight(ctx, e)
	case "job":
		return runJob(ctx, e)
	case "mi":
		return runMI(ctx, e)
	case "bytes":
		return runBytes(ctx, e)
	case "list":
		return runList(ctx, e)
	}
	return nil, fmt.Errorf("unknown scenario %q", name)
}
