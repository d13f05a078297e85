package postgres_test

import (
	"context"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/pgtest"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/postgres"
)

// cancelBesideBigBPMN is the SQLite benchmark's model: a parallel
// multi-instance service task over a cardinality given at start
// ("large"), start → end ("trivial").
const cancelBesideBigBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" id="defs" targetNamespace="urn:bench">
  <process id="large" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <serviceTask id="work" gobpm:type="large-work">
      <multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>=n</loopCardinality></multiInstanceLoopCharacteristics>
    </serviceTask>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
    <endEvent id="end"/>
  </process>
  <process id="trivial" isExecutable="true">
    <startEvent id="tstart"/>
    <sequenceFlow id="t1" sourceRef="tstart" targetRef="tend"/>
    <endEvent id="tend"/>
  </process>
</definitions>`

// BenchmarkCancelLargeMultiInstanceBesideBigVariable is the SQLite
// driver's benchmark of the same name on PostgreSQL: a 40,000-iteration
// parallel multi-instance cancelled while two other instances hold a 10 MB
// variable each, and trivial instances start back to back meanwhile
// (ms/other-start-max: the longest of those starts). Run it with
// -benchtime 1x.
func BenchmarkCancelLargeMultiInstanceBesideBigVariable(b *testing.B) {
	const (
		iterations = 40_000
		bigBytes   = 10 << 20
	)
	ctx := context.Background()
	db := mustOpen(b, pgtest.URL(b), postgres.Options{})
	rt := runtime.New(db, runtime.Options{})
	b.Cleanup(func() { rt.Close() })
	if _, err := rt.Resume(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := rt.Deploy(ctx, []runtime.File{{Name: "cancel.bpmn", Content: []byte(cancelBesideBigBPMN)}}); err != nil {
		b.Fatal(err)
	}
	big := map[string]any{"blob": strings.Repeat("x", bigBytes)}
	hold := func() {
		if _, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "trivial", Variables: big}); err != nil {
			b.Fatal(err)
		}
	}
	var cancel, cpu, worst time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		hold()
		v, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "large", Variables: map[string]any{"n": iterations}})
		if err != nil || v.TrackCount != iterations+1 {
			b.Fatalf("start: %v, %d tracks", err, v.TrackCount)
		}
		hold()
		var (
			wg      sync.WaitGroup
			done    = make(chan struct{})
			longest time.Duration
		)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				t0 := time.Now()
				if _, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "trivial"}); err != nil {
					b.Error(err)
					return
				}
				longest = max(longest, time.Since(t0))
			}
		}()
		b.StartTimer()
		t0, c0 := time.Now(), selfCPU(b)
		if _, err := rt.Cancel(ctx, v.ID); err != nil {
			b.Fatal(err)
		}
		cancel += time.Since(t0)
		cpu += selfCPU(b) - c0
		b.StopTimer()
		close(done)
		wg.Wait()
		worst = max(worst, longest)
		b.StartTimer()
	}
	runs := float64(b.N)
	b.ReportMetric(cancel.Seconds()*1e3/runs, "ms/cancel")
	b.ReportMetric(cpu.Seconds()*1e3/runs, "cpu-ms/cancel")
	b.ReportMetric(worst.Seconds()*1e3, "ms/other-start-max")
}

// selfCPU is the user+sys time this process has used (the PostgreSQL
// server's own is not counted).
func selfCPU(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
