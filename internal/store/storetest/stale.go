package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

// testCommitStepsRace commits the same step of one instance from two
// stores on one database at once, as two nodes would after reading the
// same revision: one wins, the other fails with store.ErrConflict (and
// store.ErrStale where the store serves several nodes, which the runtime
// re-runs the step on), and the history holds the step's fact once.
func testCommitStepsRace(t *testing.T, open Opener) {
	t.Parallel()
	a := open(t)
	b := a.Reopen(t)
	ctx := context.Background()
	for round := range 5 {
		id := store.InstanceID(fmt.Sprintf("race-%d", round))
		s := NewStep(id, "race", 1)
		if err := a.CommitSteps(ctx, []store.StepRecord{s}); err != nil {
			t.Fatal(err)
		}
		var (
			wg   sync.WaitGroup
			errs [2]error
		)
		start := make(chan struct{})
		for i, db := range []Store{a, b} {
			wg.Go(func() {
				<-start
				errs[i] = db.CommitSteps(ctx, []store.StepRecord{NextStep(s, store.StatusRunning)})
			})
		}
		close(start)
		wg.Wait()
		lost := errs[0]
		if lost == nil {
			lost = errs[1]
		} else if errs[1] != nil {
			t.Fatalf("round %d: both commits failed: %v; %v", round, errs[0], errs[1])
		}
		if lost == nil {
			t.Fatalf("round %d: both commits of revision 1 succeeded", round)
		}
		if !errors.Is(lost, store.ErrConflict) {
			t.Fatalf("round %d: loser's commit = %v, want store.ErrConflict", round, lost)
		}
		facts, err := a.History(ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := len(s.Facts) + 1; len(facts) != want {
			t.Fatalf("round %d: history holds %d facts, want %d", round, len(facts), want)
		}
	}
}
