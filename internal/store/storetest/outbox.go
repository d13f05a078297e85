package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

func testOutbox(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	a, b := NewStep("a", "p", 1), NewStep("b", "p", 1)
	a.Outbox = []store.OutboxRow{
		{Kind: store.OutboxCancelChild, Payload: json.RawMessage(`{"child":"c1"}`)},
		{Kind: store.OutboxSignal, Payload: json.RawMessage(`{"name":"go","depth":0}`)},
	}
	b.Outbox = []store.OutboxRow{{Kind: store.OutboxChildEnded, Payload: json.RawMessage(`{"ParentID":"a"}`)}}
	steps := []store.StepRecord{a, b}
	MustCommit(t, db, steps...)
	// The ids are set in place, increasing in write order.
	ids := []int64{steps[0].Outbox[0].ID, steps[0].Outbox[1].ID, steps[1].Outbox[0].ID}
	if ids[0] <= 0 || ids[1] <= ids[0] || ids[2] <= ids[1] {
		t.Fatalf("ids %v", ids)
	}

	// A batch that fails writes none of its rows.
	bad := NewStep("a", "p", 1) // exists: a conflict
	c := NewStep("c", "p", 1)
	c.Outbox = []store.OutboxRow{{Kind: store.OutboxSignal, Payload: json.RawMessage(`{"name":"lost"}`)}}
	if err := db.CommitSteps(ctx, []store.StepRecord{c, bad}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale batch: %v", err)
	}
	// A row of an unknown kind or with invalid JSON is refused.
	for _, o := range []store.OutboxRow{{Kind: "mail", Payload: json.RawMessage(`{}`)}, {Kind: store.OutboxSignal, Payload: json.RawMessage(`{`)}} {
		d := NewStep("d", "p", 1)
		d.Outbox = []store.OutboxRow{o}
		if err := db.CommitSteps(ctx, []store.StepRecord{d}); err == nil {
			t.Fatalf("row %+v was accepted", o)
		}
	}

	// Rows survive a reopen and list oldest first with the step's instance and time.
	db.Close()
	db = db.Reopen(t)
	rows, err := db.Outbox(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].ID != ids[0] || rows[1].ID != ids[1] {
		t.Fatalf("first page %+v, want ids %v", rows, ids[:2])
	}
	if r := rows[1]; r.InstanceID != "a" || r.Kind != store.OutboxSignal || string(r.Payload) != `{"name":"go","depth":0}` || !r.CreatedAt.Equal(t0) {
		t.Fatalf("row %+v", r)
	}

	if err := db.UpdateOutbox(ctx, ids[1], json.RawMessage(`{"name":"go","depth":0,"only":{"instances":["x"]}}`)); err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateOutbox(ctx, 9999, json.RawMessage(`{}`)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update of a missing row: %v", err)
	}
	if err := db.DeleteOutbox(ctx, ids[0], ids[2], 9999); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err = db.Outbox(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].ID != ids[1] || string(rows[0].Payload) != `{"name":"go","depth":0,"only":{"instances":["x"]}}` {
		t.Fatalf("after update and delete: %+v", rows)
	}
}
