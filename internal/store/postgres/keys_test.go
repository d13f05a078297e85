package postgres_test

import (
	"context"
	"testing"

	"github.com/gobpm/gobpm/internal/pgtest"
	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/postgres"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// TestMigration0010NumericKeys takes a database back to before 0010 (no
// keys), as gobpm then wrote it, and opens it again: every deployment,
// process version, instance, incident, job and user task gets a key, in
// the order they were created, the first one Zeebe's first key; the
// sequence goes on above them.
func TestMigration0010NumericKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.URL(t)
	db := mustOpen(t, url, postgres.Options{})
	for i, id := range []string{"d1", "d2"} {
		d := storetest.Deployment(id, storetest.Resource("order.bpmn", id, "order"))
		d.DeployedAt = storetest.Sec(i + 1)
		if _, _, err := db.Deploy(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	const inst = "0190d9c6-6c5e-7b3a-9f00-0000000000a1"
	s := storetest.NewStep(inst, "order", 1)
	s.Instance.CreatedAt = storetest.Sec(100)
	s.Instance.UpdatedAt = s.Instance.CreatedAt
	s.Waits = []store.WaitRow{storetest.Job(inst+"-w000001", "charge", 101), storetest.Task(inst+"-w000002", 102, "", nil, nil)}
	s.Incidents = []store.IncidentRow{{ID: "inc-1", NodeID: "svc", Kind: "job_failed", CreatedAt: storetest.Sec(104)}}
	storetest.MustCommit(t, db, s)
	for _, q := range []string{`DROP TABLE buffered_message_takes`, `DROP TABLE buffered_messages`, // 0011 applies again too
		`DROP TABLE entity_keys`, `DELETE FROM schema_migrations WHERE version >= 10`} {
		if _, err := db.Pool().Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	db = mustOpen(t, url, postgres.Options{})
	for i, w := range []struct {
		kind store.KeyKind
		id   string
	}{
		{store.KeyDeployment, "d1"},
		{store.KeyProcessVersion, store.ProcessVersionID("order", 1)},
		{store.KeyDeployment, "d2"},
		{store.KeyProcessVersion, store.ProcessVersionID("order", 2)},
		{store.KeyInstance, inst},
		{store.KeyJob, inst + "-w000001"},
		{store.KeyUserTask, inst + "-w000002"},
		{store.KeyIncident, "inc-1"},
	} {
		if k := storetest.MustNumericKey(t, db, w.kind, w.id); k != store.FirstKey+int64(i) {
			t.Errorf("key of %s %s after the upgrade = %d, want %d", w.kind, w.id, k, store.FirstKey+int64(i))
		}
	}
	next := storetest.NewStep("0190d9c6-6c5e-7b3a-9f00-0000000000d9", "order", 1)
	storetest.MustCommit(t, db, next)
	if k := storetest.MustNumericKey(t, db, store.KeyInstance, string(next.Instance.ID)); k != store.FirstKey+8 {
		t.Errorf("first key after the upgrade = %d, want %d", k, store.FirstKey+8)
	}
}
