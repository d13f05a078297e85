package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
)

// stmtCache holds the statements of one pool, each prepared once for the
// life of the store. database/sql keeps a prepared statement per
// connection of the pool and reuses it, so SQLite parses and plans each
// query once per connection instead of on every call (a profile of the
// REST path showed ~19 % of its CPU in preparing the same SQL again).
//
// Preparing on a pool needs a free connection, and the writer pool has
// exactly one: preparing while its transaction is open would wait forever.
// So the cache never prepares from inside a transaction: Open prepares the
// known statements up front (prepare), and a query built at run time is
// prepared by its caller before the transaction begins (warm). Inside a
// transaction, txStmts binds the cached statement to it with
// Tx.StmtContext, which reuses the connection's prepared statement.
type stmtCache struct {
	pool *sql.DB
	mu   sync.RWMutex
	m    map[string]*sql.Stmt
}

// writeQueries are the statements of the writer, prepared by Open.
var writeQueries = []string{
	insertInstanceSQL, bumpNumberSQL, updateInstanceSQL, instanceStateSQL, replaceStateSQL,
	upsertPartSQL, updatePartDataSQL, deletePartSQL, deletePartsSQL, insertFactsSQL, upsertIncidentSQL,
	insertKindSQL, selectKindSQL, selectKindNameSQL,
	insertWaitSQL, upsertWaitSQL, deleteWaitSQL, deleteInstanceWaitsSQL, waitExistsSQL,
	activateJobsSQL, extendLockSQL, lockGuardSQL, jobExistsSQL, startTimerExistsSQL,
	insertOutboxSQL, updateOutboxSQL,
	upsertStatCountsSQL, selectStatHistSQL, upsertStatHistSQL, upsertStatOpenSQL, closeStatOpenSQL, deleteInstanceStatsSQL, closeInstanceStatsSQL,
}

// readQueries are the statements of the read pool, prepared by Open.
var readQueries = append([]string{
	selectInstanceSQL, selectInstanceRowSQL, selectSeqSQL, instanceExistsSQL, cursorSQL,
	selectPartsSQL, partCountsSQL, legacySQL, runningSQL, historySQL, selectKindSQL, selectKindNameSQL,
	incidentsQuery(true, false), incidentsQuery(true, true), incidentsQuery(false, true),
	waitSQL, instanceWaitsSQL, instanceWaitsPageSQL, activatableJobSQL, nextJobSQL, dueTimersSQL, nextTimerSQL,
	messageSubscriptionsSQL, signalSubscriptionsSQL, startTimersSQL,
	selectOutboxSQL,
	statCountsSQL, statDurationsSQL, statTimelineCountsSQL, statTimelineDurationsSQL,
}, waitsPageShapes()...)

// maxDynamicStmts bounds the statements warm adds beyond the known ones
// (list queries vary by filter; their shapes are few, but not fixed).
const maxDynamicStmts = 256

// newStmtCache returns an empty cache for pool.
func newStmtCache(pool *sql.DB) *stmtCache {
	return &stmtCache{pool: pool, m: map[string]*sql.Stmt{}}
}

// prepare prepares every query not cached yet. It must not run while the
// caller holds a transaction of the pool.
func (c *stmtCache) prepare(ctx context.Context, queries ...string) error {
	for _, q := range queries {
		if _, ok := c.lookup(q); ok {
			continue
		}
		s, err := c.pool.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare %.60q: %w", q, err)
		}
		c.mu.Lock()
		if _, dup := c.m[q]; dup {
			s.Close()
		} else {
			c.m[q] = s
		}
		c.mu.Unlock()
	}
	return nil
}

// warm prepares query unless it is cached or the cache is full; a query
// left out is prepared per transaction instead (txStmts). Like prepare,
// it must not run inside a transaction of the pool.
func (c *stmtCache) warm(ctx context.Context, query string) error {
	c.mu.RLock()
	_, ok := c.m[query]
	full := len(c.m) >= maxDynamicStmts
	c.mu.RUnlock()
	if ok || full {
		return nil
	}
	return c.prepare(ctx, query)
}

// lookup returns the cached statement of query, if any.
func (c *stmtCache) lookup(query string) (*sql.Stmt, bool) {
	c.mu.RLock()
	s, ok := c.m[query]
	c.mu.RUnlock()
	return s, ok
}

// close closes every cached statement.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, s := range c.m {
		errs = append(errs, s.Close())
	}
	clear(c.m)
	return errors.Join(errs...)
}

// txStmts runs the statements of one transaction: cached statements bound
// to the transaction, others prepared in it once and reused for every step
// and row of the transaction. The transaction closes them all when it
// ends. It also collects the kinds the transaction names for the first
// time (kindID), which join the store's kinds once it commits.
type txStmts struct {
	ctx   context.Context
	tx    *sql.Tx
	cache *stmtCache
	kinds *kindCache
	stmts map[string]*sql.Stmt
	// newKinds are kinds inserted by this transaction, by name.
	newKinds map[string]int64
	// ran counts the statements run in the transaction (DB.countWrites).
	ran int
}

