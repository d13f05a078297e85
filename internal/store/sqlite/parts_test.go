package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlite/migrations"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// SQLite-only (not in storetest): it reads SQLite's encoded id columns.
func TestUUIDIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	const (
		parent = "01a232eb-82de-7b57-b901-872a49ee64c7"
		child  = "01a232eb-82de-7b57-b901-872a49ee64c8"
		jobID  = "01a232eb-82de-7b57-b901-872a49ee64c9"
		upper  = "01A232EB-82DE-7B57-B901-872A49EE64C7" // not canonical: stays text
	)
	p := storetest.NewStep(parent, "order", 1)
	c := storetest.WithWaits(storetest.NewStep(child, "order", 1), storetest.Job(jobID, "pay", 0))
	c.Instance.ParentID, c.Instance.ParentNodeID = parent, "call"
	c.Incidents = []store.IncidentRow{{ID: "inc", Kind: "k", CreatedAt: t0}}
	c.Outbox = []store.OutboxRow{{Kind: store.OutboxSignal, Payload: []byte(`{}`)}}
	c.Parts = append(c.Parts, storetest.Part("wait", jobID, 1, "job part"), storetest.Part("wait", upper, 2, "text key"))
	u := storetest.NewStep(upper, "order", 1)
	storetest.MustCommit(t, db, p, c, u)
	waits, err := db.Parts(ctx, child, "wait", 0, 0)
	if err != nil || len(waits) != 2 || waits[0].Key != jobID || waits[1].Key != upper {
		t.Errorf("wait parts = %+v, %v", waits, err)
	}
	c2 := storetest.NextStep(c, store.StatusRunning)
	c2.RemovedParts = []store.PartRef{{Kind: "wait", Key: jobID}}
	storetest.MustCommit(t, db, c2)
	if n, err := db.PartCounts(ctx, child); err != nil || n["wait"] != 1 {
		t.Errorf("wait parts after removing the UUID key = %v, %v", n, err)
	}

	var typ string
	if err := db.read.QueryRow(`SELECT typeof(id) FROM instances WHERE parent_id <> ''`).Scan(&typ); err != nil || typ != "blob" {
		t.Errorf("a UUID id is stored as %q, %v; want blob", typ, err)
	}
	for _, id := range []store.InstanceID{parent, child, upper} {
		if got, err := db.InstanceRow(ctx, id); err != nil || got.ID != id {
			t.Errorf("InstanceRow(%s) = %v, %v", id, got.ID, err)
		}
	}
	kids, _, err := db.ListInstances(ctx, store.InstanceFilter{ParentID: parent})
	if err != nil || len(kids) != 1 || kids[0].ID != child || kids[0].ParentID != parent {
		t.Errorf("children = %+v, %v", kids, err)
	}
	w, err := db.Wait(ctx, jobID)
	if err != nil || w.ID != jobID || w.InstanceID != child {
		t.Errorf("Wait = %+v, %v", w, err)
	}
	jobs, err := db.ActivateJobs(ctx, "pay", t0, storetest.LockFor("me", 5, t0.Add(1)))
	if err != nil || len(jobs) != 1 || jobs[0].ID != jobID || jobs[0].InstanceID != child {
		t.Errorf("ActivateJobs = %+v, %v", jobs, err)
	}
	if err := db.ExtendJobLock(ctx, jobID, jobs[0].LockTokenHash, t0, t0.Add(2)); err != nil {
		t.Errorf("ExtendJobLock = %v", err)
	}
	incs, err := db.Incidents(ctx, child, false)
	if err != nil || len(incs) != 1 || incs[0].InstanceID != child {
		t.Errorf("Incidents = %+v, %v", incs, err)
	}
	out, err := db.Outbox(ctx, 0)
	if err != nil || len(out) != 1 || out[0].InstanceID != child {
		t.Errorf("Outbox = %+v, %v", out, err)
	}
	if facts, err := db.History(ctx, child, 0, 0); err != nil || len(facts) != 4 {
		t.Errorf("History = %d facts, %v", len(facts), err)
	}
}

