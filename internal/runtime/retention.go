package runtime

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// History retention.
//
// An ended instance (completed or terminated) is deleted with everything
// stored for it — its state parts, history facts, incidents and any wait
// left — once it ended longer ago than the time to live of its process
// version: the model's gobpm:historyTimeToLive (or
// camunda:historyTimeToLive), else Options.Retention.HistoryTTL; a version
// with neither keeps its history for ever. The cleaner runs a pass every
// Options.Retention.Every and deletes in batches of
// Options.Retention.Batch instances, one short write transaction each, so
// the steps' group commits get the writer between batches.
//
// Never deleted:
//   - a running or failed instance (a failed one may still be retried);
//   - an ended child whose parent (the caller of its call activity) is
//     running or failed: the parent's call trace stays whole while it can
//     still act. Once the parent has ended, the child follows its own
//     time to live; deleting a parent leaves its children to theirs;
//   - an instance whose after-commit work (outbox rows, e.g. handing its
//     outcome to its caller) is not done yet.
//
// Idempotency keys that name a deleted instance stay until their own
// window ends (Options.IdempotencyWindow): a client retrying a start
// within the window still gets the answer it missed, not a second
// instance.

// Retention defaults.
const (
	// DefaultRetentionBatch is how many instances one cleaner transaction
	// deletes at most.
	DefaultRetentionBatch = 500
	// DefaultRetentionEvery is the time between two cleaner passes.
	DefaultRetentionEvery = time.Minute
)

// RetentionOptions configure history retention (Options.Retention).
type RetentionOptions struct {
	// HistoryTTL is how long an ended instance is kept when its model sets
	// no time to live; 0 keeps such instances for ever.
	HistoryTTL time.Duration
	// Batch bounds the instances one delete transaction takes; 0 means
	// DefaultRetentionBatch.
	Batch int
	// Every is the time between cleaner passes; 0 means
	// DefaultRetentionEvery, a negative value runs no background cleaner
	// (CleanHistory still works).
	Every time.Duration
}

// DeleteInstance deletes an ended instance and its history at once (DELETE
// /api/v1/instances/{id}), under the same rules as the cleaner: ENOTFOUND
// for an unknown instance, ECONFLICT for one that is running or failed,
// whose caller still runs, or whose after-commit work is pending.
func (r *Runtime) DeleteInstance(ctx context.Context, id InstanceID) error {
	unlock := r.locks.lock(id)
	defer unlock()
	if err := r.store.DeleteInstance(ctx, id); err != nil {
		if ErrorCode(err) == ENOTFOUND {
			return &Error{Code: ENOTFOUND, Message: fmt.Sprintf("instance %s not found", id), Err: err}
		}
		return err
	}
	r.states.drop(id)
	r.metrics.instancesDeleted.Add(1)
	r.log.Info("instance deleted", "instance_id", id)
	return nil
}

// retentionPolicy is the time to live of one process version.
type retentionPolicy struct {
	ref DefinitionRef
	ttl time.Duration
}

// retentionPolicies returns the process versions whose ended instances
// expire, each with its time to live.
func (r *Runtime) retentionPolicies(ctx context.Context) ([]retentionPolicy, error) {
	latest, err := r.store.LatestDefinitions(ctx)
	if err != nil {
		return nil, fmt.Errorf("runtime: retention: list processes: %w", err)
	}
	var out []retentionPolicy
	for _, l := range latest {
		versions, err := r.store.DefinitionVersions(ctx, l.Key)
		if err != nil {
			return nil, fmt.Errorf("runtime: retention: versions of %s: %w", l.Key, err)
		}
		for _, v := range versions {
			proc, ref, err := r.process(ctx, v.Key, v.Version)
			if err != nil {
				// One unreadable version keeps its instances; the others
				// are still cleaned.
				r.log.Error("history retention skips a definition it cannot read", "definition_key", v.Key,
					"version", v.Version, "error", err)
				continue
			}
			ttl := r.retention.HistoryTTL
			if proc.HistoryTimeToLive != nil {
				ttl = *proc.HistoryTimeToLive
			} else if ttl <= 0 {
				continue // no time to live: kept for ever
			}
			out = append(out, retentionPolicy{ref: ref, ttl: ttl})
		}
	}
	return out, nil
}

// CleanHistory runs one pass of the history cleaner now: it deletes every
// ended instance past its time to live at the runtime's clock, a batch per
// transaction, and returns how many it deleted. The background cleaner
// calls it; tests and tools may too.
func (r *Runtime) CleanHistory(ctx context.Context) (int, error) {
	policies, err := r.retentionPolicies(ctx)
	if err != nil {
		return 0, err
	}
	now := r.now().UTC()
	deleted := 0
	for _, p := range policies {
		for {
			if r.stopping() {
				return deleted, nil // Close is waiting: the rest go at the next start
			}
			ids, err := r.store.DeleteEndedInstances(ctx, RetentionFilter{ProcessKey: p.ref.Key, ProcessVersion: p.ref.Version,
				EndedBefore: now.Add(-p.ttl), Limit: r.retention.Batch})
			if err != nil {
				return deleted, fmt.Errorf("runtime: retention of %s version %d: %w", p.ref.Key, p.ref.Version, err)
			}
			for _, id := range ids {
				r.states.drop(id) // ended states are not cached; a stale entry must not outlive the row
			}
			deleted += len(ids)
			r.metrics.instancesDeleted.Add(int64(len(ids)))
			if len(ids) < r.retention.Batch {
				break
			}
		}
	}
	if deleted > 0 {
		r.log.Info("history cleaned", "deleted", deleted)
	}
	return deleted, nil
}

// cleaner runs CleanHistory in the background (retention.go), started by
// ResumeInstances and stopped by Close.
type cleaner struct {
	once sync.Once
	wake chan struct{}
	stop chan struct{}
	done chan struct{}

	mu sync.Mutex
	// started is set once the goroutine runs (never when Every < 0 or
	// when stopped first); guarded by mu.
	started bool
}

func newCleaner() *cleaner {
	return &cleaner{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// startCleaner starts the background cleaner unless Retention.Every is
// negative. Idempotent.
func (r *Runtime) startCleaner() {
	if r.retention.Every < 0 {
		return
	}
	c := r.cleaner
	c.once.Do(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		select {
		case <-c.stop:
			return // closed before it started
		default:
		}
		c.started = true
		go r.clean()
	})
}

// wakeCleaner asks for a pass now (the manual clock moved).
func (r *Runtime) wakeCleaner() {
	select {
	case r.cleaner.wake <- struct{}{}:
	default:
	}
}

// stopCleaner stops the cleaner and waits for its pass in flight.
func (r *Runtime) stopCleaner() {
	c := r.cleaner
	c.mu.Lock()
	select {
	case <-c.stop:
	default:
		close(c.stop)
	}
	started := c.started
	c.mu.Unlock()
	if started {
		<-c.done
	}
}

// clean is the cleaner's goroutine: a pass at start, then one every
// Retention.Every or when woken.
func (r *Runtime) clean() {
	c := r.cleaner
	defer close(c.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-c.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		if _, err := r.CleanHistory(ctx); err != nil && ctx.Err() == nil {
			r.log.Error("history cleaning failed", "error", err)
		}
		if _, err := r.SweepMessages(ctx); err != nil && ctx.Err() == nil {
			r.log.Error("buffered message sweep failed", "error", err)
		}
		t := time.NewTimer(r.retention.Every)
		select {
		case <-t.C:
		case <-c.wake:
			t.Stop()
		case <-c.stop:
			t.Stop()
			return
		}
	}
}
