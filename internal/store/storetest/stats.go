package storetest

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// statsInstance generates the two steps of one instance of process key:
// started at start, its task "work" waits (a job) for wait, then the
// instance completes — or, with fail, the task raises an incident and the
// instance is terminated after wait.
func statsInstance(n int, key string, version int, start time.Time, wait time.Duration, fail bool) []store.StepRecord {
	id := store.InstanceID(fmt.Sprintf("01900000-0000-7000-8000-%012x", 0x5000+n))
	job := fmt.Sprintf("job-%d", n)
	fact := func(seq int64, at time.Time, kind, node string) store.FactRow {
		return store.FactRow{Seq: seq, At: at, Kind: kind, NodeID: node, ScopePath: "/", TrackID: "t1"}
	}
	s1 := NewStep(id, key, version)
	s1.Instance.CreatedAt, s1.Instance.UpdatedAt = start, start
	s1.Facts = []store.FactRow{
		{Seq: 1, At: start, Kind: "instance-started", ScopePath: "/"},
		fact(2, start, "element-activated", "start"),
		fact(3, start, "element-completed", "start"),
		fact(4, start, "element-activated", "work"),
	}
	s1.Waits = []store.WaitRow{{ID: job, InstanceID: id, Kind: store.WaitJob, NodeID: "work", TrackID: "t1",
		ProcessKey: key, ProcessVersion: version, Name: "work", Retries: 3, CreatedAt: start}}
	end := start.Add(wait)
	s2 := NextStep(s1, store.StatusCompleted)
	s2.Parts, s2.RemovedParts = nil, nil
	s2.Instance.UpdatedAt, s2.Instance.EndedAt = end, end
	s2.RemovedWaits = []string{job}
	if fail {
		s2.Instance.Status = store.StatusTerminated
		s2.Facts = []store.FactRow{
			fact(5, end, "incident-created", "work"),
			fact(6, end, "element-terminated", "work"),
			{Seq: 7, At: end, Kind: "instance-terminated", ScopePath: "/"},
		}
		return []store.StepRecord{s1, s2}
	}
	s2.Facts = []store.FactRow{
		fact(5, end, "element-completed", "work"),
		fact(6, end, "element-activated", "end"),
		fact(7, end, "element-completed", "end"),
		{Seq: 8, At: end, Kind: "instance-completed", ScopePath: "/"},
	}
	return []store.StepRecord{s1, s2}
}

