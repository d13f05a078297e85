package storetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

// Part is a part fixture; empty data reads back as nil.
func Part(kind, key string, ord int64, data string) store.Part {
	p := store.Part{Kind: kind, Key: key, Ord: ord}
	if data != "" {
		p.Data = []byte(data)
	}
	return p
}

func testStepParts(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)

	s1 := NewStep("i1", "order", 1)
	s1.Parts = []store.Part{
		Part("track", "t2", 2, "track 2"),
		Part("scope", "root", 0, "root scope"),
		Part("track", "t1", 1, "track 1"),
		Part("wait", "w1", 1, "wait 1"),
		Part("scope", "sub", 1, "sub scope"),
	}
	// Another instance with the same part keys, which no step of i1 touches.
	o1 := NewStep("other", "order", 1)
	o1.Parts = append([]store.Part(nil), s1.Parts...)
	MustCommit(t, db, s1, o1)

	// One step inserts, replaces and deletes; a part both removed and
	// written ends up stored.
	s2 := NextStep(s1, store.StatusRunning)
	s2.Parts = []store.Part{
		Part("track", "t1", 1, "track 1 moved"),
		Part("track", "t3", 3, "track 3"),
		Part("wait", "w1", 1, "wait 1 again"),
		Part("incident", "inc1", 1, ""),
	}
	s2.RemovedParts = []store.PartRef{{Kind: "track", Key: "t2"}, {Kind: "scope", Key: "sub"}, {Kind: "wait", Key: "w1"},
		{Kind: "scope", Key: "never-there"}, {Kind: "unknown-kind", Key: "x"}}
	MustCommit(t, db, s2)

	got, err := db.Instance(ctx, "i1")
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Part{ // by kind, then ord
		Part("incident", "inc1", 1, ""),
		Part("scope", "root", 0, "root scope"),
		Part("track", "t1", 1, "track 1 moved"),
		Part("track", "t3", 3, "track 3"),
		Part("wait", "w1", 1, "wait 1 again"),
	}
	if !reflect.DeepEqual(got.Parts, want) {
		t.Errorf("parts after the step:\n got %+v\nwant %+v", got.Parts, want)
	}
	other, err := db.Instance(ctx, "other")
	if err != nil || len(other.Parts) != len(o1.Parts) {
		t.Errorf("parts of the other instance = %+v, %v", other.Parts, err)
	}
	counts, err := db.PartCounts(ctx, "i1")
	if wantCounts := map[string]int{"incident": 1, "scope": 1, "track": 2, "wait": 1}; err != nil || !reflect.DeepEqual(counts, wantCounts) {
		t.Errorf("PartCounts = %v, %v; want %v", counts, err, wantCounts)
	}
	row, err := db.InstanceRow(ctx, "i1")
	if err != nil {
		t.Fatal(err)
	}
	AssertInstance(t, row, s2.Instance)
}

// testRemoveManyPartsBesideBigPart removes most of an instance's many
// parts in one step (as cancelling a big multi-instance does: iteration
// scopes, tracks and waits, whose keys name the instance) while instances
// created before and after it hold a part of several MB, and checks that
// exactly the removed parts are gone and every other part, the big ones
// included, reads back as written.
func testRemoveManyPartsBesideBigPart(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	const n = 1000
	big := strings.Repeat("v", 3<<20)
	before := NewStep("big-before", "order", 1)
	before.Parts = []store.Part{Part("scope", "root", 0, big)}
	many := NewStep("many", "order", 1)
	many.Parts = []store.Part{Part("scope", "root", 0, "root")}
	for i := 1; i <= n; i++ {
		many.Parts = append(many.Parts,
			Part("scope", fmt.Sprintf("s%d", i), int64(i), fmt.Sprint("scope ", i)),
			Part("track", fmt.Sprintf("t%d", i), int64(i), fmt.Sprint("track ", i)),
			Part("wait", fmt.Sprintf("many-w%06d", i), int64(i), fmt.Sprint("wait ", i)))
	}
	after := NewStep("big-after", "order", 1)
	after.Parts = []store.Part{Part("scope", "root", 0, big+"after")}
	MustCommit(t, db, before)
	MustCommit(t, db, many)
	MustCommit(t, db, after)

	// Remove all but every 100th iteration's parts, plus parts never
	// stored; the big instances share the removed keys' kinds.
	next := NextStep(many, store.StatusTerminated)
	next.Parts = nil
	kept := []store.Part{Part("scope", "root", 0, "root")}
	for i := 1; i <= n; i++ {
		if i%100 == 0 {
			kept = append(kept, many.Parts[3*i-2], many.Parts[3*i-1], many.Parts[3*i])
			continue
		}
		next.RemovedParts = append(next.RemovedParts, store.PartRef{Kind: "scope", Key: fmt.Sprintf("s%d", i)},
			store.PartRef{Kind: "track", Key: fmt.Sprintf("t%d", i)}, store.PartRef{Kind: "wait", Key: fmt.Sprintf("many-w%06d", i)})
	}
	next.RemovedParts = append(next.RemovedParts, store.PartRef{Kind: "scope", Key: "s999999"},
		store.PartRef{Kind: "wait", Key: "big-before-w000001"}, store.PartRef{Kind: "scope", Key: "root-not"})
	MustCommit(t, db, next)

	got, err := db.Instance(ctx, "many")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(kept, func(a, b store.Part) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), cmp.Compare(a.Ord, b.Ord), strings.Compare(a.Key, b.Key))
	})
	if !reflect.DeepEqual(got.Parts, kept) {
		t.Errorf("parts after the removal: %d, want %d\n got %+v\nwant %+v", len(got.Parts), len(kept), got.Parts, kept)
	}
	counts, err := db.PartCounts(ctx, "many")
	if want := map[string]int{"scope": 11, "track": 10, "wait": 10}; err != nil || !reflect.DeepEqual(counts, want) {
		t.Errorf("PartCounts = %v, %v; want %v", counts, err, want)
	}
	for _, s := range []store.StepRecord{before, after} {
		si, err := db.Instance(ctx, s.Instance.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(si.Parts) != 1 || string(si.Parts[0].Data) != string(s.Parts[0].Data) {
			t.Errorf("big instance %s: %d parts, data intact %v", s.Instance.ID, len(si.Parts),
				len(si.Parts) == 1 && string(si.Parts[0].Data) == string(s.Parts[0].Data))
		}
	}
}

