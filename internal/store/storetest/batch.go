package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// Batch operations by filter (store.BatchStore).

func testBatches(t *testing.T, open Opener) {
	t.Parallel()
	db := open(t)
	ctx := context.Background()
	rec := store.BatchRecord{ID: "b1", Operation: "cancel", Params: json.RawMessage(`{"retries":2}`),
		Filter: json.RawMessage(`{"ProcessKey":"order"}`), State: store.BatchPreparing, CreatedBy: "olga", CreatedAt: t0}
	if err := db.CreateBatch(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateBatch(ctx, rec); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second create: %v, want ErrConflict", err)
	}
	if _, err := db.Batch(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown batch: %v", err)
	}
	if err := db.AddBatchItems(ctx, "nope", []store.InstanceID{idRunning}, idRunning); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("items of an unknown batch: %v", err)
	}
	if err := db.AddBatchItems(ctx, "b1", []store.InstanceID{idRunning, idFailed}, idFailed); err != nil {
		t.Fatal(err)
	}
	// A page that repeats an instance (a resumed resolution) adds only the new ones.
	if err := db.AddBatchItems(ctx, "b1", []store.InstanceID{idFailed, "plain-text-id"}, "plain-text-id"); err != nil {
		t.Fatal(err)
	}
	got, err := db.Batch(ctx, "b1")
	if err != nil {
		t.Fatal(err)
	}
	want := rec
	want.Total, want.Cursor = 3, "plain-text-id"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("batch %+v, want %+v", got, want)
	}
	items, err := db.BatchItems(ctx, "b1", store.BatchItemFilter{AfterSeq: -1})
	if err != nil {
		t.Fatal(err)
	}
	wantItems := []store.BatchItem{{Seq: 0, InstanceID: idRunning, Status: store.BatchItemPending},
		{Seq: 1, InstanceID: idFailed, Status: store.BatchItemPending}, {Seq: 2, InstanceID: "plain-text-id", Status: store.BatchItemPending}}
	if !reflect.DeepEqual(items, wantItems) {
		t.Errorf("items %+v, want %+v", items, wantItems)
	}
	if open, err := db.OpenBatches(ctx); err != nil || !reflect.DeepEqual(open, []string{"b1"}) {
		t.Errorf("open batches %v %v", open, err)
	}
	if ok, err := db.SetBatchState(ctx, "b1", store.BatchRunning, time.Time{}, store.BatchPreparing); err != nil || !ok {
		t.Fatalf("preparing → running: %v %v", ok, err)
	}
	if ok, err := db.SetBatchState(ctx, "b1", store.BatchRunning, time.Time{}, store.BatchPaused); err != nil || ok {
		t.Errorf("paused → running of a running batch moved: %v %v", ok, err)
	}
	if _, err := db.SetBatchState(ctx, "nope", store.BatchRunning, time.Time{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("state of an unknown batch: %v", err)
	}
	for _, it := range []store.BatchItem{{InstanceID: idRunning, Status: store.BatchItemDone},
		{InstanceID: idFailed, Status: store.BatchItemFailed, Reason: "instance is completed"}} {
		if ok, err := db.SetBatchItem(ctx, "b1", it); err != nil || !ok {
			t.Fatalf("set item %v: %v %v", it, ok, err)
		}
	}
	// An outcome is recorded once: a second one is left alone and not counted.
	if ok, err := db.SetBatchItem(ctx, "b1", store.BatchItem{InstanceID: idRunning, Status: store.BatchItemFailed}); err != nil || ok {
		t.Errorf("second outcome: %v %v", ok, err)
	}
	if _, err := db.SetBatchItem(ctx, "b1", store.BatchItem{InstanceID: "other", Status: store.BatchItemDone}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown item: %v", err)
	}
	pending, err := db.BatchItems(ctx, "b1", store.BatchItemFilter{Status: store.BatchItemPending, AfterSeq: -1})
	if err != nil || len(pending) != 1 || pending[0].InstanceID != "plain-text-id" {
		t.Errorf("pending items %+v %v", pending, err)
	}
	page, err := db.BatchItems(ctx, "b1", store.BatchItemFilter{AfterSeq: 0, Limit: 1})
	if err != nil || len(page) != 1 || page[0] != (store.BatchItem{Seq: 1, InstanceID: idFailed, Status: store.BatchItemFailed, Reason: "instance is completed"}) {
		t.Errorf("page after 0: %+v %v", page, err)
	}
	if _, err := db.BatchItems(ctx, "nope", store.BatchItemFilter{AfterSeq: -1}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("items of an unknown batch: %v", err)
	}
	end := t0.Add(time.Minute)
	if ok, err := db.SetBatchState(ctx, "b1", store.BatchCompleted, end); err != nil || !ok {
		t.Fatalf("complete: %v %v", ok, err)
	}
	got, err = db.Batch(ctx, "b1")
	if err != nil {
		t.Fatal(err)
	}
	if got.State != store.BatchCompleted || !got.FinishedAt.Equal(end) || got.Done != 1 || got.Failed != 1 || got.Total != 3 {
		t.Errorf("completed batch %+v", got)
	}
	if open, err := db.OpenBatches(ctx); err != nil || len(open) != 0 {
		t.Errorf("open batches after completion %v %v", open, err)
	}

	second := store.BatchRecord{ID: "b2", Operation: "delete", State: store.BatchRunning, CreatedBy: "ivan", CreatedAt: t0.Add(time.Second)}
	if err := db.CreateBatch(ctx, second); err != nil {
		t.Fatal(err)
	}
	list, total, err := db.Batches(ctx, store.BatchFilter{})
	if err != nil || total != 2 || len(list) != 2 || list[0].ID != "b2" || list[1].ID != "b1" {
		t.Errorf("batches %+v %d %v, want b2, b1", list, total, err)
	}
	if string(list[0].Params) != "null" {
		t.Errorf("params of a batch without them: %q, want null", list[0].Params)
	}
	list, total, err = db.Batches(ctx, store.BatchFilter{CreatedBy: "olga"})
	if err != nil || total != 1 || len(list) != 1 || list[0].ID != "b1" {
		t.Errorf("olga's batches %+v %d %v", list, total, err)
	}
	list, total, err = db.Batches(ctx, store.BatchFilter{Limit: 1, Offset: 1})
	if err != nil || total != 2 || len(list) != 1 || list[0].ID != "b1" {
		t.Errorf("second page %+v %d %v", list, total, err)
	}
}

