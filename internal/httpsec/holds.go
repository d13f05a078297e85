package httpsec

import "sync"

// DefaultMaxHolds is how many requests one caller may hold open at once
// by default: long polls of the job API, or event streams of the cockpit.
const DefaultMaxHolds = 32

// Holds caps the requests each caller holds open at once (a long poll, a
// server-sent event stream): such a request costs the server a goroutine,
// a connection and a subscription for minutes, so one caller opening
// thousands must be refused, not served. Callers are keys: an
// authenticated user, or the client's address for anonymous callers. The
// zero value is not usable; use NewHolds. Holds is safe for concurrent
// use.
type Holds struct {
	max int
	mu  sync.Mutex
	n   map[string]int // guarded by mu; keys with a hold only
}

// NewHolds returns a cap of max held requests per caller; max <= 0 means
// no cap.
func NewHolds(max int) *Holds {
	return &Holds{max: max, n: map[string]int{}}
}

// Max returns the cap per caller (<= 0: none).
func (h *Holds) Max() int { return h.max }

// Acquire takes one hold for key. It reports false, taking nothing, when
// key holds the cap already; otherwise release gives the hold back and
// must be called exactly once, when the request ends.
func (h *Holds) Acquire(key string) (release func(), ok bool) {
	if h.max <= 0 {
		return func() {}, true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n[key] >= h.max {
		return nil, false
	}
	h.n[key]++
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.n[key]--; h.n[key] <= 0 {
				delete(h.n, key)
			}
		})
	}, true
}

// Held returns how many requests key holds now, for tests and metrics.
func (h *Holds) Held(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n[key]
}
