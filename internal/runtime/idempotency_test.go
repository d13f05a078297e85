package runtime_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store"
)

// TestIdempotentStart: a start retried with its key returns the first
// instance (replayed), a key reused for another request is refused, and
// after the window the key starts anew.
func TestIdempotentStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "gobpm.db"), store.Options{})
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
