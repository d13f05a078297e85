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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/deploydir"
	"github.com/gobpm/gobpm/internal/pgtest"
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

// A server started with --deploy-dir on an empty folder serves a process
// once its file is dropped in, and a new version of it once the file
// changes; a broken file is logged and the running version keeps serving.
// (The deployment at start-up: TestDeployDirAudited, TestDeployDirTwoNodes.)
func TestDeployDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model, err := os.ReadFile(filepath.Join("testdata", "deploydir_parcel.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	m, logs := startLogged(t, "--deploy-dir", dir, "--deploy-dir-interval", "20ms")
	base := "http://" + m.Addr()
	if v := processVersion(t, base, "parcel"); v != 0 {
		t.Fatalf("before the file parcel has %d versions", v)
	}
	file := filepath.Join(dir, "parcel.bpmn")
	if err := os.WriteFile(file, model, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return processVersion(t, base, "parcel") == 1 }, logs)
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
	if d, r := metric(t, base, "gobpm_deploy_dir_deployments_total"), metric(t, base, "gobpm_deploy_dir_refusals_total"); d != 2 || r != 1 {
		t.Errorf("/metrics counts %d deployments and %d refusals from the folder, want 2 and 1", d, r)
	}
}

// metric reads one series without labels from base's /metrics (-1 when
// it is missing).
func metric(t *testing.T, base, name string) int {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v", res.StatusCode, err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return n
		}
	}
	return -1
}

// With authentication, the audit trail records each deployment from the
// folder and each refusal as the act of system:deploy-dir via deploy-dir.
func TestDeployDirAudited(t *testing.T) {
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
	m, logs := startAuth(t, "--deploy-dir", dir, "--deploy-dir-interval", "20ms")
	ctx := context.Background()
	trail := func() []access.AuditEntry {
		t.Helper()
		entries, err := m.access.Audit(ctx, access.AuditFilter{Actor: auth.UserID(deploydir.Principal)})
		if err != nil {
			t.Fatal(err)
		}
		return entries
	}
	first := trail()
	def, err := m.rt.Definition(ctx, "parcel", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 1 || first[0].Via != "deploy-dir" || first[0].Action != "deploy-dir" || first[0].Outcome != "ok" ||
		first[0].Resource != "deployment "+def.DeploymentID {
		t.Fatalf("after start the trail holds %+v, want the deployment %s by %s", first, def.DeploymentID, deploydir.Principal)
	}
	broken := bytes.Replace(model, []byte(`<startEvent id="ordered"`), []byte(`<startEvent id="ordered"/><startEvent id="ordered"`), 1)
	if err := os.WriteFile(file, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(trail()) == 2 }, logs)
	if e := trail()[0]; e.Outcome != "failed" || e.Resource != "folder "+dir {
		t.Errorf("the refusal is recorded as %+v", e)
	}
	if got := m.rt.Metrics(); got.FolderDeployments != 1 || got.FolderRefusals != 1 {
		t.Errorf("counted %d deployments and %d refusals, want 1 and 1", got.FolderDeployments, got.FolderRefusals)
	}
}

// Two server processes on one PostgreSQL database watching one folder
// make one version per change between them: each deploys at start-up and
// at the change, and the store keeps the version whose content is the
// same.
func TestDeployDirTwoNodes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs two server processes on PostgreSQL")
	}
	bin := buildBinary(t)
	db := pgtest.URL(t)
	dir := t.TempDir()
	model, err := os.ReadFile(filepath.Join("testdata", "deploydir_parcel.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "parcel.bpmn")
	if err := os.WriteFile(file, model, 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--deploy-dir", dir, "--deploy-dir-interval", "20ms", "--node-timeout", nodeTimeout}
	nodes := []*server{startServer(t, bin, db, flags...), startServer(t, bin, db, flags...)}
	none := &lockedBuffer{}
	for i, n := range nodes {
		if v := processVersion(t, n.base, "parcel"); v != 1 {
			t.Fatalf("node %d: after start parcel has %d versions, want 1", i, v)
		}
	}
	changed := bytes.Replace(model, []byte(`name="Ship a parcel"`), []byte(`name="Ship a parcel, tracked"`), 1)
	if err := os.WriteFile(file, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	// Both nodes deployed the change (each counts its own), and between
	// them they made one version.
	for i, n := range nodes {
		waitFor(t, func() bool { return metric(t, n.base, "gobpm_deploy_dir_deployments_total") == 2 }, none)
		if v := processVersion(t, n.base, "parcel"); v != 2 {
			t.Errorf("node %d: after the change parcel has %d versions, want 2", i, v)
		}
	}
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
