package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/store"
)

// Process insight (the cockpit's heatmaps, docs/statistics.md): the
// duration histogram of one element, read from the same rollups as
// Statistics, and the instances behind an element's numbers, read from a
// bounded sample of history.

// IncidentRate is the element's incidents per activation (0 without
// activations): the number the cockpit's incident heatmap shows.
func (e ElementStats) IncidentRate() float64 {
	if e.Activations == 0 {
		return 0
	}
	return float64(e.Incidents) / float64(e.Activations)
}

// HistogramBin is one bar of a duration histogram: the durations in
// [FromMS, ToMS) milliseconds and how many there were.
type HistogramBin struct {
	FromMS, ToMS float64
	Count        int64
}

// ElementHistogram is the distribution of one element's durations over a
// period: Active and Wait, each a run of bins from the first to the last
// one with a count (nil when none was measured).
type ElementHistogram struct {
	NodeID       string
	Active, Wait []HistogramBin
}

// histogramMerge is how many rollup buckets (each 10 % wide) one bin of an
// ElementHistogram spans: 8 of them make a bin about 2.1 times as wide as
// the one before, so a histogram of a few milliseconds to hours has a
// dozen bars or so.
const histogramMerge = 8

// StatisticsHistogram returns the duration histogram of element node over
// f's period and version, from the rollups Statistics reads (the counts of
// its bins add up to Statistics' Active.Count and Wait.Count), with
// Statistics' defaults and errors.
func (r *Runtime) StatisticsHistogram(ctx context.Context, f StatsFilter, node string) (ElementHistogram, error) {
	f = r.statsPeriod(f)
	rows, err := r.statsRows(ctx, f)
	if err != nil {
		return ElementHistogram{}, fmt.Errorf("runtime: statistics histogram of %s element %s: %w", f.ProcessKey, node, err)
	}
	active, wait := map[int]int64{}, map[int]int64{}
	for i := range rows {
		if rows[i].NodeID != node || node == store.StatsProcessNode {
			continue
		}
		for b, n := range rows[i].Active {
			active[b] += n
		}
		for b, n := range rows[i].Wait {
			wait[b] += n
		}
	}
	return ElementHistogram{NodeID: node, Active: histogramBins(active), Wait: histogramBins(wait)}, nil
}

// histogramBins merges rollup buckets into bins of histogramMerge buckets
// (bucket 0, under a millisecond, a bin of its own), from the first bin
// with a count to the last.
func histogramBins(hist map[int]int64) []HistogramBin {
	bin := func(b int) int {
		if b == 0 {
			return -1
		}
		return (b - 1) / histogramMerge
	}
	counts := map[int]int64{}
	lo, hi, any := 0, 0, false
	for b, n := range hist {
		if n <= 0 {
			continue
		}
		i := bin(b)
		counts[i] += n
		if !any || i < lo {
			lo = i
		}
		if !any || i > hi {
			hi = i
		}
		any = true
	}
	if !any {
		return nil
	}
	// bound is the lower edge in milliseconds of rollup bucket b >= 1
	// (docs/statistics.md: [1.1^(b-1), 1.1^b)).
	bound := func(b int) float64 { return math.Pow(1.1, float64(b-1)) }
	out := make([]HistogramBin, 0, hi-lo+1)
	for i := lo; i <= hi; i++ {
		if i < 0 {
			out = append(out, HistogramBin{FromMS: 0, ToMS: 1, Count: counts[i]})
			continue
		}
		first := 1 + i*histogramMerge
		out = append(out, HistogramBin{FromMS: bound(first), ToMS: bound(first + histogramMerge), Count: counts[i]})
	}
	return out
}

// ElementRun is one instance's time at an element within a period.
type ElementRun struct {
	InstanceID     InstanceID
	Number         int64
	ProcessVersion int
	Status         string
	// Activated is the activation measured (the longest in the period);
	// Active the time it was active, up to the sample's time when Open.
	Activated time.Time
	Active    time.Duration
	Open      bool
	// Incidents counts the incidents raised at the element in the period;
	// IncidentAt and Message are the last one's time and message.
	Incidents  int
	IncidentAt time.Time
	Message    string
}

// ElementRuns are the instances behind one element's numbers: the slowest
// and the failed ones among the Scanned most recent instances of the
// period (Limited when there were more).
type ElementRuns struct {
	NodeID  string
	Scanned int
	Limited bool
	// Slowest are the instances with the longest activations, the longest
	// first; Failed those with incidents at the element, the latest first.
	Slowest, Failed []ElementRun
}

