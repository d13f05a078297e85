package auth_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/clock"
)

func newThrottle(tb testing.TB, mutate func(*auth.ThrottleConfig)) (*auth.Throttle, *clock.Manual) {
	tb.Helper()
	clock := newFakeClock()
	cfg := auth.DefaultThrottleConfig()
	cfg.Now = clock.Now
	if mutate != nil {
		mutate(&cfg)
	}
	th, err := auth.NewThrottle(cfg)
	if err != nil {
		tb.Fatalf("NewThrottle: %v", err)
	}
	return th, clock
}

// lockedFor returns how long err locks out, 0 for nil; it fails on any
// other error.
func lockedFor(tb testing.TB, err error) time.Duration {
	tb.Helper()
	if err == nil {
		return 0
	}
	var lo *auth.LockedOutError
	if !errors.As(err, &lo) || !errors.Is(err, auth.ErrLockedOut) {
		tb.Fatalf("error %v is not a lock-out", err)
	}
	return lo.RetryAfter
}

func failN(tb testing.TB, th *auth.Throttle, n int, user, addr string) error {
	tb.Helper()
	var err error
	for range n {
		err = th.Failure(user, addr)
	}
	return err
}

func TestThrottleUserLockOutAndRecovery(t *testing.T) {
	t.Parallel()
	th, clock := newThrottle(t, nil) // user: 5 in 15m, 1m doubling to 1h
	if d := lockedFor(t, failN(t, th, 4, "ann", "192.0.2.1")); d != 0 {
		t.Fatalf("locked after 4 failures: %v", d)
	}
	if d := lockedFor(t, th.Failure("ann", "192.0.2.1")); d != time.Minute {
		t.Fatalf("5th failure: locked for %v, want 1m", d)
	}
	// From any address, in any case.
	if d := lockedFor(t, th.Check("ANN", "198.51.100.7")); d != time.Minute {
		t.Fatalf("Check(ANN, other address): %v, want 1m", d)
	}
	if d := lockedFor(t, th.Check("bob", "192.0.2.1")); d != 0 {
		t.Fatalf("another user from the same address is locked: %v", d)
	}
	clock.Advance(59 * time.Second)
	if d := lockedFor(t, th.Check("ann", "")); d != time.Second {
		t.Fatalf("after 59s: %v left, want 1s", d)
	}
	clock.Advance(time.Second)
	if err := th.Check("ann", ""); err != nil {
		t.Fatalf("after the lock-out: %v", err)
	}
	// The next lock-out is twice as long, then four times...
	for _, want := range []time.Duration{2 * time.Minute, 4 * time.Minute, 8 * time.Minute} {
		if d := lockedFor(t, failN(t, th, 5, "ann", "")); d != want {
			t.Fatalf("next lock-out: %v, want %v", d, want)
		}
		clock.Advance(want)
	}
	// ...and a success forgets everything.
	th.Success("Ann", "192.0.2.1")
	if d := lockedFor(t, failN(t, th, 5, "ann", "")); d != time.Minute {
		t.Fatalf("lock-out after a success: %v, want 1m again", d)
	}
}

func TestThrottleWindowAndCap(t *testing.T) {
	t.Parallel()
	th, clock := newThrottle(t, func(c *auth.ThrottleConfig) {
		c.User = auth.Limit{Failures: 3, Window: 10 * time.Minute, LockOut: time.Minute, MaxLockOut: 3 * time.Minute}
	})
	// Failures further apart than the window never lock out.
	for range 10 {
		if err := th.Failure("ann", ""); err != nil {
			t.Fatalf("spread-out failures locked out: %v", err)
		}
		clock.Advance(5*time.Minute + time.Second)
	}
	// The doubling stops at MaxLockOut.
	for _, want := range []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute, 3 * time.Minute} {
		if d := lockedFor(t, failN(t, th, 3, "bob", "")); d != want {
			t.Fatalf("lock-out: %v, want %v", d, want)
		}
		// Failures while locked out change nothing.
		if d := lockedFor(t, th.Failure("bob", "")); d != want {
			t.Fatalf("failure during lock-out: %v, want %v", d, want)
		}
		clock.Advance(want)
	}
	// After Forget without failures, escalation starts over.
	clock.Advance(24 * time.Hour)
	if d := lockedFor(t, failN(t, th, 3, "bob", "")); d != time.Minute {
		t.Fatalf("lock-out after a forgotten day: %v, want 1m", d)
	}
}