// migrationsUpTo is the shipped migrations up to version last.
func migrationsUpTo(tb testing.TB, last int) fstest.MapFS {
	tb.Helper()
	ms, err := loadMigrations(migrations.FS)
	if err != nil {
		tb.Fatal(err)
	}
	out := fstest.MapFS{}
	for _, m := range ms {
		if m.Version <= last {
			out[m.Name] = &fstest.MapFile{Data: []byte(m.SQL)}
		}
	}
	return out
}

// preParts builds a database frozen at migration 0004 (before parts): two
// instances with checkpoints, scopes, facts, waits, an incident and
// outbox rows, as gobpm wrote them. It returns the file's path.
func preParts(tb testing.TB) string {
	tb.Helper()
	ctx := context.Background()
	path := filepath.Join(tb.TempDir(), "v4.db")
	raw, err := sql.Open(driverName, dsn(path, "FULL", false))
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1)
	var fsys fs.FS = migrationsUpTo(tb, 4)
	if err := migrateFS(ctx, raw, fsys); err != nil {
		tb.Fatal(err)
	}
	stmts := []string{
		`INSERT INTO instances (id, process_key, process_version, status, business_key, parent_id, parent_node_id,
		     created_at, updated_at, ended_at, revision, checkpoint)
		 VALUES ('01a232eb-82de-7b57-b901-872a49ee64c7', 'order', 2, 'running', 'BK-1', '', '', 100, 200, NULL, 3,
		     '{"format":1,"status":"running"}'),
		        ('legacy-child', 'ship', 1, 'completed', '', '01a232eb-82de-7b57-b901-872a49ee64c7', 'call', 150, 300, 300, 2,
		     '{"format":1,"status":"completed"}')`,
		`INSERT INTO scopes (instance_id, id, path, state) VALUES ('01a232eb-82de-7b57-b901-872a49ee64c7', 'root', '/', 'active')`,
		`INSERT INTO facts (instance_id, seq, at, kind, node_id, scope_path, detail)
		 VALUES ('01a232eb-82de-7b57-b901-872a49ee64c7', 1, 100, 'instance-started', '', '/', '{"k":1}'),
		        ('01a232eb-82de-7b57-b901-872a49ee64c7', 2, 110, 'job-created', 'pay', '/', NULL),
		        ('01a232eb-82de-7b57-b901-872a49ee64c7', 3, 90, 'node-left', printf('%.200c', 'n'), '/ü',
		         '{"long":"' || printf('%.20000c', 'x') || '"}'),
		        ('legacy-child', 1, 150, 'instance-started', '', '/', NULL)`,
		`INSERT INTO waits (id, instance_id, kind, node_id, name, retries, created_at)
		 VALUES ('01a232eb-82de-7b57-b901-872a49ee64c7-w000001', '01a232eb-82de-7b57-b901-872a49ee64c7', 'job', 'pay', 'charge', 3, 110),
		        ('01a232eb-0000-7000-8000-000000000001', '', 'start-timer', 'tick', '', 0, 50),
		        ('01a232eb-82de-7b57-b901-872a49ee64c7-w000300', '01a232eb-82de-7b57-b901-872a49ee64c7', 'task', 'ok', 'Approve', 0, 111),
		        ('01a232eb-82de-7b57-b901-872a49ee64c8-w000001', '01a232eb-82de-7b57-b901-872a49ee64c7', 'signal', 'sig', 'go', 0, 112),
		        ('legacy-child-w000001', 'legacy-child', 'job', 'pay', 'charge', 3, 150)`,
		`UPDATE waits SET candidate_groups = '["ops"]' WHERE kind = 'task'`,
		`UPDATE waits SET process_key = 'order', due_at = 999 WHERE kind = 'start-timer'`,
		`INSERT INTO incidents (id, instance_id, kind, created_at) VALUES ('inc1', '01a232eb-82de-7b57-b901-872a49ee64c7', 'job_failed', 120)`,
		`INSERT INTO outbox (instance_id, kind, payload, created_at) VALUES
		     ('legacy-child', 'child-ended', '{}', 300), ('legacy-child', 'signal', '{}', 300), ('legacy-child', 'signal', '{}', 300)`,
		// The newest outbox row was done: AUTOINCREMENT must not reuse its id.
		`DELETE FROM outbox WHERE id = 3`,
	}
	for _, q := range stmts {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	return path
}

