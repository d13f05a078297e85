package runtime

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/store"
)

// A histogram's bins hold every rollup bucket's count, from the first
// bin with a count to the last (empty ones between), each bin
// histogramMerge buckets wide, bucket 0 a bin of its own.
func TestHistogramBins(t *testing.T) {
	t.Parallel()
	if got := histogramBins(map[int]int64{5: 0}); got != nil {
		t.Errorf("no counts: %v", got)
	}
	hist := map[int]int64{0: 2, store.StatsBucket(3): 1, store.StatsBucket(5000): 4}
	bins := histogramBins(hist)
	var sum int64
	for i, b := range bins {
		sum += b.Count
		if i > 0 && b.FromMS != bins[i-1].ToMS {
			t.Errorf("bin %d starts at %v, the one before ends at %v", i, b.FromMS, bins[i-1].ToMS)
		}
	}
	if sum != 7 {
		t.Errorf("bins hold %d, want 7", sum)
	}
	if bins[0].FromMS != 0 || bins[0].ToMS != 1 || bins[0].Count != 2 {
		t.Errorf("first bin %+v, want [0, 1) ms holding 2", bins[0])
	}
	last := bins[len(bins)-1]
	if last.Count != 4 || last.FromMS > 5000 || last.ToMS <= 5000 {
		t.Errorf("last bin %+v does not hold 5000 ms", last)
	}
	if want := 1 + store.StatsBucket(5000-1)/histogramMerge; len(bins) != want && len(bins) != want+1 {
		t.Errorf("%d bins, want about %d", len(bins), want)
	}
	if math.Abs(bins[1].FromMS-1) > 1e-9 {
		t.Errorf("second bin starts at %v ms, want 1", bins[1].FromMS)
	}
}

// elementRun measures an element's longest activation in the period
// (pairing activations and ends in one scope in order; an open one up to
// now) and counts its incidents there.
func TestElementRun(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	fact := func(m int, kind, node, scope string) FactRow {
		return FactRow{At: at(m), Kind: kind, NodeID: node, ScopePath: scope}
	}
	detail, _ := json.Marshal(map[string]any{"message": "no way out"})
	inc := fact(50, engine.FactIncidentCreated, "task", "/")
	inc.Detail = detail
	facts := []FactRow{
		fact(0, engine.FactElementActivated, "task", "/"),
		fact(0, engine.FactElementActivated, "other", "/"),
		fact(3, engine.FactElementCompleted, "task", "/"), // 3 min
		fact(10, engine.FactElementActivated, "task", "/"),
		fact(10, engine.FactElementActivated, "task", "/sub"),
		fact(30, engine.FactElementTerminated, "task", "/sub"), // cancelled: not measured
		fact(40, engine.FactElementCompleted, "task", "/"),     // 30 min
		fact(45, engine.FactElementActivated, "task", "/"),     // open: 15 min at now
		inc,
	}
	run, slow, failed := elementRun(facts, "task", at(0), at(120), at(60))
	if !slow || run.Active != 30*time.Minute || run.Open || !run.Activated.Equal(at(10)) {
		t.Errorf("slowest %+v (slow %v), want 30 min from 10:10", run, slow)
	}
	if !failed || run.Incidents != 1 || run.Message != "no way out" || !run.IncidentAt.Equal(at(50)) {
		t.Errorf("incidents %+v (failed %v)", run, failed)
	}
	// A period that starts after the long activation ended sees the open one.
	run, slow, _ = elementRun(facts, "task", at(41), at(120), at(100))
	if !slow || !run.Open || run.Active != 55*time.Minute {
		t.Errorf("open activation %+v", run)
	}
	if _, slow, failed := elementRun(facts, "missing", at(0), at(120), at(60)); slow || failed {
		t.Error("an element without facts is neither slow nor failed")
	}
}