func TestThrottleAddress(t *testing.T) {
	t.Parallel()
	th, clock := newThrottle(t, func(c *auth.ThrottleConfig) {
		c.Address = auth.Limit{Failures: 4, Window: time.Hour, LockOut: 10 * time.Minute, MaxLockOut: time.Hour}
	})
	// Spraying names from one client: each name stays under its limit, the
	// address does not. Port, IPv4-mapped form and /64 neighbours count as
	// the same client.
	tests := []struct {
		user, addr string
		locked     bool
	}{
		{"u1", "2001:db8:1:2::1", false},
		{"u2", "[2001:db8:1:2::99]:443", false},
		{"u3", "2001:db8:1:2:ffff::7", false},
		{"u4", "2001:db8:1:2::1%eth0", true},
		{"u5", "2001:db8:1:3::1", false}, // the next /64
		{"u6", "192.0.2.1", false},
		{"u7", "192.0.2.1:5555", false},
		{"u8", "::ffff:192.0.2.1", false},
		{"u9", "[::ffff:192.0.2.1]:80", true},
		{"u10", "192.0.2.2", false},
	}
	for _, tt := range tests {
		if got := th.Failure(tt.user, tt.addr) != nil; got != tt.locked {
			t.Fatalf("Failure(%s, %s) locked = %v, want %v", tt.user, tt.addr, got, tt.locked)
		}
	}
	// A success from the address does not reset it (a sprayer would log
	// into its own account to do so), but it does clear the user.
	th.Success("u9", "192.0.2.1")
	if d := lockedFor(t, th.Check("someone", "192.0.2.1")); d != 10*time.Minute {
		t.Fatalf("address after a success: %v, want 10m", d)
	}
	// The longer of the two lock-outs wins.
	th2, _ := newThrottle(t, func(c *auth.ThrottleConfig) {
		c.Address = auth.Limit{Failures: 4, Window: time.Hour, LockOut: 10 * time.Minute, MaxLockOut: time.Hour}
	})
	failN(t, th2, 5, "ann", "192.0.2.1")
	if d := lockedFor(t, th2.Check("ann", "192.0.2.1")); d != 10*time.Minute {
		t.Fatalf("user 1m and address 10m: %v, want 10m", d)
	}
	clock.Advance(10 * time.Minute)
	if err := th.Check("someone", "192.0.2.1"); err != nil {
		t.Fatalf("address after its lock-out: %v", err)
	}
}

func TestThrottleBoundedMemory(t *testing.T) {
	t.Parallel()
	th, clock := newThrottle(t, func(c *auth.ThrottleConfig) { c.MaxEntries = 8 })
	failN(t, th, 5, "victim", "")
	if th.Check("victim", "") == nil {
		t.Fatal("victim not locked out")
	}
	// An attacker floods names (and addresses) to push the lock-out out.
	for i := range 100 {
		clock.Advance(time.Millisecond)
		_ = th.Failure(fmt.Sprintf("user%d", i), fmt.Sprintf("198.51.100.%d", i))
		if users, addrs := th.Len(); users > 8 || addrs > 8 {
			t.Fatalf("after %d names: %d users, %d addresses remembered, want ≤ 8", i+1, users, addrs)
		}
	}
	if th.Check("victim", "") == nil {
		t.Error("the flood evicted a live lock-out")
	}
	// Long keys are cut, so they cannot inflate memory either.
	long := string(make([]byte, 1<<20))
	_ = th.Failure(long, long)
	// Stale entries go once Forget has passed.
	clock.Advance(25 * time.Hour)
	_ = th.Failure("late", "203.0.113.1")
	if users, addrs := th.Len(); users != 1 || addrs != 1 {
		t.Errorf("after Forget: %d users, %d addresses remembered, want 1 and 1", users, addrs)
	}
}

func TestNewThrottleRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(*auth.ThrottleConfig)
	}{
		{"no failures", func(c *auth.ThrottleConfig) { c.User.Failures = 0 }},
		{"no window", func(c *auth.ThrottleConfig) { c.Address.Window = 0 }},
		{"no lock-out", func(c *auth.ThrottleConfig) { c.User.LockOut = 0 }},
		{"cap below first", func(c *auth.ThrottleConfig) { c.User.MaxLockOut = time.Second }},
		{"forget below window", func(c *auth.ThrottleConfig) { c.Forget = time.Minute }},
		{"no entries", func(c *auth.ThrottleConfig) { c.MaxEntries = 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := auth.DefaultThrottleConfig()
			tt.mutate(&cfg)
			if _, err := auth.NewThrottle(cfg); !errors.Is(err, auth.ErrInvalidConfig) {
				t.Fatalf("NewThrottle = %v, want ErrInvalidConfig", err)
			}
		})
	}
}
