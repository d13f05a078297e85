package runtime

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// ManualClock is a clock that stands still until it is set or advanced: the
// server's --clock=manual (tests and demos only) and the gobpmtest harness.
// Everything the runtime times reads it — timer due times, job lock expiry,
// failed-job backoff, the times of facts — so moving it makes timers due
// and locks expire at once, without waiting. Its methods are safe for
// concurrent use. It never moves backwards.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time // guarded by mu
}

// NewManualClock returns a manual clock standing at start.
func NewManualClock(start time.Time) *ManualClock {
	return &ManualClock{now: start.UTC()}
}

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t and returns the new time; EINVALID if t is
// before the clock's time (timers already fired and facts already written
// would then lie in the future).
func (c *ManualClock) Set(t time.Time) (time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.Before(c.now) {
		return c.now, &Error{Code: EINVALID, Field: "time", Message: fmt.Sprintf(
			"the manual clock only moves forward: %s is before its time %s", t.UTC().Format(time.RFC3339Nano), c.now.Format(time.RFC3339Nano))}
	}
	c.now = t.UTC()
	return c.now, nil
}

// Advance moves the clock forward by d and returns the new time; EINVALID
// for a negative d.
func (c *ManualClock) Advance(d time.Duration) (time.Time, error) {
	if d < 0 {
		return c.Now(), &Error{Code: EINVALID, Field: "advanceMs", Message: fmt.Sprintf("the manual clock only moves forward: cannot advance by %s", d)}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now, nil
}

// ClockView is the runtime's clock as GET /api/v1/clock shows it.
type ClockView struct {
	// Now is the runtime's current time.
	Now time.Time
	// Manual is true when the clock is a ManualClock (--clock=manual).
	Manual bool
	// TimersFired counts the timers that fired because the clock moved
	// (SetClock, AdvanceClock; 0 for a read).
	TimersFired int
}

// Clock returns the runtime's clock.
func (r *Runtime) Clock() ClockView {
	return ClockView{Now: r.now().UTC(), Manual: r.manual != nil}
}

// SetClock moves a manual clock to t (SetTime) and fires the timers due
// then; AdvanceClock moves it by d. Both answer once the due timers have
// fired (a timer whose step fails is logged and retried by the scheduler),
// and wake the scheduler and long-polling job workers, whose locks and
// backoffs may have expired. ECONFLICT when the runtime's clock is not
// manual, EINVALID for a move backwards.
func (r *Runtime) SetClock(ctx context.Context, t time.Time) (ClockView, error) {
	return r.moveClock(ctx, func(c *ManualClock) error {
		_, err := c.Set(t)
		return err
	})
}

// AdvanceClock moves a manual clock forward by d; see SetClock.
func (r *Runtime) AdvanceClock(ctx context.Context, d time.Duration) (ClockView, error) {
	return r.moveClock(ctx, func(c *ManualClock) error {
		_, err := c.Advance(d)
		return err
	})
}

// errNotManual refuses to move a real clock.
func errNotManual() error {
	return &Error{Code: ECONFLICT, Message: "the clock is not manual: only a server started with --dev --clock=manual lets its clock be set or advanced"}
}

// moveClock moves the manual clock with move, fires what the new time made
// due and wakes whoever sleeps on the old time: the scheduler (timers,
// start timers) and job long polls (expired locks, ended backoffs). The
// move and its pass over the due timers hold r.firing, so the scheduler
// cannot fire a timer the move made due before the pass counts it.
func (r *Runtime) moveClock(ctx context.Context, move func(*ManualClock) error) (ClockView, error) {
	if r.manual == nil {
		return r.Clock(), errNotManual()
	}
	r.firing.Lock()
	if err := move(r.manual); err != nil {
		r.firing.Unlock()
		return r.Clock(), err
	}
	fired, failed := r.fireDueLocked(ctx)
	r.firing.Unlock()
	if failed > 0 {
		r.log.Error("timers due after a clock move failed (the scheduler retries them)", "failed", failed)
	}
	r.wakeScheduler()
	r.wakeCleaner()
	r.jobReady.notifyAll()
	v := r.Clock()
	v.TimersFired = fired
	return v, nil
}
