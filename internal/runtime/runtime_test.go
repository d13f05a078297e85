package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// bundle is a runtime over a real database (testdb: a SQLite file, or
// PostgreSQL with GOBPM_TEST_DB=postgres).
type bundle struct {
	path string
	db   testdb.Store
	rt   *runtime.Runtime
}

func setup(t *testing.T) *bundle {
	t.Helper()
	b := &bundle{path: testdb.DSN(t)}
	b.open(t)
	t.Cleanup(func() { b.close(t) })
	return b
}

func (b *bundle) open(t *testing.T) {
	t.Helper()
	db, err := testdb.Open(context.Background(), b.path)
	if err != nil {
		t.Fatal(err)
	}
	b.db = db
	b.rt = runtime.New(db, runtime.Options{})
}

func (b *bundle) close(t *testing.T) {
	t.Helper()
	if b.rt == nil {
		return
	}
	if err := b.rt.Close(); err != nil {
		t.Error(err)
	}
	if err := b.db.Close(); err != nil {
		t.Error(err)
	}
	b.rt, b.db = nil, nil
}

func fixture(t *testing.T, name string) runtime.File {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return runtime.File{Name: name, Content: data}
}

func mustDeploy(t *testing.T, rt *runtime.Runtime, files ...runtime.File) runtime.DeploymentResult {
	t.Helper()
	res, err := rt.Deploy(context.Background(), files)
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	return res
}

func TestDeployVersions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	f := fixture(t, "straight.bpmn")
	first := mustDeploy(t, b.rt, f)
	if len(first.Processes) != 1 || first.Processes[0] != (runtime.DefinitionRef{Key: "straight", Version: 1}) {
		t.Fatalf("first deploy: %+v", first)
	}
	again := mustDeploy(t, b.rt, f)
	if again.Processes[0].Version != 1 {
		t.Errorf("identical content minted version %d", again.Processes[0].Version)
	}
	changed := runtime.File{Name: f.Name, Content: bytes.Replace(f.Content, []byte(`name="Check"`), []byte(`name="Check it"`), 1)}
	if got := mustDeploy(t, b.rt, changed).Processes[0].Version; got != 2 {
		t.Errorf("changed content got version %d, want 2", got)
	}
	versions, err := b.rt.ProcessVersions(ctx, "straight")
	if err != nil || len(versions) != 2 {
		t.Fatalf("versions: %v %v", versions, err)
	}
	def, err := b.rt.Definition(ctx, "straight", 1)
	if err != nil || !bytes.Equal(def.XML, f.Content) {
		t.Errorf("version 1 XML not kept verbatim (err %v)", err)
	}
	if _, err := b.rt.ProcessVersions(ctx, "nope"); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("unknown key: %v", err)
	}
}

func TestDeployRefusesWholeDeployment(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	bad := runtime.File{Name: "bad.bpmn", Content: []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p"><startEvent id="s"/><serviceTask id="svc"/></process></definitions>`)}
	_, err := b.rt.Deploy(ctx, []runtime.File{fixture(t, "straight.bpmn"), bad})
	var derr *runtime.DeploymentError
	if !errors.As(err, &derr) {
		t.Fatalf("err = %v, want *DeploymentError", err)
	}
	found := false
	for _, p := range derr.Problems {
		if p.Element == "svc" && p.Resource == "bad.bpmn" {
			found = true
		}
	}
	if !found {
		t.Errorf("problems do not name svc in bad.bpmn: %+v", derr.Problems)
	}
	if procs, _ := b.rt.Processes(ctx); len(procs) != 0 {
		t.Errorf("a refused deployment registered %v", procs)
	}
	_, err = b.rt.Deploy(ctx, []runtime.File{fixture(t, "straight.bpmn"), {Name: "copy.bpmn", Content: fixture(t, "straight.bpmn").Content}})
	if !errors.As(err, &derr) || derr.Problems[0].Rule != "duplicate-process-key" {
		t.Errorf("duplicate key across files: %v", err)
	}
	if _, err := b.rt.Deploy(ctx, nil); runtime.ErrorCode(err) != runtime.EINVALID {
		t.Errorf("empty deployment: %v", err)
	}
}

func TestStartAndCancel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	mustDeploy(t, b.rt, fixture(t, "straight.bpmn"), fixture(t, "reentry.bpmn"))
	done, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "straight", BusinessKey: "bk", Variables: map[string]any{"amount": json.Number("0.05")}})
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != runtime.StatusCompleted || done.Variables["total"] != json.Number("0.2") || done.EndedAt.IsZero() {
		t.Fatalf("straight: %+v", done)
	}
	hist, err := b.rt.History(ctx, done.ID, 0, 0)
	if err != nil || len(hist) == 0 || hist[0].Kind != "instance-started" || hist[len(hist)-1].Kind != "instance-completed" {
		t.Fatalf("history: %v %+v", err, hist)
	}
	for i, f := range hist {
		if f.Seq != int64(i+1) {
			t.Fatalf("history seq %d at %d", f.Seq, i)
		}
	}
	waiting, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "reentry"})
	if err != nil || waiting.Status != runtime.StatusRunning || len(waiting.Scopes) != 3 || len(waiting.Tracks) != 4 {
		t.Fatalf("reentry: %v %+v", err, waiting)
	}
	cancelled, err := b.rt.Cancel(ctx, waiting.ID)
	if err != nil || cancelled.Status != runtime.StatusTerminated || len(cancelled.Tracks) != 0 {
		t.Fatalf("cancel: %v %+v", err, cancelled)
	}
	if _, err := b.rt.Cancel(ctx, waiting.ID); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Errorf("second cancel: %v", err)
	}
	if _, err := b.rt.Cancel(ctx, "nope"); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("cancel unknown: %v", err)
	}
	if _, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "nope"}); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("start unknown: %v", err)
	}
	if _, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "straight", Version: 9}); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("start unknown version: %v", err)
	}
	rows, total, err := b.rt.ListInstances(ctx, runtime.InstanceFilter{BusinessKey: "bk"})
	if err != nil || total != 1 || rows[0].ID != done.ID {
		t.Errorf("list by business key: %v %d %+v", err, total, rows)
	}
}

