package storetest

import (
	"context"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// testIncidentAncestry: a grandchild's open incident is seen from its
// parent and the root, by UUID ids (BLOBs in SQLite) and a text id alike;
// resolved incidents and instances outside the tree are not.
func testIncidentAncestry(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	const (
		root  = store.InstanceID("01900000-0000-7000-8000-0000000000a1")
		child = store.InstanceID("01900000-0000-7000-8000-0000000000a2")
		grand = store.InstanceID("legacy-grandchild")
		lone  = store.InstanceID("01900000-0000-7000-8000-0000000000a3")
		fixed = store.InstanceID("01900000-0000-7000-8000-0000000000a4")
		quiet = store.InstanceID("01900000-0000-7000-8000-0000000000a5")
	)
	step := func(id, parent store.InstanceID, key string) store.StepRecord {
		s := NewStep(id, key, 1)
		s.Instance.ParentID = parent
		if parent != "" {
			s.Instance.ParentNodeID = "call"
		}
		return s
	}
	g := step(grand, child, "pack")
	g.Incidents = []store.IncidentRow{
		{ID: "inc-g1", InstanceID: grand, NodeID: "task", Kind: "job_failed", CreatedAt: t0},
		{ID: "inc-g2", InstanceID: grand, NodeID: "task", Kind: "job_failed", CreatedAt: t0.Add(time.Second)},
	}
	l := step(lone, "", "order")
	l.Incidents = []store.IncidentRow{{ID: "inc-l", InstanceID: lone, NodeID: "gw", Kind: "expression", CreatedAt: t0}}
	f := step(fixed, root, "ship")
	f.Incidents = []store.IncidentRow{{ID: "inc-f", InstanceID: fixed, Kind: "job_failed", CreatedAt: t0}}
	MustCommit(t, db, step(root, "", "order"), step(child, root, "fulfil"), g, l, f, step(quiet, "", "order"))
	f2 := NextStep(f, store.StatusRunning)
	resolved := f.Incidents[0]
	resolved.ResolvedAt = t0.Add(time.Minute)
	f2.Incidents = []store.IncidentRow{resolved}
	MustCommit(t, db, f2)

	sorted := func(rows []store.IncidentAncestor) []store.IncidentAncestor {
		sort.Slice(rows, func(i, j int) bool {
			if rows[i].InstanceID != rows[j].InstanceID {
				return rows[i].InstanceID < rows[j].InstanceID
			}
			return rows[i].Depth < rows[j].Depth
		})
		return rows
	}
	all := []store.IncidentAncestor{
		{InstanceID: lone, AncestorID: lone, AncestorKey: "order", Depth: 0},
		{InstanceID: grand, AncestorID: grand, AncestorKey: "pack", Depth: 0},
		{InstanceID: grand, AncestorID: child, AncestorKey: "fulfil", Depth: 1},
		{InstanceID: grand, AncestorID: root, AncestorKey: "order", Depth: 2},
	}
	tests := []struct {
		name string
		ids  []store.InstanceID
		want []store.IncidentAncestor
	}{
		{name: "every tree", want: all},
		{name: "a page", ids: []store.InstanceID{root, quiet, fixed, lone},
			want: []store.IncidentAncestor{all[0], all[3]}},
		{name: "nothing flagged", ids: []store.InstanceID{quiet, fixed, "unknown"}},
		{name: "an empty page", ids: []store.InstanceID{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := db.IncidentAncestry(ctx, tt.ids)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := sorted(got), sorted(append([]store.IncidentAncestor(nil), tt.want...)); !reflect.DeepEqual(got, want) {
				t.Errorf("IncidentAncestry = %+v, want %+v", got, want)
			}
		})
	}
}

// testInstanceRows: one query reads the rows of many instances, UUID
// (BLOB in SQLite) and text ids alike, leaving unknown ids out.
func testInstanceRows(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	a := NewStep("01900000-0000-7000-8000-0000000000b1", "order", 1)
	a.Instance.BusinessKey = "bk-a"
	b := NewStep("text-id-b", "ship", 2)
	MustCommit(t, db, a, b, NewStep("01900000-0000-7000-8000-0000000000b3", "order", 1))
	got, err := db.InstanceRows(ctx, []store.InstanceID{a.Instance.ID, "unknown", b.Instance.ID})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(got, func(i, j int) bool { return got[i].ID < got[j].ID })
	if len(got) != 2 || got[0].ID != a.Instance.ID || got[0].BusinessKey != "bk-a" || got[0].ProcessKey != "order" ||
		got[1].ID != b.Instance.ID || got[1].ProcessKey != "ship" || got[1].ProcessVersion != 2 {
		t.Errorf("InstanceRows = %+v", got)
	}
	if got, err := db.InstanceRows(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("InstanceRows(nil) = %v, %v", got, err)
	}
}
