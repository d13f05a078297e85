package runtime_test

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
	"github.com/gobpm/gobpm/internal/store/sqlite/migrations"
)

// TestUpgradeFromWholeCheckpoints opens a database an older gobpm wrote
// (migrations 0001–0004, an instance waiting at a job, its state one
// format-1 checkpoint the engine marshalled), lets the store migrate it and
// the runtime resume it, and completes the job: the instance continues
// from what the old checkpoint held.
// SQLite-only (not on testdb): only a SQLite file can hold the whole
// format-1 checkpoints this upgrades (written before migration 0005).
func TestUpgradeFromWholeCheckpoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	const id = "01a23340-0000-7000-8000-000000000001"
	created := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

	// The old checkpoint: the engine's own, of a started job.bpmn instance.
	defs, err := bpmn.Parse(fixture(t, "job.bpmn").Content)
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := engine.Apply(defs.Processes[0], engine.NewState(id, "job", 1), engine.Start{Variables: map[string]any{"order": "o-7"}}, created, engine.Options{})
	if err != nil || len(st.Waits) != 1 {
		t.Fatalf("start: %v, %d waits", err, len(st.Waits))
	}
	checkpoint, err := st.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	job := st.Waits[0]

	// The old database, written as gobpm wrote it before migration 0005.
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, `CREATE TABLE schema_migrations (version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for v, name := range []string{"0001_initial.sql", "0002_waits.sql", "0003_decisions.sql", "0004_outbox.sql"} {
		ddl, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.ExecContext(ctx, string(ddl)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := raw.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (?, ?, 0)`, v+1, strings.TrimSuffix(name, ".sql")); err != nil {
			t.Fatal(err)
		}
	}
	at := created.UnixNano()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO instances (id, process_key, process_version, status, created_at, updated_at, revision, checkpoint)
		  VALUES (?, 'job', 1, 'running', ?, ?, 1, ?)`, []any{id, at, at, checkpoint}},
		{`INSERT INTO scopes (instance_id, id, path, state) VALUES (?, 'root', '/', 'active')`, []any{id}},
		{`INSERT INTO facts (instance_id, seq, at, kind, node_id, scope_path) VALUES (?, 1, ?, 'instance-started', '', '/')`, []any{id, at}},
		{`INSERT INTO waits (id, instance_id, kind, node_id, scope_id, track_id, process_key, process_version, name, retries, created_at)
		  VALUES (?, ?, 'job', ?, 'root', ?, 'job', 1, ?, ?, ?)`, []any{job.ID, id, job.NodeID, job.TrackID, job.Name, job.Retries, at}},
	} {
		if _, err := raw.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	raw.Close()

	// Today's gobpm on that file: the store migrates, the runtime upgrades
	// the checkpoint at start-up and the instance carries on.
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	t.Cleanup(func() { rt.Close(); db.Close() })
	mustDeploy(t, rt, fixture(t, "job.bpmn"))
	if _, err := rt.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if left, err := db.LegacyInstances(ctx, 0); err != nil || len(left) != 0 {
		t.Fatalf("after Resume %d instances still hold a whole checkpoint (%v)", len(left), err)
	}
	v, err := rt.Instance(ctx, id)
	if err != nil || v.Variables["order"] != "o-7" || len(v.Tracks) != 1 || v.Tracks[0].NodeID != job.NodeID {
		t.Fatalf("upgraded instance: %v, variables %v, tracks %+v", err, v.Variables, v.Tracks)
	}
	jobs, err := rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: job.Name, Worker: "w", MaxJobs: 5, LockDuration: time.Minute})
	if err != nil || len(jobs) != 1 || !strings.HasPrefix(jobs[0].Key, job.ID+".") || jobs[0].Variables["order"] != "o-7" {
		t.Fatalf("activate the old job: %v, %+v", err, jobs)
	}
	if err := rt.CompleteJob(ctx, jobs[0].Key, held(jobs[0]), map[string]any{"receipt": "r-1"}); err != nil {
		t.Fatalf("complete the old job: %v", err)
	}
	if v, err = rt.Instance(ctx, id); err != nil || v.Status != runtime.StatusCompleted || v.Variables["receipt"] != "r-1" {
		t.Fatalf("after completing: %v, %s, %v", err, v.Status, v.Variables)
	}
	facts, err := rt.History(ctx, id, 0, 0)
	if err != nil || len(facts) < 2 || facts[0].Kind != "instance-started" {
		t.Fatalf("history across the upgrade: %v, %s", err, fmt.Sprint(facts))
	}
}
