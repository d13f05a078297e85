package auth

import (
	"container/list"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Limit says when repeated login failures lock a user name or a client
// address out.
type Limit struct {
	// Failures within Window lock out.
	Failures int
	// Window is how far back failures count.
	Window time.Duration
	// LockOut is the first lock-out's length; each further lock-out of the
	// same name or address doubles it, up to MaxLockOut.
	LockOut time.Duration
	// MaxLockOut caps the lock-out's length.
	MaxLockOut time.Duration
	// InFlight caps the attempts Begin lets run at once (0: Failures).
	// Whatever it says, attempts in flight count as failures to come:
	// Begin refuses once the failures within Window plus those in flight
	// reach Failures, so concurrency cannot buy more guesses than a
	// sequence could.
	InFlight int
}

func (l Limit) validate(what string) error {
	if l.Failures < 1 || l.Window <= 0 || l.LockOut <= 0 || l.MaxLockOut < l.LockOut || l.InFlight < 0 {
		return fmt.Errorf("throttle %s limit %+v: want failures ≥ 1, window and lock-out > 0, max ≥ lock-out, in flight ≥ 0: %w",
			what, l, ErrInvalidConfig)
	}
	return nil
}

// inFlightCap is the most attempts l lets run at once.
func (l Limit) inFlightCap() int {
	if l.InFlight == 0 || l.InFlight > l.Failures {
		return l.Failures
	}
	return l.InFlight
}

// InFlightRetryAfter is what Begin's refusal of an attempt beyond the
// in-flight caps tells the caller to wait: the attempts in flight end
// within a hash or two.
const InFlightRetryAfter = time.Second

// ThrottleConfig configures a Throttle.
type ThrottleConfig struct {
	// User limits failures per user name (compared case-insensitively).
	User Limit
	// Address limits failures per client address (IPv6 per /64, since one
	// client commonly holds a whole /64).
	Address Limit
	// Forget is how long a name or address with no failure and no lock-out
	// is remembered, so escalation survives a short pause; after it the
	// next lock-out starts at LockOut again.
	Forget time.Duration
	// MaxEntries bounds how many user names and, separately, how many
	// addresses are remembered; past it the least recently seen entry is
	// evicted, preferring one that is not locked out.
	MaxEntries int
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// DefaultThrottleConfig returns the defaults: a user name is locked out
// after 5 failures in 15 minutes, an address after 50 (many people may share
// one, behind a NAT), each for 1 minute at first, doubling up to 1 hour; at
// most 2 attempts for one name and 8 from one address run at once;
// entries are forgotten after 24 idle hours; at most 10 000 names and 10 000
// addresses are remembered.
func DefaultThrottleConfig() ThrottleConfig {
	return ThrottleConfig{
		User:       Limit{Failures: 5, Window: 15 * time.Minute, LockOut: time.Minute, MaxLockOut: time.Hour, InFlight: 2},
		Address:    Limit{Failures: 50, Window: 15 * time.Minute, LockOut: time.Minute, MaxLockOut: time.Hour, InFlight: 8},
		Forget:     24 * time.Hour,
		MaxEntries: 10_000,
	}
}

// Throttle limits login attempts per user name and per client address, in
// memory. The login handler calls Begin before it verifies a password, then
// Failure or Success with the outcome, then the release Begin returned.
// (Check is Begin's lock-out test alone, for callers that do not count
// attempts in flight.) It is safe for concurrent use.
//
// Locking a user name out lets anyone who knows the name keep its owner out
// for a while; the short first lock-out bounds that. Throttle state is lost
// at restart and is per process.
type Throttle struct {
	cfg ThrottleConfig

	mu    sync.Mutex // guards users and addrs
	users *throttleSpace
	addrs *throttleSpace
}

// NewThrottle returns a Throttle for cfg, or an error wrapping
// ErrInvalidConfig.
func NewThrottle(cfg ThrottleConfig) (*Throttle, error) {
	if err := cfg.User.validate("user"); err != nil {
		return nil, err
	}
	if err := cfg.Address.validate("address"); err != nil {
		return nil, err
	}
	if cfg.Forget < cfg.User.Window || cfg.Forget < cfg.Address.Window || cfg.MaxEntries < 1 {
		return nil, fmt.Errorf("throttle: want forget ≥ windows and max entries ≥ 1: %w", ErrInvalidConfig)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Throttle{
		cfg:   cfg,
		users: newThrottleSpace(cfg.User, cfg.Forget, cfg.MaxEntries),
		addrs: newThrottleSpace(cfg.Address, cfg.Forget, cfg.MaxEntries),
	}, nil
}

// Check returns nil if a login for user from addr may be tried now, or a
// *LockedOutError (matching ErrLockedOut) saying until when it may not. An
// empty user or addr is not checked.
func (t *Throttle) Check(user, addr string) error {
	now := t.cfg.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lockedLocked(user, addr, now)
}

// Begin returns nil and a release func if a login for user from addr may
// be tried now, and counts the attempt in flight (for user and for addr)
// until release is called; the caller records the outcome (Failure or
// Success) before it calls release, so the attempt is counted all along.
// It refuses with a *LockedOutError (matching ErrLockedOut) while user or
// addr is locked out, when either already has its Limit.InFlight attempts
// running, and when its failures within the window plus its attempts in
// flight reach its Limit.Failures. An empty user or addr is not checked.
// Calling release more than once is harmless.
func (t *Throttle) Begin(user, addr string) (release func(), err error) {
	now := t.cfg.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.lockedLocked(user, addr, now); err != nil {
		return func() {}, err
	}
	uk, ak := userKey(user), addressKey(addr)
	if (user != "" && !t.users.mayStart(uk, now)) || (addr != "" && !t.addrs.mayStart(ak, now)) {
		return func() {}, &LockedOutError{Until: now.Add(InFlightRetryAfter), RetryAfter: InFlightRetryAfter}
	}
	if user != "" {
		t.users.inFlight[uk]++
	}
	if addr != "" {
		t.addrs.inFlight[ak]++
	}
	released := false
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if released {
			return
		}
		released = true
		if user != "" {
			t.users.finish(uk)
		}
		if addr != "" {
			t.addrs.finish(ak)
		}
	}, nil
}

// InFlight returns how many attempts Begin counts in flight for user and
// for addr, for metrics and tests.
func (t *Throttle) InFlight(user, addr string) (forUser, forAddr int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.users.inFlight[userKey(user)], t.addrs.inFlight[addressKey(addr)]
}

// Failure records a failed login for user from addr and returns what Check
// would return right after it.
func (t *Throttle) Failure(user, addr string) error {
	now := t.cfg.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if user != "" {
		t.users.fail(userKey(user), now)
	}
	if addr != "" {
		t.addrs.fail(addressKey(addr), now)
	}
	return t.lockedLocked(user, addr, now)
}

// Success records a successful login for user from addr: the user name's
// failures and lock-out history are cleared. The address's are not: a
// client that sprays passwords at many names must not be able to reset its
// count by logging into an account of its own; its failures age out of the
// window instead.
func (t *Throttle) Success(user, _ string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if user != "" {
		t.users.remove(userKey(user))
	}
}

// Len returns how many user names and addresses are remembered, for
// metrics and tests.
func (t *Throttle) Len() (users, addrs int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.users.entries), len(t.addrs.entries)
}

func (t *Throttle) lockedLocked(user, addr string, now time.Time) error {
	var until time.Time
	if user != "" {
		until = later(until, t.users.lockedUntil(userKey(user), now))
	}
	if addr != "" {
		until = later(until, t.addrs.lockedUntil(addressKey(addr), now))
	}
	if until.IsZero() {
		return nil
	}
	return &LockedOutError{Until: until, RetryAfter: until.Sub(now)}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// maxKeyBytes bounds a remembered key, so long names cannot inflate memory.
const maxKeyBytes = 128

func userKey(user string) string {
	k := strings.ToLower(user)
	if len(k) > maxKeyBytes {
		k = k[:maxKeyBytes]
	}
	return k
}

// addressKey reduces addr ("host", "host:port", "[v6]:port") to the unit
// that is throttled: the IPv4 address, or the IPv6 /64.
func addressKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		ap, err := netip.ParseAddrPort(addr)
		if err != nil {
			if len(addr) > maxKeyBytes {
				addr = addr[:maxKeyBytes]
			}
			return addr
		}
		a = ap.Addr()
	}
	a = a.Unmap().WithZone("")
	if a.Is6() {
		return netip.PrefixFrom(a, 64).Masked().String()
	}
	return a.String()
}

