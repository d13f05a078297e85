package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// testElementCounts: the token index counts every token of every running
// or failed instance of a version by element, follows each step's puts and
// removals, drops an ended instance's tokens, and counts the open
// incidents of those instances by element; other versions, other keys and
// resolved incidents are not counted.
func testElementCounts(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	withTokens := func(s store.StepRecord, tokens ...store.TokenRow) store.StepRecord {
		s.Tokens = tokens
		return s
	}
	tok := func(track, node string) store.TokenRow { return store.TokenRow{TrackID: track, NodeID: node} }
	const (
		a = store.InstanceID("01900000-0000-7000-8000-0000000000c1")
		b = store.InstanceID("01900000-0000-7000-8000-0000000000c2")
		c = store.InstanceID("text-id-c3")
		d = store.InstanceID("01900000-0000-7000-8000-0000000000c4")
		e = store.InstanceID("01900000-0000-7000-8000-0000000000c5")
	)
	sa := withTokens(NewStep(a, "ship", 1), tok("t1", "pack"), tok("t2", "join"))
	sb := withTokens(NewStep(b, "ship", 1), tok("t1", "pack"))
	sb.Instance.Status = store.StatusFailed
	sb.Incidents = []store.IncidentRow{
		{ID: "inc-b1", InstanceID: b, NodeID: "pack", Kind: "job-failed", CreatedAt: t0},
		{ID: "inc-b2", InstanceID: b, NodeID: "label", Kind: "expression-failed", CreatedAt: t0},
	}
	sc := withTokens(NewStep(c, "ship", 1), tok("t1", "label"))
	sd := withTokens(NewStep(d, "ship", 2), tok("t1", "pack"))
	se := withTokens(NewStep(e, "order", 1), tok("t1", "pack"))
	MustCommit(t, db, sa, sb, sc, sd, se)

	want := func(name string, counts ...store.ElementCount) {
		t.Helper()
		got, err := db.ElementCounts(ctx, "ship", 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, counts) {
			t.Errorf("%s: counts\n got %+v\nwant %+v", name, got, counts)
		}
	}
	want("created",
		store.ElementCount{NodeID: "join", Tokens: 1},
		store.ElementCount{NodeID: "label", Tokens: 1, Incidents: 1},
		store.ElementCount{NodeID: "pack", Tokens: 2, Incidents: 1})

	// a moves t1 on and ends t2; b's label incident is resolved; c ends.
	sa2 := NextStep(sa, store.StatusRunning)
	sa2.Tokens = []store.TokenRow{tok("t1", "label")}
	sa2.RemovedTokens = []string{"t2"}
	sb2 := NextStep(sb, store.StatusFailed)
	resolved := sb.Incidents[1]
	resolved.ResolvedAt = t0.Add(time.Minute)
	sb2.Incidents = []store.IncidentRow{resolved}
	sc2 := NextStep(sc, store.StatusCompleted)
	MustCommit(t, db, sa2, sb2, sc2)
	want("stepped",
		store.ElementCount{NodeID: "label", Tokens: 1},
		store.ElementCount{NodeID: "pack", Tokens: 1, Incidents: 1})

	if got, err := db.ElementCounts(ctx, "ship", 9); err != nil || len(got) != 0 {
		t.Errorf("ElementCounts of an unknown version = %+v, %v; want none", got, err)
	}
}

// testIndexTokens: instances marked pending (as the migration adding the
// index marks every instance not ended) are listed by TokensPending until
// IndexTokens writes their tokens, which replace any indexed before and
// need the current revision.
func testIndexTokens(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	h := open(t)
	const (
		a = store.InstanceID("01900000-0000-7000-8000-0000000000d1")
		b = store.InstanceID("text-id-d2")
	)
	sa := NewStep(a, "ship", 1)
	sa.Tokens = []store.TokenRow{{TrackID: "t9", NodeID: "stale"}}
	MustCommit(t, h, sa, NewStep(b, "ship", 1))
	if ids, err := h.TokensPending(ctx, 0); err != nil || len(ids) != 0 {
		t.Fatalf("TokensPending on a store whose instances were all indexed by their steps = %v, %v; want none", ids, err)
	}
	// As the migration does for the instances stored before it.
	if err := h.Exec(`INSERT INTO instance_tokens_pending (instance_seq) SELECT seq FROM instances`); err != nil {
		t.Fatal(err)
	}
	ids, err := h.TokensPending(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, []store.InstanceID{a, b}) {
		t.Fatalf("TokensPending = %v, want [%s %s] (creation order)", ids, a, b)
	}
	if ids, err := h.TokensPending(ctx, 1); err != nil || len(ids) != 1 {
		t.Fatalf("TokensPending(limit 1) = %v, %v", ids, err)
	}
	if err := h.IndexTokens(ctx, a, 7, nil); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("IndexTokens at a stale revision: %v, want ErrConflict", err)
	}
	if err := h.IndexTokens(ctx, "01900000-0000-7000-8000-0000000000ff", 1, nil); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("IndexTokens of an unknown instance: %v, want ErrNotFound", err)
	}
	if err := h.IndexTokens(ctx, a, 1, []store.TokenRow{{TrackID: "t1", NodeID: "pack"}, {TrackID: "t2", NodeID: "pack"}}); err != nil {
		t.Fatal(err)
	}
	if ids, err := h.TokensPending(ctx, 0); err != nil || !reflect.DeepEqual(ids, []store.InstanceID{b}) {
		t.Fatalf("TokensPending after indexing %s = %v, %v; want [%s]", a, ids, err, b)
	}
	got, err := h.ElementCounts(ctx, "ship", 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []store.ElementCount{{NodeID: "pack", Tokens: 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("counts after IndexTokens = %+v, want %+v (the stale token replaced)", got, want)
	}
}
