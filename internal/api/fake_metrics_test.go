package api_test

import (
	"context"
	"errors"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Metrics answers fixed counters, so the exposition can be checked exactly.
func (f *fakeService) Metrics() runtime.Metrics {
	return runtime.Metrics{StepsCommitted: 7, CommitBatches: 3, InstancesStarted: 2, InstancesEnded: 1,
		JobsActivated: 4, TimersFired: 5, IncidentsOpened: 6, InstancesDeleted: 8}
}

// WaitCounts counts the fake's open jobs and user tasks.
func (f *fakeService) WaitCounts(context.Context) (map[string]int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return map[string]int{"job": len(f.waits.jobs), "task": len(f.waits.tasks)}, nil
}

// brokenStore is the fake whose store fails to count waits.
type brokenStore struct{ *fakeService }

func (brokenStore) WaitCounts(context.Context) (map[string]int, error) {
	return nil, errors.New("store: count waits: disk I/O error")
}
