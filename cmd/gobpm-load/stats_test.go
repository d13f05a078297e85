package main

import (
	"context"
	"io"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	t.Parallel()
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"median of odd", ms(1, 2, 3), 50, 2 * time.Millisecond},
		{"median of even is the lower", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p99 of 100", hundred, 99, 99 * time.Millisecond},
		{"p95 of 100", hundred, 95, 95 * time.Millisecond},
		{"p100 is the max", hundred, 100, 100 * time.Millisecond},
		{"p99 of 10 is the max", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		{"tiny p is the min", ms(5, 6, 7), 0.1, 5 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	if s := Summarize(nil); s != (Summary{}) {
		t.Errorf("empty: %+v", s)
	}
	d := []time.Duration{5, 1, 4, 2, 3}
	s := Summarize(d)
	want := Summary{N: 5, Min: 1, Mean: 3, P50: 3, P95: 5, P99: 5, Max: 5}
	if s != want {
		t.Errorf("Summarize = %+v, want %+v", s, want)
	}
	if !slices.IsSorted(d) {
		t.Error("Summarize does not sort in place")
	}
	var r Recorder
	for _, v := range []time.Duration{3, 1, 2} {
		r.Add(v)
	}
	if got := r.Summary(); got.N != 3 || got.P50 != 2 || r.Len() != 3 {
		t.Errorf("Recorder summary = %+v", got)
	}
}

func TestPacer(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		rate      float64
		d         time.Duration
		wantCount int
		wantDue3  time.Duration // Due(3) − start
	}{
		{1000, time.Second, 1000, 3 * time.Millisecond},
		{3, time.Second, 3, time.Second},
		{2500, 10 * time.Second, 25000, 1200 * time.Microsecond},
		{0.5, 10 * time.Second, 5, 6 * time.Second},
		{1000, 0, 0, 3 * time.Millisecond},
	}
	for _, tt := range tests {
		p := Pacer{Start: start, Rate: tt.rate}
		if got := p.Count(tt.d); got != tt.wantCount {
			t.Errorf("rate %v: Count(%v) = %d, want %d", tt.rate, tt.d, got, tt.wantCount)
		}
		if got := p.Due(3).Sub(start); got != tt.wantDue3 {
			t.Errorf("rate %v: Due(3) = start + %v, want + %v", tt.rate, got, tt.wantDue3)
		}
		// Every counted event is due inside the window, evenly spaced.
		if n := p.Count(tt.d); n > 0 && !p.Due(n-1).Before(start.Add(tt.d)) {
			t.Errorf("rate %v: event %d due at the end of the window", tt.rate, n-1)
		}
		for i := 1; i < min(p.Count(tt.d), 100); i++ {
			if p.Due(i).Sub(p.Due(i-1)) <= 0 {
				t.Fatalf("rate %v: Due not increasing at %d", tt.rate, i)
			}
		}
	}
}

// TestOpenLoopPaces checks that the open loop makes exactly the scheduled
// calls, passes each its due time in order, and bounds what is in flight.
func TestOpenLoopPaces(t *testing.T) {
	t.Parallel()
	p := Pacer{Start: time.Now(), Rate: 400}
	var calls atomic.Int64
	var dues = make(chan time.Time, 1000)
	made, peak := openLoop(context.Background(), p, 250*time.Millisecond, 3, func(ctx context.Context, due time.Time) {
		calls.Add(1)
		dues <- due
		time.Sleep(5 * time.Millisecond)
	})
	close(dues)
	if made != 100 || calls.Load() != 100 {
		t.Fatalf("made %d calls (ran %d), want 100", made, calls.Load())
	}
	if peak < 1 || peak > 3 {
		t.Errorf("peak in flight = %d, want 1..3", peak)
	}
	seen := map[time.Time]bool{}
	for d := range dues {
		seen[d] = true
	}
	for i := range 100 {
		if !seen[p.Due(i)] {
			t.Fatalf("no call with due time %d", i)
		}
	}
}

func TestClosedLoopStopsAtEnd(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	end := time.Now().Add(100 * time.Millisecond)
	closedLoop(context.Background(), 4, end, func(ctx context.Context, e time.Time) {
		if e != end {
			t.Errorf("op got end %v, want %v", e, end)
		}
		calls.Add(1)
		time.Sleep(time.Millisecond)
	})
	if calls.Load() == 0 {
		t.Fatal("no calls")
	}
	if time.Now().Before(end) {
		t.Fatal("returned before end")
	}
}

// TestTrackerPairsEitherOrder: a worker may complete an instance's job before
// the starter has seen the start's answer; both orders count once.
func TestTrackerPairsEitherOrder(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	tr := newTracker(t0, t0.Add(time.Second), 2)
	ctx := context.Background()
	first := tr.acquire(ctx, t0.Add(time.Hour))
	second := tr.acquire(ctx, t0.Add(time.Hour))
	if !first || !second {
		t.Fatal("tokens refused")
	}
	if tr.acquire(ctx, time.Now().Add(10*time.Millisecond)) {
		t.Fatal("third token granted with two in flight")
	}
	tr.Started("a", t0.Add(10*time.Millisecond))
	tr.Ended("a", t0.Add(30*time.Millisecond))
	tr.Ended("b", t0.Add(50*time.Millisecond)) // completion seen first
	tr.Started("b", t0.Add(20*time.Millisecond))
	tr.Ended("x", t0.Add(60*time.Millisecond))    // never started by us
	tr.Started("late", t0.Add(-time.Millisecond)) // before the window: no latency
	tr.Ended("late", t0.Add(2*time.Second))       // after the window: not in it
	if got := tr.completed.Load(); got != 3 {
		t.Errorf("completed = %d, want 3", got)
	}
	if got := tr.inWindow.Load(); got != 2 {
		t.Errorf("in window = %d, want 2", got)
	}
	if got := tr.unmatched(); got != 1 {
		t.Errorf("unmatched = %d, want 1", got)
	}
	s := tr.lat.Summary()
	if s.N != 2 || s.Min != 20*time.Millisecond || s.Max != 30*time.Millisecond {
		t.Errorf("latencies = %+v, want 20 ms and 30 ms", s)
	}
	if !tr.acquire(ctx, time.Now().Add(10*time.Millisecond)) {
		t.Error("completions did not release their tokens")
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	good := [][]string{
		{"-spawn"},
		{"-addr", "127.0.0.1:8080", "-scenario", "job,list"},
		{"-addr", "localhost:1", "-rate", "100"},
		{"-addr", "[::1]:8080", "-scenario", "mi"},
	}
	for _, args := range good {
		if _, err := ParseConfig(args, io.Discard); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
	bad := [][]string{
		{},                                 // neither -spawn nor -addr
		{"-spawn", "-addr", "127.0.0.1:1"}, // both
		{"-addr", "10.0.0.1:8080"},         // not loopback
		{"-addr", "example.com:80"},
		{"-spawn", "-scenario", "nope"},
		{"-spawn", "-concurrency", "0"},
		{"-spawn", "-batch", "5000"},
		{"-spawn", "-duration", "1ms"},
		{"-spawn", "extra"},
	}
	for _, args := range bad {
		if _, err := ParseConfig(args, io.Discard); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	c, _ := ParseConfig([]string{"-spawn", "-scenario", "list,job", "-concurrency", "5"}, io.Discard)
	if got, _ := c.scenarios(); !slices.Equal(got, []string{"job", "list"}) {
		t.Errorf("scenarios = %v", got)
	}
	if c.Inflight != 20 {
		t.Errorf("inflight default = %d, want 4 × concurrency", c.Inflight)
	}
	c, _ = ParseConfig([]string{"-spawn"}, io.Discard)
	if got, _ := c.scenarios(); !slices.Equal(got, allScenarios) {
		t.Errorf("all = %v", got)
	}
}

func TestSeedMix(t *testing.T) {
	t.Parallel()
	count := map[string]int{}
	stored := 0
	for i := range 1000 {
		key, req, n := seedItem(i, 125)
		count[key]++
		stored += n
		if req.BusinessKey == "" {
			t.Fatal("seeded instance without business key")
		}
	}
	if count[keyListA] != 500 || count[keyListB] != 240 || count[keyJob] != 250 || count[keyParent] != 10 {
		t.Errorf("mix = %v", count)
	}
	if stored != 990+10*(1+childrenPerParent) {
		t.Errorf("stored = %d", stored)
	}
}
