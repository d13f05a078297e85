package runtime

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// Element statistics (docs/statistics.md): the store keeps rollups every
// step's commit updates (store.StatsOf); these read them for a period and
// a version, and turn the histograms into percentiles.

// StatsPrecision is the relative error of a percentile the statistics
// report (store.StatsPrecision).
const StatsPrecision = store.StatsPrecision

// Timeline bucket sizes.
const (
	BucketHour = "hour"
	BucketDay  = "day"
)

// StatsFilter is store.StatsFilter.
type StatsFilter = store.StatsFilter

// DurationStats is store.DurationStats.
type DurationStats = store.DurationStats

// ElementStats are one element's statistics over a period.
type ElementStats struct {
	NodeID                                             string
	Activations, Completions, Incidents, Cancellations int64
	// Active is the time the element was active (activation to
	// completion); Wait the time its waits waited.
	Active, Wait DurationStats
}

// ProcessStats are a process's statistics over a period [From, To) (whole
// UTC hours) and one version (Version) or all (Version 0).
type ProcessStats struct {
	Key      string
	Version  int
	From, To time.Time
	// Starts, Completions, Cancellations and Failures count instances
	// started, completed, terminated and ended by an unhandled error;
	// Incidents the incidents raised in the period.
	Starts, Completions, Cancellations, Failures, Incidents int64
	// Duration is the time of the instances that ended (completed or
	// failed) in the period, start to end.
	Duration DurationStats
	// Elements are the elements with any event in the period, by id.
	Elements []ElementStats
}

// TimelineBucket is one hour or day of a process's timeline.
type TimelineBucket struct {
	Start                                                   time.Time
	Starts, Completions, Cancellations, Failures, Incidents int64
	Duration                                                DurationStats
}

// Timeline is a process's starts, ends and durations per hour or day.
type Timeline struct {
	Key      string
	Version  int
	Bucket   string
	From, To time.Time
	// Buckets are the buckets with any event, oldest first (empty ones are
	// left out).
	Buckets []TimelineBucket
}

// DefaultStatsPeriod is the period a statistics query covers when it
// names no start: the 7 days up to its end (now when it names none).
const DefaultStatsPeriod = 7 * 24 * time.Hour

// MaxStatsPeriod is the longest period a statistics query covers.
const MaxStatsPeriod = 366 * 24 * time.Hour

// statsPeriod fills f's defaults: To now, From DefaultStatsPeriod before To.
func (r *Runtime) statsPeriod(f StatsFilter) StatsFilter {
	if f.To.IsZero() {
		f.To = r.now().UTC()
	}
	if f.From.IsZero() {
		f.From = f.To.Add(-DefaultStatsPeriod)
	}
	return f
}

// statsRows reads the rollups of f (its period filled in by statsPeriod):
// ENOTFOUND for an unknown key or version, EINVALID for an empty or too
// long period.
func (r *Runtime) statsRows(ctx context.Context, f StatsFilter) ([]store.StatsRow, error) {
	ss, ok := r.store.(store.StatisticsStore)
	if !ok {
		return nil, Errorf(EINVALID, "this store keeps no statistics")
	}
	if _, err := r.store.DefinitionVersions(ctx, f.ProcessKey); err != nil {
		return nil, err
	}
	if f.Version > 0 {
		if _, err := r.store.Definition(ctx, f.ProcessKey, f.Version); err != nil {
			return nil, err
		}
	}
	if !f.From.Before(f.To) {
		return nil, Errorf(EINVALID, "from must be before to")
	}
	if f.To.Sub(f.From) > MaxStatsPeriod {
		return nil, Errorf(EINVALID, "the period is longer than %d days", int(MaxStatsPeriod.Hours()/24))
	}
	return ss.StatsRows(ctx, f)
}

