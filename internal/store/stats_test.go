package store_test

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// TestStatsDistribution: percentiles read from the histogram of generated
// durations are within StatsPrecision of the exact ones, the maximum exact.
func TestStatsDistribution(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name          string
		values        func(i int) int64
		n             int
		p50, p90, p99 float64
	}{
		{"1 to 1000 ms", func(i int) int64 { return int64(i + 1) }, 1000, 500, 900, 990},
		{"seconds", func(i int) int64 { return int64(i+1) * 1000 }, 100, 50_000, 90_000, 99_000},
		{"all equal", func(int) int64 { return 4242 }, 10, 4242, 4242, 4242},
		{"hours", func(i int) int64 { return int64(i+1) * 3_600_000 }, 10, 5 * 3_600_000, 9 * 3_600_000, 10 * 3_600_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := map[int]int64{}
			var top int64
			for i := range c.n {
				v := c.values(i)
				h[store.StatsBucket(v)]++
				top = max(top, v)
			}
			back := map[int]int64{}
			if err := store.DecodeStatsHist(store.EncodeStatsHist(h), back); err != nil || !reflect.DeepEqual(back, h) {
				t.Fatalf("histogram round trip = %v, %v; want %v", back, err, h)
			}
			dense, err := store.AddStatsHist(store.EncodeStatsHist(h), nil)
			if err != nil {
				t.Fatal(err)
			}
			for b, n := range dense {
				if n != h[b] {
					t.Errorf("dense bucket %d = %d, want %d", b, n, h[b])
				}
			}
			d := store.StatsDistribution(h, top)
			if d.Count != int64(c.n) || d.Max != float64(top) {
				t.Errorf("count, max = %d, %v; want %d, %d", d.Count, d.Max, c.n, top)
			}
			for _, p := range []struct {
				name      string
				got, want float64
			}{{"p50", d.P50, c.p50}, {"p90", d.P90, c.p90}, {"p99", d.P99, c.p99}} {
				if math.Abs(p.got-p.want) > p.want*store.StatsPrecision {
					t.Errorf("%s = %.1f, want %.1f within %.0f %%", p.name, p.got, p.want, store.StatsPrecision*100)
				}
			}
		})
	}
	if d := store.StatsDistribution(map[int]int64{}, -1); d != (store.DurationStats{}) {
		t.Errorf("empty = %+v", d)
	}
	if store.StatsBucket(0) != 0 || store.StatsBucket(-5) != 0 || store.StatsBucket(math.MaxInt64) != store.StatsMaxBucket {
		t.Error("the edge buckets are wrong")
	}
}

// TestStatsOf: a step's facts and waits become counts, in-step durations,
// ends of earlier items and new open items.
func TestStatsOf(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	later := at.Add(1500 * time.Millisecond)
	s := store.StepRecord{
		Instance: store.InstanceRow{ID: "i", ProcessKey: "p", ProcessVersion: 2, Status: store.StatusRunning, CreatedAt: at, UpdatedAt: later},
		Facts: []store.FactRow{
			{At: later, Kind: "element-completed", NodeID: "task", TrackID: "t1"},
			{At: later, Kind: "element-activated", NodeID: "gw", TrackID: "t1"},
			{At: later, Kind: "element-completed", NodeID: "gw", TrackID: "t1"},
			{At: later, Kind: "element-activated", NodeID: "next", TrackID: "t1"},
			{At: later, Kind: "incident-created", NodeID: "next", TrackID: "t1"},
		},
		Waits:        []store.WaitRow{{ID: "w2", InstanceID: "i", Kind: store.WaitJob, NodeID: "next", CreatedAt: later}},
		RemovedWaits: []string{"w1"},
	}
	d := store.StatsOf(&s)
	hour := store.StatsHour(at)
	if hour != time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC).Unix() {
		t.Errorf("hour = %d", hour)
	}
	want := map[string]store.StatsCounts{
		"task": {Completions: 1, ActiveMax: -1, WaitMax: -1},
		"gw":   {Activations: 1, Completions: 1, ActiveMax: 0, WaitMax: -1},
		"next": {Activations: 1, Incidents: 1, ActiveMax: -1, WaitMax: -1},
		"":     {Incidents: 1, ActiveMax: -1, WaitMax: -1},
	}
	for node, c := range want {
		if got := d.Counts[store.StatsKey{Version: 2, NodeID: node, Hour: hour}]; got != c {
			t.Errorf("%q counts = %+v, want %+v", node, got, c)
		}
	}
	if len(d.Durations) != 1 || d.Durations[0].NodeID != "gw" || d.Durations[0].MS != 0 {
		t.Errorf("durations = %+v, want the gateway's 0 ms", d.Durations)
	}
	wantCloses := []store.StatsClose{
		{Item: "t:t1", NodeID: "task", Kind: store.StatsActive, At: later, Record: true},
		{Item: "w:w1", Kind: store.StatsWait, At: later, Record: true},
	}
	if !reflect.DeepEqual(d.Closes, wantCloses) {
		t.Errorf("closes = %+v\nwant %+v", d.Closes, wantCloses)
	}
	wantOpens := []store.StatsOpen{{Item: "t:t1", NodeID: "next", Since: later}, {Item: "w:w2", NodeID: "next", Since: later}}
	if !reflect.DeepEqual(d.Opens, wantOpens) {
		t.Errorf("opens = %+v\nwant %+v", d.Opens, wantOpens)
	}
	if !d.WentOn("task") || !d.WentOn("next") || d.WentOn("other") || d.Ended {
		t.Errorf("went = %v, ended %v", d.Went, d.Ended)
	}
}
