package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

func TestParseConfigOps(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	if _, err := ParseConfig([]string{"--clock", "manual"}, none, io.Discard); err == nil || !strings.Contains(err.Error(), "--dev") {
		t.Errorf("--clock=manual without --dev: %v, want a refusal naming --dev", err)
	}
	cfg, err := ParseConfig([]string{"--dev", "--clock=manual"}, none, io.Discard)
	if err != nil || !cfg.ManualClock || !cfg.Dev {
		t.Errorf("--dev --clock=manual: %+v, %v", cfg, err)
	}
	if cfg, _ := ParseConfig(nil, none, io.Discard); cfg.ManualClock || cfg.Dev || cfg.HistoryTTL != 0 || cfg.BackupDir != "" {
		t.Errorf("defaults: %+v", cfg)
	}
	if _, err := ParseConfig([]string{"--clock", "fast"}, none, io.Discard); err == nil {
		t.Error("--clock fast accepted")
	}
	env := map[string]string{"GOBPM_DEV": "true", "GOBPM_CLOCK": "manual", "GOBPM_HISTORY_TTL": "12h", "GOBPM_BACKUP_DIR": "/var/backups/gobpm"}
	cfg, err = ParseConfig(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil || !cfg.ManualClock || cfg.HistoryTTL != 12*time.Hour || cfg.BackupDir != "/var/backups/gobpm" {
		t.Errorf("environment: %+v, %v", cfg, err)
	}
	for arg, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "90m": 90 * time.Minute, "P7D": 7 * 24 * time.Hour, "2": 48 * time.Hour} {
		if cfg, err := ParseConfig([]string{"--history-ttl", arg}, none, io.Discard); err != nil || cfg.HistoryTTL != want {
			t.Errorf("--history-ttl %s: %v, %v; want %v", arg, cfg.HistoryTTL, err, want)
		}
	}
	for _, bad := range []string{"forever", "0", "0d", "-1d"} {
		if _, err := ParseConfig([]string{"--history-ttl", bad}, none, io.Discard); err == nil || !strings.Contains(err.Error(), "--history-ttl") {
			t.Errorf("--history-ttl %s: %v", bad, err)
		}
	}
}

const opsTimerModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:test">
  <process id="timed" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="w"/>
    <intermediateCatchEvent id="w"><timerEventDefinition><timeDuration>P1D</timeDuration></timerEventDefinition></intermediateCatchEvent>
    <sequenceFlow id="f2" sourceRef="w" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`

// TestOperatorServer runs Main with a manual clock, a history time to live
// and a backup directory: a day-long timer fires when the clock is moved a
// day, the background cleaner deletes the ended instance once the clock
// passes its time to live, and backups are taken through the API and the
// backup command while the server runs.
func TestOperatorServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "data", "gobpm.db")
	cfg, err := ParseConfig([]string{"--addr", "127.0.0.1:0", "--db", db, "--dev", "--clock=manual",
		"--history-ttl", "1h", "--backup-dir", filepath.Join(dir, "backups")}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.DiscardHandler))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	base := "http://" + m.Addr()

	if code, dep := post(t, base+"/api/v1/deployments", "application/xml", []byte(opsTimerModel)); code != http.StatusCreated {
		t.Fatalf("deploy: %d %v", code, dep)
	}
	code, inst := post(t, base+"/api/v1/processes/timed/instances", "application/json", []byte(`{}`))
	if code != http.StatusCreated || inst["status"] != "running" {
		t.Fatalf("start: %d %v", code, inst)
	}
	id := inst["id"].(string)

	// A backup from outside while it runs, then one through the API.
	var out bytes.Buffer
	cliCopy := filepath.Join(dir, "cli.db")
	if err := runBackup(context.Background(), []string{"--db", db, "--to", cliCopy}, func(string) string { return "" }, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), cliCopy) {
		t.Errorf("backup command said %q", out.String())
	}
	if code, b := post(t, base+"/api/v1/admin/backup", "application/json", []byte(`{"to":"api.db"}`)); code != http.StatusOK || b["path"] != filepath.Join(dir, "backups", "api.db") {
		t.Fatalf("backup route: %d %v", code, b)
	}
	for _, p := range []string{cliCopy, filepath.Join(dir, "backups", "api.db")} {
		cp, err := sqlite.Open(context.Background(), p, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if row, err := cp.InstanceRow(context.Background(), runtime.InstanceID(id)); err != nil || row.Status != runtime.StatusRunning {
			t.Errorf("%s: instance %+v, %v", p, row, err)
		}
		cp.Close()
	}

	// A day later the timer has fired and the instance is complete.
	if code, c := post(t, base+"/api/v1/clock", "application/json", []byte(`{"advanceMs": 86400000}`)); code != http.StatusOK || c["timersFired"] != json.Number("1") {
		t.Fatalf("advance a day: %d %v", code, c)
	}
	if code, got := get(t, base+"/api/v1/instances/"+id); code != http.StatusOK || got["status"] != "completed" {
		t.Fatalf("after a day: %d %v", code, got)
	}
	// Two hours later its history has passed the time to live: the
	// background cleaner, woken by the move, deletes it.
	if code, c := post(t, base+"/api/v1/clock", "application/json", []byte(`{"advanceMs": 7200000}`)); code != http.StatusOK {
		t.Fatalf("advance two hours: %d %v", code, c)
	}
	for i := 0; ; i++ {
		code, _ := get(t, base+"/api/v1/instances/"+id)
		if code == http.StatusNotFound {
			break
		}
		if i == 500 {
			t.Fatalf("the cleaner left the expired instance (GET answers %d)", code)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBackupCommandRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	none := func(string) string { return "" }
	if err := runBackup(context.Background(), []string{"--db", filepath.Join(dir, "missing.db"), "--to", filepath.Join(dir, "x.db")}, none, io.Discard); err == nil {
		t.Error("backup of a missing database succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("backup created the missing database")
	}
	if err := runBackup(context.Background(), []string{"--db", filepath.Join(dir, "x.db")}, none, io.Discard); err == nil || !strings.Contains(err.Error(), "--to") {
		t.Errorf("without --to: %v", err)
	}
}
