package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/timer"
)

// maxSchedulerSleep bounds one sleep of the scheduler so a clock jump is
// noticed; timers are woken earlier whenever a commit adds one.
const maxSchedulerSleep = time.Minute

// DefaultMaxTimerStartsPerSecond is the default of
// Options.MaxTimerStartsPerSecond.
const DefaultMaxTimerStartsPerSecond = 10

// Timer starts that fell behind (catch-up rule).
//
// A cycle that missed occurrences — the server was down, or the scheduler
// busy — fires once for all of them and continues from the time it fired:
// an interval cycle is next due one period after that firing, a cycle
// anchored at a start date and a cron expression at their first occurrence
// after it (timer.Spec.Next from now). Camunda 8 (Zeebe) does the same
// since 8.1 (camunda/camunda#9680, #10054): after downtime a timer triggers
// once and is rescheduled into the future, never once per missed interval.
// Rn counts that firing as one.
//
// On top of that, the timer starts of one process key start at most
// MaxTimerStartsPerSecond instances per second of the clock (a process
// may have many timer start events due at once, after downtime or on the
// same cron second). When the current second's share is spent, the key's
// overdue schedules are moved to the following seconds, that many per
// second in due order, in one write: each fires late, never early, and
// none is lost; the scheduler never starts thousands of instances at once
// and never spins on timers it may not fire yet.

// startRate counts the instances each process key's timer starts started
// in the current second of the runtime's clock. Its methods are safe for
// concurrent use; callers hold the key's start lock.
type startRate struct {
	max int // per key and second; <= 0: no cap

	mu     sync.Mutex
	second time.Time
	counts map[string]int
}

// newStartRate returns a counter allowing max starts per key and second (0:
// the default, negative: no cap).
func newStartRate(max int) *startRate {
	if max == 0 {
		max = DefaultMaxTimerStartsPerSecond
	}
	return &startRate{max: max, counts: map[string]int{}}
}

// take counts one start of key at now and reports whether it is within the
// cap; a start beyond it is not counted.
func (s *startRate) take(key string, now time.Time) bool {
	if s.max <= 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sec := now.Truncate(time.Second); !sec.Equal(s.second) {
		s.second, s.counts = sec, map[string]int{}
	}
	if s.counts[key] >= s.max {
		return false
	}
	s.counts[key]++
	return true
}

// postponeStartTimers moves the schedules of key that are due at now to
// the following seconds, max per second in due order (the caller holds the
// key's start lock). It returns how many it moved.
func (r *Runtime) postponeStartTimers(ctx context.Context, key string, now time.Time) (int, error) {
	rows, err := r.store.StartTimers(ctx, key)
	if err != nil {
		return 0, fmt.Errorf("runtime: postpone timer starts of %s: %w", key, err)
	}
	next := now.Truncate(time.Second).Add(time.Second)
	moved := 0
	for i := range rows {
		if rows[i].DueAt.After(now) {
			continue
		}
		rows[i].DueAt = next.Add(time.Duration(moved/r.startRate.max) * time.Second)
		moved++
	}
	if moved == 0 {
		return 0, nil
	}
	if err := r.store.ReplaceStartTimers(ctx, key, rows); err != nil {
		return 0, fmt.Errorf("runtime: postpone timer starts of %s: %w", key, err)
	}
	r.log.Warn("timer starts postponed", "definition_key", key, "postponed", moved, "per_second", r.startRate.max)
	return moved, nil
}

// startScheduler starts the timer goroutine. It sleeps until the next due
// time and is woken when a commit arms a timer, so timers fire within
// milliseconds of their due time and never before it. Idempotent.
func (r *Runtime) startScheduler() {
	r.schedOnce.Do(func() {
		go r.schedule()
	})
}

func (r *Runtime) wakeScheduler() {
	select {
	case r.schedWake <- struct{}{}:
	default:
	}
}

func (r *Runtime) schedule() {
	defer close(r.schedDone)
	ctx := context.Background()
	var (
		outboxDue time.Time // when to retry outbox rows; zero: none left
		backoff   = r.outboxEvery
	)
	for {
		_, failed := r.fireDue(ctx)
		if r.outboxRetry.Swap(false) && outboxDue.IsZero() {
			outboxDue, backoff = time.Now().Add(r.outboxEvery), r.outboxEvery
		}
		if !outboxDue.IsZero() && !time.Now().Before(outboxDue) && !r.stopping() {
			outboxDue, backoff = r.retryOutbox(ctx, backoff)
		}
		sleep := maxSchedulerSleep
		if next, ok, err := r.nextTimer(ctx); err != nil {
			r.log.Error("timer lookup failed", "error", err)
			sleep = time.Second
		} else if ok && (r.manual == nil || !next.After(r.now())) {
			// A manual clock's future is not a real duration away: the
			// scheduler sleeps until the clock moves (moveClock wakes it).
			sleep = min(max(next.Sub(r.now()), 0), maxSchedulerSleep)
		}
		if failed > 0 {
			sleep = max(sleep, time.Second) // do not spin on a timer that keeps failing
		}
		if !outboxDue.IsZero() {
			sleep = min(sleep, max(time.Until(outboxDue), 0))
		}
		t := time.NewTimer(sleep)
		select {
		case <-t.C:
		case <-r.schedWake:
			t.Stop()
		case <-r.schedStop:
			t.Stop()
			return
		}
	}
}

