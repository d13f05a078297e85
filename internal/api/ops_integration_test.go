package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// opsEpoch is where the manual clock of the operator tests starts.
var opsEpoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// setupOps builds the API over a real runtime on a real SQLite file with a
// manual clock and a backup directory, which it returns.
func setupOps(t *testing.T) (*bundle, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	backups := filepath.Join(dir, "backups")
	rt := runtime.New(db, runtime.Options{ManualClock: clock.NewManual(opsEpoch), BackupDir: backups,
		Retention: runtime.RetentionOptions{Every: -1}})
	t.Cleanup(func() { _ = rt.Close() })
	return setup(t, rt, api.Options{}), backups
}

const opsTimerModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:test">
  <process id="timed" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="w"/>
    <intermediateCatchEvent id="w"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>
    <sequenceFlow id="f2" sourceRef="w" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`

func TestClockRoutes(t *testing.T) {
	t.Parallel()
	b, _ := setupOps(t)
	if c := b.get("/api/v1/clock").wantStatus(t, http.StatusOK).object(t); c["manual"] != true || c["time"] != "2025-03-01T12:00:00Z" {
		t.Fatalf("clock = %v", c)
	}
	b.postXML("/api/v1/deployments?name=timed.bpmn", opsTimerModel).wantStatus(t, http.StatusCreated)
	id := b.postJSON("/api/v1/processes/timed/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)

	// Not yet: 59 minutes.
	c := b.postJSON("/api/v1/clock", `{"advanceMs": 3540000}`).wantStatus(t, http.StatusOK).object(t)
	if c["timersFired"] != json.Number("0") || c["time"] != "2025-03-01T12:59:00Z" {
		t.Errorf("after 59m: %v", c)
	}
	// The hour is up: the timer fires within the call.
	c = b.postJSON("/api/v1/clock", `{"time": "2025-03-01T13:00:00Z"}`).wantStatus(t, http.StatusOK).object(t)
	if c["timersFired"] != json.Number("1") {
		t.Errorf("after 1h: %v", c)
	}
	if inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t); inst["status"] != "completed" {
		t.Errorf("instance after its timer's time: %v", inst["status"])
	}

	for _, tt := range []struct{ body, field, says string }{
		{`{}`, "time", "advanceMs"},
		{`{"time": "2025-03-01T12:00:00Z"}`, "time", "only moves forward"},
		{`{"time": "yesterday"}`, "time", "RFC 3339"},
		{`{"advanceMs": -1}`, "advanceMs", "integer from 0"},
		{`{"advanceMs": 1.5}`, "advanceMs", "integer"},
		{`{"time": "2026-01-01T00:00:00Z", "advanceMs": 1}`, "time", "not both"},
	} {
		p := b.postJSON("/api/v1/clock", tt.body).problem(t, http.StatusBadRequest, "invalid-request")
		if p.Field != tt.field || !strings.Contains(p.Detail, tt.says) {
			t.Errorf("%s: field %q detail %q, want field %q saying %q", tt.body, p.Field, p.Detail, tt.field, tt.says)
		}
	}

	// A server on the real clock says so and refuses to move it.
	real := setupReal(t)
	if c := real.get("/api/v1/clock").wantStatus(t, http.StatusOK).object(t); c["manual"] != false {
		t.Errorf("real clock = %v", c)
	}
	if p := real.postJSON("/api/v1/clock", `{"advanceMs": 1000}`).problem(t, http.StatusConflict, "conflict"); !strings.Contains(p.Detail, "--clock=manual") {
		t.Errorf("moving a real clock: %q", p.Detail)
	}
}

func TestDeleteInstanceRoute(t *testing.T) {
	t.Parallel()
	b, _ := setupOps(t)
	b.postXML("/api/v1/deployments?name=timed.bpmn", opsTimerModel).wantStatus(t, http.StatusCreated)
	id := b.postJSON("/api/v1/processes/timed/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)

	if p := b.send(http.MethodDelete, "/api/v1/instances/"+id, "", "").problem(t, http.StatusConflict, "conflict"); !strings.Contains(p.Detail, "running") {
		t.Errorf("delete running: %q", p.Detail)
	}
	b.postJSON("/api/v1/instances/"+id+"/cancel", "").wantStatus(t, http.StatusOK)
	b.send(http.MethodDelete, "/api/v1/instances/"+id, "", "").wantStatus(t, http.StatusNoContent)
	b.get("/api/v1/instances/"+id).problem(t, http.StatusNotFound, "not-found")
	b.get("/api/v1/instances/"+id+"/history").problem(t, http.StatusNotFound, "not-found")
	b.send(http.MethodDelete, "/api/v1/instances/"+id, "", "").problem(t, http.StatusNotFound, "not-found")
	if items := b.get("/api/v1/instances?processKey=timed").wantStatus(t, http.StatusOK).items(t); len(items) != 0 {
		t.Errorf("list after delete: %v", items)
	}
}

func TestBackupRoute(t *testing.T) {
	t.Parallel()
	b, dir := setupOps(t)
	b.postXML("/api/v1/deployments?name=timed.bpmn", opsTimerModel).wantStatus(t, http.StatusCreated)
	id := b.postJSON("/api/v1/processes/timed/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)

	res := b.postJSON("/api/v1/admin/backup", `{"to": "nightly.db"}`).wantStatus(t, http.StatusOK).object(t)
	if res["path"] != filepath.Join(dir, "nightly.db") || res["bytes"] == json.Number("0") {
		t.Errorf("backup = %v", res)
	}
	b.postJSON("/api/v1/admin/backup", `{"to": "nightly.db"}`).problem(t, http.StatusConflict, "conflict")
	for _, to := range []string{"../up.db", "a/b.db", ".hidden"} {
		if p := b.postJSON("/api/v1/admin/backup", `{"to": "`+to+`"}`).problem(t, http.StatusBadRequest, "invalid-request"); p.Field != "to" {
			t.Errorf("to %q: field %q", to, p.Field)
		}
	}
	b.postJSON("/api/v1/admin/backup", `{"to": 7}`).problem(t, http.StatusBadRequest, "invalid-request")
	auto := b.postJSON("/api/v1/admin/backup", ``).wantStatus(t, http.StatusOK).object(t)
	if !strings.HasPrefix(filepath.Base(auto["path"].(string)), "gobpm-") {
		t.Errorf("unnamed backup = %v", auto)
	}

	// The copy is a database with the instance in it.
	cp, err := sqlite.Open(context.Background(), res["path"].(string), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	if row, err := cp.InstanceRow(context.Background(), runtime.InstanceID(id)); err != nil || row.Status != runtime.StatusRunning {
		t.Errorf("instance in the copy: %+v, %v", row, err)
	}

	// Without --backup-dir the route refuses, naming the flag.
	if p := setupReal(t).postJSON("/api/v1/admin/backup", `{}`).problem(t, http.StatusConflict, "conflict"); !strings.Contains(p.Detail, "--backup-dir") {
		t.Errorf("no backup dir: %q", p.Detail)
	}
}
