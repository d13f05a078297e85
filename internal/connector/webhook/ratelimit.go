package webhook

import (
	"math"
	"sync"
	"time"
)

// buckets are the token buckets of the paths, made on first use.
type buckets struct {
	rate  float64
	burst float64
	now   func() time.Time
	mu    sync.Mutex
	// by holds each path's bucket (guarded by mu).
	by map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newBuckets(rate float64, burst int, now func() time.Time) *buckets {
	return &buckets{rate: rate, burst: float64(burst), now: now, by: map[string]*bucket{}}
}

// take takes a token of path's bucket; without one it reports how long
// until the next.
func (b *buckets) take(path string) (time.Duration, bool) {
	if b.rate < 0 {
		return 0, true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	k, ok := b.by[path]
	if !ok {
		k = &bucket{tokens: b.burst, at: now}
		b.by[path] = k
	}
	k.tokens = math.Min(b.burst, k.tokens+now.Sub(k.at).Seconds()*b.rate)
	k.at = now
	if k.tokens >= 1 {
		k.tokens--
		return 0, true
	}
	wait := time.Duration((1 - k.tokens) / b.rate * float64(time.Second))
	return wait, false
}
