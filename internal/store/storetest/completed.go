package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// testCompletedTasks: the tasks a step completed are kept with the step
// and listed the latest completion first, with their instance's process
// key, business key and number, filtered by who completed them and by
// process, paged with an exact total; deleting the instance drops them.
func testCompletedTasks(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)

	a := NewStep("ca", "order", 1)
	a.Instance.BusinessKey = "o-1"
	b := NewStep("cb", "invoice", 1)
	MustCommit(t, db, a, b)
	done := func(s store.StepRecord, status, task, by string, at time.Duration) store.StepRecord {
		n := NextStep(s, status)
		n.CompletedTasks = []store.CompletedTaskRow{{TaskID: task, InstanceID: s.Instance.ID, NodeID: "node-" + task,
			Name: "Task " + task, CompletedBy: by, CreatedAt: t0, CompletedAt: t0.Add(at)}}
		return n
	}
	a2 := done(a, store.StatusRunning, "t1", "ann", time.Minute)
	b2 := done(b, store.StatusRunning, "t2", "bob", 2*time.Minute)
	MustCommit(t, db, a2, b2)
	MustCommit(t, db, done(a2, store.StatusCompleted, "t3", "ann", 3*time.Minute))

	ids := func(f store.CompletedTaskFilter) ([]string, int) {
		t.Helper()
		rows, total, err := db.CompletedTasks(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.TaskID)
		}
		return out, total
	}
	rows, total, err := db.CompletedTasks(ctx, store.CompletedTaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if total != 3 || len(rows) != 3 {
		t.Fatalf("all: %d of %d", len(rows), total)
	}
	want := store.CompletedTaskRow{TaskID: "t3", InstanceID: "ca", NodeID: "node-t3", Name: "Task t3", CompletedBy: "ann",
		CreatedAt: t0, CompletedAt: t0.Add(3 * time.Minute), ProcessKey: "order", BusinessKey: "o-1", InstanceNumber: rows[0].InstanceNumber}
	if rows[0] != want {
		t.Errorf("latest:\n got %+v\nwant %+v", rows[0], want)
	}
	if got, _ := ids(store.CompletedTaskFilter{}); len(got) != 3 || got[0] != "t3" || got[1] != "t2" || got[2] != "t1" {
		t.Errorf("order: %v", got)
	}
	if got, n := ids(store.CompletedTaskFilter{CompletedBy: "ann"}); n != 2 || len(got) != 2 || got[0] != "t3" {
		t.Errorf("by ann: %v of %d", got, n)
	}
	if got, n := ids(store.CompletedTaskFilter{ProcessKey: "invoice"}); n != 1 || len(got) != 1 || got[0] != "t2" {
		t.Errorf("invoice: %v of %d", got, n)
	}
	if got, n := ids(store.CompletedTaskFilter{Limit: 1, Offset: 1}); n != 3 || len(got) != 1 || got[0] != "t2" {
		t.Errorf("page 2 of 1: %v of %d", got, n)
	}
	if err := db.DeleteInstance(ctx, "ca"); err != nil {
		t.Fatal(err)
	}
	if got, n := ids(store.CompletedTaskFilter{}); n != 1 || len(got) != 1 || got[0] != "t2" {
		t.Errorf("after deleting ca: %v of %d", got, n)
	}
}
