package runtime

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/gobpm/gobpm/internal/engine"
)

// outboxStore records outbox deletes and refuses any signal lookup.
type outboxStore struct {
	Store
	t       *testing.T
	mu      sync.Mutex
	deleted []int64
}

func (s *outboxStore) SignalSubscriptions(context.Context, string) ([]InstanceID, error) {
	s.t.Error("a signal past the depth bound was broadcast")
	return nil, nil
}

func (s *outboxStore) DeleteOutbox(_ context.Context, ids ...int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleted = append(s.deleted, ids...)
	return nil
}

// A signal row carries the depth of the cascade that threw it: performed
// from the outbox (after a restart, or by a retry) it stays bounded, and a
// row past the bound is dropped, not retried forever.
func TestOutboxSignalRowKeepsItsDepth(t *testing.T) {
	t.Parallel()
	st := &outboxStore{t: t}
	r := New(st, Options{})
	defer r.Close()
	ctx := context.WithValue(context.Background(), signalCascadeKey{}, signalCascade{depth: maxSignalDepth})
	rows, err := outboxRows(ctx, engine.Effects{Signals: []engine.SignalThrow{{Name: "ping"}}})
	if err != nil {
		t.Fatal(err)
	}
	var p signalPayload
	if err := json.Unmarshal(rows[0].Payload, &p); err != nil || p.Depth != maxSignalDepth {
		t.Fatalf("payload %s: %v", rows[0].Payload, err)
	}
	rows[0].ID = 7
	r.outbox.claimFree(rows)
	if !r.performOutbox(context.Background(), rows[0]) {
		t.Fatal("a row past the depth bound was kept for a retry")
	}
	if len(st.deleted) != 1 || st.deleted[0] != 7 {
		t.Fatalf("deleted %v, want [7]", st.deleted)
	}
	if r.outboxRetry.Load() {
		t.Fatal("a dropped row asked for a retry")
	}
}
