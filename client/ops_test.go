package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobpm/gobpm/client"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

var opsEpoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

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

// mustOpsServer serves the real router over a runtime with a manual clock
// and a backup directory on SQLite in a temporary directory.
func mustOpsServer(t *testing.T) (*client.Client, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	backups := filepath.Join(dir, "backups")
	rt := runtime.New(db, runtime.Options{ManualClock: clock.NewManual(opsEpoch), BackupDir: backups})
	t.Cleanup(func() { _ = rt.Close() })
	srv := httptest.NewServer(api.New(rt, nil, api.Options{}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, client.WithUser("pat"))
	if err != nil {
		t.Fatal(err)
	}
	return c, backups
}

// wantProblem fails unless err is a *client.Problem with status.
func wantProblem(t *testing.T, err error, status int) {
	t.Helper()
	var p *client.Problem
	if !errors.As(err, &p) || p.Status != status {
		t.Errorf("err = %v, want a %d problem", err, status)
	}
}

func TestClientOperatorTools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, backups := mustOpsServer(t)

	clk := must(c.Clock(ctx))
	if !clk.Manual || !clk.Time.Equal(opsEpoch) {
		t.Fatalf("clock = %+v", clk)
	}
	must(c.Deploy(ctx, client.File{Name: "timed.bpmn", Content: []byte(opsTimerModel)}))
	inst := must(c.Start(ctx, "timed", client.StartRequest{}))
	if moved := must(c.AdvanceClock(ctx, 30*time.Minute)); moved.TimersFired != 0 || !moved.Time.Equal(opsEpoch.Add(30*time.Minute)) {
		t.Errorf("advance 30m = %+v", moved)
	}
	if moved := must(c.SetClock(ctx, opsEpoch.Add(time.Hour))); moved.TimersFired != 1 {
		t.Errorf("set +1h = %+v", moved)
	}
	if got := must(c.Instance(ctx, inst.ID)); got.Status != "completed" {
		t.Errorf("instance after its timer: %s", got.Status)
	}
	_, err := c.SetClock(ctx, opsEpoch)
	wantProblem(t, err, http.StatusBadRequest)

	// Delete: a running instance is refused, an ended one goes.
	running := must(c.Start(ctx, "timed", client.StartRequest{}))
	wantProblem(t, c.DeleteInstance(ctx, running.ID), http.StatusConflict)
	if err := c.DeleteInstance(ctx, inst.ID); err != nil {
		t.Fatal(err)
	}
	_, err = c.Instance(ctx, inst.ID)
	wantProblem(t, err, http.StatusNotFound)

	// Backups land in the server's directory, never twice under one name.
	b := must(c.Backup(ctx, "one.db"))
	if b.Path != filepath.Join(backups, "one.db") || b.Bytes == 0 {
		t.Errorf("backup = %+v", b)
	}
	_, err = c.Backup(ctx, "one.db")
	wantProblem(t, err, http.StatusConflict)
	if auto := must(c.Backup(ctx, "")); filepath.Dir(auto.Path) != backups {
		t.Errorf("unnamed backup = %+v", auto)
	}

	// A server on the real clock and without a backup directory.
	real, _ := MustServer(t)
	if clk := must(real.Clock(ctx)); clk.Manual {
		t.Error("a real clock says it is manual")
	}
	_, err = real.AdvanceClock(ctx, time.Second)
	wantProblem(t, err, http.StatusConflict)
	_, err = real.Backup(ctx, "x.db")
	wantProblem(t, err, http.StatusConflict)
}
