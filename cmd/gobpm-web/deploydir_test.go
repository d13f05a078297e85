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
	"testing"
	"time"
)

// processVersion asks the API for the number of versions of key (0 when
// none).
func processVersion(t *testing.T, base, key string) int {
	t.Helper()
	res, err := http.Get(base + "/api/v1/processes/" + key + "/versions")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNotFound {
		return 0
	}
	var p struct{ Items []json.RawMessage }
	if err := json.NewDecoder(res.Body).Decode(&p); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /processes/%s/versions: %d %v", key, res.StatusCode, err)
	}
	return len(p.Items)
}

// A server started with --deploy-dir serves the folder's process at once
// and a new version of it once the file changes; a broken file is logged
// and the running version keeps serving.
func TestDeployDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model, err := os.ReadFile(filepath.Join("testdata", "deploydir_parcel.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "parcel.bpmn")
	if err := os.WriteFile(file, model, 0o644); err != nil {
		t.Fatal(err)
	}
	m, logs := startLogged(t, "--deploy-dir", dir, "--deploy-dir-interval", "20ms")
	base := "http://" + m.Addr()
	if v := processVersion(t, base, "parcel"); v != 1 {
		t.Fatalf("after start parcel is version %d, want 1", v)
	}
	broken := bytes.Replace(model, []byte(`<startEvent id="ordered"`), []byte(`<startEvent id="ordered"/><startEvent id="ordered"`), 1)
	if err := os.WriteFile(file, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return bytes.Contains([]byte(logs.String()), []byte("deployment problem")) }, logs)
	if v := processVersion(t, base, "parcel"); v != 1 {
		t.Fatalf("a broken file moved parcel to version %d", v)
	}
	changed := bytes.Replace(model, []byte(`name="Ship a parcel"`), []byte(`name="Ship a parcel, tracked"`), 1)
	if err := os.WriteFile(file, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return processVersion(t, base, "parcel") == 2 }, logs)
}

// waitFor polls cond until it holds, failing after a minute (a bound for
// a stuck watcher, not a timing assertion).
func waitFor(t *testing.T, cond func() bool, logs *lockedBuffer) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition never held; log:\n%s", logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDeployDirFlags(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	cfg, err := ParseConfig([]string{"--addr", "127.0.0.1:0"}, none, io.Discard)
	if err != nil || cfg.DeployDir.Dir != "" || cfg.DeployDir.Interval != 2*time.Second {
		t.Fatalf("defaults = %+v, %v", cfg.DeployDir, err)
	}
	cfg, err = ParseConfig([]string{"--addr", "127.0.0.1:0"}, func(k string) string {
		return map[string]string{"GOBPM_DEPLOY_DIR": "/models", "GOBPM_DEPLOY_DIR_INTERVAL": "5s"}[k]
	}, io.Discard)
	if err != nil || cfg.DeployDir.Dir != "/models" || cfg.DeployDir.Interval != 5*time.Second {
		t.Fatalf("from the environment = %+v, %v", cfg.DeployDir, err)
	}
	if _, err := ParseConfig([]string{"--addr", "127.0.0.1:0", "--deploy-dir-interval", "0s"}, none, io.Discard); err == nil {
		t.Error("a zero interval was accepted")
	}
	if _, err := ParseConfig([]string{"--addr", "127.0.0.1:0"}, func(k string) string {
		return map[string]string{"GOBPM_DEPLOY_DIR_INTERVAL": "soon"}[k]
	}, io.Discard); err == nil {
		t.Error("GOBPM_DEPLOY_DIR_INTERVAL=soon was accepted")
	}
	// A folder that does not exist stops the start.
	cfg, err = ParseConfig([]string{"--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "gobpm.db"), "--deploy-dir", filepath.Join(t.TempDir(), "missing")}, none, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.DiscardHandler))
	if err := m.Run(context.Background()); err == nil {
		_ = m.Close()
		t.Error("a missing --deploy-dir started the server")
	}
}
