package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

func benchRuntime(b *testing.B, clk *clock.Manual) *runtime.Runtime {
	b.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{Now: clk.Now})
	b.Cleanup(func() { rt.Close(); db.Close() })
	return rt
}

// startMany starts n instances of key from 8 goroutines (so group commit
// can batch them).
func startMany(b *testing.B, rt *runtime.Runtime, key string, n int) {
	b.Helper()
	var wg sync.WaitGroup
	next := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		next <- struct{}{}
	}
	close(next)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				if _, err := rt.StartInstance(context.Background(), runtime.StartRequest{ProcessKey: key}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkJobRoundTrip measures activate + complete of one job through the
// runtime over SQLite (synchronous=FULL), one worker.
func BenchmarkJobRoundTrip(b *testing.B) {
	clk := clock.NewManual(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	rt := benchRuntime(b, clk)
	ctx := context.Background()
	if _, err := rt.Deploy(ctx, []runtime.File{fixtureB(b, "job.bpmn")}); err != nil {
		b.Fatal(err)
	}
	startMany(b, rt, "job", b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		jobs, err := rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "charge-card", Worker: "bench", MaxJobs: 1, LockDuration: time.Minute})
		if err != nil || len(jobs) != 1 {
			b.Fatalf("activate: %v %d", err, len(jobs))
		}
		if err := rt.CompleteJob(ctx, jobs[0].Key, runtime.JobHolder{Token: jobs[0].LockToken}, map[string]any{"i": i}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTimers100k arms 100 000 timers (one per instance, started from 8
// goroutines) and fires them all through FireDueTimers; it reports the cost
// per timer of each phase.
func BenchmarkTimers100k(b *testing.B) {
	const n = 100_000
	for i := 0; i < b.N; i++ {
		clk := clock.NewManual(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
		rt := benchRuntime(b, clk)
		ctx := context.Background()
		if _, err := rt.Deploy(ctx, []runtime.File{fixtureB(b, "timer_only.bpmn")}); err != nil {
			b.Fatal(err)
		}
		begin := time.Now()
		startMany(b, rt, "timerOnly", n)
		armed := time.Since(begin)
		clk.Advance(time.Hour)
		begin = time.Now()
		fired, err := rt.FireDueTimers(ctx)
		if err != nil || fired != n {
			b.Fatalf("fired %d of %d: %v", fired, n, err)
		}
		b.ReportMetric(float64(armed.Nanoseconds())/n, "ns/armed-timer")
		b.ReportMetric(float64(time.Since(begin).Nanoseconds())/n, "ns/fired-timer")
	}
}

func fixtureB(b *testing.B, name string) runtime.File {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		b.Fatal(err)
	}
	return runtime.File{Name: name, Content: data}
}
