package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"
)

// ErrBusy is returned by a HashPool that refuses work: every slot is busy
// and the queue is full. Nothing was hashed; the caller answers "try again
// shortly" (503 with Retry-After) without counting a failed login.
var ErrBusy = errors.New("auth: password hashing is busy")

// BusyRetryAfter is how long a refused caller is told to wait before it
// tries again: a slot frees within one hash, tens of milliseconds.
const BusyRetryAfter = time.Second

// HashPoolConfig sizes a HashPool.
type HashPoolConfig struct {
	// Slots is how many hashes may run at once; runtime.GOMAXPROCS(0) when
	// zero. Each running hash holds its Params.Memory (64 MiB by default),
	// so Slots bounds the memory hashing takes.
	Slots int
	// Queue is how many callers may wait for a slot; 2×Slots when zero. A
	// waiting caller holds no hashing memory. A caller beyond the queue is
	// refused at once with ErrBusy.
	Queue int
}

// HashPool bounds how many password hashes (HashPassword, VerifyPassword)
// run at once, and how many callers wait for one, so that no number of
// concurrent logins makes the server hold more than Slots hashes' memory.
// Every hash of a login, a set-up or a password change goes through one
// pool. It is safe for concurrent use.
type HashPool struct {
	slots   chan struct{} // a value is held while its owner hashes
	waiting chan struct{} // a value is held while its owner waits for a slot
}

// NewHashPool returns a pool sized by cfg, or an error wrapping
// ErrInvalidConfig for negative sizes.
func NewHashPool(cfg HashPoolConfig) (*HashPool, error) {
	if cfg.Slots < 0 || cfg.Queue < 0 {
		return nil, fmt.Errorf("hash pool %+v: sizes must not be negative: %w", cfg, ErrInvalidConfig)
	}
	if cfg.Slots == 0 {
		cfg.Slots = runtime.GOMAXPROCS(0)
	}
	if cfg.Queue == 0 {
		cfg.Queue = 2 * cfg.Slots
	}
	return &HashPool{slots: make(chan struct{}, cfg.Slots), waiting: make(chan struct{}, cfg.Queue)}, nil
}

// Slots returns how many hashes may run at once.
func (p *HashPool) Slots() int { return cap(p.slots) }

// Running returns how many hashes run now, for metrics and tests.
func (p *HashPool) Running() int { return len(p.slots) }

// Waiting returns how many callers wait for a slot now, for metrics and
// tests.
func (p *HashPool) Waiting() int { return len(p.waiting) }

// Do runs fn in a slot: at once when one is free, after waiting in the
// queue otherwise. It returns an error wrapping ErrBusy, without running
// fn, when the queue is full too, and ctx's error when ctx ends while it
// waits.
func (p *HashPool) Do(ctx context.Context, fn func()) error {
	if err := p.acquire(ctx); err != nil {
		return err
	}
	defer func() { <-p.slots }()
	fn()
	return nil
}

func (p *HashPool) acquire(ctx context.Context) error {
	select {
	case p.slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case p.waiting <- struct{}{}:
	default:
		return fmt.Errorf("hash: %d running, %d waiting: %w", cap(p.slots), cap(p.waiting), ErrBusy)
	}
	defer func() { <-p.waiting }()
	select {
	case p.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("hash: waiting for a slot: %w", ctx.Err())
	}
}

// HashPassword is HashPassword run in a slot of p.
func (p *HashPool) HashPassword(ctx context.Context, rand io.Reader, password string, params Params) (string, error) {
	var h string
	var herr error
	if err := p.Do(ctx, func() { h, herr = HashPassword(rand, password, params) }); err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return h, herr
}

// VerifyPassword is VerifyPassword run in a slot of p.
func (p *HashPool) VerifyPassword(ctx context.Context, encoded, password string) error {
	var verr error
	if err := p.Do(ctx, func() { verr = VerifyPassword(encoded, password) }); err != nil {
		return fmt.Errorf("verify password: %w", err)
	}
	return verr
}
