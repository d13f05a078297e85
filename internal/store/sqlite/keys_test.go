package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// TestNumericKeyPlans checks that every statement of the numeric keys
// probes an index (the primary key, or the (kind, id) index, also in the
// deletions' subqueries) and never scans a table: a step's keys cost what
// the step writes, whatever the database holds.
// SQLite-only (not in storetest): it reads SQLite's EXPLAIN QUERY PLAN.
func TestNumericKeyPlans(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	for _, tt := range []struct {
		name, query string
		want        []string
	}{
		{"by key", byKeySQL, []string{"USING INTEGER PRIMARY KEY (rowid=?)"}},
		{"key of", keyOfSQL, []string{"USING COVERING INDEX sqlite_autoindex_entity_keys_1 (kind=? AND id=?)"}},
		{"assign", insertKeySQL, []string{"USING COVERING INDEX sqlite_autoindex_entity_keys_1 (kind=? AND id=?)"}},
		{"delete one", deleteKeySQL, []string{"sqlite_autoindex_entity_keys_1 (kind=? AND id=?)"}},
		{"delete a wait's", deleteWaitKeySQL, []string{"sqlite_autoindex_entity_keys_1 (kind=? AND id=?)"}},
		{"delete an instance's waits'", deleteInstanceWaitKeysSQL, []string{"sqlite_autoindex_entity_keys_1 (kind=? AND id=?)", "SEARCH waits USING PRIMARY KEY (id>? AND id<?)"}},
		{"delete an instance's incidents'", deleteIncidentKeysSQL, []string{"sqlite_autoindex_entity_keys_1 (kind=? AND id=?)", "incidents_instance (instance_id=?)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plan := accessPlan(t, db, tt.query)
			for _, want := range tt.want {
				if !strings.Contains(plan, want) {
					t.Errorf("plan does not use %s:\n%s", want, plan)
				}
			}
			for _, line := range strings.Split(plan, "\n") {
				if strings.HasPrefix(line, "SCAN ") && !strings.Contains(line, "INDEX") && !strings.HasPrefix(line, "SCAN CONSTANT ROW") {
					t.Errorf("full scan:\n%s", plan)
				}
			}
		})
	}
}

// TestMigration0017NumericKeys takes a database back to before 0017 (no
// keys), as gobpm then wrote it, and opens it again: every deployment,
// process version, instance, incident, job and user task gets a key, in
// the order they were created, the first one Zeebe's first key; the
// counter goes on above them. SQLite-only (not in storetest): it edits
// the schema directly; the PostgreSQL store has its own.
func TestMigration0017NumericKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v17.db")
	db := MustOpenPath(t, path, Options{})
	fillBeforeKeys(t, db)
	for _, q := range []string{
		`DROP TABLE buffered_message_takes`, `DROP TABLE buffered_messages`, // 0018 applies again too
		`ALTER TABLE waits DROP COLUMN error_details`, // and 0019
		`ALTER TABLE waits DROP COLUMN trace_context`, // and 0023
		`DROP TABLE saved_filters`,                    // and 0028
		`DROP INDEX instance_variables_value`, `DROP INDEX instance_variables_num`,
		`DROP INDEX instance_variables_text`, `DROP INDEX instance_variables_time`,
		`ALTER TABLE instance_variables DROP COLUMN value_num`, `ALTER TABLE instance_variables DROP COLUMN value_text`,
		`ALTER TABLE instance_variables DROP COLUMN value_time`,
		`DROP TABLE entity_keys`,
		`DROP TABLE batch_items`, `DROP TABLE batches`, // and 0027
		`DELETE FROM sqlite_sequence WHERE name = 'entity_keys'`,
		`DELETE FROM schema_migrations WHERE version >= 17`,
	} {
		if _, err := db.write.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	db = MustOpenPath(t, path, Options{})
	checkKeysAfterUpgrade(t, db)
	s := storetest.NewStep("0190d9c6-6c5e-7b3a-9f00-0000000000d9", "order", 1)
	storetest.MustCommit(t, db, s)
	if k := storetest.MustNumericKey(t, db, store.KeyInstance, string(s.Instance.ID)); k != store.FirstKey+8 {
		t.Errorf("first key after the upgrade = %d, want %d", k, store.FirstKey+8)
	}
	if _, err := db.ByNumericKey(ctx, store.KeyInstance, store.FirstKey+9); store.ErrorCode(err) != store.ENOTFOUND {
		t.Errorf("a key not handed out yet resolves: %v", err)
	}
}