// testStatistics: the rollups every commit updates count activations,
// completions, incidents and cancellations per element, measure the
// active and wait durations across steps, count the process's starts and
// ends, and answer per version, for all versions and per period; a
// history retention delete leaves them as they are.
func testStatistics(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	hour := t0.Truncate(time.Hour)
	base := hour.Add(time.Minute)
	var n int
	commit := func(key string, version int, start time.Time, wait time.Duration, fail bool) {
		t.Helper()
		n++
		steps := statsInstance(n, key, version, start, wait, fail)
		for _, s := range steps {
			MustCommit(t, db, s)
		}
	}
	// v1: 20 completed instances waiting 1 s … 20 s, 2 terminated after an incident.
	for i := 1; i <= 20; i++ {
		commit("stats", 1, base.Add(time.Duration(i)*time.Second), time.Duration(i)*time.Second, false)
	}
	commit("stats", 1, base, 3*time.Second, true)
	commit("stats", 1, base, 4*time.Second, true)
	// v2: 4 instances waiting 100 ms; one more a day later.
	for i := 0; i < 4; i++ {
		commit("stats", 2, base, 100*time.Millisecond, false)
	}
	commit("stats", 2, base.Add(24*time.Hour), 100*time.Millisecond, false)
	commit("other", 1, base, time.Second, false)

	read := func(version int, from, to time.Time) map[string]store.StatsRow {
		t.Helper()
		rows, err := db.StatsRows(ctx, store.StatsFilter{ProcessKey: "stats", Version: version, From: from, To: to})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]store.StatsRow{}
		for _, r := range rows {
			m, ok := out[r.NodeID]
			if !ok {
				m = store.StatsRow{StatsCounts: store.StatsCounts{ActiveMax: -1, WaitMax: -1}, Active: map[int]int64{}, Wait: map[int]int64{}}
			}
			m.Activations += r.Activations
			m.Completions += r.Completions
			m.Incidents += r.Incidents
			m.Cancellations += r.Cancellations
			m.Failures += r.Failures
			m.ActiveMax, m.WaitMax = max(m.ActiveMax, r.ActiveMax), max(m.WaitMax, r.WaitMax)
			for b, k := range r.Active {
				m.Active[b] += k
			}
			for b, k := range r.Wait {
				m.Wait[b] += k
			}
			out[r.NodeID] = m
		}
		return out
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > want*store.StatsPrecision+1e-9 {
			t.Errorf("%s = %.1f ms, want %.1f ms within %.0f %%", what, got, want, store.StatsPrecision*100)
		}
	}
	day := 48 * time.Hour
	v1 := read(1, hour, hour.Add(day))
	work := v1["work"]
	if work.Activations != 22 || work.Completions != 20 || work.Incidents != 2 || work.Cancellations != 2 {
		t.Errorf("v1 work counts = %+v, want 22 activations, 20 completions, 2 incidents, 2 cancellations", work.StatsCounts)
	}
	active := store.StatsDistribution(work.Active, work.ActiveMax)
	wait := store.StatsDistribution(work.Wait, work.WaitMax)
	if active.Count != 20 || wait.Count != 20 {
		t.Errorf("v1 work measured %d active and %d wait durations, want 20 each (terminated ones not counted)", active.Count, wait.Count)
	}
	for _, d := range []struct {
		name string
		got  store.DurationStats
	}{{"active", active}, {"wait", wait}} {
		near(d.name+" p50", d.got.P50, 10_000)
		near(d.name+" p90", d.got.P90, 18_000)
		near(d.name+" p99", d.got.P99, 20_000)
		if d.got.Max != 20_000 {
			t.Errorf("%s max = %v, want 20000 exactly", d.name, d.got.Max)
		}
	}
	if s := v1["start"]; s.Activations != 22 || s.Completions != 22 || store.StatsDistribution(s.Active, s.ActiveMax).Max != 0 {
		t.Errorf("v1 start = %+v, want 22 activations and completions of 0 ms", s.StatsCounts)
	}
	p := v1[store.StatsProcessNode]
	if p.Activations != 22 || p.Completions != 20 || p.Cancellations != 2 || p.Incidents != 2 {
		t.Errorf("v1 process = %+v, want 22 starts, 20 completions, 2 cancellations, 2 incidents", p.StatsCounts)
	}
	if d := store.StatsDistribution(p.Active, p.ActiveMax); d.Count != 20 || d.Max != 20_000 {
		t.Errorf("v1 instance durations = %+v, want 20 up to 20 s", d)
	}

	if w := read(2, hour, hour.Add(day))["work"]; w.Activations != 5 || w.Completions != 5 {
		t.Errorf("v2 work = %+v, want 5 activations and completions", w.StatsCounts)
	} else if d := store.StatsDistribution(w.Wait, w.WaitMax); d.Count != 5 || d.Max != 100 {
		t.Errorf("v2 wait = %+v, want 5 of 100 ms", d)
	}
	if w := read(0, hour, hour.Add(day))["work"]; w.Activations != 27 {
		t.Errorf("all versions: work activations = %d, want 27", w.Activations)
	}
	// The period: [hour, hour+1h) leaves the next day's instance out.
	if w := read(2, hour, hour.Add(time.Hour))["work"]; w.Activations != 4 {
		t.Errorf("v2 first hour: work activations = %d, want 4", w.Activations)
	}
	if got := read(1, hour.Add(-2*time.Hour), hour); len(got) != 0 {
		t.Errorf("the hours before: %d rows, want none", len(got))
	}
	// Retention deletes history, not the rollups.
	if hs, ok := db.Store.(store.HousekeepingStore); ok {
		if err := hs.DeleteInstance(ctx, "01900000-0000-7000-8000-000000005001"); err != nil {
			t.Fatal(err)
		}
		if w := read(1, hour, hour.Add(day))["work"]; w.Activations != 22 {
			t.Errorf("after a retention delete: work activations = %d, want 22", w.Activations)
		}
	}
}

