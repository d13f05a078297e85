package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlcodec"
)

// driverName is the database/sql name modernc.org/sqlite registers.
const driverName = "sqlite"

// Defaults of Options.
const (
	// DefaultReadConns is the size of the read pool when Options.ReadConns is 0.
	DefaultReadConns = 4
	// busyTimeoutMS bounds how long a connection waits for a lock before
	// SQLITE_BUSY; with one writer and WAL readers it is only a safety net.
	busyTimeoutMS = 5000
)

// Options tune Open. The zero value is the durable default.
type Options struct {
	// Synchronous is the SQLite synchronous mode: "" or "FULL" (the default:
	// a committed transaction survives a power cut) or "NORMAL" (faster; the
	// last transactions may be lost on power loss, never corrupted).
	Synchronous string
	// ReadConns is the size of the read pool; 0 means DefaultReadConns.
	ReadConns int
	// CheckpointInterval is how long after a commit the background
	// checkpointer copies the write-ahead log into the database file; 0
	// means DefaultCheckpointInterval.
	CheckpointInterval time.Duration
}

// DB is a SQLite database that implements store.Store. It is safe for
// concurrent use.
type DB struct {
	// path is the database file.
	path string
	// write is the single-connection writer pool; every write goes through it.
	write *sql.DB
	// read is the query_only read pool.
	read *sql.DB
	// wstmts and rstmts are the statements prepared once per pool.
	wstmts, rstmts *stmtCache
	// kinds maps fact and part kind names to their ids.
	kinds *kindCache
	// sync is the synchronous mode of the writer: FULL or NORMAL.
	sync string
	// ckpt checkpoints the write-ahead log in the background.
	ckpt *checkpointer
	// countWrites, when set (by tests, before any write), hears how many
	// statements each committed writeWith transaction ran.
	countWrites func(statements int)
}

var _ store.Store = (*DB)(nil)

// Open opens (creating it and its parent directory if needed, readable by
// the server's user only) the SQLite database at path, applies pending
// migrations and returns the store.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	sync, err := synchronousMode(opts.Synchronous)
	if err != nil {
		return nil, err
	}
	readConns := opts.ReadConns
	if readConns <= 0 {
		readConns = DefaultReadConns
	}
	if err := createPrivate(path); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}

	db := &DB{path: path, kinds: &kindCache{ids: map[string]int64{}}, sync: sync}
	// The writer is opened (and migrated) first: it switches the file to WAL,
	// which is persistent, before any query_only reader connects.
	db.write, err = sql.Open(driverName, dsn(path, sync, false))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.write.SetMaxOpenConns(1)
	db.write.SetMaxIdleConns(1)
	db.write.SetConnMaxLifetime(0)
	db.write.SetConnMaxIdleTime(0)
	if err := db.write.PingContext(ctx); err != nil {
		db.write.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := migrate(ctx, db.write); err != nil {
		db.write.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}

	db.read, err = sql.Open(driverName, dsn(path, sync, true))
	if err != nil {
		db.write.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.read.SetMaxOpenConns(readConns)
	db.read.SetMaxIdleConns(readConns)
	if err := db.read.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.wstmts, db.rstmts = newStmtCache(db.write), newStmtCache(db.read)
	if err := db.wstmts.prepare(ctx, writeQueries...); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := db.rstmts.prepare(ctx, readQueries...); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	interval := opts.CheckpointInterval
	if interval <= 0 {
		interval = DefaultCheckpointInterval
	}
	if db.ckpt, err = startCheckpointer(ctx, path, sync, interval); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := db.indexPendingVariables(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return db, nil
}

// Close closes both pools. It is safe to call once.
func (db *DB) Close() error {
	var errs []error
	// The checkpointer stops first: the writer's close checkpoints last.
	errs = append(errs, db.ckpt.close())
	for _, c := range []*stmtCache{db.rstmts, db.wstmts} {
		if c != nil {
			errs = append(errs, c.close())
		}
	}
	if db.read != nil {
		errs = append(errs, db.read.Close())
	}
	if db.write != nil {
		// Closing the last connection checkpoints the WAL into the main file.
		errs = append(errs, db.write.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("store: close %s: %w", db.path, err)
	}
	return nil
}

// synchronousMode validates Options.Synchronous.
func synchronousMode(s string) (string, error) {
	switch strings.ToUpper(s) {
	case "", "FULL":
		return "FULL", nil
	case "NORMAL":
		return "NORMAL", nil
	default:
		return "", fmt.Errorf("store: unsupported synchronous mode %q (want FULL or NORMAL)", s)
	}
}

// dsn is the one home of the connection pragmas. Writer transactions begin
// IMMEDIATE so a write never has to upgrade a read lock; readers are
// query_only so a bug cannot write through the read pool.
func dsn(path, sync string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	q.Add("_pragma", "synchronous("+sync+")")
	q.Add("_pragma", "foreign_keys(ON)")
	if readOnly {
		// journal_mode is a property of the file, set by the writer, which
		// Open connects first; readers only need to be unable to write.
		q.Add("_pragma", "query_only(ON)")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", writerAutoCheckpoint))
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// readTx runs fn in a read-only transaction on the read pool, so the queries
// of fn see one snapshot.
func (db *DB) readTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// writeTx runs fn in a write transaction and commits it if fn succeeds.
func (db *DB) writeTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	db.ckpt.committed()
	return nil
}

// encodeTime, encodeOptTime, decodeTime and decodeOptTime are the time
// encoding every SQL store shares (sqlcodec), under short local names.
func encodeTime(t time.Time) int64            { return sqlcodec.EncodeTime(t) }
func encodeOptTime(t time.Time) sql.NullInt64 { return sqlcodec.EncodeOptTime(t) }
func decodeTime(n int64) time.Time            { return sqlcodec.DecodeTime(n) }
func decodeOptTime(n sql.NullInt64) time.Time { return sqlcodec.DecodeOptTime(n) }

// notFound maps sql.ErrNoRows to store.ErrNotFound and leaves other errors alone.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	return err
}

// createPrivate makes a new database file and the folders above it
// readable by the server's user only (0600 and 0700; SQLite gives the
// write-ahead log and its index the database file's mode): the file holds
// every variable, password hash and token hash. An existing file or folder
// keeps the mode its operator gave it.
func createPrivate(path string) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}
