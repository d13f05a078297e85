package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gobpm/gobpm/internal/pgtest"
	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/postgres"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// A group commit larger than one pipelined batch (a step that launched a
// thousand called children) goes as several batches in one transaction:
// everything commits, and a failure in a later batch rolls back the
// earlier ones too.
func TestLargeCommitIsOneTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t, pgtest.URL(t), postgres.Options{})
	steps := func(prefix string, n int) []store.StepRecord {
		var out []store.StepRecord
		for i := range n {
			id := store.InstanceID(fmt.Sprintf("%s-%04d", prefix, i))
			out = append(out, storetest.WithWaits(storetest.NewStep(id, "order", 1),
				storetest.Task(fmt.Sprintf("%s-t%04d-a", prefix, i), i, "", nil, nil),
				storetest.Task(fmt.Sprintf("%s-t%04d-b", prefix, i), i, "", nil, nil)))
		}
		return out
	}
	big := steps("big", 1500) // several thousand statements
	if err := db.CommitSteps(ctx, big); err != nil {
		t.Fatal(err)
	}
	if _, total, err := db.Tasks(ctx, store.TaskFilter{Limit: 1}); err != nil || total != 3000 {
		t.Fatalf("tasks after the large commit: %d, %v; want 3000", total, err)
	}

	// The last step creates an instance that exists: the whole commit,
	// its first batches included, is refused and leaves nothing.
	again := append(steps("more", 1500), big[0])
	if err := db.CommitSteps(ctx, again); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a commit whose last step conflicts: %v, want ErrConflict", err)
	}
	if _, total, err := db.Tasks(ctx, store.TaskFilter{Limit: 1}); err != nil || total != 3000 {
		t.Errorf("tasks after the refused commit: %d, %v; want the 3000 of before", total, err)
	}
}
