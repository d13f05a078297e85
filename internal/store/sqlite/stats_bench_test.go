package sqlite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// statsBenchInstances is how many instances the rollups of
// BenchmarkStatistics stand for: spread over statsBenchDays days, each
// passing statsBenchElements elements with log-normal durations.
const (
	statsBenchInstances = 1_000_000
	statsBenchDays      = 30
	statsBenchElements  = 10
)

// bulkStatsRollups writes the rollup rows a million instances leave, as
// the commits would (counts, maxima and histogram buckets per element and
// hour), directly: running a million instances is not the point.
func bulkStatsRollups(tb testing.TB, db *DB, key string, start time.Time) {
	tb.Helper()
	hours := statsBenchDays * 24
	perHour := statsBenchInstances / hours
	rng := rand.New(rand.NewPCG(1, 2))
	tx, err := db.write.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	counts, err := tx.Prepare(`INSERT INTO stat_counts (process_key, hour, process_version, node_id,
		activations, completions, incidents, cancellations, failures, active_max, wait_max) VALUES (?, ?, 1, ?, ?, ?, ?, 0, 0, ?, ?)`)
	if err != nil {
		tb.Fatal(err)
	}
	durations, err := tx.Prepare(`INSERT INTO stat_durations (process_key, hour, process_version, node_id, kind, hist)
		VALUES (?, ?, 1, ?, ?, ?)`)
	if err != nil {
		tb.Fatal(err)
	}
	for h := range hours {
		hour := store.StatsHour(start.Add(time.Duration(h) * time.Hour))
		for e := range statsBenchElements + 1 {
			node := fmt.Sprintf("task-%d", e)
			if e == statsBenchElements {
				node = store.StatsProcessNode
			}
			hist := map[string]map[int]int64{store.StatsActive: {}, store.StatsWait: {}}
			var top int64
			for range perHour {
				ms := int64(math.Exp(rng.NormFloat64()*1.2 + 8 + float64(e)/3)) // a median of seconds to a minute
				top = max(top, ms)
				hist[store.StatsActive][store.StatsBucket(ms)]++
				hist[store.StatsWait][store.StatsBucket(ms*9/10)]++
			}
			if _, err := counts.Exec(key, hour, node, perHour, perHour, perHour/100, top, top*9/10); err != nil {
				tb.Fatal(err)
			}
			for kind, buckets := range hist {
				if _, err := durations.Exec(key, hour, node, kind, store.EncodeStatsHist(buckets)); err != nil {
					tb.Fatal(err)
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkStatistics reads a process's statistics (every element's
// counts and percentiles) over the rollups a million instances left in 30
// days: the cost follows the rollup rows of the period, not the instances.
func BenchmarkStatistics(b *testing.B) {
	db := MustOpen(b)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	bulkStatsRollups(b, db, "bench", start)
	ctx := context.Background()
	for _, period := range []struct {
		name string
		days int
	}{{"day", 1}, {"week", 7}, {"month", statsBenchDays}} {
		b.Run(period.name, func(b *testing.B) {
			f := store.StatsFilter{ProcessKey: "bench", Version: 1, From: start, To: start.Add(time.Duration(period.days) * 24 * time.Hour)}
			for b.Loop() {
				rows, err := db.StatsRows(ctx, f)
				if err != nil {
					b.Fatal(err)
				}
				type acc struct {
					hist map[int]int64
					top  int64
					n    int64
				}
				by := map[string]*acc{}
				for _, r := range rows {
					a := by[r.NodeID]
					if a == nil {
						a = &acc{hist: map[int]int64{}, top: -1}
						by[r.NodeID] = a
					}
					a.n += r.Activations
					a.top = max(a.top, r.ActiveMax)
					for k, n := range r.Active {
						a.hist[k] += n
					}
				}
				var starts int64
				for node, a := range by {
					if store.StatsDistribution(a.hist, a.top).Count == 0 {
						b.Fatalf("%s: no durations", node)
					}
					if node == store.StatsProcessNode {
						starts = a.n
					}
				}
				if want := int64(statsBenchInstances / (statsBenchDays * 24) * period.days * 24); starts != want {
					b.Fatalf("starts = %d, want %d", starts, want)
				}
			}
		})
	}
}