// retryOutbox runs one drain pass of the outbox rows whose work failed
// (outbox.go) and returns when to run the next one and its backoff: soon
// while passes make progress, doubling up to maxOutboxRetry while none
// does, never once the outbox has nothing left for this process.
func (r *Runtime) retryOutbox(ctx context.Context, backoff time.Duration) (time.Time, time.Duration) {
	taken, left, err := r.drainOutbox(ctx, outboxBatch, nil)
	switch {
	case err != nil:
		r.log.Error("outbox retry failed", "error", err)
	case taken > left && taken == outboxBatch:
		return time.Now(), r.outboxEvery // a full page made progress: read on
	case left == 0:
		return time.Time{}, r.outboxEvery
	case taken > left:
		return time.Now().Add(r.outboxEvery), r.outboxEvery
	}
	backoff = min(2*backoff, maxOutboxRetry)
	return time.Now().Add(backoff), backoff
}

// stopping reports whether Close has begun.
func (r *Runtime) stopping() bool {
	select {
	case <-r.schedStop:
		return true
	default:
		return false
	}
}

// FireDueTimers fires every timer due at the runtime's clock now and
// returns how many fired. The scheduler calls it; tests with an injected
// clock call it directly instead of sleeping.
func (r *Runtime) FireDueTimers(ctx context.Context) (int, error) {
	fired, failed := r.fireDue(ctx)
	if failed > 0 {
		return fired, fmt.Errorf("runtime: %d due timers failed (see log)", failed)
	}
	return fired, nil
}

func (r *Runtime) fireDue(ctx context.Context) (fired, failed int) {
	r.firing.Lock()
	defer r.firing.Unlock()
	return r.fireDueLocked(ctx)
}

// fireDueLocked is fireDue for a caller that holds r.firing.
func (r *Runtime) fireDueLocked(ctx context.Context) (fired, failed int) {
	tried := map[string]bool{}
	for {
		if r.stopping() {
			return fired, failed // Close is waiting: the rest fire after the restart
		}
		due, err := r.dueTimers(ctx, r.now().UTC(), 100)
		if err != nil {
			r.log.Error("due timer lookup failed", "error", err)
			return fired, failed + 1
		}
		var batch []WaitRow
		for _, w := range due {
			if !tried[w.ID] {
				tried[w.ID] = true
				batch = append(batch, w)
			}
		}
		if len(batch) == 0 {
			return fired, failed
		}
		f, e := r.fireBatch(ctx, batch)
		fired, failed = fired+f, failed+e
	}
}

// timerWorkers bounds how many due timers fire at once; firing them
// concurrently lets their steps share commits (group commit).
const timerWorkers = 16

