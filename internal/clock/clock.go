// Package clock holds Manual, the one hand-moved clock of gobpm: the
// server's --clock=manual, the gobpmtest harness and every test that moves
// time instead of sleeping.
package clock

import (
	"sync"
	"time"
)

// Manual is a clock that stands still until it is set or advanced. Its
// methods are safe for concurrent use. It keeps what it is told: a caller
// that must only move forward (the runtime's POST /api/v1/clock) checks
// that itself.
type Manual struct {
	mu    sync.Mutex
	now   time.Time       // guarded by mu
	reads []chan struct{} // guarded by mu; closed at the next Now
}

// NewManual returns a manual clock standing at start, in UTC.
func NewManual(start time.Time) *Manual {
	return &Manual{now: start.UTC()}
}

// Now returns the clock's time and tells whoever waits in NextRead.
func (c *Manual) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range c.reads {
		close(ch)
	}
	c.reads = nil
	return c.now
}

// Set moves the clock to t and returns it (in UTC).
func (c *Manual) Set(t time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t.UTC()
	return c.now
}

// Advance moves the clock by d and returns the new time.
func (c *Manual) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// NextRead returns a channel closed at the clock's next read (Now): a test
// learns that a waiting reader (a long poll, a scheduler) has looked at the
// time, so moving the clock now is seen, without sleeping.
func (c *Manual) NextRead() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	c.reads = append(c.reads, ch)
	return ch
}
