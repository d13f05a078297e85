package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gobpm/gobpm/internal/pgtest"
	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/postgres"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// TestStaleStepLogsNoError: two nodes commit a step of one instance
// computed from the same revision — one after the other, then racing —
// and the loser gets store.ErrStale (the sentinel the runtime re-runs the
// step on) while PostgreSQL logs no ERROR: the collision is the answer of
// a conditional write, not an aborted transaction. The server is the
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
