package access

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// auditBatch bounds the entries written in one transaction.
const auditBatch = 512

// auditWriter writes audit entries in batches from one goroutine, so a
// request never waits for the trail: an entry is written within one flush
// interval of being recorded, with the entries recorded around it, in one
// transaction. The same goroutine runs other small background writes
// (a token's last use). close writes what is left.
type auditWriter struct {
	store Store
	every time.Duration
	log   *slog.Logger

	mu      sync.Mutex
	pending []AuditEntry                      // guarded by mu
	jobs    []func(ctx context.Context) error // guarded by mu
	waiters []chan error                      // guarded by mu; answered after the next write
	closed  bool                              // guarded by mu

	// housekeeping runs about once an hour (removing expired sessions).
	housekeeping func(ctx context.Context) error

	wake chan struct{}
	done chan struct{}
}

// housekeepingEvery is how often the writer removes expired sessions.
const housekeepingEvery = time.Hour

func newAuditWriter(store Store, every time.Duration, log *slog.Logger, housekeeping func(ctx context.Context) error) *auditWriter {
	w := &auditWriter{store: store, every: every, log: log, housekeeping: housekeeping, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go w.loop()
	return w
}

// add queues e. After close, it writes e at once instead.
func (w *auditWriter) add(e AuditEntry) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		if err := w.store.AppendAudit(context.Background(), []AuditEntry{e}); err != nil {
			w.log.Error("audit: write after close", "err", err, "action", e.Action)
		}
		return
	}
	w.pending = append(w.pending, e)
	full := len(w.pending) >= auditBatch
	w.mu.Unlock()
	if full {
		w.poke()
	}
}

// do queues a background write.
func (w *auditWriter) do(job func(ctx context.Context) error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.jobs = append(w.jobs, job)
	w.mu.Unlock()
}

func (w *auditWriter) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// flush returns once everything queued before it is written.
func (w *auditWriter) flush(ctx context.Context) error {
	ch := make(chan error, 1)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.waiters = append(w.waiters, ch)
	w.mu.Unlock()
	w.poke()
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close writes what is queued and stops the loop.
func (w *auditWriter) close(ctx context.Context) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	w.poke()
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *auditWriter) loop() {
	defer close(w.done)
	t := time.NewTicker(w.every)
	defer t.Stop()
	lastChores := time.Now()
	for {
		select {
		case <-t.C:
		case <-w.wake:
		}
		w.mu.Lock()
		entries, jobs, waiters, closed := w.pending, w.jobs, w.waiters, w.closed
		w.pending, w.jobs, w.waiters = nil, nil, nil
		w.mu.Unlock()
		if w.housekeeping != nil && time.Since(lastChores) >= housekeepingEvery {
			lastChores = time.Now()
			jobs = append(jobs, w.housekeeping)
		}
		err := w.write(entries, jobs)
		for _, ch := range waiters {
			ch <- err
		}
		if closed {
			return
		}
	}
}

// write appends entries in batches and runs jobs; failures are logged
// (and returned to flush waiters). An entry that cannot be written is
// logged whole, so the trail survives in the log.
func (w *auditWriter) write(entries []AuditEntry, jobs []func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	for len(entries) > 0 {
		n := min(len(entries), auditBatch)
		if err := w.store.AppendAudit(ctx, entries[:n]); err != nil {
			errs = append(errs, err)
			for _, e := range entries[:n] {
				w.log.Error("audit: entry not stored", "err", err, "at", e.At, "actor", e.Actor, "action", e.Action,
					"resource", e.Resource, "outcome", e.Outcome, "status", e.Status, "requestId", e.RequestID)
			}
		}
		entries = entries[n:]
	}
	for _, job := range jobs {
		if err := job(ctx); err != nil {
			w.log.Warn("access: background write failed", "err", err)
		}
	}
	return errors.Join(errs...)
}

// constantTimeEqual compares two secrets without leaking where they differ.
func constantTimeEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
