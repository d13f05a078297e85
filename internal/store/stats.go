package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
)

// Element statistics (docs/statistics.md): rollups the commit of every step
// updates in its own transaction, per process key, version, element and
// UTC hour — counts, a maximum and a histogram of durations with fixed
// log-scale buckets — so a statistics query reads rollup rows only, never
// history, and retention, which deletes history, leaves them as they are.
// The process itself has the rollup row of element "" (StatsProcessNode).

// StatsProcessNode is the element id of a process's own rollup: its
// Activations are instance starts, Completions instance completions,
// Cancellations terminated instances, Failures instances ended by an
// unhandled error, Incidents every incident raised in the process, and its
// active durations those of the instances that ended.
const StatsProcessNode = ""

// Duration kinds of a rollup histogram.
const (
	// StatsActive is the time an element was active: from its activation
	// to its completion on the same track (a cancelled element's time is
	// not counted).
	StatsActive = "active"
	// StatsWait is the time a wait waited: from the wait's creation to its
	// end by its element going on (a job completed, a message or timer
	// that fired); a withdrawn wait is not counted.
	StatsWait = "wait"
)

// statsGrowth is the ratio between the bounds of two adjacent histogram
// buckets: bucket b >= 1 holds durations d with statsGrowth^(b-1) <= d ms
// < statsGrowth^b, bucket 0 those under a millisecond. A percentile is read
// as its bucket's midpoint, so it is within StatsPrecision of the exact
// value (and never above the exact maximum).
const statsGrowth = 1.1

// StatsPrecision is the relative error of a percentile read from a rollup
// histogram: half a bucket's width (5 %).
const StatsPrecision = (statsGrowth - 1) / 2

// StatsMaxBucket is the largest histogram bucket: durations beyond ~10
// years land there.
const StatsMaxBucket = 300

// StatsBucket returns the histogram bucket of a duration of ms milliseconds.
func StatsBucket(ms int64) int {
	if ms < 1 {
		return 0
	}
	b := 1 + int(math.Floor(math.Log(float64(ms))/math.Log(statsGrowth)))
	return min(b, StatsMaxBucket)
}

// StatsBucketValue returns the duration in milliseconds a percentile in
// bucket b is read as: the bucket's midpoint (0 for bucket 0).
func StatsBucketValue(b int) float64 {
	if b <= 0 {
		return 0
	}
	lo := math.Pow(statsGrowth, float64(b-1))
	return lo * (1 + statsGrowth) / 2
}

// StatsHour returns the rollup hour of t: Unix seconds truncated to the
// UTC hour.
func StatsHour(t time.Time) int64 {
	s := t.Unix()
	return s - ((s%3600)+3600)%3600
}

// StatsFilter selects the rollups a statistics query reads.
type StatsFilter struct {
	ProcessKey string
	// Version selects one version; 0 all of them.
	Version int
	// From and To bound the period [From, To); the rollups are hourly, so
	// From is rounded down and To up to the UTC hour.
	From, To time.Time
	// Timeline asks for the process's own rows (StatsProcessNode) hour by
	// hour; otherwise the rows of every element are summed over the period
	// and the versions (one row per element, Hour and Version 0).
	Timeline bool
}

// StatsPeriod returns f's period as rollup hours: [from, to) with From
// rounded down and To rounded up to the hour.
func StatsPeriod(f StatsFilter) (from, to int64) {
	from = StatsHour(f.From)
	to = StatsHour(f.To)
	if to < f.To.Unix() {
		to += 3600
	}
	return from, to
}

// StatsKey names one counter row of a rollup.
type StatsKey struct {
	Version int
	NodeID  string
	// Hour is StatsHour of the events counted.
	Hour int64
}

// StatsCounts are the counters of one rollup row.
type StatsCounts struct {
	Activations, Completions, Incidents, Cancellations, Failures int64
	// ActiveMax and WaitMax are the longest durations in milliseconds
	// (-1 when none was recorded).
	ActiveMax, WaitMax int64
}