func TestIncidentFailsInstance(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	mustDeploy(t, b.rt, fixture(t, "xor_nomatch.bpmn"))
	inst, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "xorNoMatch", Variables: map[string]any{"amount": json.Number("50")}})
	if err != nil {
		t.Fatal(err)
	}
	if inst.Status != runtime.StatusFailed || len(inst.Incidents) != 1 || inst.Incidents[0].NodeID != "gw" {
		t.Fatalf("instance: %+v", inst)
	}
	open, err := b.rt.Incidents(ctx, "", true)
	if err != nil || len(open) != 1 {
		t.Fatalf("open incidents: %v %+v", err, open)
	}
	if _, err := b.rt.Cancel(ctx, inst.ID); err != nil {
		t.Fatal(err)
	}
	if open, _ := b.rt.Incidents(ctx, "", true); len(open) != 0 {
		t.Errorf("cancel left incidents open: %+v", open)
	}
}

// TestConcurrentStarts drives many instances at once through the group
// committer; every acknowledged start must be stored exactly once.
func TestConcurrentStarts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	mustDeploy(t, b.rt, fixture(t, "straight.bpmn"))
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			inst, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "straight", BusinessKey: fmt.Sprint(i), Variables: map[string]any{"amount": json.Number(fmt.Sprint(i))}})
			if err == nil && inst.Status != runtime.StatusCompleted {
				err = fmt.Errorf("instance %d status %s", i, inst.Status)
			}
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, total, err := b.rt.ListInstances(ctx, runtime.InstanceFilter{}); err != nil || total != n {
		t.Fatalf("stored %d instances (err %v), want %d", total, err, n)
	}
}

func TestRestartResumes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	mustDeploy(t, b.rt, fixture(t, "reentry.bpmn"))
	inst, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "reentry", Variables: map[string]any{"x": json.Number("1.50")}})
	if err != nil {
		t.Fatal(err)
	}
	b.close(t)
	b.open(t)
	n, err := b.rt.Resume(ctx)
	if err != nil || n != 1 {
		t.Fatalf("resume: %d %v", n, err)
	}
	back, err := b.rt.Instance(ctx, inst.ID)
	if err != nil || back.Status != runtime.StatusRunning || len(back.Tracks) != 4 || back.Variables["x"] != json.Number("1.50") {
		t.Fatalf("after restart: %v %+v", err, back)
	}
	if _, err := b.rt.Cancel(ctx, inst.ID); err != nil {
		t.Fatalf("cancel after restart: %v", err)
	}
}

func TestCloseRefusesNewSteps(t *testing.T) {
	t.Parallel()
	b := setup(t)
	mustDeploy(t, b.rt, fixture(t, "straight.bpmn"))
	b.rt.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "straight"}); err == nil {
		t.Fatal("start after Close succeeded")
	}
}
