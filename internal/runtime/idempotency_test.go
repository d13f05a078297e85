package runtime_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// TestIdempotentStart: a start retried with its key returns the first
// instance (replayed), a key reused for another request is refused, and
// after the window the key starts anew.
func TestIdempotentStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	rt := runtime.New(db, runtime.Options{Now: clock, IdempotencyWindow: time.Hour})
	defer rt.Close()
	mustDeploy(t, rt, fixture(t, "job.bpmn"))

	keyed := runtime.WithIdempotencyKey(ctx, "order-42")
	req := runtime.StartRequest{ProcessKey: "job", BusinessKey: "B-42", Variables: map[string]any{"amount": json.Number("10.50")}}
	first, err := rt.StartInstance(keyed, req)
	if err != nil || first.Replayed {
		t.Fatalf("first start: %+v, %v", first.Replayed, err)
	}
	again, err := rt.StartInstance(runtime.WithIdempotencyKey(ctx, "order-42"), req)
	if err != nil || !again.Replayed || again.ID != first.ID {
		t.Fatalf("retry: id %s replayed %v, %v; want %s replayed", again.ID, again.Replayed, err, first.ID)
	}
	other := req
	other.Variables = map[string]any{"amount": json.Number("99")}
	if _, err := rt.StartInstance(runtime.WithIdempotencyKey(ctx, "order-42"), other); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Errorf("the key with another request: %v, want ECONFLICT", err)
	}
	rows, total, err := rt.ListInstances(ctx, runtime.InstanceFilter{ProcessKey: "job"})
	if err != nil || total != 1 || len(rows) != 1 {
		t.Fatalf("instances after retries: %d, %v", total, err)
	}

	// Concurrent retries of one key start one instance.
	var wg sync.WaitGroup
	ids := make(chan runtime.InstanceID, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := rt.StartInstance(runtime.WithIdempotencyKey(ctx, "order-43"), req)
			if err != nil {
				t.Error(err)
				return
			}
			ids <- v.ID
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[runtime.InstanceID]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != 1 {
		t.Errorf("8 concurrent starts with one key made %d instances", len(seen))
	}

	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	late, err := rt.StartInstance(runtime.WithIdempotencyKey(ctx, "order-42"), req)
	if err != nil || late.Replayed || late.ID == first.ID {
		t.Errorf("after the window: %s replayed %v, %v; want a new instance", late.ID, late.Replayed, err)
	}
}

// TestIdempotentMessage: a message retried with its key is delivered once,
// even when another subscription would take it.
func TestIdempotentMessage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	mustDeploy(t, b.rt, fixture(t, "messages.bpmn"))
	for range 2 {
		if _, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "messages", Variables: map[string]any{"orderId": "o-1"}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		n, err := b.rt.CorrelateMessage(runtime.WithIdempotencyKey(ctx, "pay-o-1"), "order-paid", "o-1", map[string]any{"paid": true})
		if err != nil || n != 1 {
			t.Fatalf("delivery %d: %d, %v", i, n, err)
		}
	}
	// One of the two instances got the message; the other still waits.
	n, err := b.rt.CorrelateMessage(ctx, "order-paid", "o-1", nil)
	if err != nil || n != 1 {
		t.Errorf("the second subscription was taken by a retry: %d, %v", n, err)
	}
	if _, err := b.rt.CorrelateMessage(runtime.WithIdempotencyKey(ctx, "pay-o-1"), "order-paid", "o-2", nil); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Errorf("the key with another message: %v, want ECONFLICT", err)
	}
}

const signalModels = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:test">
  <signal id="s" name="ping"/>
  <process id="started" isExecutable="true">
    <startEvent id="onPing"><signalEventDefinition signalRef="s"/></startEvent>
    <sequenceFlow id="f1" sourceRef="onPing" targetRef="e1"/>
    <endEvent id="e1"/>
  </process>
  <process id="catcher" isExecutable="true">
    <startEvent id="s2"/>
    <sequenceFlow id="f2" sourceRef="s2" targetRef="wait"/>
    <intermediateCatchEvent id="wait"><signalEventDefinition signalRef="s"/></intermediateCatchEvent>
    <sequenceFlow id="f3" sourceRef="wait" targetRef="e2"/>
    <endEvent id="e2"/>
  </process>
</definitions>`

// TestIdempotentSignal: a broadcast retried with its key triggers nothing
// again and answers the first count; a retry of a broadcast whose signal
// start already committed (a crash cut it short) skips that start.
func TestIdempotentSignal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	mustDeploy(t, b.rt, runtime.File{Name: "signals.bpmn", Content: []byte(signalModels)})
	if _, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "catcher"}); err != nil {
		t.Fatal(err)
	}
	count := func(key string) int {
		_, total, err := b.rt.ListInstances(ctx, runtime.InstanceFilter{ProcessKey: key})
		if err != nil {
			t.Fatal(err)
		}
		return total
	}
	for i := range 3 {
		n, err := b.rt.BroadcastSignal(runtime.WithIdempotencyKey(ctx, "ping-1"), "ping", nil)
		if err != nil || n != 2 {
			t.Fatalf("broadcast %d: %d, %v; want 2 (the catch and the start)", i, n, err)
		}
	}
	if got := count("started"); got != 1 {
		t.Errorf("signal-started instances after 3 keyed broadcasts: %d, want 1", got)
	}
	if _, err := b.rt.BroadcastSignal(runtime.WithIdempotencyKey(ctx, "ping-1"), "ping", map[string]any{"x": 1}); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Errorf("the key with another signal: %v, want ECONFLICT", err)
	}

	// A broadcast cut short after its start committed: the start's own
	// record is there, the broadcast's is not. The retry finishes it
	// without starting again.
	now := time.Now().UTC()
	if err := b.db.RecordIdempotency(ctx, runtime.IdempotencyRow{Key: "signal-start:ping/started/onPing ping-2",
		Answer: json.RawMessage(`null`), CreatedAt: now, ExpiredBefore: now.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if n, err := b.rt.BroadcastSignal(runtime.WithIdempotencyKey(ctx, "ping-2"), "ping", nil); err != nil || n != 1 {
		t.Errorf("the retry of a cut-short broadcast: %d, %v; want 1 (the start, done before)", n, err)
	}
	if got := count("started"); got != 1 {
		t.Errorf("the retry started again: %d instances", got)
	}
}
