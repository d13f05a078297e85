package main

import (
	"math"
	"slices"
	"sync"
	"time"
)

// Recorder collects latencies from many goroutines.
type Recorder struct {
	mu sync.Mutex
	d  []time.Duration // guarded by mu
}

// Add records one latency.
func (r *Recorder) Add(d time.Duration) {
	r.mu.Lock()
	r.d = append(r.d, d)
	r.mu.Unlock()
}

// Len returns how many latencies were recorded.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.d)
}

// Summary summarizes the latencies recorded so far.
func (r *Recorder) Summary() Summary {
	r.mu.Lock()
	d := slices.Clone(r.d)
	r.mu.Unlock()
	return Summarize(d)
}

// Summary is the distribution of a set of latencies.
type Summary struct {
	N                             int
	Min, Mean, P50, P95, P99, Max time.Duration
}

// Summarize sorts d in place and returns its distribution; the zero Summary
// for no values.
func Summarize(d []time.Duration) Summary {
	if len(d) == 0 {
		return Summary{}
	}
	slices.Sort(d)
	var sum time.Duration
	for _, v := range d {
		sum += v
	}
	return Summary{
		N:    len(d),
		Min:  d[0],
		Mean: sum / time.Duration(len(d)),
		P50:  Percentile(d, 50),
		P95:  Percentile(d, 95),
		P99:  Percentile(d, 99),
		Max:  d[len(d)-1],
	}
}

// Percentile returns the p-th percentile (0 < p ≤ 100) of sorted by the
// nearest-rank method: the smallest value with at least p % of the values at
// or below it. It returns 0 for an empty slice.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = max(1, min(rank, n))
	return sorted[rank-1]
}

// Pacer spaces the events of an open-loop schedule evenly at a fixed rate:
// event i is due at start + i/rate, whatever happened to the events before
// it, so a slow server cannot slow the offered load down (no coordinated
// omission: latencies are measured from the due time).
type Pacer struct {
	// Start is when event 0 is due.
	Start time.Time
	// Rate is the number of events per second (> 0).
	Rate float64
}

// Due returns when event i is due.
func (p Pacer) Due(i int) time.Time {
	return p.Start.Add(time.Duration(float64(i) * float64(time.Second) / p.Rate))
}

// Count returns how many events are due strictly before start + d.
func (p Pacer) Count(d time.Duration) int {
	if d <= 0 || p.Rate <= 0 {
		return 0
	}
	n := int(math.Ceil(d.Seconds() * p.Rate))
	// Guard the float edge: event n-1 must be due before the end.
	for n > 0 && !p.Due(n-1).Before(p.Start.Add(d)) {
		n--
	}
	return n
}

// ms converts a duration to milliseconds.
func ms(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}
