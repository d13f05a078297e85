package store_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/store"
)

// TestStatsBatch: a batch sums its steps' counters and durations per
// shared row, measures an earlier step's item only as StatsClose says, and
// gives its rows in the global order.
func TestStatsBatch(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 10, 30, 0, 0, time.UTC)
	step := func(id, key string, facts ...store.FactRow) *store.StepRecord {
		return &store.StepRecord{
			Instance: store.InstanceRow{ID: store.InstanceID(id), ProcessKey: key, ProcessVersion: 1,
				Status: store.StatusRunning, CreatedAt: at, UpdatedAt: at, Revision: 2},
			PrevRevision: 1,
			Facts:        facts,
		}
	}
	pass := func(node string) []store.FactRow {
		return []store.FactRow{
			{At: at, Kind: engine.FactElementActivated, NodeID: node, TrackID: "t1"},
			{At: at.Add(5 * time.Millisecond), Kind: engine.FactElementCompleted, NodeID: node, TrackID: "t1"},
		}
	}
	var b store.StatsBatch
	b.Add(step("i1", "p", pass("b")...))
	b.Add(step("i2", "p", pass("b")...))
	b.Add(step("i3", "a", pass("z")...))
	d := b.Add(step("i4", "p", store.FactRow{At: at, Kind: engine.FactElementCompleted, NodeID: "task", TrackID: "t2"}))
	if len(d.Closes) != 1 {
		t.Fatalf("closes = %+v, want the task's", d.Closes)
	}
	b.Closed(&d, d.Closes[0], "task", at.Add(-time.Second).UnixMilli())
	b.Closed(&d, d.Closes[0], "other", at.Add(-time.Second).UnixMilli()) // opened at another element: not measured

	hour := store.StatsHour(at)
	var rows []store.StatsRowKey
	counts := map[store.StatsRowKey]store.StatsCounts{}
	for r, c := range b.Counts() {
		rows = append(rows, r)
		counts[r] = c
	}
	want := []store.StatsRowKey{{"a", hour, 1, "z"}, {"p", hour, 1, "b"}, {"p", hour, 1, "task"}}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("rows = %v, want %v", rows, want)
	}
	if c := counts[want[1]]; c.Activations != 2 || c.Completions != 2 || c.ActiveMax != 5 || c.WaitMax != -1 {
		t.Errorf("b = %+v, want 2 activations and completions, active max 5", c)
	}
	if c := counts[want[2]]; c.Activations != 0 || c.Completions != 1 || c.ActiveMax != 1000 {
		t.Errorf("task = %+v, want 1 completion, active max 1000", c)
	}
	var hists []store.StatsHistKey
	for k, h := range b.Hists() {
		hists = append(hists, k)
		var n int64
		for _, c := range h {
			n += c
		}
		if wantN := map[string]int64{"b": 2, "z": 1, "task": 1}[k.NodeID]; n != wantN {
			t.Errorf("%v counts %d durations, want %d", k, n, wantN)
		}
	}
	if !slices.IsSortedFunc(hists, store.CompareStatsHists) || len(hists) != 3 {
		t.Errorf("hists = %v, want 3 in order", hists)
	}
	if b.Len() != 6 {
		t.Errorf("Len = %d, want 6", b.Len())
	}
}
