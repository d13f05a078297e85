package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/pgtest"
	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/postgres"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// TestStaleStepLogsNoError: two nodes commit a step of one instance
// computed from the same revision — one after the other, then racing —
// and the loser gets store.ErrStale (the sentinel the runtime re-runs the
// step on) while PostgreSQL logs no ERROR: the collision is the answer of
// a conditional write, not an aborted transaction; two batches stepping
// two instances in opposite orders do not deadlock. The server is the
// test's own, so its log holds this test's statements only.
func TestStaleStepLogsNoError(t *testing.T) {
	t.Parallel()
	srv := pgtest.Own(t)
	url := srv.URL(t)
	ctx := context.Background()
	a := mustOpen(t, url, postgres.Options{})
	b := mustOpen(t, url, postgres.Options{})

	// next is the step of the instance from s's revision, as both nodes
	// compute it (the step is deterministic: the same ids), and writes
	// what a real one does: a part, a fact, a job with its numeric key, an
	// incident, a token, the rollups.
	next := func(s store.StepRecord) store.StepRecord {
		n := storetest.NextStep(s, store.StatusRunning)
		n.Waits = []store.WaitRow{{ID: fmt.Sprintf("%s-job-%d", s.Instance.ID, n.Instance.Revision),
			InstanceID: s.Instance.ID, Kind: store.WaitJob, NodeID: "task", TrackID: "t1", Name: "ship", Retries: 3,
			CreatedAt: n.Instance.UpdatedAt}}
		n.Incidents = []store.IncidentRow{{ID: fmt.Sprintf("%s-inc-%d", s.Instance.ID, n.Instance.Revision),
			InstanceID: s.Instance.ID, NodeID: "task", Kind: "failedJob", Message: "boom", CreatedAt: n.Instance.UpdatedAt}}
		n.Tokens = []store.TokenRow{{TrackID: "t1", NodeID: "task"}}
		return n
	}
	checkStale := func(t *testing.T, err error) {
		t.Helper()
		if !errors.Is(err, store.ErrStale) || !errors.Is(err, store.ErrConflict) {
			t.Fatalf("loser's commit = %v, want store.ErrStale and store.ErrConflict", err)
		}
	}

	t.Run("one after the other", func(t *testing.T) {
		s := storetest.NewStep("seq-1", "order", 1)
		if err := a.CommitSteps(ctx, []store.StepRecord{s}); err != nil {
			t.Fatal(err)
		}
		if err := a.CommitSteps(ctx, []store.StepRecord{next(s)}); err != nil {
			t.Fatal(err)
		}
		checkStale(t, b.CommitSteps(ctx, []store.StepRecord{next(s)}))
	})

	t.Run("racing", func(t *testing.T) {
		for round := range 20 {
			s := storetest.NewStep(store.InstanceID(fmt.Sprintf("race-%d", round)), "order", 1)
			// A second instance in each batch: the loser's other step is
			// rolled back with it.
			other := storetest.NewStep(store.InstanceID(fmt.Sprintf("race-%d-other", round)), "order", 1)
			if err := a.CommitSteps(ctx, []store.StepRecord{s}); err != nil {
				t.Fatal(err)
			}
			var (
				wg   sync.WaitGroup
				errs [2]error
			)
			start := make(chan struct{})
			for i, db := range []*postgres.DB{a, b} {
				batch := []store.StepRecord{next(s)}
				if i == 1 {
					batch = append(batch, other)
				}
				wg.Go(func() {
					<-start
					errs[i] = db.CommitSteps(ctx, batch)
				})
			}
			close(start)
			wg.Wait()
			switch {
			case errs[0] == nil && errs[1] == nil:
				t.Fatalf("round %d: both commits of revision 1 succeeded", round)
			case errs[0] == nil:
				checkStale(t, errs[1])
			case errs[1] == nil:
				checkStale(t, errs[0])
			default:
				t.Fatalf("round %d: both commits failed: %v; %v", round, errs[0], errs[1])
			}
		}
	})

	// Two batches stepping the same two instances in opposite orders: the
	// instance rows are locked in one order, so the later batch waits and
	// finds its steps stale instead of deadlocking (an ERROR in the log).
	t.Run("opposite orders", func(t *testing.T) {
		for round := range 20 {
			x := storetest.NewStep(store.InstanceID(fmt.Sprintf("cross-%d-x", round)), "order", 1)
			y := storetest.NewStep(store.InstanceID(fmt.Sprintf("cross-%d-y", round)), "order", 1)
			if err := a.CommitSteps(ctx, []store.StepRecord{x, y}); err != nil {
				t.Fatal(err)
			}
			var (
				wg   sync.WaitGroup
				errs [2]error
			)
			start := make(chan struct{})
			for i, db := range []*postgres.DB{a, b} {
				batch := []store.StepRecord{next(x), next(y)}
				if i == 1 {
					batch = []store.StepRecord{next(y), next(x)}
				}
				wg.Go(func() {
					<-start
					errs[i] = db.CommitSteps(ctx, batch)
				})
			}
			close(start)
			wg.Wait()
			switch {
			case errs[0] == nil && errs[1] == nil:
				t.Fatalf("round %d: both commits of revision 1 succeeded", round)
			case errs[0] == nil:
				checkStale(t, errs[1])
			case errs[1] == nil:
				checkStale(t, errs[0])
			default:
				t.Fatalf("round %d: both commits failed: %v; %v", round, errs[0], errs[1])
			}
		}
	})

	// The interleaving that deadlocked, forced: a third transaction holds
	// x while batch A (x then y) queues for it and batch B (y then x) is
	// sent. Locked in their steps' orders, B would take y and wait for x,
	// and A, given x, would wait for y: a deadlock. Locked in one order, B
	// takes nothing before x, so A commits and B finds its steps stale.
	t.Run("forced interleaving", func(t *testing.T) {
		x := storetest.NewStep("forced-x", "order", 1)
		y := storetest.NewStep("forced-y", "order", 1)
		if err := a.CommitSteps(ctx, []store.StepRecord{x, y}); err != nil {
			t.Fatal(err)
		}
		holder, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Close(ctx)
		watch, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer watch.Close(ctx)
		tx, err := holder.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM instances WHERE id = 'forced-x' FOR UPDATE`); err != nil {
			t.Fatal(err)
		}
		// waitBlocked waits until n sessions wait for a lock (a bound for a
		// hung test, not a timing assertion).
		waitBlocked := func(n int) {
			t.Helper()
			deadline := time.Now().Add(time.Minute)
			for {
				var waiting int
				if err := watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`).Scan(&waiting); err != nil {
					t.Fatal(err)
				}
				if waiting >= n {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d sessions wait for a lock, want %d", waiting, n)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		var (
			wg   sync.WaitGroup
			errs [2]error
		)
		wg.Go(func() { errs[0] = a.CommitSteps(ctx, []store.StepRecord{next(x), next(y)}) })
		waitBlocked(1)
		wg.Go(func() { errs[1] = b.CommitSteps(ctx, []store.StepRecord{next(y), next(x)}) })
		waitBlocked(2)
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if errs[0] != nil {
			t.Fatalf("the first batch: %v", errs[0])
		}
		checkStale(t, errs[1])
	})

	log, err := srv.Log()
	if err != nil {
		t.Fatal(err)
	}
	var errorLines []string
	for line := range strings.Lines(string(log)) {
		if strings.Contains(line, "ERROR:") || strings.Contains(line, "FATAL:") {
			errorLines = append(errorLines, strings.TrimSpace(line))
		}
	}
	if len(errorLines) > 0 {
		t.Errorf("PostgreSQL logged %d ERROR lines, want none:\n%s", len(errorLines), strings.Join(errorLines, "\n"))
	}
}
