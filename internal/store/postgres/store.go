package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/postgres/migrations"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// Defaults of Options.
const (
	// DefaultMaxConns is the pool size when neither Options.MaxConns nor
	// the URL's pool_max_conns sets one.
	DefaultMaxConns = 16
	// DefaultStatementTimeout bounds one statement when neither
	// Options.StatementTimeout nor the URL's statement_timeout sets a bound.
	DefaultStatementTimeout = 30 * time.Second
	// DefaultHomeGrace is how long a job or due timer of an instance homed
	// on another live node is left to that node when Options.HomeGrace is
	// 0.
	DefaultHomeGrace = time.Second
)

// Options tune Open. The zero value takes the URL's settings, else the
// defaults.
type Options struct {
	// MaxConns is the size of the connection pool (0: the URL's
	// pool_max_conns, else DefaultMaxConns).
	MaxConns int
	// StatementTimeout bounds every statement on the server (0: the URL's
	// statement_timeout, else DefaultStatementTimeout; negative: none).
	StatementTimeout time.Duration
	// NodeID names this process among the nodes sharing the database
	// ("": a fresh id per Open). Its claims hold while it is registered
	// (store.ClusterStore); two live processes must not share an id.
	NodeID string
	// HomeGrace is how long after a job became activatable, or a timer
	// fell due, this node leaves it to the instance's home node, the live
	// node whose step of the instance committed last and whose cache holds
	// it (0: DefaultHomeGrace; negative: no wait, any node takes any row
	// at once). Past the grace, or once the home node is gone, any node
	// takes it.
	HomeGrace time.Duration
}

// DB is a PostgreSQL database that implements store.Store and
// access.Store. It is safe for concurrent use.
type DB struct {
	// pool is every connection of the store.
	pool *pgxpool.Pool
	// name is the database as errors show it (no password).
	name string
	// node is this process's id in the cluster (Options.NodeID).
	node string
	// wake publishes the wake-ups of committed steps (wake.go).
	wake *waker
	// homeGrace is Options.HomeGrace resolved (never negative).
	homeGrace time.Duration
}

var (
	_ store.Store  = (*DB)(nil)
	_ access.Store = (*DB)(nil)
)

// IsURL reports whether dsn names a PostgreSQL database (a postgres:// or
// postgresql:// URL) rather than a SQLite file.
func IsURL(dsn string) bool {
	lower := strings.ToLower(dsn)
	return strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://")
}

// Open connects to the PostgreSQL database at dsn (a postgres:// URL),
// applies pending migrations and returns the store.
func Open(ctx context.Context, dsn string, opts Options) (*DB, error) {
	name := Redact(dsn)
	cfg, err := config(dsn, opts)
	if err != nil {
		return nil, fmt.Errorf("postgres store: open %s: %w", name, err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres store: open %s: %w", name, err)
	}
	node := opts.NodeID
	if node == "" {
		node = uuid.Must(uuid.NewV7()).String()
	}
	grace := opts.HomeGrace
	switch {
	case grace == 0:
		grace = DefaultHomeGrace
	case grace < 0:
		grace = 0
	}
	db := &DB{pool: pool, name: name, node: node, homeGrace: grace}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres store: open %s: %w", name, err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres store: open %s: %w", name, err)
	}
	if err := db.indexPendingVariables(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres store: open %s: %w", name, err)
	}
	db.wake = newWaker(pool, node)
	return db, nil
}

