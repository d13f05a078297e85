package postgres_test

import (
	"context"
	"testing"

	"github.com/gobpm/gobpm/internal/pgtest"
	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/postgres"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// TestMigration0005NumbersInstances takes a database back to before 0005
// (no numbers, and none of the migrations after it), fills it as gobpm then wrote it (called children with the
// ids the engine used to build, "<parent>-w000001", growing per level),
// and opens it again: every instance gets a number per process key in
// start order, the counters go on from there, and the old ids resolve.
func TestMigration0005NumbersInstances(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.URL(t)
	db := mustOpen(t, url, postgres.Options{})
	for _, q := range []string{
		// Migrations apply in order above the newest recorded, so the
		// later ones go back too (0009: completed tasks, 0008: the variable
		// index, 0007: the token index, 0006: deployers; 0010: numeric keys;
		// 0011: buffered messages).
		`DROP TABLE buffered_message_takes`, `DROP TABLE buffered_messages`,
		`DROP TABLE entity_keys`,
		`DROP TABLE completed_tasks`,
		`DROP TABLE instance_variables`, `DROP TABLE instance_variables_pending`,
		`DROP TABLE instance_tokens`, `DROP TABLE instance_tokens_pending`,
		`ALTER TABLE deployments DROP COLUMN deployed_by`, `ALTER TABLE deployments DROP COLUMN deployed_by_groups`,
		`DROP INDEX instances_number`, `DROP TABLE instance_numbers`, `ALTER TABLE instances DROP COLUMN number`,
		`DELETE FROM schema_migrations WHERE version >= 5`,
	} {
		if _, err := db.Pool().Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const a, b = "0190d9c6-6c5e-7b3a-9f00-00000000000a", "0190d9c6-6c5e-7b3a-9f00-00000000000b"
	child, grandchild := a+"-w000001", a+"-w000001-w000001"
	rows := []struct {
		id, key, parent string
		created         int64
	}{
		{a, "order", "", 100},
		{child, "sub", a, 200},
		{grandchild, "sub", child, 300},
		{b, "order", "", 50}, // started before a, stored after it
	}
	for _, r := range rows {
		if _, err := db.Pool().Exec(ctx, `INSERT INTO instances (id, process_key, process_version, status, parent_id, created_at, updated_at, revision, state)
			VALUES ($1, $2, 1, 'running', $3, $4, $4, 1, '')`, r.id, r.key, r.parent, r.created); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	db = mustOpen(t, url, postgres.Options{})
	for id, n := range map[string]int64{b: 1, a: 2, child: 1, grandchild: 2} {
		row, err := db.InstanceRow(ctx, store.InstanceID(id))
		if err != nil {
			t.Fatalf("old id %s after 0005: %v", id, err)
		}
		if row.Number != n {
			t.Errorf("%s (%s) numbered %d, want %d", id, row.ProcessKey, row.Number, n)
		}
	}
	kids, _, err := db.ListInstances(ctx, store.InstanceFilter{ParentID: store.InstanceID(child)})
	if err != nil || len(kids) != 1 || string(kids[0].ID) != grandchild {
		t.Errorf("children of the old child id: %+v, %v", kids, err)
	}
	steps := []store.StepRecord{storetest.NewStep("0190d9c6-6c5e-7b3a-9f00-0000000000d1", "order", 1), storetest.NewStep("0190d9c6-6c5e-7b3a-9f00-0000000000d2", "sub", 1)}
	if err := db.CommitSteps(ctx, steps); err != nil {
		t.Fatal(err)
	}
	if steps[0].Instance.Number != 3 || steps[1].Instance.Number != 3 {
		t.Errorf("new instances after 0005 numbered %d and %d, want 3 and 3", steps[0].Instance.Number, steps[1].Instance.Number)
	}
}