// fireBatch fires due timers concurrently, instance by instance: the timers
// of one instance fire in due order on one worker (so its history does not
// depend on scheduling), different instances in parallel.
func (r *Runtime) fireBatch(ctx context.Context, batch []WaitRow) (fired, failed int) {
	var groups [][]WaitRow
	index := map[InstanceID]int{}
	for _, w := range batch {
		key := w.InstanceID
		if w.Kind == WaitStartTimer {
			key = InstanceID("start:" + w.ID)
		}
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], w)
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		next = make(chan []WaitRow)
	)
	for i := 0; i < min(timerWorkers, len(groups)); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for group := range next {
				for _, w := range group {
					var err error
					if w.Kind == WaitStartTimer {
						err = r.fireStartTimer(ctx, w)
					} else {
						_, err = r.step(ctx, w.InstanceID, engine.TimerFired{WaitID: w.ID}, nil)
					}
					mu.Lock()
					switch code := ErrorCode(err); {
					case err == nil:
						fired++
						r.metrics.timersFired.Add(1)
					case code == ENOTFOUND || code == ECONFLICT:
						// fired or withdrawn meanwhile
					default:
						failed++
						r.log.Error("timer failed", "wait_id", w.ID, "instance_id", w.InstanceID, "error", err)
					}
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for _, g := range groups {
		select {
		case next <- g:
		case <-r.schedStop: // Close is waiting: finish the timers in flight only
			break feed
		}
	}
	close(next)
	wg.Wait()
	return fired, failed
}

// startTimerID names the schedule row of a timer start event.
func startTimerID(key, node string) string { return "start:" + key + ":" + node }

// armStartTimers replaces the schedules of a process key by those of the
// given version's timer start events (none removes them).
func (r *Runtime) armStartTimers(ctx context.Context, ref DefinitionRef, p *bpmn.Process) error {
	now := r.now().UTC()
	var rows []WaitRow
	for _, n := range p.EventStarts {
		tm := n.Event.Find(bpmn.TriggerTimer) // a multiple start has at most one (bpmn)
		if tm == nil || tm.Timer == nil {
			continue
		}
		spec, err := timer.Parse(timer.Kind(tm.Timer.Kind), tm.Timer.Text)
		if err != nil {
			return fmt.Errorf("runtime: timer start %s of %s: %w", n.ID, ref.Key, err)
		}
		due, ok := spec.First(now)
		if !ok {
			continue
		}
		rows = append(rows, WaitRow{ID: startTimerID(ref.Key, n.ID), Kind: WaitStartTimer, NodeID: n.ID,
			ProcessKey: ref.Key, ProcessVersion: ref.Version, Name: tm.Timer.Text, DueAt: due, CreatedAt: now})
	}
	unlock := r.startLocks.lock(InstanceID(ref.Key))
	defer unlock()
	if latest, err := r.store.Definition(ctx, ref.Key, 0); err != nil {
		return fmt.Errorf("runtime: schedule timer starts of %s: %w", ref.Key, err)
	} else if latest.Version != ref.Version {
		return nil // a newer version was deployed meanwhile: its schedule stands
	}
	if err := r.store.ReplaceStartTimers(ctx, ref.Key, rows); err != nil {
		return fmt.Errorf("runtime: schedule timer starts of %s: %w", ref.Key, err)
	}
	if len(rows) > 0 {
		r.wakeScheduler()
	}
	return nil
}

// fireStartTimer starts an instance at a timer start event and, in the same
// transaction, re-arms the schedule (cycles) or removes it. Retries counts
// the firings so far.
func (r *Runtime) fireStartTimer(ctx context.Context, w WaitRow) error {
	// A deployment may replace the schedule while it fires: hold the key and
	// fire only the row as it still is, so an old version's re-arm never
	// overwrites a new version's schedule.
	unlock := r.startLocks.lock(InstanceID(w.ProcessKey))
	defer unlock()
	cur, err := r.store.Wait(ctx, w.ID)
	switch {
	case ErrorCode(err) == ENOTFOUND:
		return &Error{Code: ECONFLICT, Message: "start timer removed meanwhile", Err: err}
	case err != nil:
		return err
	case cur.Kind != WaitStartTimer || cur.ProcessVersion != w.ProcessVersion || cur.Retries != w.Retries || !cur.DueAt.Equal(w.DueAt):
		return &Error{Code: ECONFLICT, Message: "start timer fired or replaced meanwhile"}
	}
	proc, ref, err := r.process(ctx, w.ProcessKey, w.ProcessVersion)
	if err != nil {
		return unreadableDefinition(w.ProcessKey, w.ProcessVersion, err)
	}
	var tm *bpmn.EventDef
	if n := proc.Node(w.NodeID); n != nil {
		tm = n.Event.Find(bpmn.TriggerTimer)
	}
	if tm == nil || tm.Timer == nil {
		return fmt.Errorf("runtime: start timer %s: node %s is not a timer start", w.ID, w.NodeID)
	}
	now := r.now().UTC()
	if !r.startRate.take(w.ProcessKey, now) {
		if _, err := r.postponeStartTimers(ctx, w.ProcessKey, now); err != nil {
			return err
		}
		return &Error{Code: ECONFLICT, Message: fmt.Sprintf("timer starts of %s capped at %d per second: postponed", w.ProcessKey, r.startRate.max)}
	}
	next := w
	next.Retries++
	var remove []string
	spec, err := timer.Parse(timer.Kind(tm.Timer.Kind), tm.Timer.Text)
	if err != nil {
		return err
	}
	if due, ok := spec.Next(now, next.Retries); ok && tm.Timer.Kind == bpmn.TimerCycle {
		next.DueAt = due
	} else {
		remove = []string{w.ID}
	}
	_, err = r.startAt(ctx, proc, ref, "", w.NodeID, nil, func(rec *StepRecord) {
		rec.FiresStartTimer = w.ID
		if remove == nil {
			rec.Waits = append(rec.Waits, next)
		} else {
			rec.RemovedWaits = append(rec.RemovedWaits, remove...)
		}
	}, nil)
	if err != nil && errors.Is(err, ErrConflict) {
		return &Error{Code: ECONFLICT, Message: "start timer fired elsewhere", Err: err}
	}
	return err
}
