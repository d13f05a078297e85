package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// statsSteps returns the two steps of an instance the rollups count: the
// first starts it, passes its start event and activates a task whose job
// it waits on; the second, a second later, completes the job, the task,
// the end event and the instance.
func statsSteps(id store.InstanceID, at time.Time) (start, end store.StepRecord) {
	start = storetest.NewStep(id, "order", 1)
	start.Instance.CreatedAt, start.Instance.UpdatedAt = at, at
	start.Facts = []store.FactRow{
		{Seq: 1, At: at, Kind: engine.FactInstanceStarted, ScopePath: "/"},
		{Seq: 2, At: at, Kind: engine.FactElementActivated, NodeID: "start", TrackID: "t0", ScopePath: "/"},
		{Seq: 3, At: at, Kind: engine.FactElementCompleted, NodeID: "start", TrackID: "t0", ScopePath: "/"},
		{Seq: 4, At: at, Kind: engine.FactElementActivated, NodeID: "task", TrackID: "t1", ScopePath: "/"},
	}
	start.Waits = []store.WaitRow{{ID: string(id) + "-job", InstanceID: id, Kind: store.WaitJob, NodeID: "task",
		TrackID: "t1", Name: "ship", Retries: 3, CreatedAt: at}}
	end = storetest.NextStep(start, store.StatusCompleted)
	done := end.Instance.UpdatedAt
	end.Facts = []store.FactRow{
		{Seq: 5, At: done, Kind: engine.FactElementCompleted, NodeID: "task", TrackID: "t1", ScopePath: "/"},
		{Seq: 6, At: done, Kind: engine.FactElementActivated, NodeID: "end", TrackID: "t1", ScopePath: "/"},
		{Seq: 7, At: done, Kind: engine.FactElementCompleted, NodeID: "end", TrackID: "t1", ScopePath: "/"},
		{Seq: 8, At: done, Kind: engine.FactInstanceCompleted, ScopePath: "/"},
	}
	end.RemovedWaits = []string{string(id) + "-job"}
	return start, end
}

// BenchmarkCommitStatsSteps measures the commit of steps whose facts and
// waits the statistics rollups count (instances started, elements
// activated and completed, a job waited on, instances completed), in group
// commits of 1 and 16 steps: each round commits the first steps of batch
// instances, then their last ones. Besides the time it reports the
// statements the writer ran per step (stmts/step), which is what the
// rollups add to a commit; run it at -benchtime=1x to read that count.
func BenchmarkCommitStatsSteps(b *testing.B) {
	for _, batch := range []int{1, 16} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			ctx := context.Background()
			db := MustOpenPath(b, filepath.Join(b.TempDir(), "bench.db"), Options{})
			var statements, steps int
			db.countWrites = func(n int) { statements += n }
			at := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
			starts := make([]store.StepRecord, batch)
			ends := make([]store.StepRecord, batch)
			n := 0
			b.ResetTimer()
			for b.Loop() {
				for j := range batch {
					n++
					starts[j], ends[j] = statsSteps(store.InstanceID(fmt.Sprintf("i%09d", n)), at)
				}
				if err := db.CommitSteps(ctx, starts); err != nil {
					b.Fatal(err)
				}
				if err := db.CommitSteps(ctx, ends); err != nil {
					b.Fatal(err)
				}
				steps += 2 * batch
			}
			b.ReportMetric(float64(statements)/float64(steps), "stmts/step")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
		})
	}
}
