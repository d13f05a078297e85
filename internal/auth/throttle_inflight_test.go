package auth_test

import (
	"errors"
	"testing"

	"github.com/gobpm/gobpm/internal/auth"
)

// TestThrottleCapsAttemptsInFlight: at most User.InFlight attempts for one
// name and Address.InFlight from one address run at once; the refusal is a
// short lock-out; releasing (once or twice) frees the place.
func TestThrottleCapsAttemptsInFlight(t *testing.T) {
	t.Parallel()
	th, _ := newThrottle(t, nil) // 2 per name, 8 per address
	r1, err := th.Begin("ann", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := th.Begin("ANN", "192.0.2.2")
	if err != nil {
		t.Fatal(err)
	}
	if d := lockedFor(t, mustRefuse(t, th, "ann", "192.0.2.3")); d != auth.InFlightRetryAfter {
		t.Errorf("third attempt for ann: retry after %v, want %v", d, auth.InFlightRetryAfter)
	}
	r1()
	r1() // harmless
	if u, _ := th.InFlight("ann", ""); u != 1 {
		t.Errorf("in flight for ann after one release = %d, want 1", u)
	}
	r3, err := th.Begin("ann", "192.0.2.3")
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	r2()
	r3()

	var releases []func()
	for i := range 8 {
		r, err := th.Begin(string(rune('a'+i))+"-user", "198.51.100.9")
		if err != nil {
			t.Fatalf("attempt %d from one address: %v", i+1, err)
		}
		releases = append(releases, r)
	}
	lockedFor(t, mustRefuse(t, th, "zed", "198.51.100.9"))
	if _, err := th.Begin("zed", "198.51.100.10"); err != nil {
		t.Errorf("another address is not held up: %v", err)
	}
	for _, r := range releases {
		r()
	}
	if u, a := th.InFlight("a-user", "198.51.100.9"); u != 0 || a != 0 {
		t.Errorf("after every release: %d, %d in flight", u, a)
	}
}

// TestThrottleCountsInFlightAsFailures: with 4 failures of 5 allowed, one
// attempt may run, and while it does no other for the name may start, so
// concurrency buys no extra guess.
func TestThrottleCountsInFlightAsFailures(t *testing.T) {
	t.Parallel()
	th, _ := newThrottle(t, nil)
	if err := failN(t, th, 4, "ann", "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	release, err := th.Begin("ann", "192.0.2.1")
	if err != nil {
		t.Fatalf("the fifth attempt: %v", err)
	}
	mustRefuse(t, th, "ann", "192.0.2.7")
	if d := lockedFor(t, th.Failure("ann", "192.0.2.1")); d == 0 {
		t.Error("the fifth failure does not lock out")
	}
	release()
	mustRefuse(t, th, "ann", "192.0.2.1")
}

func TestThrottleRefusesNegativeInFlight(t *testing.T) {
	t.Parallel()
	cfg := auth.DefaultThrottleConfig()
	cfg.User.InFlight = -1
	if _, err := auth.NewThrottle(cfg); !errors.Is(err, auth.ErrInvalidConfig) {
		t.Errorf("negative in-flight cap: %v", err)
	}
}

// mustRefuse calls Begin, which must refuse.
func mustRefuse(tb testing.TB, th *auth.Throttle, user, addr string) error {
	tb.Helper()
	release, err := th.Begin(user, addr)
	release()
	if err == nil {
		tb.Fatalf("Begin(%q, %q) let an attempt start", user, addr)
	}
	return err
}
