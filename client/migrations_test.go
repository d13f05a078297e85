package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobpm/gobpm/client"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// TestMigrations validates and runs a migration through the client over
// the real router, runtime and SQLite.
func TestMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	rt := runtime.New(db, runtime.Options{})
	t.Cleanup(func() { _ = rt.Close() })
	srv := httptest.NewServer(api.New(rt, nil, api.Options{}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, client.WithUser("olga"))
	if err != nil {
		t.Fatal(err)
	}
	deploy := func(name string) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Deploy(ctx, client.File{Name: name, Content: data}); err != nil {
			t.Fatal(err)
		}
	}
	deploy("migrate_v1.bpmn")
	inst, err := c.Start(ctx, "migr", client.StartRequest{Variables: map[string]any{"orderId": "o-1"}})
	if err != nil {
		t.Fatal(err)
	}
	deploy("migrate_v2.bpmn")

	plan := client.MigrationPlan{ProcessKey: "migr", SourceVersion: 1, TargetVersion: 2}
	check, err := c.CheckMigration(ctx, plan)
	if err != nil || check.Valid || len(check.Instances) != 1 || check.Instances[0].InstanceID != inst.ID || check.Instances[0].Problems[0].Element != "msg" {
		t.Fatalf("check %+v %v", check, err)
	}
	_, err = c.StartMigration(ctx, plan)
	var p *client.Problem
	if !errors.As(err, &p) || p.Status != http.StatusConflict || len(p.Instances) != 1 || p.Instances[0].Problems[0].Element != "msg" {
		t.Fatalf("refused start: %v", err)
	}
	plan.Mapping = map[string]string{"msg": "nope"}
	if _, err := c.StartMigration(ctx, plan); !errors.As(err, &p) || p.Status != http.StatusBadRequest || len(p.MigrationProblems) != 1 {
		t.Fatalf("bad mapping: %v", err)
	}

	plan.Mapping = map[string]string{"msg": "msg2"}
	m, err := c.StartMigration(ctx, plan)
	if err != nil || m.Total != 1 || m.CreatedBy != "olga" {
		t.Fatalf("start %+v %v", m, err)
	}
	if err := rt.AwaitMigration(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	m, err = c.Migration(ctx, m.ID)
	if err != nil || m.Status != "completed" || m.Migrated != 1 || m.Items[0].InstanceID != inst.ID || m.FinishedAt == nil {
		t.Fatalf("done %+v %v", m, err)
	}
	if got, err := c.Instance(ctx, inst.ID); err != nil || got.Version != 2 {
		t.Errorf("instance %+v %v", got.InstanceSummary, err)
	}
	if _, err := c.Migration(ctx, "nope"); !errors.As(err, &p) || p.Status != http.StatusNotFound {
		t.Errorf("unknown: %v", err)
	}
}