// Bounds of ElementInstances.
const (
	// ElementRunsScan is how many of the period's instances
	// ElementInstances reads the history of.
	ElementRunsScan = 200
	// elementRunsFacts bounds the facts read per instance.
	elementRunsFacts = 5000
)

// ElementInstances lists the slowest instances at element node and those
// that failed there (incidents) over f's period and version, at most limit
// of each, reading the history of the ElementRunsScan most recently
// created instances that ran in the period: a bounded sample, unlike
// Statistics, which counts every instance. ENOTFOUND and EINVALID as
// Statistics.
func (r *Runtime) ElementInstances(ctx context.Context, f StatsFilter, node string, limit int) (ElementRuns, error) {
	f = r.statsPeriod(f)
	// statsRows checks the key, the version and the period as Statistics
	// does (its rows are not needed).
	if _, err := r.statsRows(ctx, f); err != nil {
		return ElementRuns{}, fmt.Errorf("runtime: instances at %s element %s: %w", f.ProcessKey, node, err)
	}
	from, to := store.StatsPeriod(f)
	start, end := time.Unix(from, 0).UTC(), time.Unix(to, 0).UTC()
	rows, _, err := r.store.ListInstances(ctx, InstanceFilter{ProcessKey: f.ProcessKey, ProcessVersion: f.Version,
		CreatedBefore: end, Limit: ElementRunsScan + 1})
	if err != nil {
		return ElementRuns{}, fmt.Errorf("runtime: instances at %s element %s: %w", f.ProcessKey, node, err)
	}
	out := ElementRuns{NodeID: node}
	if len(rows) > ElementRunsScan {
		rows, out.Limited = rows[:ElementRunsScan], true
	}
	now := r.now().UTC()
	for _, row := range rows {
		if !row.EndedAt.IsZero() && row.EndedAt.Before(start) {
			continue
		}
		out.Scanned++
		facts, err := r.store.History(ctx, row.ID, 0, elementRunsFacts)
		if err != nil {
			return ElementRuns{}, fmt.Errorf("runtime: history of %s: %w", row.ID, instanceErr(row.ID, err))
		}
		run, slow, failed := elementRun(facts, node, start, end, now)
		run.InstanceID, run.Number, run.ProcessVersion, run.Status = row.ID, row.Number, row.ProcessVersion, row.Status
		if slow {
			out.Slowest = append(out.Slowest, run)
		}
		if failed {
			out.Failed = append(out.Failed, run)
		}
	}
	sort.SliceStable(out.Slowest, func(i, j int) bool { return out.Slowest[i].Active > out.Slowest[j].Active })
	sort.SliceStable(out.Failed, func(i, j int) bool { return out.Failed[i].IncidentAt.After(out.Failed[j].IncidentAt) })
	if limit > 0 {
		out.Slowest = out.Slowest[:min(limit, len(out.Slowest))]
		out.Failed = out.Failed[:min(limit, len(out.Failed))]
	}
	return out, nil
}

// elementRun reads an instance's facts at node within [start, end): its
// longest activation (paired with its completion or termination in the
// same scope, first in first out; one still open is measured up to now)
// and its incidents there.
func elementRun(facts []FactRow, node string, start, end, now time.Time) (run ElementRun, slow, failed bool) {
	open := map[string][]time.Time{}
	in := func(t time.Time) bool { return !t.Before(start) && t.Before(end) }
	measure := func(at time.Time, d time.Duration, isOpen bool) {
		if !slow || d > run.Active {
			run.Activated, run.Active, run.Open, slow = at, d, isOpen, true
		}
	}
	for _, fa := range facts {
		if fa.NodeID != node {
			continue
		}
		switch fa.Kind {
		case engine.FactElementActivated:
			open[fa.ScopePath] = append(open[fa.ScopePath], fa.At)
		case engine.FactElementCompleted, engine.FactElementTerminated:
			q := open[fa.ScopePath]
			if len(q) == 0 {
				continue
			}
			at := q[0]
			open[fa.ScopePath] = q[1:]
			if fa.Kind == engine.FactElementCompleted && in(fa.At) {
				measure(at, fa.At.Sub(at), false)
			}
		case engine.FactIncidentCreated:
			if !in(fa.At) {
				continue
			}
			run.Incidents++
			failed = true
			var d struct {
				Message string `json:"message"`
			}
			run.IncidentAt, run.Message = fa.At, ""
			if json.Unmarshal(fa.Detail, &d) == nil {
				run.Message = d.Message
			}
		}
	}
	for _, q := range open {
		for _, at := range q {
			if at.Before(end) {
				upto := now
				if end.Before(now) {
					upto = end
				}
				measure(at, upto.Sub(at), true)
			}
		}
	}
	return run, slow, failed
}
