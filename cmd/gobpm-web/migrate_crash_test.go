package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"
)

// TestCrashMigrationBatch: a migration batch of 300 instances is killed
// (SIGKILL) while it runs, the server restarted on the same file: the
// batch resumes and completes, every instance is at the target version
// once — one instance-migrated fact each — and its job follows (the
// target's job type activates it).
func TestCrashMigrationBatch(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "gobpm.db")
	s := startServer(t, bin, db)
	deployTestdata(t, s.base, "migrate_crash_v1.bpmn", "migrate_crash_v2.bpmn")
	const n = 300
	ids := make([]string, n)
	for i := range ids {
		code, inst := post(t, s.base+"/api/v1/processes/moved/instances", "application/json", []byte(`{"version":1}`))
		if code != http.StatusCreated || inst["version"] != json.Number("1") {
			t.Fatalf("start: %d %v", code, inst)
		}
		ids[i] = inst["id"].(string)
	}
	code, batch := post(t, s.base+"/api/v1/migrations", "application/json", []byte(`{"processKey":"moved","sourceVersion":1,"targetVersion":2}`))
	if code != http.StatusCreated {
		t.Fatalf("start migration: %d %v", code, batch)
	}
	id := batch["id"].(string)
	// Kill it while it runs: once some instances moved, or at once if the
	// batch is quicker than the poll.
	var before any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		_, m := get(t, s.base+"/api/v1/migrations/"+id)
		if before = m["migrated"]; before != json.Number("0") {
			break
		}
		time.Sleep(time.Millisecond)
	}
	killServer(t, s)
	t.Logf("killed with %v of %d instances migrated", before, n)
	s = startServer(t, bin, db)

	var m map[string]any
	for deadline := time.Now().Add(time.Minute); ; {
		var code int
		code, m = get(t, s.base+"/api/v1/migrations/"+id)
		if code == http.StatusOK && m["status"] == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the batch did not complete after the restart: %d %v", code, m["status"])
		}
		time.Sleep(20 * time.Millisecond)
	}
	if m["migrated"] != json.Number(fmt.Sprint(n)) || m["failed"] != json.Number("0") {
		t.Fatalf("batch after the restart: migrated %v, failed %v of %d", m["migrated"], m["failed"], n)
	}
	for _, inst := range ids {
		_, v := get(t, s.base+"/api/v1/instances/"+inst)
		migrated := 0
		for _, f := range historyOf(t, s.base, inst) {
			if f["kind"] == "instance-migrated" {
				migrated++
			}
		}
		if v["version"] != json.Number("2") || migrated != 1 {
			t.Fatalf("instance %s: version %v, %d instance-migrated facts; want version 2, once", inst, v["version"], migrated)
		}
	}
	// The jobs follow their element: the target's type activates them all.
	code, got := post(t, s.base+"/api/v1/jobs/activate", "application/json", []byte(`{"type":"work-v2","worker":"w","maxJobs":1000,"lockDurationMs":60000}`))
	if jobs, _ := got["jobs"].([]any); code != http.StatusOK || len(jobs) != n {
		t.Fatalf("jobs of the target type: %d, %d of %d", code, len(jobs), n)
	}
}
