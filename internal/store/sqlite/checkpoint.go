package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Checkpointing the write-ahead log. SQLite's automatic checkpoint runs
// inside the commit that crosses its threshold: that commit copies every
// page of the WAL into the database file and waits for the file's fsync
// before it returns, so one step in a thousand pays for the others and a
// slow disk shows as a stall of every step waiting behind it. The store
// instead moves the automatic threshold far out (writerAutoCheckpoint) and
// checkpoints from a connection of its own, in the background, a short
// while after commits: PASSIVE, so it never blocks the writer or a reader,
// and late enough that a page written by many commits is copied once. The
// while is short (DefaultCheckpointInterval): at full load the log grows by
// tens of megabytes a second, and a log that reaches the writer's threshold
// is checkpointed inside a commit again, with the stall this avoids (at a
// second the stalls came back; measured with cmd/gobpm-load).
const (
	// DefaultCheckpointInterval is how long the background checkpointer
	// waits after a commit before it checkpoints (Options.CheckpointInterval).
	DefaultCheckpointInterval = 100 * time.Millisecond
	// writerAutoCheckpoint is the writer's wal_autocheckpoint in pages: the
	// safety net should the background checkpointer fall behind (64 MiB
	// of WAL with 4 KiB pages).
	writerAutoCheckpoint = 16384
)

// checkpointer runs PASSIVE checkpoints on its own connection after
// commits. It is started by Open and stopped by Close.
type checkpointer struct {
	// conn is the checkpointer's single-connection pool.
	conn *sql.DB
	// interval is how long it waits after a commit.
	interval time.Duration
	// dirty says a commit happened since the last checkpoint started.
	dirty atomic.Bool
	// wake is signalled (without blocking) by commits.
	wake chan struct{}
	// stop ends the loop; done is closed when it has.
	stop, done chan struct{}
	// closeOnce guards stop.
	closeOnce sync.Once
	// runs counts finished checkpoints (tests and diagnostics).
	runs atomic.Int64
	// log reports a failing checkpoint.
	log *slog.Logger
}

// startCheckpointer opens the checkpointer's connection to path and starts
// its loop.
func startCheckpointer(ctx context.Context, path, sync string, interval time.Duration) (*checkpointer, error) {
	// The checkpointer's connection is read-write (a checkpoint writes the
	// database file) and never commits a transaction of its own.
	conn, err := sql.Open(driverName, dsn(path, sync, false))
	if err != nil {
		return nil, fmt.Errorf("checkpointer: %w", err)
	}
	conn.SetMaxOpenConns(1)
	conn.SetMaxIdleConns(1)
	conn.SetConnMaxLifetime(0)
	conn.SetConnMaxIdleTime(0)
	if err := conn.PingContext(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("checkpointer: %w", err)
	}
	c := &checkpointer{conn: conn, interval: interval, wake: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}), log: slog.Default()}
	go c.loop()
	return c, nil
}

// committed tells the checkpointer that a write transaction committed.
// It never blocks.
func (c *checkpointer) committed() {
	if c == nil {
		return
	}
	c.dirty.Store(true)
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// loop waits for a commit, then for the interval (commits meanwhile join
// the same checkpoint), then checkpoints; it ends on stop.
func (c *checkpointer) loop() {
	defer close(c.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-c.wake:
		}
		timer.Reset(c.interval)
		select {
		case <-c.stop:
			timer.Stop()
			return
		case <-timer.C:
		}
		if !c.dirty.Swap(false) {
			continue
		}
		if err := c.checkpoint(); err != nil {
			c.log.Warn("background WAL checkpoint failed; the writer's automatic checkpoint remains", "err", err)
		}
	}
}

// checkpoint copies what it can of the WAL into the database file without
// waiting for readers or the writer.
func (c *checkpointer) checkpoint() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var busy, logFrames, done int64
	if err := c.conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logFrames, &done); err != nil {
		return fmt.Errorf("wal_checkpoint: %w", err)
	}
	c.runs.Add(1)
	return nil
}

// close stops the loop and closes the connection.
func (c *checkpointer) close() error {
	if c == nil {
		return nil
	}
	c.closeOnce.Do(func() { close(c.stop) })
	<-c.done
	return c.conn.Close()
}