// SQLite-only (not in storetest): only a SQLite file can hold format-1 checkpoints (before migration 0005).
func TestMigrateLegacyInstances(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpenPath(t, preParts(t), Options{})
	const parent store.InstanceID = "01a232eb-82de-7b57-b901-872a49ee64c7"

	legacy, err := db.LegacyInstances(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(legacy) != 2 || legacy[0].ID != parent || legacy[1].ID != "legacy-child" {
		t.Fatalf("LegacyInstances = %+v", legacy)
	}
	if string(legacy[0].Checkpoint) != `{"format":1,"status":"running"}` || legacy[0].Revision != 3 ||
		legacy[0].BusinessKey != "BK-1" || legacy[0].ProcessVersion != 2 {
		t.Errorf("legacy row = %+v", legacy[0])
	}
	if c := legacy[1]; c.ParentID != parent || c.ParentNodeID != "call" || c.EndedAt.IsZero() {
		t.Errorf("legacy child = %+v", c)
	}
	if one, err := db.LegacyInstances(ctx, 1); err != nil || len(one) != 1 {
		t.Errorf("LegacyInstances(1) = %d rows, %v", len(one), err)
	}
	si, err := db.Instance(ctx, parent)
	if err != nil || string(si.Header) != `{"format":1,"status":"running"}` || len(si.Parts) != 0 {
		t.Errorf("Instance of a legacy row = %+v, %v", si, err)
	}
	facts, err := db.History(ctx, parent, 0, 0)
	wantFacts := []store.FactRow{
		{Seq: 1, At: decodeTime(100), Kind: "instance-started", ScopePath: "/", Detail: json.RawMessage(`{"k":1}`)},
		{Seq: 2, At: decodeTime(110), Kind: "job-created", NodeID: "pay", ScopePath: "/"},
		{Seq: 3, At: decodeTime(90), Kind: "node-left", NodeID: strings.Repeat("n", 200), ScopePath: "/ü",
			Detail: json.RawMessage(`{"long":"` + strings.Repeat("x", 20000) + `"}`)},
	}
	if err != nil || !reflect.DeepEqual(facts, wantFacts) {
		t.Errorf("History = %+v, %v", facts, err)
	}
	if f, err := db.History(ctx, parent, 1, 1); err != nil || len(f) != 1 || f[0].Seq != 2 {
		t.Errorf("History(1, 1) = %+v, %v", f, err)
	}
	waits, err := db.InstanceWaits(ctx, parent)
	if err != nil || !reflect.DeepEqual(storetest.WaitIDs(waits), []string{string(parent) + "-w000001", string(parent) + "-w000300",
		"01a232eb-82de-7b57-b901-872a49ee64c8-w000001"}) {
		t.Errorf("InstanceWaits = %v, %v", storetest.WaitIDs(waits), err)
	}
	if len(waits) == 3 && (!reflect.DeepEqual(waits[1].CandidateGroups, []string{"ops"}) || waits[1].CandidateUsers != nil) {
		t.Errorf("task candidates = %+v", waits[1])
	}
	var owners []string
	rows, err := db.read.Query(`SELECT ifnull(typeof(instance_id) || ':' || length(instance_id), 'null') FROM waits ORDER BY created_at`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			t.Fatal(err)
		}
		owners = append(owners, o)
	}
	rows.Close()
	// The start timer's '', the parent's own two ids, the id naming another
	// instance, the text id.
	if want := []string{"text:0", "null", "null", "blob:16", "text:12"}; !reflect.DeepEqual(owners, want) {
		t.Errorf("stored owners = %v, want %v", owners, want)
	}
	if w, err := db.Wait(ctx, "legacy-child-w000001"); err != nil || w.InstanceID != "legacy-child" {
		t.Errorf("Wait of the text id = %+v, %v", w, err)
	}
	if w, err := db.Wait(ctx, string(parent)+"-w000001"); err != nil || w.InstanceID != parent || w.Name != "charge" {
		t.Errorf("Wait = %+v, %v", w, err)
	}
	if ts, err := db.StartTimers(ctx, "order"); err != nil || len(ts) != 1 || ts[0].ID != "01a232eb-0000-7000-8000-000000000001" {
		t.Errorf("StartTimers = %+v, %v", ts, err)
	}
	if incs, err := db.Incidents(ctx, parent, false); err != nil || len(incs) != 1 {
		t.Errorf("Incidents = %+v, %v", incs, err)
	}
	if kids, total, err := db.ListInstances(ctx, store.InstanceFilter{ParentID: parent}); err != nil || total != 1 || kids[0].ID != "legacy-child" {
		t.Errorf("children = %+v (%d), %v", kids, total, err)
	}

	// A step cannot update a legacy row: its parts do not exist yet.
	step := store.StepRecord{Instance: legacy[0].InstanceRow, PrevRevision: 3, Header: []byte("h")}
	step.Instance.Revision = 4
	if err := db.CommitSteps(ctx, []store.StepRecord{step}); err == nil || errors.Is(err, store.ErrConflict) ||
		!strings.Contains(err.Error(), "legacy") {
		t.Errorf("step of a legacy row = %v", err)
	}

	tests := []struct {
		name     string
		id       store.InstanceID
		revision int64
		wantErr  error
	}{
		{name: "stale revision", id: parent, revision: 2, wantErr: store.ErrConflict},
		{name: "unknown instance", id: "ghost", revision: 1, wantErr: store.ErrNotFound},
		{name: "upgrade", id: parent, revision: 3},
	}
	parts := []store.Part{storetest.Part("scope", "root", 0, "root"), storetest.Part("track", "t1", 1, "t1")}
	for _, tt := range tests {
		err := db.ReplaceState(ctx, tt.id, tt.revision, []byte("header"), parts)
		if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: ReplaceState = %v, want %v", tt.name, err, tt.wantErr)
		}
	}
	legacy, err = db.LegacyInstances(ctx, 0)
	if err != nil || len(legacy) != 1 || legacy[0].ID != "legacy-child" {
		t.Errorf("LegacyInstances after the upgrade = %+v, %v", legacy, err)
	}
	si, err = db.Instance(ctx, parent)
	if err != nil || string(si.Header) != "header" || !reflect.DeepEqual(si.Parts, parts) || si.Revision != 3 {
		t.Errorf("Instance after the upgrade = %+v, %v", si, err)
	}
	// A second ReplaceState replaces every part.
	if err := db.ReplaceState(ctx, parent, 3, []byte("h2"), parts[:1]); err != nil {
		t.Fatal(err)
	}
	if n, err := db.PartCounts(ctx, parent); err != nil || !reflect.DeepEqual(n, map[string]int{"scope": 1}) {
		t.Errorf("PartCounts after a second ReplaceState = %v, %v", n, err)
	}
	// Now steps apply.
	storetest.MustCommit(t, db, step)
	if got, err := db.InstanceRow(ctx, parent); err != nil || got.Revision != 4 {
		t.Errorf("after the step = %+v, %v", got, err)
	}
	// Outbox ids are not reused.
	c := storetest.NewStep("new", "order", 1)
	c.Outbox = []store.OutboxRow{{Kind: store.OutboxSignal, Payload: []byte(`{}`)}}
	storetest.MustCommit(t, db, c)
	if c.Outbox[0].ID != 4 {
		t.Errorf("new outbox id = %d, want 4", c.Outbox[0].ID)
	}
	var v int
	if err := db.read.QueryRow(`SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil || v < 5 {
		t.Errorf("schema version = %d, %v", v, err)
	}
}
