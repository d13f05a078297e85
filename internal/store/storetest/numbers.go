package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

// commitNumbered commits steps and returns the numbers the store reported
// back in them.
func commitNumbered(tb testing.TB, db Store, steps ...store.StepRecord) []int64 {
	tb.Helper()
	if err := db.CommitSteps(context.Background(), steps); err != nil {
		tb.Fatal(err)
	}
	out := make([]int64, len(steps))
	for i := range steps {
		out[i] = steps[i].Instance.Number
	}
	return out
}

// numberOf reads the stored number of instance id.
func numberOf(tb testing.TB, db Store, id store.InstanceID) int64 {
	tb.Helper()
	row, err := db.InstanceRow(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	return row.Number
}

func testInstanceNumbers(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	h := open(t)

	// A batch of two orders and an invoice, then another order alone.
	got := commitNumbered(t, h, NewStep("o1", "order", 1), NewStep("v1", "invoice", 1), NewStep("o2", "order", 2))
	if want := []int64{1, 1, 2}; !slices.Equal(got, want) {
		t.Fatalf("numbers reported for the batch %v, want %v", got, want)
	}
	if got := commitNumbered(t, h, NewStep("o3", "order", 1)); got[0] != 3 {
		t.Fatalf("third order numbered %d, want 3 (versions share a key's numbers)", got[0])
	}
	for id, want := range map[store.InstanceID]int64{"o1": 1, "o2": 2, "o3": 3, "v1": 1} {
		if got := numberOf(t, h, id); got != want {
			t.Errorf("stored number of %s = %d, want %d", id, got, want)
		}
	}
	// An update keeps the number.
	s := NextStep(NewStep("o1", "order", 1), store.StatusCompleted)
	MustCommit(t, h, s)
	if got := numberOf(t, h, "o1"); got != 1 {
		t.Errorf("number after an update %d, want 1", got)
	}
	all, err := h.Instance(ctx, "o2")
	if err != nil || all.Number != 2 {
		t.Errorf("Instance(o2).Number = %d, %v", all.Number, err)
	}

	// A failed batch hands out nothing.
	err = h.CommitSteps(ctx, []store.StepRecord{NewStep("o4", "order", 1), NewStep("o1", "order", 1)})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a batch with a duplicate insert: %v", err)
	}
	if got := commitNumbered(t, h, NewStep("o4", "order", 1)); got[0] != 4 {
		t.Errorf("after a rolled-back batch the next order is %d, want 4", got[0])
	}

	// The filter, with and without the key.
	rows, _, err := h.ListInstances(ctx, store.InstanceFilter{ProcessKey: "order", Number: 2})
	if err != nil || len(rows) != 1 || rows[0].ID != "o2" || rows[0].Number != 2 {
		t.Errorf("order #2: %+v, %v", rows, err)
	}
	rows, total, err := h.ListInstances(ctx, store.InstanceFilter{Number: 1})
	if ids := instanceIDs(rows); err != nil || total != 2 || !slices.Equal(ids, []store.InstanceID{"v1", "o1"}) && !slices.Equal(ids, []store.InstanceID{"o1", "v1"}) {
		t.Errorf("#1 of every key: %v (total %d), %v", ids, total, err)
	}
	if rows, _, err := h.ListInstances(ctx, store.InstanceFilter{ProcessKey: "invoice", Number: 2}); err != nil || len(rows) != 0 {
		t.Errorf("invoice #2 does not exist: %+v, %v", rows, err)
	}

	// A caller takes its number before the children it calls in the same
	// batch, whatever the batch's order.
	gc, ch, root := NewStep("c3", "chain", 1), NewStep("c2", "chain", 1), NewStep("c1", "chain", 1)
	gc.Instance.ParentID, ch.Instance.ParentID = "c2", "c1"
	if got := commitNumbered(t, h, gc, ch, root); !slices.Equal(got, []int64{3, 2, 1}) {
		t.Errorf("grandchild, child, caller numbered %v, want [3 2 1]", got)
	}

	// Numbers survive a restart and go on from where they were.
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	h = h.Reopen(t)
	if got := numberOf(t, h, "o3"); got != 3 {
		t.Errorf("number of o3 after a restart %d", got)
	}
	if got := commitNumbered(t, h, NewStep("o5", "order", 1), NewStep("v2", "invoice", 1)); !slices.Equal(got, []int64{5, 2}) {
		t.Errorf("numbers after a restart %v, want [5 2]", got)
	}
}

func instanceIDs(rows []store.InstanceRow) []store.InstanceID {
	var out []store.InstanceID
	for _, r := range rows {
		out = append(out, r.ID)
	}
	return out
}