// throttleSpace remembers failures for one kind of key, least recently
// seen at the back of order.
type throttleSpace struct {
	limit      Limit
	forget     time.Duration
	maxEntries int
	entries    map[string]*list.Element // of *throttleEntry
	order      *list.List               // front: most recently seen
	// inFlight counts the attempts Begin let start and that have not been
	// released, by key. It is apart from entries, so evicting an entry never
	// loses a count; a key leaves it when its last attempt ends, so it holds
	// no more keys than there are attempts running.
	inFlight map[string]int
}

type throttleEntry struct {
	key         string
	failures    []time.Time // within the window, oldest first, at most limit.Failures
	lockedUntil time.Time
	lockouts    int // lock-outs so far, for the doubling
	lastSeen    time.Time
}

func newThrottleSpace(limit Limit, forget time.Duration, maxEntries int) *throttleSpace {
	return &throttleSpace{limit: limit, forget: forget, maxEntries: maxEntries,
		entries: map[string]*list.Element{}, order: list.New(), inFlight: map[string]int{}}
}

// mayStart reports whether one more attempt for key may run at now: fewer
// than the limit's in-flight cap run, and the failures within the window
// plus those running stay below Failures.
func (s *throttleSpace) mayStart(key string, now time.Time) bool {
	running := s.inFlight[key]
	return running < s.limit.inFlightCap() && s.recentFailures(key, now)+running+1 <= s.limit.Failures
}

