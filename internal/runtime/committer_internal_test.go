package runtime

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// batchStore records the size of every CommitSteps call.
type batchStore struct {
	Store
	mu      sync.Mutex
	batches []int
}

func (s *batchStore) CommitSteps(_ context.Context, steps []StepRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, len(steps))
	return nil
}

func (s *batchStore) sizes() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.batches)
}

// TestCommitterLingersOnlyWhenBusy checks group commit's linger: an idle
// committer commits a lone step at once; one whose last commit just ended
// waits for more steps (here until the batch is full) and commits them in
// one transaction.
func TestCommitterLingersOnlyWhenBusy(t *testing.T) {
	t.Parallel()
	st := &batchStore{}
	var (
		mu  sync.Mutex
		now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c := &committer{store: st, max: 2, linger: time.Hour, now: clock, metrics: &metrics{}, claims: newOutboxClaims(),
		in: make(chan commitRequest, 2), done: make(chan struct{})}
	go c.loop()
	defer c.close()

	// Idle (nothing committed yet): a lone step commits without waiting an hour.
	if err := c.commit(StepRecord{Instance: InstanceRow{ID: "a"}}); err != nil {
		t.Fatal(err)
	}
	// Busy (the last commit ended "now"): the next step waits for company.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := c.commit(StepRecord{Instance: InstanceRow{ID: "b"}}); err != nil {
			t.Error(err)
		}
	}()
	if err := c.commit(StepRecord{Instance: InstanceRow{ID: "c"}}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if got := st.sizes(); !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("batches = %v, want [1 2]: a lone idle step at once, then two busy ones together", got)
	}
	// Idle again (an hour passed): a lone step commits at once.
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	if err := c.commit(StepRecord{Instance: InstanceRow{ID: "d"}}); err != nil {
		t.Fatal(err)
	}
	if got := st.sizes(); !slices.Equal(got, []int{1, 2, 1}) {
		t.Fatalf("batches = %v, want [1 2 1]", got)
	}
}