// testInstanceNumbersConcurrent starts instances of one key from two
// stores on one database at once (two nodes, or two processes on one
// file): every number is handed out exactly once.
func testInstanceNumbersConcurrent(t *testing.T, open Opener) {
	t.Parallel()
	a := open(t)
	b := a.Reopen(t)
	const perStore, batch = 12, 3
	var (
		mu   sync.Mutex
		nums []int64
		wg   sync.WaitGroup
		errs = make(chan error, 2)
	)
	for si, db := range []Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < perStore; n += batch {
				var steps []store.StepRecord
				for k := range batch {
					steps = append(steps, NewStep(store.InstanceID(fmt.Sprintf("s%d-%d", si, n+k)), "race", 1))
				}
				var err error
				for range 20 { // contention between nodes may ask for a retry
					if err = db.CommitSteps(context.Background(), steps); !errors.Is(err, store.ErrStale) {
						break
					}
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				for _, s := range steps {
					nums = append(nums, s.Instance.Number)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	slices.Sort(nums)
	for i, n := range nums {
		if n != int64(i+1) {
			t.Fatalf("numbers handed out %v, want 1..%d once each", nums, 2*perStore)
		}
	}
	rows, total, err := a.ListInstances(context.Background(), store.InstanceFilter{ProcessKey: "race", Number: 2 * perStore})
	if err != nil || total != 1 || len(rows) != 1 {
		t.Errorf("the last number is stored once: %+v (%d), %v", rows, total, err)
	}
}

// testCallWaitIDs stores what a call activity leaves: a call wait whose id
// is the child's fresh UUID (it does not name the parent), and a child
// whose own waits are named after it.
func testCallWaitIDs(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	h := open(t)
	const (
		parent = "0190d9c6-6c5e-7b3a-9f00-000000000001"
		child  = "0190d9c6-6c5e-7b3a-9f00-0000000000c1"
	)
	call := store.WaitRow{ID: child, Kind: "call", NodeID: "callIt", ScopeID: "s0", TrackID: "t1", ProcessKey: "order", ProcessVersion: 1, Name: "sub", CreatedAt: Sec(0)}
	job := Job(parent+"-w000002", "pay", 0)
	ps := WithWaits(NewStep(parent, "order", 1), call, job)
	ps.Parts = append(ps.Parts, store.Part{Kind: "wait", Key: child, Ord: 1, Data: []byte(`{"id":"` + child + `","seq":1}`)},
		store.Part{Kind: "wait", Key: parent + "-w000002", Ord: 2, Data: []byte(`{}`)})
	cs := WithWaits(NewStep(child, "sub", 1), Job(child+"-w000001", "pay", 1))
	cs.Instance.ParentID, cs.Instance.ParentNodeID = parent, "callIt"
	MustCommit(t, h, ps, cs)

	got, err := h.Instance(ctx, parent)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, p := range got.Parts {
		if p.Kind == "wait" {
			keys = append(keys, p.Key)
		}
	}
	if want := []string{child, parent + "-w000002"}; !slices.Equal(keys, want) {
		t.Errorf("wait parts of the parent %v, want %v", keys, want)
	}
	for id, want := range map[store.InstanceID][]string{parent: {child, parent + "-w000002"}, child: {child + "-w000001"}} {
		ws, err := h.InstanceWaits(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if ids := WaitIDs(ws); !slices.Equal(slices.Sorted(slices.Values(ids)), slices.Sorted(slices.Values(want))) {
			t.Errorf("waits of %s: %v, want %v", id, ids, want)
		}
	}
	if w := MustWait(t, h, child); w.InstanceID != parent || w.Kind != "call" {
		t.Errorf("the call wait belongs to %s (%s), want %s", w.InstanceID, w.Kind, parent)
	}
	if w := MustWait(t, h, child+"-w000001"); w.InstanceID != child {
		t.Errorf("the child's job belongs to %s, want %s", w.InstanceID, child)
	}
	rows, _, err := h.ListInstances(ctx, store.InstanceFilter{ParentID: parent})
	if err != nil || len(rows) != 1 || rows[0].ID != child {
		t.Errorf("children of the parent: %+v, %v", rows, err)
	}
	// The parent ends: its waits go, the child's stay.
	MustCommit(t, h, NextStep(ps, store.StatusTerminated))
	if ws, _ := h.InstanceWaits(ctx, child); len(ws) != 1 {
		t.Errorf("the child lost its waits with its parent's: %+v", ws)
	}
	if _, err := h.Wait(ctx, child); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the ended parent's call wait: %v", err)
	}
}
