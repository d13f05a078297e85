package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// Migration batches (store.MigrationStore) and the process version a
// migrated instance's step writes.

func testMigrations(t *testing.T, open Opener) {
	t.Parallel()
	db := open(t)
	ctx := context.Background()
	rec := store.MigrationRecord{ID: "m1", ProcessKey: "order", SourceVersion: 1, TargetVersion: 2,
		Mapping: map[string]string{"a": "b"}, CreatedBy: "olga", CreatedAt: t0}
	ids := []store.InstanceID{idRunning, idFailed, "plain-text-id"}
	if err := db.CreateMigration(ctx, rec, ids); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateMigration(ctx, rec, nil); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second create: %v, want ErrConflict", err)
	}
	if _, _, err := db.Migration(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown migration: %v", err)
	}
	got, items, err := db.Migration(ctx, "m1")
	if err != nil {
		t.Fatal(err)
	}
	rec.Status = store.MigrationRunning
	if !reflect.DeepEqual(got, rec) {
		t.Errorf("migration %+v, want %+v", got, rec)
	}
	want := []store.MigrationItem{{InstanceID: idRunning, Status: store.MigrationPending},
		{InstanceID: idFailed, Status: store.MigrationPending}, {InstanceID: "plain-text-id", Status: store.MigrationPending}}
	if !reflect.DeepEqual(items, want) {
		t.Errorf("items %+v, want %+v", items, want)
	}
	running, err := db.RunningMigrations(ctx)
	if err != nil || !reflect.DeepEqual(running, []string{"m1"}) {
		t.Errorf("running %v %v", running, err)
	}
	failed := store.MigrationItem{InstanceID: idFailed, Status: store.MigrationFailed, Reason: "element x is gone"}
	for _, it := range []store.MigrationItem{{InstanceID: idRunning, Status: store.MigrationMigrated}, failed} {
		if err := db.SetMigrationItem(ctx, "m1", it); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetMigrationItem(ctx, "m1", store.MigrationItem{InstanceID: "other", Status: store.MigrationMigrated}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown item: %v", err)
	}
	end := t0.Add(time.Minute)
	if err := db.FinishMigration(ctx, "m1", end); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishMigration(ctx, "nope", end); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("finish unknown: %v", err)
	}
	got, items, err = db.Migration(ctx, "m1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != store.MigrationCompleted || !got.FinishedAt.Equal(end) {
		t.Errorf("finished %+v", got)
	}
	want[0].Status, want[1] = store.MigrationMigrated, failed
	if !reflect.DeepEqual(items, want) {
		t.Errorf("items %+v, want %+v", items, want)
	}
	if running, err := db.RunningMigrations(ctx); err != nil || len(running) != 0 {
		t.Errorf("running after finish %v %v", running, err)
	}
}

// testCommitStepsMigratesVersion: a step that moves an instance to
// another version writes the version, and the waits it rewrites carry it.
func testCommitStepsMigratesVersion(t *testing.T, open Opener) {
	t.Parallel()
	db := open(t)
	ctx := context.Background()
	s := NewStep(idRunning, "order", 1)
	s.Waits = []store.WaitRow{{ID: string(idRunning) + "-w1", InstanceID: idRunning, Kind: "job", NodeID: "a",
		ProcessKey: "order", ProcessVersion: 1, Name: "pay", Retries: 3, CreatedAt: t0}}
	MustCommit(t, db, s)
	next := NextStep(s, store.StatusRunning)
	next.Instance.ProcessVersion = 2
	w := s.Waits[0]
	w.ProcessVersion, w.NodeID, w.Name = 2, "b", "pay2"
	next.Waits = []store.WaitRow{w}
	MustCommit(t, db, next)
	row, err := db.InstanceRow(ctx, idRunning)
	if err != nil || row.ProcessVersion != 2 {
		t.Fatalf("instance row %+v %v", row, err)
	}
	got, err := db.Wait(ctx, w.ID)
	if err != nil || got.ProcessVersion != 2 || got.NodeID != "b" || got.Name != "pay2" {
		t.Errorf("wait %+v %v", got, err)
	}
	rows, _, err := db.ListInstances(ctx, store.InstanceFilter{ProcessKey: "order", ProcessVersion: 2})
	if err != nil || len(rows) != 1 {
		t.Errorf("list by the new version: %+v %v", rows, err)
	}
}