// Add adds o's counts to c and keeps the larger maxima.
func (c *StatsCounts) Add(o StatsCounts) {
	c.Activations += o.Activations
	c.Completions += o.Completions
	c.Incidents += o.Incidents
	c.Cancellations += o.Cancellations
	c.Failures += o.Failures
	c.ActiveMax = max(c.ActiveMax, o.ActiveMax)
	c.WaitMax = max(c.WaitMax, o.WaitMax)
}

// StatsRow is one rollup row as a statistics query reads it (the
// StatisticsStore's answer before percentiles are read from it).
type StatsRow struct {
	StatsKey
	StatsCounts
	// Active and Wait are the histograms: bucket → count.
	Active, Wait map[int]int64
}

// StatsOpen is an element activation or a wait whose end is still to come:
// the store keeps its start until the step that ends it.
type StatsOpen struct {
	// Item is "t:" and the track id for an element, "w:" and the wait id
	// for a wait.
	Item   string
	NodeID string
	Since  time.Time
}

// StatsClose ends an open item from an earlier step: the store looks its
// start up (StatsOpen) and forgets it, and when Record is set records the
// duration at the element — for an element when NodeID matches the one
// opened, for a wait (NodeID "") when its element went on in the step
// (StatsDelta.WentOn), not when it was withdrawn. Record is false for an
// element cancelled.
type StatsClose struct {
	Item   string
	NodeID string
	Kind   string
	At     time.Time
	Record bool
}

// StatsDuration is one duration the step measured itself.
type StatsDuration struct {
	NodeID string
	Kind   string
	Hour   int64
	MS     int64
}

// StatsDelta is what one step changes in the rollups: StatsOf derives it,
// the driver applies it in the step's transaction.
type StatsDelta struct {
	Key     string
	Version int
	Counts  map[StatsKey]StatsCounts
	// Durations are the durations measured within the step.
	Durations []StatsDuration
	// Opens are inserted (an element's replaces the track's previous one;
	// a wait's keeps the first); Closes end items of earlier steps.
	Opens  []StatsOpen
	Closes []StatsClose
	// Ended is set when the step ends the instance: after the closes the
	// store forgets every open item of it.
	Ended bool
	// Went lists the elements activated or completed in the step, by id
	// (a wait of theirs that ended there ended by its element's doing).
	Went []string
}

// Durations in milliseconds, never negative.
func millis(d time.Duration) int64 { return max(d.Milliseconds(), 0) }

