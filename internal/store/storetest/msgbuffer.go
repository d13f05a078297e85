package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// bufferedIDs are the ids of ms.
func bufferedIDs(ms []store.BufferedMessage) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// testMessageBuffer covers store.MessageBufferStore and the message
// fields of a step: the look-up (live, not taken by the process key,
// oldest first), takes in a step (at most once per process key, never of
// an expired message, all or nothing with the step), message ids, the
// sweep, and a reopen.
func testMessageBuffer(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	msg := func(id, key, messageID string, published time.Time, ttl time.Duration) store.BufferedMessage {
		return store.BufferedMessage{ID: id, Name: "paid", CorrelationKey: key, MessageID: messageID,
			Variables: json.RawMessage(`{"amount":12}`), PublishedAt: published, ExpiresAt: published.Add(ttl)}
	}
	if err := db.BufferMessage(ctx, msg("m2", "o-1", "", t0.Add(time.Second), time.Hour), nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.BufferMessage(ctx, msg("m1", "o-1", "id-1", t0, time.Minute), nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.BufferMessage(ctx, msg("m3", "o-2", "", t0, time.Hour), nil, nil); err != nil {
		t.Fatal(err)
	}
	got, err := db.BufferedMessages(ctx, "paid", "o-1", "p", t0.Add(2*time.Second), 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bufferedIDs(got), []string{"m1", "m2"}) {
		t.Fatalf("look-up = %v, want [m1 m2] (oldest first)", bufferedIDs(got))
	}
	if m := got[0]; m.Name != "paid" || m.CorrelationKey != "o-1" || m.MessageID != "id-1" || string(m.Variables) != `{"amount":12}` ||
		!m.PublishedAt.Equal(t0) || !m.ExpiresAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("round trip = %+v", m)
	}
	if got, _ := db.BufferedMessages(ctx, "paid", "o-1", "p", t0.Add(time.Minute), 10); !slices.Equal(bufferedIDs(got), []string{"m2"}) {
		t.Fatalf("at m1's expiry = %v, want [m2]", bufferedIDs(got))
	}
	if got, _ := db.BufferedMessages(ctx, "paid", "o-1", "p", t0, 1); !slices.Equal(bufferedIDs(got), []string{"m1"}) {
		t.Fatalf("limit 1 = %v", bufferedIDs(got))
	}

	// A live duplicate message id is refused; another key or name is not.
	if err := db.BufferMessage(ctx, msg("m4", "o-1", "id-1", t0.Add(time.Second), time.Hour), nil, nil); !errors.Is(err, store.ErrDuplicateMessage) {
		t.Fatalf("duplicate message id: %v", err)
	}
	if err := db.BufferMessage(ctx, msg("m5", "o-9", "id-1", t0, time.Hour), nil, nil); err != nil {
		t.Fatalf("same id, another key: %v", err)
	}

	// A step takes m1 for p: p no longer sees it, q does.
	a := NewStep("a", "p", 1)
	a.MessageTakes = []store.MessageTake{{MessageID: "m1", ProcessKey: "p", InstanceID: "a", At: t0.Add(2 * time.Second)}}
	MustCommit(t, db, a)
	if got, _ := db.BufferedMessages(ctx, "paid", "o-1", "p", t0.Add(2*time.Second), 10); !slices.Equal(bufferedIDs(got), []string{"m2"}) {
		t.Fatalf("after p took m1 = %v, want [m2]", bufferedIDs(got))
	}
	if got, _ := db.BufferedMessages(ctx, "paid", "o-1", "q", t0.Add(2*time.Second), 10); !slices.Equal(bufferedIDs(got), []string{"m1", "m2"}) {
		t.Fatalf("q = %v, want [m1 m2]", bufferedIDs(got))
	}
	// A second take by p, an expired take and a take of an unknown message
	// fail the step with ErrMessageTaken and write nothing of it.
	for _, take := range []store.MessageTake{
		{MessageID: "m1", ProcessKey: "p", InstanceID: "b", At: t0.Add(3 * time.Second)},
		{MessageID: "m1", ProcessKey: "q", InstanceID: "b", At: t0.Add(time.Minute)},
		{MessageID: "nope", ProcessKey: "q", InstanceID: "b", At: t0},
	} {
		b := NewStep("b", "p", 1)
		b.MessageTakes = []store.MessageTake{take}
		if err := db.CommitSteps(ctx, []store.StepRecord{b}); !errors.Is(err, store.ErrMessageTaken) || store.ErrorCode(err) != store.ECONFLICT {
			t.Fatalf("take %+v: %v, want ErrMessageTaken", take, err)
		}
		if _, err := db.Instance(ctx, "b"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the refused step was written: %v", err)
		}
	}

	// A step buffers a message and takes it in one transaction; a
	// duplicate in a step fails the step.
	c := NewStep("c", "p", 1)
	m6 := msg("m6", "o-3", "id-6", t0, time.Hour)
	c.BufferMessage = &m6
	c.MessageTakes = []store.MessageTake{{MessageID: "m6", ProcessKey: "p", InstanceID: "c", At: t0}}
	MustCommit(t, db, c)
	if m, err := db.BufferedMessage(ctx, "m6"); err != nil || !slices.Equal(m.TakenBy, []string{"p"}) {
		t.Fatalf("m6 = %+v %v", m, err)
	}
	d := NewStep("d", "p", 1)
	dup := msg("m7", "o-3", "id-6", t0.Add(time.Second), time.Hour)
	d.BufferMessage = &dup
	if err := db.CommitSteps(ctx, []store.StepRecord{d}); !errors.Is(err, store.ErrDuplicateMessage) {
		t.Fatalf("duplicate in a step: %v", err)
	}
	if _, err := db.Instance(ctx, "d"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the refused step was written: %v", err)
	}

	// Durable: a reopened store still has them, with their takes.
	db.Close()
	db = db.Reopen(t)
	m, err := db.BufferedMessage(ctx, "m1")
	if err != nil || !slices.Equal(m.TakenBy, []string{"p"}) || m.MessageID != "id-1" {
		t.Fatalf("m1 after reopen = %+v %v", m, err)
	}
	if _, err := db.BufferedMessage(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown message: %v", err)
	}

	// Once expired, its message id is free again (the holder is replaced).
	if err := db.BufferMessage(ctx, msg("m8", "o-1", "id-1", t0.Add(time.Minute), time.Hour), nil, nil); err != nil {
		t.Fatalf("id of an expired message: %v", err)
	}
	if _, err := db.BufferedMessage(ctx, "m1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the expired holder of id-1 stayed: %v", err)
	}

	// The sweep deletes the expired ones (with their takes), a batch at a
	// time, and keeps the live ones.
	if err := db.BufferMessage(ctx, msg("x1", "o-x", "", t0, time.Second), []store.MessageTake{{MessageID: "x1", ProcessKey: "p", At: t0}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.BufferMessage(ctx, msg("x2", "o-x", "", t0, 2*time.Second), nil, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := db.SweepMessages(ctx, t0.Add(2*time.Second), 1); err != nil || n != 1 {
		t.Fatalf("first sweep = %d %v, want 1", n, err)
	}
	if _, err := db.BufferedMessage(ctx, "x1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("earliest expiry not swept first: %v", err)
	}
	if n, err := db.SweepMessages(ctx, t0.Add(2*time.Second), 10); err != nil || n != 1 {
		t.Fatalf("second sweep = %d %v, want 1", n, err)
	}
	for _, id := range []string{"m2", "m3", "m5", "m6", "m8"} {
		if _, err := db.BufferedMessage(ctx, id); err != nil {
			t.Fatalf("live message %s: %v", id, err)
		}
	}
	if n, err := db.SweepMessages(ctx, t0.Add(2*time.Hour), 100); err != nil || n != 5 {
		t.Fatalf("final sweep = %d %v, want 5", n, err)
	}
}

// testMessageSubscribers covers MessageSubscribers (the oldest message
// wait of each process key, oldest first), AnyBufferedMessages, and the
// idempotency record BufferMessage commits with a message.
func testMessageSubscribers(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	sub := func(id, processKey, key string, created int) store.WaitRow {
		w := Sub(id, store.WaitMessage, "paid", key, created)
		w.ProcessKey = processKey
		return w
	}
	CreateWithWaits(t, db, "i1", sub("a1", "a", "o-1", 3), sub("a9", "a", "o-2", 0))
	CreateWithWaits(t, db, "i2", sub("a2", "a", "o-1", 2), sub("b1", "b", "o-1", 5))
	CreateWithWaits(t, db, "i3", sub("c1", "c", "o-1", 4), Sub("s1", store.WaitSignal, "paid", "o-1", 0))
	got, err := db.MessageSubscribers(ctx, "paid", "o-1")
	if err != nil {
		t.Fatal(err)
	}
	if ids := WaitIDs(got); !slices.Equal(ids, []string{"a2", "c1", "b1"}) {
		t.Fatalf("MessageSubscribers = %v, want [a2 c1 b1]", ids)
	}
	if got, err := db.MessageSubscribers(ctx, "paid", "o-3"); err != nil || len(got) != 0 {
		t.Fatalf("MessageSubscribers of an unknown key = %v %v", WaitIDs(got), err)
	}

	if found, err := db.AnyBufferedMessages(ctx); err != nil || found {
		t.Fatalf("AnyBufferedMessages of an empty buffer = %v %v", found, err)
	}
	m := store.BufferedMessage{ID: "m1", Name: "paid", CorrelationKey: "o-1", PublishedAt: t0, ExpiresAt: t0.Add(time.Minute)}
	claim := &store.IdempotencyRow{Key: "publish k1", Answer: json.RawMessage(`{"key":"m1"}`), CreatedAt: t0, ExpiredBefore: t0.Add(-time.Hour)}
	if err := db.BufferMessage(ctx, m, nil, claim); err != nil {
		t.Fatal(err)
	}
	if found, err := db.AnyBufferedMessages(ctx); err != nil || !found {
		t.Fatalf("AnyBufferedMessages = %v %v, want true", found, err)
	}
	if row, ok, err := db.Idempotency(ctx, claim.Key, t0.Add(-time.Hour)); err != nil || !ok || string(row.Answer) != `{"key":"m1"}` {
		t.Fatalf("the claim = %+v %v %v", row, ok, err)
	}
	// A second message with a recorded key stores nothing.
	m2 := m
	m2.ID = "m2"
	if err := db.BufferMessage(ctx, m2, nil, claim); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a second message with the key = %v, want ErrConflict", err)
	}
	if _, err := db.BufferedMessage(ctx, "m2"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the refused message was stored: %v", err)
	}
}
