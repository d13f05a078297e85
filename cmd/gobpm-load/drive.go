package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// maxOps bounds every load loop in count, on top of its time bound.
const maxOps = 50_000_000

// errorLog counts failed requests and keeps the first few messages.
type errorLog struct {
	n       atomic.Int64
	mu      sync.Mutex
	samples []string // guarded by mu; at most 5
}

// Add records one failure.
func (e *errorLog) Add(err error) {
	if err == nil {
		return
	}
	e.n.Add(1)
	e.mu.Lock()
	if len(e.samples) < 5 {
		e.samples = append(e.samples, err.Error())
	}
	e.mu.Unlock()
}

// Samples returns the first messages recorded.
func (e *errorLog) Samples() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.samples...)
}

// tracker pairs the start of an instance with its completion, which may be
// seen in either order (a worker can complete the job before the start
// request's answer reaches the starter). It counts completions inside the
// measurement window and records start→completion latencies.
type tracker struct {
	from, to time.Time     // the measurement window (completions in it count for PI/s)
	lat      Recorder      // latency of instances started at or after from
	tokens   chan struct{} // in-flight bound of a closed loop; nil for open loops

	started, completed, inWindow atomic.Int64

	mu   sync.Mutex
	open map[string]openEntry // guarded by mu
}

type openEntry struct {
	start, end time.Time // zero until seen
}

func newTracker(from, to time.Time, inflight int) *tracker {
	t := &tracker{from: from, to: to, open: map[string]openEntry{}}
	if inflight > 0 {
		t.tokens = make(chan struct{}, inflight)
	}
	return t
}

// acquire takes an in-flight token (closed loop); false when ctx ends or
// the deadline passes first.
func (t *tracker) acquire(ctx context.Context, deadline time.Time) bool {
	if t.tokens == nil {
		return true
	}
	select {
	case t.tokens <- struct{}{}:
		return true
	default:
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case t.tokens <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	case <-timer.C:
		return false
	}
}

// release gives a token back (a failed start, or a completed instance).
func (t *tracker) release() {
	if t.tokens == nil {
		return
	}
	select {
	case <-t.tokens:
	default:
	}
}

// Started records that instance id was started at (or was due at) at.
func (t *tracker) Started(id string, at time.Time) {
	t.started.Add(1)
	t.pair(id, func(e *openEntry) { e.start = at })
}

// Ended records that instance id completed at at.
func (t *tracker) Ended(id string, at time.Time) {
	t.pair(id, func(e *openEntry) { e.end = at })
}

// pair records one end of an instance (set); once both its start and its
// end are known, in either order, the instance is finished.
func (t *tracker) pair(id string, set func(*openEntry)) {
	t.mu.Lock()
	e := t.open[id]
	set(&e)
	if e.start.IsZero() || e.end.IsZero() {
		t.open[id] = e
		t.mu.Unlock()
		return
	}
	delete(t.open, id)
	t.mu.Unlock()
	t.finish(e)
}

func (t *tracker) finish(e openEntry) {
	t.completed.Add(1)
	t.release()
	if !e.end.Before(t.from) && !e.end.After(t.to) {
		t.inWindow.Add(1)
	}
	if !e.start.Before(t.from) {
		t.lat.Add(e.end.Sub(e.start))
	}
}

// unmatched returns the number of completions seen without a start: jobs of
// instances this run did not start (left over on a shared server).
func (t *tracker) unmatched() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var n int64
	for _, e := range t.open {
		if e.start.IsZero() {
			n++
		}
	}
	return n
}

// closedLoop runs clients goroutines that each call op back to back until
// end (or ctx ends, or maxOps calls in all), and waits for them. A request
// in flight at end is not cancelled (its outcome must be counted); only ctx
// cancels.
func closedLoop(ctx context.Context, clients int, end time.Time, op func(ctx context.Context, end time.Time)) {
	var n atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(end) && n.Add(1) <= maxOps {
				op(ctx, end)
			}
		}()
	}
	wg.Wait()
}

// openLoop calls op at the pace of p for d: each call in its own goroutine,
// at most outstanding at once (when they are all busy the schedule waits, and
// the latency measured from the due time shows it). It returns how many calls
// it made and the most it had in flight at once, after the last one returned.
func openLoop(ctx context.Context, p Pacer, d time.Duration, outstanding int, op func(ctx context.Context, due time.Time)) (made, peak int) {
	sem := make(chan struct{}, outstanding)
	var wg sync.WaitGroup
	var busy, top atomic.Int64
	n := min(p.Count(d), maxOps)
	timer := time.NewTimer(0)
	defer timer.Stop()
loop:
	for i := 0; i < n; i++ {
		due := p.Due(i)
		if wait := time.Until(due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				break loop
			}
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break loop
		}
		made++
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			b := busy.Add(1)
			for t := top.Load(); b > t && !top.CompareAndSwap(t, b); t = top.Load() {
			}
			op(ctx, due)
			busy.Add(-1)
		}()
	}
	wg.Wait()
	return made, int(top.Load())
}
