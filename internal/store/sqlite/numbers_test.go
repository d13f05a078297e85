package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// TestMigration0012NumbersInstances upgrades a database frozen at 0011,
// whose called children still have the ids the engine used to build
// ("<parent>-w000001", growing per level): every instance gets a number
// per process key in start order, the counters go on from there, and the
// old ids still resolve. SQLite-only (not in storetest): it writes the
// 0011 schema directly.
func TestMigration0012NumbersInstances(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v11.db")
	raw, err := sql.Open(driverName, dsn(path, "FULL", false))
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1)
	if err := migrateFS(ctx, raw, migrationsUpTo(t, 11)); err != nil {
		t.Fatal(err)
	}
	const (
		a = "0190d9c6-6c5e-7b3a-9f00-00000000000a"
		b = "0190d9c6-6c5e-7b3a-9f00-00000000000b"
		v = "0190d9c6-6c5e-7b3a-9f00-00000000000c"
	)
	child, grandchild := a+"-w000001", a+"-w000001-w000001"
	rows := []struct {
		id, key, parent string
		created         int64
	}{
		{a, "order", "", 100},
		{child, "sub", a, 200},
		{grandchild, "sub", child, 300},
		{b, "order", "", 50}, // started before a, stored after it
		{v, "invoice", "", 10},
		{"legacy-text-id", "order", "", 100}, // same instant as a, stored after it
	}
	for _, r := range rows {
		if _, err := raw.Exec(`INSERT INTO instances (id, process_key, process_version, status, parent_id, parent_node_id, created_at, revision, state)
			VALUES (?, ?, 1, 'running', ?, ?, ?, 1, x'')`, EncodeID(r.id), r.key, EncodeID(r.parent), map[bool]string{true: "callIt"}[r.parent != ""], r.created); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()

	db := MustOpenPath(t, path, Options{})
	want := map[string]int64{b: 1, a: 2, "legacy-text-id": 3, child: 1, grandchild: 2, v: 1}
	for id, n := range want {
		row, err := db.InstanceRow(ctx, store.InstanceID(id))
		if err != nil {
			t.Fatalf("old id %s after 0012: %v", id, err)
		}
		if row.Number != n {
			t.Errorf("%s (%s) numbered %d, want %d", id, row.ProcessKey, row.Number, n)
		}
	}
	kids, _, err := db.ListInstances(ctx, store.InstanceFilter{ParentID: store.InstanceID(child)})
	if err != nil || len(kids) != 1 || string(kids[0].ID) != grandchild {
		t.Errorf("children of the old child id: %+v, %v", kids, err)
	}
	s := storetest.NewStep("0190d9c6-6c5e-7b3a-9f00-0000000000d1", "order", 1)
	c := storetest.NewStep("0190d9c6-6c5e-7b3a-9f00-0000000000d2", "sub", 1)
	steps := []store.StepRecord{s, c}
	if err := db.CommitSteps(ctx, steps); err != nil {
		t.Fatal(err)
	}
	if steps[0].Instance.Number != 4 || steps[1].Instance.Number != 3 {
		t.Errorf("new instances after 0012 numbered %d and %d, want 4 and 3", steps[0].Instance.Number, steps[1].Instance.Number)
	}
}
