package store

import (
	"cmp"
	"iter"
	"maps"
	"slices"
)

// The shared rollup rows — a counter row per element and hour, a histogram
// per element, kind and hour — are many steps' (every instance passing an
// element in an hour adds to one row). A driver does not write them step by
// step: StatsBatch sums a commit's steps' changes per row, and the driver
// writes each row once, last in the commit, in the global row order
// CompareStatsRows gives (counter rows, then histograms). Two commits then
// take the shared rows' locks in the same order, so they cannot deadlock on
// them, and one commit of many steps writes a row once with the summed
// deltas.

// StatsRowKey names one shared counter row: a process's element in an hour
// of one version.
type StatsRowKey struct {
	ProcessKey string
	Hour       int64
	Version    int
	NodeID     string
}

// StatsHistKey names one shared histogram row: a counter row's durations of
// one kind (StatsActive, StatsWait).
type StatsHistKey struct {
	StatsRowKey
	Kind string
}

// CompareStatsRows orders shared rows: by process key, hour, version,
// element. Every driver writes a commit's rows in this order.
func CompareStatsRows(a, b StatsRowKey) int {
	return cmp.Or(cmp.Compare(a.ProcessKey, b.ProcessKey), cmp.Compare(a.Hour, b.Hour),
		cmp.Compare(a.Version, b.Version), cmp.Compare(a.NodeID, b.NodeID))
}

// CompareStatsHists orders shared histogram rows: by their counter row
// (CompareStatsRows), then kind.
func CompareStatsHists(a, b StatsHistKey) int {
	return cmp.Or(CompareStatsRows(a.StatsRowKey, b.StatsRowKey), cmp.Compare(a.Kind, b.Kind))
}

// StatsBatch sums the shared-row changes of a commit's steps. The zero
// value is an empty batch; it is owned by the commit that fills it.
type StatsBatch struct {
	counts map[StatsRowKey]StatsCounts
	hists  map[StatsHistKey][]int64 // element b counts bucket b
}

// Add derives step s's rollup changes (StatsOf), adds its counters and the
// durations it measured itself to the batch and returns the delta: the
// driver applies its instance's own items (Opens, Closes, Ended) and hands
// each close's recorded start to Closed.
func (b *StatsBatch) Add(s *StepRecord) StatsDelta {
	d := StatsOf(s)
	for k, c := range d.Counts {
		b.AddCounts(StatsRowKey{d.Key, k.Hour, k.Version, k.NodeID}, c)
	}
	for _, m := range d.Durations {
		b.AddDuration(StatsRowKey{d.Key, m.Hour, d.Version, m.NodeID}, m.Kind, m.MS)
	}
	return d
}

// Closed records the end of an item an earlier step opened: c is the close
// of d's step, node and sinceMS the element and start (Unix
// milliseconds) the store kept for it (StatsOpen). The duration is measured when c records one at node: an
// element's end at the element it opened, a wait's when its element went
// on in the step (d.WentOn), neither when c.Record is false.
func (b *StatsBatch) Closed(d *StatsDelta, c StatsClose, node string, sinceMS int64) {
	if !c.Record || (c.Kind == StatsActive && node != c.NodeID) || (c.Kind == StatsWait && !d.WentOn(node)) {
		return
	}
	b.Measured(StatsRowKey{d.Key, StatsHour(c.At), d.Version, node}, c.Kind, max(c.At.UnixMilli()-sinceMS, 0))
}

// AddCounts adds c to row r: the counters summed, the maxima the larger.
func (b *StatsBatch) AddCounts(r StatsRowKey, c StatsCounts) {
	if b.counts == nil {
		b.counts = map[StatsRowKey]StatsCounts{}
	}
	t, ok := b.counts[r]
	if !ok {
		t = StatsCounts{ActiveMax: -1, WaitMax: -1}
	}
	t.Add(c)
	b.counts[r] = t
}

// AddDuration counts a duration of ms milliseconds of kind in row r's
// histogram (its maximum is the counter row's: Measured sets both).
func (b *StatsBatch) AddDuration(r StatsRowKey, kind string, ms int64) {
	if b.hists == nil {
		b.hists = map[StatsHistKey][]int64{}
	}
	k := StatsHistKey{r, kind}
	h := b.hists[k]
	bucket := StatsBucket(ms)
	for len(h) <= bucket {
		h = append(h, 0)
	}
	h[bucket]++
	b.hists[k] = h
}

// Measured records a duration of ms milliseconds of kind at row r: its
// histogram and the row's maximum of the kind.
func (b *StatsBatch) Measured(r StatsRowKey, kind string, ms int64) {
	b.AddDuration(r, kind, ms)
	c := StatsCounts{ActiveMax: -1, WaitMax: -1}
	if kind == StatsActive {
		c.ActiveMax = ms
	} else {
		c.WaitMax = ms
	}
	b.AddCounts(r, c)
}

// Counts returns the summed counter rows in CompareStatsRows order.
func (b *StatsBatch) Counts() iter.Seq2[StatsRowKey, StatsCounts] {
	return func(yield func(StatsRowKey, StatsCounts) bool) {
		for _, r := range slices.SortedFunc(maps.Keys(b.counts), CompareStatsRows) {
			if !yield(r, b.counts[r]) {
				return
			}
		}
	}
}

// Hists returns the summed histograms in CompareStatsHists order, each as a
// dense slice whose element i counts bucket i (the caller must not keep or
// change it).
func (b *StatsBatch) Hists() iter.Seq2[StatsHistKey, []int64] {
	return func(yield func(StatsHistKey, []int64) bool) {
		for _, k := range slices.SortedFunc(maps.Keys(b.hists), CompareStatsHists) {
			if !yield(k, b.hists[k]) {
				return
			}
		}
	}
}

// Len returns how many shared rows the batch changes: counter rows plus
// histograms.
func (b *StatsBatch) Len() int { return len(b.counts) + len(b.hists) }