// Statistics returns the element statistics of a process over f's period
// and version (0: all), from the rollups alone: ENOTFOUND for an unknown
// key or version, EINVALID for an empty period or one longer than
// MaxStatsPeriod. A zero To is now, a zero From DefaultStatsPeriod before
// To. Versions compare by one call each.
func (r *Runtime) Statistics(ctx context.Context, f StatsFilter) (ProcessStats, error) {
	f = r.statsPeriod(f)
	rows, err := r.statsRows(ctx, f)
	if err != nil {
		return ProcessStats{}, fmt.Errorf("runtime: statistics of %s: %w", f.ProcessKey, err)
	}
	from, to := store.StatsPeriod(f)
	out := ProcessStats{Key: f.ProcessKey, Version: f.Version, From: time.Unix(from, 0).UTC(), To: time.Unix(to, 0).UTC()}
	type acc struct {
		c            store.StatsCounts
		active, wait map[int]int64
	}
	by := map[string]*acc{}
	for i := range rows {
		row := &rows[i]
		a, ok := by[row.NodeID]
		if !ok {
			a = &acc{c: store.StatsCounts{ActiveMax: -1, WaitMax: -1}, active: map[int]int64{}, wait: map[int]int64{}}
			by[row.NodeID] = a
		}
		a.c.Add(row.StatsCounts)
		for b, n := range row.Active {
			a.active[b] += n
		}
		for b, n := range row.Wait {
			a.wait[b] += n
		}
	}
	for node, a := range by {
		if node == store.StatsProcessNode {
			out.Starts, out.Completions, out.Cancellations = a.c.Activations, a.c.Completions, a.c.Cancellations
			out.Failures, out.Incidents = a.c.Failures, a.c.Incidents
			out.Duration = store.StatsDistribution(a.active, a.c.ActiveMax)
			continue
		}
		out.Elements = append(out.Elements, ElementStats{NodeID: node,
			Activations: a.c.Activations, Completions: a.c.Completions, Incidents: a.c.Incidents, Cancellations: a.c.Cancellations,
			Active: store.StatsDistribution(a.active, a.c.ActiveMax), Wait: store.StatsDistribution(a.wait, a.c.WaitMax)})
	}
	sort.Slice(out.Elements, func(i, j int) bool { return out.Elements[i].NodeID < out.Elements[j].NodeID })
	return out, nil
}

// StatisticsTimeline returns a process's starts, ends, incidents and
// instance durations per UTC hour or day (bucket: BucketHour, BucketDay)
// over f's period, with Statistics' defaults and errors (EINVALID too for
// another bucket).
func (r *Runtime) StatisticsTimeline(ctx context.Context, f StatsFilter, bucket string) (Timeline, error) {
	var size int64
	switch bucket {
	case BucketHour:
		size = 3600
	case BucketDay:
		size = 86400
	default:
		return Timeline{}, Errorf(EINVALID, "bucket %q is not hour or day", bucket)
	}
	f = r.statsPeriod(f)
	f.Timeline = true
	rows, err := r.statsRows(ctx, f)
	if err != nil {
		return Timeline{}, fmt.Errorf("runtime: statistics timeline of %s: %w", f.ProcessKey, err)
	}
	from, to := store.StatsPeriod(f)
	out := Timeline{Key: f.ProcessKey, Version: f.Version, Bucket: bucket, From: time.Unix(from, 0).UTC(), To: time.Unix(to, 0).UTC()}
	type acc struct {
		c    store.StatsCounts
		hist map[int]int64
	}
	by := map[int64]*acc{}
	for i := range rows {
		row := &rows[i]
		if row.NodeID != store.StatsProcessNode {
			continue
		}
		start := row.Hour - ((row.Hour%size)+size)%size
		a, ok := by[start]
		if !ok {
			a = &acc{c: store.StatsCounts{ActiveMax: -1, WaitMax: -1}, hist: map[int]int64{}}
			by[start] = a
		}
		a.c.Add(row.StatsCounts)
		for b, n := range row.Active {
			a.hist[b] += n
		}
	}
	for start, a := range by {
		out.Buckets = append(out.Buckets, TimelineBucket{Start: time.Unix(start, 0).UTC(),
			Starts: a.c.Activations, Completions: a.c.Completions, Cancellations: a.c.Cancellations,
			Failures: a.c.Failures, Incidents: a.c.Incidents, Duration: store.StatsDistribution(a.hist, a.c.ActiveMax)})
	}
	sort.Slice(out.Buckets, func(i, j int) bool { return out.Buckets[i].Start.Before(out.Buckets[j].Start) })
	return out, nil
}