// config is the one home of the connection settings: the URL's, then
// opts, then the defaults.
func config(dsn string, opts Options) (*pgxpool.Config, error) {
	if !IsURL(dsn) {
		return nil, errors.New("not a postgres:// or postgresql:// URL")
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	hasParam := func(name string) bool {
		u, err := url.Parse(dsn)
		return err == nil && u.Query().Has(name)
	}
	switch {
	case opts.MaxConns < 0:
		return nil, fmt.Errorf("negative pool size %d", opts.MaxConns)
	case opts.MaxConns > 0:
		cfg.MaxConns = int32(opts.MaxConns)
	case !hasParam("pool_max_conns"):
		cfg.MaxConns = DefaultMaxConns
	}
	switch {
	case opts.StatementTimeout < 0:
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = "0"
	case opts.StatementTimeout > 0:
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(opts.StatementTimeout.Milliseconds(), 10)
	case cfg.ConnConfig.RuntimeParams["statement_timeout"] == "":
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(DefaultStatementTimeout.Milliseconds(), 10)
	}
	return cfg, nil
}

// Redact returns dsn without its password, for errors and logs.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres database"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// Close stops publishing wake-ups and closes the pool. It is
// idempotent.
func (db *DB) Close() error {
	db.wake.close()
	db.pool.Close()
	return nil
}

// Pool returns the connection pool, for tools and tests that read the
// database directly.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// querier is what both a pool and a transaction run.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// readTx runs fn in a read-only REPEATABLE READ transaction, so the
// queries of fn see one snapshot.
func (db *DB) readTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// writeTx runs fn in a READ COMMITTED transaction and commits it if fn
// succeeds. Steps guard against concurrent writers with row conditions
// (revisions, lock tokens) and row locks, not with the isolation level.
func (db *DB) writeTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{}, fn)
}

// notFound maps pgx.ErrNoRows to store.ErrNotFound and leaves other errors alone.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrNotFound
	}
	return err
}

// isContention reports whether err is PostgreSQL giving up a transaction
// because a concurrent one holds what it needs: a deadlock or a
// serialization failure. Retrying the transaction is the remedy.
func isContention(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// limitArg is a LIMIT argument: NULL (no limit) for limit <= 0.
func limitArg(limit int) any {
	if limit <= 0 {
		return nil
	}
	return limit
}

// whereClause joins conditions with AND ("" for none).
func whereClause(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// args numbers the parameters of a query built at run time: add appends
// an argument and returns its placeholder.
type args []any

// add appends v and returns "$n" for it.
func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// queryRows runs query and scans every row with scan.
func queryRows[T any](ctx context.Context, q querier, scan func(pgx.Row) (T, error), query string, args ...any) ([]T, error) {
	rs, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []T
	for rs.Next() {
		v, err := scan(rs)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rs.Err()
}

// encodeTime and the other time helpers are the shared encoding (sqlcodec).
func encodeTime(t time.Time) int64 { return sqlcodec.EncodeTime(t) }

// decodeTime decodes unix nanoseconds (sqlcodec.DecodeTime).
func decodeTime(n int64) time.Time { return sqlcodec.DecodeTime(n) }

// migrationsLock is the advisory lock key that serializes migrations of
// nodes starting at once ("gobpm" in ASCII).
const migrationsLock = 0x676f62706d

// migrate applies every pending migration in version order, each in its
// own transaction, holding an advisory lock so that nodes starting
// together migrate once. A database that records a version this binary
// does not know is refused: it was migrated by a newer gobpm.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := sqlquery.LoadMigrations(migrations.FS)
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationsLock); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationsLock)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER NOT NULL PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at BIGINT  NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	var newest *int64
	if err := conn.QueryRow(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&newest); err != nil {
		return fmt.Errorf("migrate: read schema_migrations: %w", err)
	}
	if len(ms) > 0 && newest != nil && *newest > int64(ms[len(ms)-1].Version) {
		return fmt.Errorf("migrate: database is at version %d, newer than this binary's %d", *newest, ms[len(ms)-1].Version)
	}
	for _, m := range ms {
		if newest != nil && int64(m.Version) <= *newest {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			// A migration may take longer than a statement may.
			if _, err := tx.Exec(ctx, `SET LOCAL statement_timeout = 0`); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
				m.Version, m.Name, encodeTime(time.Now()))
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate: %s: %w", m.Name, err)
		}
	}
	return nil
}