// The entities of fillBeforeKeys, in the order they were created.
const (
	upInstance = "0190d9c6-6c5e-7b3a-9f00-0000000000a1"
	upJob      = upInstance + "-w000001"
	upTask     = upInstance + "-w000002"
	upTimer    = upInstance + "-w000003"
)

// fillBeforeKeys writes a deployment (two process versions), an instance
// with a job, a user task, a timer and an incident.
func fillBeforeKeys(tb testing.TB, db *DB) {
	tb.Helper()
	for i, id := range []string{"d1", "d2"} {
		d := storetest.Deployment(id, storetest.Resource("order.bpmn", id, "order"))
		d.DeployedAt = storetest.Sec(i + 1)
		if _, _, err := db.Deploy(context.Background(), d); err != nil {
			tb.Fatal(err)
		}
	}
	s := storetest.NewStep(upInstance, "order", 1)
	s.Instance.CreatedAt = storetest.Sec(100)
	s.Instance.UpdatedAt = s.Instance.CreatedAt
	s.Waits = []store.WaitRow{storetest.Job(upJob, "charge", 101), storetest.Task(upTask, 102, "", nil, nil), storetest.Job(upTimer, "x", 103)}
	s.Waits[2].Kind = store.WaitTimer
	s.Incidents = []store.IncidentRow{{ID: "inc-1", NodeID: "svc", Kind: "job_failed", CreatedAt: storetest.Sec(104)}}
	storetest.MustCommit(tb, db, s)
}

// checkKeysAfterUpgrade checks the keys the migration gave the entities
// of fillBeforeKeys.
func checkKeysAfterUpgrade(tb testing.TB, db *DB) {
	tb.Helper()
	d1, err := db.Definition(context.Background(), "order", 1)
	if err != nil {
		tb.Fatal(err)
	}
	d2, err := db.Definition(context.Background(), "order", 2)
	if err != nil {
		tb.Fatal(err)
	}
	if !d1.DeployedAt.Before(d2.DeployedAt) || !d2.DeployedAt.Before(storetest.Sec(100)) {
		tb.Fatalf("fixture out of order: deployed at %v, %v", d1.DeployedAt, d2.DeployedAt)
	}
	want := []struct {
		kind store.KeyKind
		id   string
	}{
		{store.KeyDeployment, "d1"},
		{store.KeyProcessVersion, store.ProcessVersionID("order", 1)},
		{store.KeyDeployment, "d2"},
		{store.KeyProcessVersion, store.ProcessVersionID("order", 2)},
		{store.KeyInstance, upInstance},
		{store.KeyJob, upJob},
		{store.KeyUserTask, upTask},
	}
	for i, w := range want {
		if k := storetest.MustNumericKey(tb, db, w.kind, w.id); k != store.FirstKey+int64(i) {
			tb.Errorf("key of %s %s after the upgrade = %d, want %d", w.kind, w.id, k, store.FirstKey+int64(i))
		}
	}
	// The incident, created last: the next key.
	if k := storetest.MustNumericKey(tb, db, store.KeyIncident, "inc-1"); k != store.FirstKey+int64(len(want)) {
		tb.Errorf("key of the incident after the upgrade = %d, want %d", k, store.FirstKey+int64(len(want)))
	}
	if _, err := db.NumericKey(context.Background(), store.KeyJob, upTimer); store.ErrorCode(err) != store.ENOTFOUND {
		tb.Errorf("a timer got a key: %v", err)
	}
}
