package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

// testSuspendInstance: a suspended instance holds its waits (no due
// timer, no activatable job, no message or signal subscription seen) but
// lists them; its revision moves on; the resume releases them all.
func testSuspendInstance(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	s := CreateWithWaits(t, db, "i1", Job("j1", "pay", 1), timer("t1", 5),
		Sub("m1", store.WaitMessage, "paid", "k1", 1), Sub("g1", store.WaitSignal, "alarm", "", 1))
	CreateWithWaits(t, db, "i2", Job("j2", "pay", 2))

	row, err := db.SetInstanceSuspended(ctx, "i1", s.Instance.Revision, true, Sec(3))
	if err != nil {
		t.Fatal(err)
	}
	if !row.Suspended || row.Revision != s.Instance.Revision+1 || !row.UpdatedAt.Equal(Sec(3)) {
		t.Fatalf("suspended row = %+v, want suspended at revision %d, updated at %v", row, s.Instance.Revision+1, Sec(3))
	}
	if _, err := db.SetInstanceSuspended(ctx, "i1", s.Instance.Revision, false, Sec(3)); !errors.Is(err, store.ErrConflict) {
		t.Errorf("a stale revision: %v, want ErrConflict", err)
	}
	if _, err := db.SetInstanceSuspended(ctx, "nope", 1, true, Sec(3)); store.ErrorCode(err) != store.ENOTFOUND {
		t.Errorf("an unknown instance: %v, want ENOTFOUND", err)
	}
	yes, no := true, false
	if rows, _, err := db.ListInstances(ctx, store.InstanceFilter{Suspended: &yes}); err != nil || len(rows) != 1 || rows[0].ID != "i1" {
		t.Errorf("suspended list = %v, %v; want i1", rows, err)
	}
	if rows, _, err := db.ListInstances(ctx, store.InstanceFilter{Suspended: &no}); err != nil || len(rows) != 1 || rows[0].ID != "i2" {
		t.Errorf("not suspended list = %v, %v; want i2", rows, err)
	}

	held := func(t *testing.T, want bool) {
		t.Helper()
		timers, err := db.DueTimers(ctx, Sec(100), 10)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(WaitIDs(timers), "t1"); got == want {
			t.Errorf("due timers %v (held %v)", WaitIDs(timers), want)
		}
		next, ok, err := db.NextTimer(ctx)
		if err != nil || ok == want || (ok && !next.Equal(Sec(5))) {
			t.Errorf("next timer = %v, %v, %v (held %v)", next, ok, err, want)
		}
		page, err := db.WaitsPage(ctx, store.WaitPageFilter{Kind: store.WaitJob, Name: "pay", ActivatableAt: Sec(10)})
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(WaitIDs(page), "j1"); got == want {
			t.Errorf("activatable page %v (held %v)", WaitIDs(page), want)
		}
		msgs, err := db.MessageSubscriptions(ctx, "paid", "k1", 10)
		if err != nil || (len(msgs) == 0) != want {
			t.Errorf("message subscriptions %v, %v (held %v)", WaitIDs(msgs), err, want)
		}
		sigs, err := db.SignalSubscriptions(ctx, "alarm")
		if err != nil || (len(sigs) == 0) != want {
			t.Errorf("signal subscriptions %v, %v (held %v)", sigs, err, want)
		}
		all, err := db.InstanceWaits(ctx, "i1")
		if err != nil || len(all) != 4 {
			t.Errorf("instance waits %v, %v: want all four listed", WaitIDs(all), err)
		}
	}
	t.Run("held", func(t *testing.T) { held(t, true) })
	jobs, err := db.ActivateJobs(ctx, "pay", Sec(10), LockFor("w", 10, Sec(60)))
	if err != nil || !slices.Equal(WaitIDs(jobs), []string{"j2"}) {
		t.Fatalf("activated %v, %v; want only j2", WaitIDs(jobs), err)
	}
	if _, ok, err := db.NextJobAvailable(ctx, "pay", Sec(10)); err != nil || !ok {
		t.Errorf("next job available: %v, %v (j2's lock expires)", ok, err)
	}

	row, err = db.SetInstanceSuspended(ctx, "i1", row.Revision, false, Sec(4))
	if err != nil {
		t.Fatal(err)
	}
	if row.Suspended || row.Revision != s.Instance.Revision+2 {
		t.Fatalf("resumed row = %+v", row)
	}
	t.Run("released", func(t *testing.T) { held(t, false) })
	if jobs, err := db.ActivateJobs(ctx, "pay", Sec(10), LockFor("w", 10, Sec(60))); err != nil || !slices.Equal(WaitIDs(jobs), []string{"j1"}) {
		t.Errorf("activated after the resume %v, %v; want j1", WaitIDs(jobs), err)
	}

	// A step commits at the revision the suspension left and does not
	// write the flag; an ended instance cannot be suspended.
	again, err := db.SetInstanceSuspended(ctx, "i1", row.Revision, true, Sec(5))
	if err != nil {
		t.Fatal(err)
	}
	next := NextStep(s, store.StatusTerminated)
	next.Instance.Revision, next.PrevRevision = again.Revision+1, again.Revision
	MustCommit(t, db, next)
	ended, err := db.InstanceRow(ctx, "i1")
	if err != nil || !ended.Suspended {
		t.Errorf("after a step: %+v, %v; want the flag kept", ended, err)
	}
	if _, err := db.SetInstanceSuspended(ctx, "i1", ended.Revision, false, Sec(6)); !errors.Is(err, store.ErrConflict) {
		t.Errorf("an ended instance: %v, want ErrConflict", err)
	}
}

// testSuspendVersion: a suspended version is listed and holds its start
// timers; suspending twice changes nothing; the resume releases them.
func testSuspendVersion(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	if _, _, err := db.Deploy(ctx, Deployment("d1", Resource("order.bpmn", "v1", "order"))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.Deploy(ctx, Deployment("d2", Resource("order.bpmn", "v2", "order"))); err != nil {
		t.Fatal(err)
	}
	if err := db.ReplaceStartTimers(ctx, "order", []store.WaitRow{
		{ID: "st1", Kind: store.WaitStartTimer, ProcessKey: "order", ProcessVersion: 2, DueAt: Sec(2), CreatedAt: t0},
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetVersionSuspended(ctx, "order", 3, true, Sec(1)); store.ErrorCode(err) != store.ENOTFOUND {
		t.Errorf("an unknown version: %v, want ENOTFOUND", err)
	}
	for range 2 {
		if err := db.SetVersionSuspended(ctx, "order", 2, true, Sec(1)); err != nil {
			t.Fatal(err)
		}
	}
	if vs, err := db.SuspendedVersions(ctx, "order"); err != nil || !slices.Equal(vs, []int{2}) {
		t.Errorf("suspended versions = %v, %v; want [2]", vs, err)
	}
	if due, err := db.DueTimers(ctx, Sec(10), 10); err != nil || len(due) != 0 {
		t.Errorf("due timers of a suspended version: %v, %v", WaitIDs(due), err)
	}
	if err := db.SetVersionSuspended(ctx, "order", 2, false, Sec(3)); err != nil {
		t.Fatal(err)
	}
	if vs, err := db.SuspendedVersions(ctx, "order"); err != nil || len(vs) != 0 {
		t.Errorf("suspended versions after the resume = %v, %v", vs, err)
	}
	if due, err := db.DueTimers(ctx, Sec(10), 10); err != nil || !slices.Equal(WaitIDs(due), []string{"st1"}) {
		t.Errorf("due timers after the resume: %v, %v; want st1", WaitIDs(due), err)
	}
}
