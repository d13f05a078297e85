package runtime

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// jobStore answers the job queries of ActivateJobs with nothing to do.
type jobStore struct{ Store }

func (jobStore) ActivateJobs(context.Context, string, time.Time, JobLock) ([]WaitRow, error) {
	return nil, nil
}

func (jobStore) ServerSecret(_ context.Context, _ string, fresh []byte) ([]byte, error) {
	return fresh, nil
}

func (jobStore) NextJobAvailable(context.Context, string, time.Time) (time.Time, bool, error) {
	return time.Time{}, false, nil
}

// Job types come from requests; asking for types that never get a job must
// not leave anything behind (it grew the notifier's map by one per type).
func TestActivateLeavesNoWaiterBehind(t *testing.T) {
	t.Parallel()
	r := New(jobStore{}, Options{})
	defer r.Close()
	ctx := context.Background()
	for i := range 100 {
		req := ActivateRequest{Type: fmt.Sprintf("type-%d", i), Worker: "w", MaxJobs: 1, LockDuration: time.Minute}
		if i%2 == 1 {
			req.RequestTimeout = time.Millisecond // a long poll that times out
		}
		if _, err := r.ActivateJobs(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.jobReady.len(); n != 0 {
		t.Fatalf("%d job types still have a waiter entry after every call returned", n)
	}
}
