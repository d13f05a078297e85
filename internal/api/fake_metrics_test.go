package api_test

import (
	"context"
	"errors"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Metrics answers fixed counters, so the exposition can be checked exactly.
func (f *fakeService) Metrics() runtime.Metrics {
	return runtime.Metrics{StepsCommitted: 7, CommitBatches: 3, InstancesStarted: 2, InstancesEnded: 1,
		JobsActivated: 4, TimersFired: 5, IncidentsOpened: 6, InstancesDeleted: 8}
}

// Nodes answers one fixed node: the fake is a single process.
func (f *fakeService) Nodes(context.Context) ([]runtime.NodeRow, error) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	return []runtime.NodeRow{{ID: "fake-node", Address: "127.0.0.1:8080", Version: "test", StartedAt: at, HeartbeatAt: at.Add(time.Minute)}}, nil
}

// NodeID names the fake's node.
func (f *fakeService) NodeID() string { return "fake-node" }

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