// stmt returns query ready to run in the transaction.
func (st *txStmts) stmt(query string) (*sql.Stmt, error) {
	if s, ok := st.stmts[query]; ok {
		return s, nil
	}
	var s *sql.Stmt
	if p, ok := st.cache.lookup(query); ok {
		s = st.tx.StmtContext(st.ctx, p)
	} else {
		var err error
		if s, err = st.tx.PrepareContext(st.ctx, query); err != nil {
			return nil, err
		}
	}
	if st.stmts == nil {
		st.stmts = map[string]*sql.Stmt{}
	}
	st.stmts[query] = s
	return s, nil
}

// exec runs query with args.
func (st *txStmts) exec(query string, args ...any) (sql.Result, error) {
	st.ran++
	s, err := st.stmt(query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(st.ctx, args...)
}

// query runs query with args; the caller closes the rows.
func (st *txStmts) query(query string, args ...any) (*sql.Rows, error) {
	st.ran++
	s, err := st.stmt(query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(st.ctx, args...)
}

// queryRow runs query with args for at most one row.
func (st *txStmts) queryRow(query string, args ...any) *sql.Row {
	st.ran++
	s, err := st.stmt(query)
	if err != nil {
		// A failed Stmt still yields a Row whose Scan reports the error.
		return st.tx.QueryRowContext(st.ctx, query, args...)
	}
	return s.QueryRowContext(st.ctx, args...)
}

// querier runs cached statements: txStmts inside a transaction, poolStmts
// outside one.
type querier interface {
	query(query string, args ...any) (*sql.Rows, error)
	queryRow(query string, args ...any) *sql.Row
}

// poolStmts runs the read pool's statements without a transaction, for
// reads of one statement: a statement is its own snapshot, and the
// explicit BEGIN and COMMIT (each taking and dropping SQLite's WAL locks)
// cost as much as a point query.
type poolStmts struct {
	ctx   context.Context
	cache *stmtCache
}

// query runs query with args; the caller closes the rows.
func (p poolStmts) query(query string, args ...any) (*sql.Rows, error) {
	if s, ok := p.cache.lookup(query); ok {
		return s.QueryContext(p.ctx, args...)
	}
	return p.cache.pool.QueryContext(p.ctx, query, args...)
}

// queryRow runs query with args for at most one row.
func (p poolStmts) queryRow(query string, args ...any) *sql.Row {
	if s, ok := p.cache.lookup(query); ok {
		return s.QueryRowContext(p.ctx, args...)
	}
	return p.cache.pool.QueryRowContext(p.ctx, query, args...)
}

// readOne returns the read pool's statements for a read of one statement.
func (db *DB) readOne(ctx context.Context) poolStmts {
	return poolStmts{ctx: ctx, cache: db.rstmts}
}

// readWith runs fn in a read-only transaction on the read pool (one
// snapshot for every query of fn), with the read pool's statements.
func (db *DB) readWith(ctx context.Context, fn func(st *txStmts) error) error {
	return db.readTx(ctx, func(tx *sql.Tx) error {
		return fn(&txStmts{ctx: ctx, tx: tx, cache: db.rstmts, kinds: db.kinds})
	})
}

// writeRelaxed is writeWith for writes that may be lost in a power cut
// without harm: job locks. Its commit does not wait for an fsync
// (synchronous=NORMAL for this transaction only); the next step's commit
// (synchronous=FULL) syncs the WAL and with it every earlier commit. A lock
// lost in a power cut only lets the job be activated again, which
// at-least-once delivery allows; a lock costs no fsync, so workers do not
// halve the throughput of the steps they complete.
func (db *DB) writeRelaxed(ctx context.Context, fn func(st *txStmts) error) (err error) {
	if db.sync != "FULL" {
		return db.writeWith(ctx, fn)
	}
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() {
		// The writer must never be left at NORMAL: restore FULL, or drop the
		// connection (the pool opens a new one with the DSN's FULL).
		if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous = FULL"); rerr != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			if err == nil {
				err = fmt.Errorf("restore synchronous=FULL: %w", rerr)
			}
		}
		conn.Close()
	}()
	if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = NORMAL"); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st := &txStmts{ctx: ctx, cache: db.wstmts, kinds: db.kinds, tx: tx}
	if err := fn(st); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	db.ckpt.committed()
	db.kinds.add(st.newKinds)
	return nil
}

// writeWith runs fn in a write transaction with the writer's statements
// and commits it if fn succeeds; kinds the transaction added become known
// to the store only once it committed.
func (db *DB) writeWith(ctx context.Context, fn func(st *txStmts) error) error {
	st := &txStmts{ctx: ctx, cache: db.wstmts, kinds: db.kinds}
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		st.tx = tx
		return fn(st)
	})
	if err == nil {
		db.kinds.add(st.newKinds)
		if db.countWrites != nil {
			db.countWrites(st.ran)
		}
	}
	return err
}