func testPartsPaging(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	s := NewStep("i1", "order", 1)
	s.Parts = nil
	for i := range 25 {
		// Written out of order; ord, not key or write order, orders a page.
		ord := int64((i*7)%25 + 1)
		s.Parts = append(s.Parts, Part("items", fmt.Sprintf("k%02d", 25-ord), ord, fmt.Sprint(ord)))
	}
	s.Parts = append(s.Parts, Part("result", "r1", 1, "x"))
	MustCommit(t, db, s)

	tests := []struct {
		name     string
		kind     string
		afterOrd int64
		limit    int
		want     []int64
	}{
		{name: "first page", kind: "items", limit: 3, want: []int64{1, 2, 3}},
		{name: "next page", kind: "items", afterOrd: 3, limit: 3, want: []int64{4, 5, 6}},
		{name: "last page", kind: "items", afterOrd: 23, limit: 3, want: []int64{24, 25}},
		{name: "past the end", kind: "items", afterOrd: 25, limit: 3},
		{name: "no limit", kind: "items", afterOrd: 20, want: []int64{21, 22, 23, 24, 25}},
		{name: "other kind", kind: "result", want: []int64{1}},
		{name: "kind never used", kind: "nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			parts, err := db.Parts(ctx, "i1", tt.kind, tt.afterOrd, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, p := range parts {
				if p.Kind != tt.kind || (tt.kind == "items" && string(p.Data) != fmt.Sprint(p.Ord)) {
					t.Errorf("part %+v", p)
				}
				got = append(got, p.Ord)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ords = %v, want %v", got, tt.want)
			}
		})
	}
}

func testPartsAllOrNothing(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	s1 := NewStep("i1", "order", 1)
	MustCommit(t, db, s1)
	before, err := db.Instance(ctx, "i1")
	if err != nil {
		t.Fatal(err)
	}
	good := NextStep(s1, store.StatusRunning)
	good.Parts = append(good.Parts, Part("wait", "w9", 9, "new"))
	fresh := NewStep("i2", "order", 1)
	stale := NextStep(s1, store.StatusRunning) // the same revision again
	stale.Instance.ID = "i1"
	// good and stale are both steps of i1 from revision 1: the second fails.
	err = db.CommitSteps(ctx, []store.StepRecord{fresh, good, stale})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("CommitSteps = %v, want ErrConflict", err)
	}
	after, err := db.Instance(ctx, "i1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Errorf("the failed batch changed i1:\n got %+v\nwant %+v", after, before)
	}
	if _, err := db.Instance(ctx, "i2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the created instance of the failed batch exists: %v", err)
	}
	good.Parts = append(good.Parts, Part("wait", "w9", 9, "new"))
	MustCommit(t, db, good)
	if n, err := db.PartCounts(ctx, "i1"); err != nil || n["wait"] != 1 {
		t.Errorf("PartCounts after retry = %v, %v", n, err)
	}
}