// testStatisticsOpenItems: a wait written again (a failed job's retry)
// keeps its start, and a wait withdrawn without its element going on (a
// boundary timer of a task that completed) is not measured.
func testStatisticsOpenItems(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	start := t0.Truncate(time.Hour).Add(time.Minute)
	const id = store.InstanceID("01900000-0000-7000-8000-0000000059a1")
	s1 := NewStep(id, "open", 1)
	s1.Instance.CreatedAt, s1.Instance.UpdatedAt = start, start
	s1.Facts = []store.FactRow{
		{Seq: 1, At: start, Kind: "instance-started", ScopePath: "/"},
		{Seq: 2, At: start, Kind: "element-activated", NodeID: "work", ScopePath: "/", TrackID: "t1"},
	}
	job := store.WaitRow{ID: "job-o", InstanceID: id, Kind: store.WaitJob, NodeID: "work", TrackID: "t1",
		ProcessKey: "open", ProcessVersion: 1, Name: "work", Retries: 3, CreatedAt: start}
	timer := store.WaitRow{ID: "timer-o", InstanceID: id, Kind: store.WaitTimer, NodeID: "late", TrackID: "t1",
		ProcessKey: "open", ProcessVersion: 1, DueAt: start.Add(time.Hour), CreatedAt: start}
	s1.Waits = []store.WaitRow{job, timer}
	MustCommit(t, db, s1)
	// A retry 5 s later writes the job again, with a new creation time.
	s2 := NextStep(s1, store.StatusRunning)
	s2.Parts, s2.RemovedParts = nil, nil
	s2.Instance.UpdatedAt = start.Add(5 * time.Second)
	retried := job
	retried.Retries, retried.CreatedAt = 2, start.Add(5*time.Second)
	s2.Waits = []store.WaitRow{retried}
	s2.Facts = []store.FactRow{{Seq: 3, At: s2.Instance.UpdatedAt, Kind: "job-failed", NodeID: "work", ScopePath: "/"}}
	MustCommit(t, db, s2)
	// Completed at 8 s: the job waited 8 s, the timer is withdrawn.
	s3 := NextStep(s2, store.StatusRunning)
	s3.Parts, s3.RemovedParts = nil, nil
	s3.Instance.UpdatedAt = start.Add(8 * time.Second)
	s3.RemovedWaits = []string{"job-o", "timer-o"}
	s3.Facts = []store.FactRow{{Seq: 4, At: s3.Instance.UpdatedAt, Kind: "element-completed", NodeID: "work", ScopePath: "/", TrackID: "t1"}}
	MustCommit(t, db, s3)
	rows, err := db.StatsRows(ctx, store.StatsFilter{ProcessKey: "open", From: start.Add(-time.Hour), To: start.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]store.StatsRow{}
	for _, r := range rows {
		by[r.NodeID] = r
	}
	w := by["work"]
	if d := store.StatsDistribution(w.Wait, w.WaitMax); d.Count != 1 || d.Max != 8000 {
		t.Errorf("work wait = %+v, want one of 8000 ms (the first write's start)", d)
	}
	if d := store.StatsDistribution(w.Active, w.ActiveMax); d.Count != 1 || d.Max != 8000 {
		t.Errorf("work active = %+v, want one of 8000 ms", d)
	}
	if l, ok := by["late"]; ok && len(l.Wait) != 0 {
		t.Errorf("the withdrawn timer was measured: %+v", l.Wait)
	}
}

// testStatisticsManyCloses: a step that ends an instance and many of its
// items at once (a large multi-instance completing or cancelled with its
// instance) measures each item as steps ending a few would: for 3 and for
// 60 parallel jobs (a driver may read the ending instance's items in one
// statement past some count), completed after 4 s with the instance, every
// job counts once with its 4 s of active and wait time.
func testStatisticsManyCloses(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	start := t0.Truncate(time.Hour).Add(time.Minute)
	end := start.Add(4 * time.Second)
	for k, n := range []int{3, 60} {
		key := fmt.Sprintf("many%d", n)
		id := store.InstanceID(fmt.Sprintf("01900000-0000-7000-8000-%012x", 0x7000+k))
		s1 := NewStep(id, key, 1)
		s1.Instance.CreatedAt, s1.Instance.UpdatedAt = start, start
		s1.Facts = []store.FactRow{{Seq: 1, At: start, Kind: "instance-started", ScopePath: "/"}}
		seq := int64(2)
		for i := range n {
			track, job := fmt.Sprintf("t%d", i+1), fmt.Sprintf("%s-job-%d", key, i+1)
			s1.Facts = append(s1.Facts, store.FactRow{Seq: seq, At: start, Kind: "element-activated", NodeID: "work", ScopePath: "/", TrackID: track})
			s1.Waits = append(s1.Waits, store.WaitRow{ID: job, InstanceID: id, Kind: store.WaitJob, NodeID: "work", TrackID: track,
				ProcessKey: key, ProcessVersion: 1, Name: "work", Retries: 3, CreatedAt: start})
			seq++
		}
		s2 := NextStep(s1, store.StatusCompleted)
		s2.Parts, s2.RemovedParts, s2.Facts = nil, nil, nil
		s2.Instance.UpdatedAt, s2.Instance.EndedAt = end, end
		for _, w := range s1.Waits {
			s2.RemovedWaits = append(s2.RemovedWaits, w.ID)
		}
		for i := range n {
			s2.Facts = append(s2.Facts, store.FactRow{Seq: seq, At: end, Kind: "element-completed", NodeID: "work", ScopePath: "/",
				TrackID: fmt.Sprintf("t%d", i+1)})
			seq++
		}
		s2.Facts = append(s2.Facts, store.FactRow{Seq: seq, At: end, Kind: "instance-completed", ScopePath: "/"})
		MustCommit(t, db, s1)
		MustCommit(t, db, s2)
		rows, err := db.StatsRows(ctx, store.StatsFilter{ProcessKey: key, Version: 1, From: start.Truncate(time.Hour), To: end.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		var work *store.StatsRow
		for i := range rows {
			if rows[i].NodeID == "work" {
				work = &rows[i]
			}
		}
		if work == nil {
			t.Fatalf("%d jobs: no statistics of work in %+v", n, rows)
		}
		if work.Activations != int64(n) || work.Completions != int64(n) || work.Cancellations != 0 {
			t.Errorf("%d jobs: work counts = %+v", n, work.StatsCounts)
		}
		active := store.StatsDistribution(work.Active, work.ActiveMax)
		wait := store.StatsDistribution(work.Wait, work.WaitMax)
		if active.Count != int64(n) || wait.Count != int64(n) || active.Max != 4000 || wait.Max != 4000 {
			t.Errorf("%d jobs: active %+v, wait %+v; want %d of 4000 ms each", n, active, wait, n)
		}
	}
}
