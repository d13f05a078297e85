package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/postgres"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// database is what the server and the admin commands need of a store:
// the runtime's and the access service's. Both stores implement it.
type database interface {
	runtime.Store
	access.Store
}

// DBConfig says which database to open and how.
type DBConfig struct {
	// DB is a SQLite file path (its directory is created if missing) or a
	// postgres:// or postgresql:// URL.
	DB string
	// Synchronous is the SQLite durability mode: FULL (default) or NORMAL.
	// PostgreSQL's durability is the server's (synchronous_commit).
	Synchronous string
	// Pool is the PostgreSQL connection pool size (0: the URL's
	// pool_max_conns, else postgres.DefaultMaxConns).
	Pool int
	// StatementTimeout bounds each PostgreSQL statement (0: the URL's
	// statement_timeout, else postgres.DefaultStatementTimeout; negative: none).
	StatementTimeout time.Duration
	// NodeID names this process among the nodes sharing a PostgreSQL
	// database ("": a fresh id per start).
	NodeID string
	// NodeTimeout is how long a node of a PostgreSQL cluster may be silent
	// before the others take over its timers and outbox rows (0:
	// runtime.DefaultNodeTimeout); it heart-beats five times as often.
	NodeTimeout time.Duration
}

// register adds the database flags to fs, with GOBPM_* fallbacks.
func (c *DBConfig) register(fs *flag.FlagSet, getenv func(string) string) error {
	pool, err := intEnv(getenv, "GOBPM_DB_POOL", 0)
	if err != nil {
		return err
	}
	timeout := time.Duration(0)
	if v := getenv("GOBPM_DB_STATEMENT_TIMEOUT"); v != "" {
		if timeout, err = time.ParseDuration(v); err != nil {
			return fmt.Errorf("GOBPM_DB_STATEMENT_TIMEOUT=%q is not a duration (e.g. 30s)", v)
		}
	}
	nodeTimeout := time.Duration(0)
	if v := getenv("GOBPM_NODE_TIMEOUT"); v != "" {
		if nodeTimeout, err = time.ParseDuration(v); err != nil {
			return fmt.Errorf("GOBPM_NODE_TIMEOUT=%q is not a duration (e.g. 10s)", v)
		}
	}
	fs.StringVar(&c.NodeID, "node-id", getenv("GOBPM_NODE_ID"), "PostgreSQL: this node's id among the nodes sharing the database (default: a fresh id per start) (GOBPM_NODE_ID)")
	fs.DurationVar(&c.NodeTimeout, "node-timeout", nodeTimeout,
		"PostgreSQL: how long a node may be silent before the others take over its timers and after-commit work (0: 10s) (GOBPM_NODE_TIMEOUT)")
	fs.StringVar(&c.DB, "db", def0(getenv("GOBPM_DB"), "./data/gobpm.db"),
		"SQLite database file, or a postgres:// URL (GOBPM_DB)")
	fs.IntVar(&c.Pool, "db-pool", pool, "PostgreSQL: connections in the pool (0: the URL's pool_max_conns, else 16) (GOBPM_DB_POOL)")
	fs.DurationVar(&c.StatementTimeout, "db-statement-timeout", timeout,
		"PostgreSQL: the longest one statement may run (0: the URL's statement_timeout, else 30s; negative: none) (GOBPM_DB_STATEMENT_TIMEOUT)")
	return nil
}

// check refuses settings that do not apply to the chosen database.
func (c DBConfig) check() error {
	if postgres.IsURL(c.DB) {
		if s := strings.ToUpper(c.Synchronous); s != "" && s != "FULL" {
			return errors.New("--sync applies to SQLite; PostgreSQL's durability is the server's synchronous_commit")
		}
		if c.Pool < 0 {
			return fmt.Errorf("--db-pool %d: want 0 or more connections", c.Pool)
		}
		if c.NodeTimeout < 0 || (c.NodeTimeout > 0 && c.NodeTimeout < time.Second) {
			return fmt.Errorf("--node-timeout %s: want 0 (the default) or at least 1s", c.NodeTimeout)
		}
		return nil
	}
	if c.Pool != 0 || c.StatementTimeout != 0 || c.NodeID != "" || c.NodeTimeout != 0 {
		return errors.New("--db-pool, --db-statement-timeout, --node-id and --node-timeout apply to PostgreSQL (a postgres:// --db)")
	}
	return nil
}

// name is the database as messages show it: a URL without its password.
func (c DBConfig) name() string {
	if postgres.IsURL(c.DB) {
		return postgres.Redact(c.DB)
	}
	return c.DB
}

// open opens and migrates the database c names.
func (c DBConfig) open(ctx context.Context) (database, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	var (
		db  database
		err error
	)
	if postgres.IsURL(c.DB) {
		db, err = postgres.Open(ctx, c.DB, postgres.Options{MaxConns: c.Pool, StatementTimeout: c.StatementTimeout, NodeID: c.NodeID})
	} else {
		db, err = sqlite.Open(ctx, c.DB, sqlite.Options{Synchronous: c.Synchronous})
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", c.name(), err)
	}
	return db, nil
}
