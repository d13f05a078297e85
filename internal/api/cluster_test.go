package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// TestClusterOfOneNode: GET /api/v1/cluster over a real runtime lists the
// one node that answers, marked self, with its address and version (on
// PostgreSQL from its registration, on SQLite from the runtime itself).
func TestClusterOfOneNode(t *testing.T) {
	t.Parallel()
	db := testdb.MustOpen(t)
	rt := runtime.New(db, runtime.Options{Node: runtime.NodeInfo{Address: "127.0.0.1:8080", Version: "v-test"}})
	t.Cleanup(func() { _ = rt.Close() })
	if err := rt.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := setup(t, rt, api.Options{})
	got := b.get("/api/v1/cluster").wantStatus(t, http.StatusOK).object(t)
	items, _ := got["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("cluster = %v, want one node", got)
	}
	n := items[0].(map[string]any)
	if n["id"] != rt.NodeID() || got["node"] != rt.NodeID() || n["self"] != true || n["address"] != "127.0.0.1:8080" ||
		n["version"] != "v-test" || n["startedAt"] == "" || n["heartbeatAt"] == "" {
		t.Fatalf("cluster = %v (node %s)", got, rt.NodeID())
	}
}

// TestClusterFromService: the answer maps the service's nodes field by
// field and marks the answering one.
func TestClusterFromService(t *testing.T) {
	t.Parallel()
	b := setup(t, newFake(), api.Options{})
	got := b.get("/api/v1/cluster").wantStatus(t, http.StatusOK).object(t)
	want := map[string]any{"id": "fake-node", "address": "127.0.0.1:8080", "version": "test",
		"startedAt": "2026-12-01T09:00:00Z", "heartbeatAt": "2026-12-01T09:01:00Z", "self": true}
	items, _ := got["items"].([]any)
	if len(items) != 1 || got["node"] != "fake-node" {
		t.Fatalf("cluster = %v", got)
	}
	for k, v := range want {
		if items[0].(map[string]any)[k] != v {
			t.Errorf("%s = %v, want %v", k, items[0].(map[string]any)[k], v)
		}
	}
}