// StatsOf derives a step's changes to the rollups from its record: the
// facts (TrackID pairs an element's activation with its end), the waits
// written and removed, and the instance row. It reads nothing; the cost is
// that of the step's facts and waits.
func StatsOf(s *StepRecord) StatsDelta {
	in := &s.Instance
	d := StatsDelta{Key: in.ProcessKey, Version: in.ProcessVersion, Counts: map[StatsKey]StatsCounts{}}
	bump := func(node string, at time.Time, f func(c *StatsCounts)) {
		k := StatsKey{Version: in.ProcessVersion, NodeID: node, Hour: StatsHour(at)}
		c, ok := d.Counts[k]
		if !ok {
			c = StatsCounts{ActiveMax: -1, WaitMax: -1}
		}
		f(&c)
		d.Counts[k] = c
	}
	measured := func(node, kind string, at time.Time, ms int64) {
		d.Durations = append(d.Durations, StatsDuration{NodeID: node, Kind: kind, Hour: StatsHour(at), MS: ms})
		bump(node, at, func(c *StatsCounts) {
			if kind == StatsActive {
				c.ActiveMax = max(c.ActiveMax, ms)
			} else {
				c.WaitMax = max(c.WaitMax, ms)
			}
		})
	}
	now := in.UpdatedAt
	// Activations of this step, by track: an end in the same step pairs
	// with them without the store.
	type started struct {
		node string
		at   time.Time
	}
	open := map[string]started{}
	went := map[string]bool{} // elements that went on in this step (a wait ending there counts)
	for i := range s.Facts {
		f := &s.Facts[i]
		switch f.Kind {
		case engine.FactInstanceStarted:
			bump(StatsProcessNode, f.At, func(c *StatsCounts) { c.Activations++ })
		case engine.FactInstanceCompleted:
			bump(StatsProcessNode, f.At, func(c *StatsCounts) { c.Completions++ })
		case engine.FactInstanceTerminated:
			bump(StatsProcessNode, f.At, func(c *StatsCounts) { c.Cancellations++ })
		case engine.FactInstanceFailed:
			bump(StatsProcessNode, f.At, func(c *StatsCounts) { c.Failures++ })
		case engine.FactIncidentCreated:
			bump(f.NodeID, f.At, func(c *StatsCounts) { c.Incidents++ })
			if f.NodeID != StatsProcessNode {
				bump(StatsProcessNode, f.At, func(c *StatsCounts) { c.Incidents++ })
			}
		case engine.FactElementActivated:
			bump(f.NodeID, f.At, func(c *StatsCounts) { c.Activations++ })
			went[f.NodeID] = true
			if f.TrackID != "" {
				open[f.TrackID] = started{f.NodeID, f.At}
			}
		case engine.FactElementCompleted, engine.FactElementTerminated:
			done := f.Kind == engine.FactElementCompleted
			bump(f.NodeID, f.At, func(c *StatsCounts) {
				if done {
					c.Completions++
				} else {
					c.Cancellations++
				}
			})
			if done {
				went[f.NodeID] = true
			}
			if f.TrackID == "" {
				continue
			}
			if o, ok := open[f.TrackID]; ok {
				delete(open, f.TrackID)
				if o.node == f.NodeID && done {
					measured(f.NodeID, StatsActive, f.At, millis(f.At.Sub(o.at)))
				}
				continue
			}
			d.Closes = append(d.Closes, StatsClose{Item: "t:" + f.TrackID, NodeID: f.NodeID, Kind: StatsActive, At: f.At, Record: done})
		}
	}
	if !in.EndedAt.IsZero() {
		d.Ended = true
		if !in.CreatedAt.IsZero() && (in.Status == StatusCompleted || in.Status == StatusFailed) {
			measured(StatsProcessNode, StatsActive, in.EndedAt, millis(in.EndedAt.Sub(in.CreatedAt)))
		}
	}
	// Waits: a removed one that began in this step is measured here, one
	// of an earlier step by the store.
	began := map[string]WaitRow{}
	for _, w := range s.Waits {
		if w.InstanceID == "" || w.Kind == WaitStartTimer {
			continue
		}
		began[w.ID] = w
	}
	for _, id := range s.RemovedWaits {
		if w, ok := began[id]; ok {
			delete(began, id)
			if went[w.NodeID] {
				measured(w.NodeID, StatsWait, now, millis(now.Sub(w.CreatedAt)))
			}
			continue
		}
		d.Closes = append(d.Closes, StatsClose{Item: "w:" + id, Kind: StatsWait, At: now, Record: true})
	}
	for node := range went {
		d.Went = append(d.Went, node)
	}
	sort.Strings(d.Went)
	if d.Ended {
		return d // nothing to open: the store forgets the instance's items
	}
	tracks := make([]string, 0, len(open))
	for t := range open {
		tracks = append(tracks, t)
	}
	sort.Strings(tracks)
	for _, t := range tracks {
		d.Opens = append(d.Opens, StatsOpen{Item: "t:" + t, NodeID: open[t].node, Since: open[t].at})
	}
	waits := make([]string, 0, len(began))
	for id := range began {
		waits = append(waits, id)
	}
	sort.Strings(waits)
	for _, id := range waits {
		w := began[id]
		d.Opens = append(d.Opens, StatsOpen{Item: "w:" + id, NodeID: w.NodeID, Since: w.CreatedAt})
	}
	return d
}

// WentOn reports whether element node went on (was activated or completed)
// in the step d was derived from: a wait there ended by its element's
// doing, not withdrawn.
func (d *StatsDelta) WentOn(node string) bool {
	i := sort.SearchStrings(d.Went, node)
	return i < len(d.Went) && d.Went[i] == node
}