func testBatchLease(t *testing.T, open Opener) {
	t.Parallel()
	db := open(t)
	ctx := context.Background()
	if err := db.CreateBatch(ctx, store.BatchRecord{ID: "b", Operation: "cancel", State: store.BatchRunning, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		owner    string
		now      time.Time
		want     bool
		describe string
	}{
		{"n1", t0, true, "a free batch"},
		{"n2", t0.Add(10 * time.Second), false, "a lease another node holds"},
		{"n1", t0.Add(20 * time.Second), true, "a renewal"},
		{"n2", t0.Add(51 * time.Second), true, "an ended lease"},
	} {
		ok, err := db.ClaimBatch(ctx, "b", c.owner, c.now, c.now.Add(30*time.Second))
		if err != nil || ok != c.want {
			t.Errorf("%s: claim by %s = %v %v, want %v", c.describe, c.owner, ok, err, c.want)
		}
	}
	got, err := db.Batch(ctx, "b")
	if err != nil || got.Owner != "n2" || !got.LeaseUntil.Equal(t0.Add(81*time.Second)) {
		t.Errorf("lease %q until %v %v", got.Owner, got.LeaseUntil, err)
	}
	if _, err := db.ClaimBatch(ctx, "nope", "n1", t0, t0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("claim of an unknown batch: %v", err)
	}
}

// testOpenBatchesCapped: one creator has at most store.MaxOpenBatches
// unfinished batches; a finished one frees its place, and another
// creator is not counted against the first.
func testOpenBatchesCapped(t *testing.T, open Opener) {
	t.Parallel()
	db := open(t)
	ctx := context.Background()
	create := func(id, user, state string) error {
		return db.CreateBatch(ctx, store.BatchRecord{ID: id, Operation: "cancel", State: state, CreatedBy: user, CreatedAt: t0})
	}
	states := []string{store.BatchPreparing, store.BatchRunning, store.BatchPaused}
	for i := range store.MaxOpenBatches {
		if err := create(fmt.Sprintf("b%d", i), "olga", states[i%len(states)]); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	if err := create("over", "olga", store.BatchPreparing); store.ErrorCode(err) != store.ECONFLICT {
		t.Fatalf("batch beyond the cap: %v, want ECONFLICT", err)
	}
	if _, err := db.Batch(ctx, "over"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the refused batch was stored: %v", err)
	}
	if err := create("other", "piet", store.BatchPreparing); err != nil {
		t.Errorf("another creator's batch: %v", err)
	}
	if ok, err := db.SetBatchState(ctx, "b1", store.BatchCompleted, t0.Add(time.Minute)); err != nil || !ok {
		t.Fatalf("complete b1: %v %v", ok, err)
	}
	if err := create("after", "olga", store.BatchPreparing); err != nil {
		t.Errorf("a batch after one finished: %v", err)
	}
}
