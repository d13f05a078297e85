package auth_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
)

func newPool(tb testing.TB, cfg auth.HashPoolConfig) *auth.HashPool {
	tb.Helper()
	p, err := auth.NewHashPool(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// eventually waits (with a generous guard against hangs, not a timing
// assertion) until cond holds.
func eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("still not %s after 30 s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestHashPoolDefaults(t *testing.T) {
	t.Parallel()
	p := newPool(t, auth.HashPoolConfig{})
	if p.Slots() != runtime.GOMAXPROCS(0) {
		t.Errorf("slots = %d, want GOMAXPROCS %d", p.Slots(), runtime.GOMAXPROCS(0))
	}
	if _, err := auth.NewHashPool(auth.HashPoolConfig{Slots: -1}); !errors.Is(err, auth.ErrInvalidConfig) {
		t.Errorf("negative slots: %v", err)
	}
}

// TestHashPoolRefusesBeyondTheQueue fills both slots and the one queue
// place: the next caller is refused at once with ErrBusy and its work
// never runs; the waiting one runs once a slot frees.
func TestHashPoolRefusesBeyondTheQueue(t *testing.T) {
	t.Parallel()
	p := newPool(t, auth.HashPoolConfig{Slots: 2, Queue: 1})
	ctx := context.Background()
	hold := make(chan struct{})
	var wg sync.WaitGroup
	var ran atomic.Int32
	for range 3 { // two run, one waits
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Do(ctx, func() { ran.Add(1); <-hold }); err != nil {
				t.Errorf("Do: %v", err)
			}
		}()
	}
	eventually(t, "two running and one waiting", func() bool { return p.Running() == 2 && p.Waiting() == 1 })
	refusedRan := false
	err := p.Do(ctx, func() { refusedRan = true })
	if !errors.Is(err, auth.ErrBusy) || refusedRan {
		t.Fatalf("a caller beyond slots and queue: err %v, ran %v; want ErrBusy, not run", err, refusedRan)
	}
	if _, err := p.HashPassword(ctx, seeded(1), "correct horse battery", auth.TestParams()); !errors.Is(err, auth.ErrBusy) {
		t.Errorf("HashPassword beyond the queue: %v", err)
	}
	if err := p.VerifyPassword(ctx, "$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5", "x"); !errors.Is(err, auth.ErrBusy) {
		t.Errorf("VerifyPassword beyond the queue: %v", err)
	}
	if n := ran.Load(); n != 2 {
		t.Errorf("%d ran while both slots were held, want 2", n)
	}
	close(hold)
	wg.Wait()
	if n := ran.Load(); n != 3 {
		t.Errorf("%d ran in all, want 3 (the waiting one too)", n)
	}
	if p.Running() != 0 || p.Waiting() != 0 {
		t.Errorf("after all: %d running, %d waiting", p.Running(), p.Waiting())
	}
}

// TestHashPoolWaitEndsWithTheContext: a caller waiting for a slot gives up
// when its request ends, without running its work or keeping its place.
func TestHashPoolWaitEndsWithTheContext(t *testing.T) {
	t.Parallel()
	p := newPool(t, auth.HashPoolConfig{Slots: 1, Queue: 1})
	hold := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = p.Do(context.Background(), func() { <-hold })
	}()
	eventually(t, "one running", func() bool { return p.Running() == 1 })
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	ran := atomic.Bool{}
	go func() { errc <- p.Do(ctx, func() { ran.Store(true) }) }()
	eventually(t, "one waiting", func() bool { return p.Waiting() == 1 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) || ran.Load() {
		t.Errorf("cancelled wait: %v, ran %v", err, ran.Load())
	}
	if p.Waiting() != 0 {
		t.Errorf("the cancelled caller keeps its queue place")
	}
	close(hold)
	<-done
}

// TestHashPoolBoundsConcurrency: however many callers, no more than Slots
// run at once, and every caller either runs or is refused with ErrBusy.
func TestHashPoolBoundsConcurrency(t *testing.T) {
	t.Parallel()
	p := newPool(t, auth.HashPoolConfig{Slots: 3, Queue: 5})
	var running, peak, ran, busy atomic.Int32
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := p.Do(context.Background(), func() {
				n := running.Add(1)
				for {
					m := peak.Load()
					if n <= m || peak.CompareAndSwap(m, n) {
						break
					}
				}
				runtime.Gosched()
				running.Add(-1)
				ran.Add(1)
			})
			switch {
			case errors.Is(err, auth.ErrBusy):
				busy.Add(1)
			case err != nil:
				t.Errorf("Do: %v", err)
			}
		}()
	}
	wg.Wait()
	if peak.Load() > 3 {
		t.Errorf("%d ran at once, want at most 3", peak.Load())
	}
	if ran.Load()+busy.Load() != 200 || ran.Load() == 0 {
		t.Errorf("ran %d, busy %d: want 200 in all, some run", ran.Load(), busy.Load())
	}
}