// StatisticsStore is the rollup side of a store: both drivers implement
// it, and apply StatsOf to every step they commit.
type StatisticsStore interface {
	// StatsRows returns the rollups of f's process (one version or all)
	// in f's period, with their histograms, in no particular order: one
	// row per element summed in the database, or with f.Timeline the
	// process's rows per hour. Its cost follows the rollup rows of the
	// period (elements × hours × buckets hit), never the number of
	// instances or facts.
	StatsRows(ctx context.Context, f StatsFilter) ([]StatsRow, error)
}

// DurationStats is the distribution of one kind of duration, in
// milliseconds: the percentiles are read from a log-scale histogram, within
// StatsPrecision of the exact values; Max is exact.
type DurationStats struct {
	Count         int64
	P50, P90, P99 float64
	Max           float64
}

// StatsDistribution reads the percentiles of a histogram (bucket → count) whose
// largest value is maxMS (-1: none recorded).
func StatsDistribution(hist map[int]int64, maxMS int64) DurationStats {
	var d DurationStats
	buckets := make([]int, 0, len(hist))
	for b, n := range hist {
		if n > 0 {
			buckets = append(buckets, b)
			d.Count += n
		}
	}
	if d.Count == 0 {
		return DurationStats{}
	}
	sort.Ints(buckets)
	top := float64(max(maxMS, 0))
	at := func(q float64) float64 {
		rank := int64(math.Ceil(q * float64(d.Count)))
		var seen int64
		for _, b := range buckets {
			seen += hist[b]
			if seen >= rank {
				return min(StatsBucketValue(b), top)
			}
		}
		return top
	}
	d.P50, d.P90, d.P99, d.Max = at(0.50), at(0.90), at(0.99), top
	return d
}

// EncodeStatsHist encodes a histogram (bucket → count) as a row's blob:
// the buckets with a count, ascending, each as the varint distance from
// the previous one and the varint count.
func EncodeStatsHist(h map[int]int64) []byte {
	buckets := make([]int, 0, len(h))
	for b, n := range h {
		if n != 0 {
			buckets = append(buckets, b)
		}
	}
	sort.Ints(buckets)
	out := make([]byte, 0, 4*len(buckets))
	prev := 0
	for _, b := range buckets {
		out = binary.AppendUvarint(out, uint64(b-prev))
		out = binary.AppendVarint(out, h[b])
		prev = b
	}
	return out
}

// AddStatsHist adds the histogram encoded in blob (EncodeStatsHist) to
// dense (index: bucket), growing it as needed, and returns it: summing many
// rows' histograms this way costs no map operation.
func AddStatsHist(blob []byte, dense []int64) ([]int64, error) {
	b := 0
	for len(blob) > 0 {
		d, k := binary.Uvarint(blob)
		if k <= 0 {
			return dense, fmt.Errorf("statistics histogram: bad bucket")
		}
		blob = blob[k:]
		n, k := binary.Varint(blob)
		if k <= 0 {
			return dense, fmt.Errorf("statistics histogram: bad count")
		}
		blob = blob[k:]
		b += int(d)
		if b > StatsMaxBucket {
			return dense, fmt.Errorf("statistics histogram: bucket %d out of range", b)
		}
		for len(dense) <= b {
			dense = append(dense, 0)
		}
		dense[b] += n
	}
	return dense, nil
}

// DecodeStatsHist adds the histogram encoded in blob (EncodeStatsHist) to h.
func DecodeStatsHist(blob []byte, h map[int]int64) error {
	b := 0
	for len(blob) > 0 {
		d, k := binary.Uvarint(blob)
		if k <= 0 {
			return fmt.Errorf("statistics histogram: bad bucket")
		}
		blob = blob[k:]
		n, k := binary.Varint(blob)
		if k <= 0 {
			return fmt.Errorf("statistics histogram: bad count")
		}
		blob = blob[k:]
		b += int(d)
		h[b] += n
	}
	return nil
}
