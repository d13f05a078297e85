package runtime_test

import (
	"context"
	"fmt"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
)

// largeModel is a parallel multi-instance service task over a cardinality
// given at start.
const largeModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:bench">
  <process id="large" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <serviceTask id="work" gobpm:type="large-work">
      <multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>=n</loopCardinality></multiInstanceLoopCharacteristics>
    </serviceTask>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// heapBytes reads the Go heap's current size (a lower bound of the peak
// between two reads; the benchmark reads it right after each phase).
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// BenchmarkLargeMultiInstance runs one instance whose parallel
// multi-instance body has n open service-task iterations through the real
// runtime and SQLite (synchronous=FULL), and reports what each operation
// costs: starting it (n iterations, jobs and facts in one step), completing
// one job (activate + complete; it must cost about the same for every n),
// reading the instance's view, and cancelling it. One op is one whole
// instance, so run it with -benchtime 1x.
func BenchmarkLargeMultiInstance(b *testing.B) {
	for _, n := range []int{10, 10_000, 100_000} {
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			clk := clock.NewManual(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
			rt := benchRuntime(b, clk)
			ctx := context.Background()
			if _, err := rt.Deploy(ctx, []runtime.File{{Name: "large.bpmn", Content: []byte(largeModel)}}); err != nil {
				b.Fatal(err)
			}
			const completions = 200
			var start, complete, view, cancel time.Duration
			var completeTimes []time.Duration
			for b.Loop() {
				t0 := time.Now()
				v, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "large", Variables: map[string]any{"n": n}})
				if err != nil || v.TrackCount != n+1 {
					b.Fatalf("start: %v, %d tracks", err, v.TrackCount)
				}
				start += time.Since(t0)
				jobs, err := rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "large-work", Worker: "w", MaxJobs: min(completions, n-1), LockDuration: time.Hour})
				if err != nil {
					b.Fatal(err)
				}
				for _, j := range jobs {
					t1 := time.Now()
					if err := rt.CompleteJob(ctx, j.Key, runtime.JobHolder{Token: j.LockToken}, nil); err != nil {
						b.Fatal(err)
					}
					d := time.Since(t1)
					complete += d
					completeTimes = append(completeTimes, d)
				}
				t2 := time.Now()
				if _, err := rt.Instance(ctx, v.ID); err != nil {
					b.Fatal(err)
				}
				view += time.Since(t2)
				t3 := time.Now()
				if _, err := rt.Cancel(ctx, v.ID); err != nil {
					b.Fatal(err)
				}
				cancel += time.Since(t3)
			}
			runs := float64(b.N)
			slices.Sort(completeTimes)
			b.ReportMetric(start.Seconds()*1e3/runs, "ms/start")
			b.ReportMetric(float64(completeTimes[len(completeTimes)/2].Microseconds()), "µs/complete(p50)")
			b.ReportMetric(view.Seconds()*1e3/runs, "ms/view")
			b.ReportMetric(cancel.Seconds()*1e3/runs, "ms/cancel")
			b.ReportMetric(float64(heapBytes())/(1<<20), "MiB-heap-after")
			_ = complete
		})
	}
}
