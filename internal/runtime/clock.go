package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/clock"
)

// ClockView is the runtime's clock as GET /api/v1/clock shows it.
type ClockView struct {
	// Now is the runtime's current time.
	Now time.Time
	// Manual is true when the clock is manual (--clock=manual).
	Manual bool
	// TimersFired counts the timers that fired because the clock moved
	// (SetClock, AdvanceClock; 0 for a read).
	TimersFired int
}

// Clock returns the runtime's clock.
func (r *Runtime) Clock() ClockView {
	return ClockView{Now: r.now().UTC(), Manual: r.manual != nil}
}

// SetClock moves a manual clock to t and fires the timers due then;
// AdvanceClock moves it by d. Both answer once the due timers have fired
// (a timer whose step fails is logged and retried by the scheduler), and
// wake the scheduler and long-polling job workers, whose locks and
// backoffs may have expired. ECONFLICT when the runtime's clock is not
// manual; EINVALID for a move backwards (timers already fired and facts
// already written would then lie in the future).
func (r *Runtime) SetClock(ctx context.Context, t time.Time) (ClockView, error) {
	return r.moveClock(ctx, func(c *clock.Manual) error {
		if now := c.Now(); t.Before(now) {
			return &Error{Code: EINVALID, Field: "time", Message: fmt.Sprintf(
				"the manual clock only moves forward: %s is before its time %s", t.UTC().Format(time.RFC3339Nano), now.Format(time.RFC3339Nano))}
		}
		c.Set(t)
		return nil
	})
}

// AdvanceClock moves a manual clock forward by d; see SetClock.
func (r *Runtime) AdvanceClock(ctx context.Context, d time.Duration) (ClockView, error) {
	return r.moveClock(ctx, func(c *clock.Manual) error {
		if d < 0 {
			return &Error{Code: EINVALID, Field: "advanceMs", Message: fmt.Sprintf("the manual clock only moves forward: cannot advance by %s", d)}
		}
		c.Advance(d)
		return nil
	})
}

// errNotManual refuses to move a real clock.
func errNotManual() error {
	return &Error{Code: ECONFLICT, Message: "the clock is not manual: only a server started with --dev --clock=manual lets its clock be set or advanced"}
}

// moveClock moves the manual clock with move, fires what the new time made
// due and wakes whoever sleeps on the old time: the scheduler (timers,
// start timers) and job long polls (expired locks, ended backoffs). The
// runtime moves its manual clock only here, so a move's check of the time
// and the move itself are one. The move and its pass over the due timers hold r.firing, so the scheduler
// cannot fire a timer the move made due before the pass counts it.
func (r *Runtime) moveClock(ctx context.Context, move func(*clock.Manual) error) (ClockView, error) {
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