// recentFailures counts key's failures within the window before now.
func (s *throttleSpace) recentFailures(key string, now time.Time) int {
	e := s.lookup(key, now)
	if e == nil {
		return 0
	}
	cutoff := now.Add(-s.limit.Window)
	n := 0
	for _, at := range e.failures {
		if at.After(cutoff) {
			n++
		}
	}
	return n
}

// finish ends one attempt of key in flight.
func (s *throttleSpace) finish(key string) {
	if n := s.inFlight[key]; n > 1 {
		s.inFlight[key] = n - 1
	} else {
		delete(s.inFlight, key)
	}
}

// stale reports whether e can be forgotten at now.
func (s *throttleSpace) stale(e *throttleEntry, now time.Time) bool {
	return !now.Before(later(e.lastSeen, e.lockedUntil).Add(s.forget))
}

func (s *throttleSpace) lookup(key string, now time.Time) *throttleEntry {
	el, ok := s.entries[key]
	if !ok {
		return nil
	}
	e := el.Value.(*throttleEntry)
	if s.stale(e, now) {
		s.remove(key)
		return nil
	}
	return e
}

func (s *throttleSpace) lockedUntil(key string, now time.Time) time.Time {
	e := s.lookup(key, now)
	if e == nil || !now.Before(e.lockedUntil) {
		return time.Time{}
	}
	return e.lockedUntil
}

func (s *throttleSpace) fail(key string, now time.Time) {
	e := s.lookup(key, now)
	if e == nil {
		s.makeRoom(now)
		e = &throttleEntry{key: key}
		s.entries[key] = s.order.PushFront(e)
	} else {
		s.order.MoveToFront(s.entries[key])
	}
	e.lastSeen = now
	if now.Before(e.lockedUntil) {
		// The caller tried while locked out (it should have called Check):
		// the lock-out stands and this attempt counts for nothing more.
		return
	}
	cutoff := now.Add(-s.limit.Window)
	kept := e.failures[:0]
	for _, at := range e.failures {
		if at.After(cutoff) {
			kept = append(kept, at)
		}
	}
	e.failures = append(kept, now)
	if len(e.failures) < s.limit.Failures {
		return
	}
	e.failures = e.failures[:0]
	e.lockouts++
	d := s.limit.LockOut
	for i := 1; i < e.lockouts && d < s.limit.MaxLockOut; i++ {
		d *= 2
	}
	e.lockedUntil = now.Add(min(d, s.limit.MaxLockOut))
}

func (s *throttleSpace) remove(key string) {
	if el, ok := s.entries[key]; ok {
		s.order.Remove(el)
		delete(s.entries, key)
	}
}

// evictScan is how many of the least recently seen entries makeRoom looks
// through for one that is not locked out before it evicts the oldest.
const evictScan = 16

// makeRoom forgets stale entries from the back and, if the space is still
// full, evicts one entry.
func (s *throttleSpace) makeRoom(now time.Time) {
	for el := s.order.Back(); el != nil; {
		e := el.Value.(*throttleEntry)
		if !s.stale(e, now) {
			break
		}
		prev := el.Prev()
		s.remove(e.key)
		el = prev
	}
	if len(s.entries) < s.maxEntries {
		return
	}
	victim := s.order.Back()
	el := victim
	for i := 0; i < evictScan && el != nil; i++ {
		if !now.Before(el.Value.(*throttleEntry).lockedUntil) {
			victim = el
			break
		}
		el = el.Prev()
	}
	s.remove(victim.Value.(*throttleEntry).key)
}
