package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// cancelBesideBigBPMN holds a parallel multi-instance service task over a
// cardinality given at start ("large"), a process that waits at one job
// ("holder", which keeps the big variable) and start → end ("trivial",
// the unrelated writer that must not wait long behind the cancel).
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
  <process id="holder" isExecutable="true">
    <startEvent id="hstart"/>
    <sequenceFlow id="h1" sourceRef="hstart" targetRef="hold"/>
    <serviceTask id="hold" gobpm:type="hold"/>
    <sequenceFlow id="h2" sourceRef="hold" targetRef="hend"/>
    <endEvent id="hend"/>
  </process>
  <process id="trivial" isExecutable="true">
    <startEvent id="tstart"/>
    <sequenceFlow id="t1" sourceRef="tstart" targetRef="tend"/>
    <endEvent id="tend"/>
  </process>
</definitions>`

// BenchmarkCancelLargeMultiInstanceBesideBigVariable cancels a
// 40,000-iteration parallel multi-instance while another instance holds a
// 10 MB variable (one started before the large instance, one after, so the
// big part sits on either side of the large instance's parts), through the
// real runtime and SQLite (synchronous=FULL). One op is one cancel (the
// start of the large instance is outside the timer). While the cancel runs,
// one goroutine starts trivial start → end instances back to back; the
// longest of those starts is how long the cancel held the writer against
// others. It reports cpu-ms/cancel (the process's user+sys time during the
// cancel, the concurrent starts included: steadier than the wall time on
// a shared machine), interior-overflow-pages (the overflow pages hanging
// off interior B-tree cells of the parts' tables and indexes before the
// cancel: what every seek through those cells may have to read), ms/cancel, the parts the cancel removed
// (parts-removed, counted in the store before and after) and the longest
// concurrent start (ms/other-start-max). Run it with -benchtime 1x.
func BenchmarkCancelLargeMultiInstanceBesideBigVariable(b *testing.B) {
	const (
		iterations = 40_000
		bigBytes   = 10 << 20
	)
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "bench.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	b.Cleanup(func() { rt.Close(); db.Close() })
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
	var removed, separators int
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		hold()
		v, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "large", Variables: map[string]any{"n": iterations}})
		if err != nil || v.TrackCount != iterations+1 {
			b.Fatalf("start: %v, %d tracks", err, v.TrackCount)
		}
		hold()
		separators = max(separators, overflowUnderInterior(b, path))
		before := partTotal(b, db, v.ID)
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
		t0, c0 := time.Now(), processCPU(b)
		if _, err := rt.Cancel(ctx, v.ID); err != nil {
			b.Fatal(err)
		}
		cancel += time.Since(t0)
		cpu += processCPU(b) - c0
		b.StopTimer()
		close(done)
		wg.Wait()
		worst = max(worst, longest)
		removed += before - partTotal(b, db, v.ID)
		b.StartTimer()
	}
	runs := float64(b.N)
	b.ReportMetric(cancel.Seconds()*1e3/runs, "ms/cancel")
	b.ReportMetric(cpu.Seconds()*1e3/runs, "cpu-ms/cancel")
	b.ReportMetric(float64(removed)/runs, "parts-removed")
	b.ReportMetric(worst.Seconds()*1e3, "ms/other-start-max")
	b.ReportMetric(float64(separators), "interior-overflow-pages")
}

// partTotal is how many parts the store holds for instance id.
func partTotal(tb testing.TB, db *sqlite.DB, id runtime.InstanceID) int {
	tb.Helper()
	counts, err := db.PartCounts(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// overflowUnderInterior counts the overflow pages of the database at path
// that belong to a cell of an interior page of instance_parts or one of
// its indexes (dbstat names an overflow page by its owner's path, the
// cell and "+" the page's index in the chain).
func overflowUnderInterior(tb testing.TB, path string) int {
	tb.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query(`SELECT path, pagetype FROM dbstat WHERE name IN
		(SELECT name FROM sqlite_schema WHERE tbl_name = 'instance_parts')`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	types := map[string]string{}
	var overflow []string
	for rows.Next() {
		var p, t string
		if err := rows.Scan(&p, &t); err != nil {
			tb.Fatal(err)
		}
		types[p] = t
		if t == "overflow" {
			overflow = append(overflow, p)
		}
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	n := 0
	for _, p := range overflow {
		if types[p[:strings.LastIndex(p, "/")+1]] == "internal" {
			n++
		}
	}
	return n
}

// processCPU is the user+sys time the process has used.
func processCPU(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
