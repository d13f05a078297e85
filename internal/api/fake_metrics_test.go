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

// ProcessMetrics answers fixed labelled series: a process, the overflow
// of the bounded keys, a job type and one step trigger.
func (f *fakeService) ProcessMetrics(context.Context) (runtime.ProcessMetrics, error) {
	h := runtime.Histogram{Count: 3, Sum: 30 * time.Millisecond}
	h.Counts[3] = 2 // two steps of at most 5 ms, one above the last bound
	return runtime.ProcessMetrics{
		Processes: []runtime.ProcessSeries{
			{Key: "order", Started: 5, Completed: 3, Terminated: 1, Failed: 0, IncidentsCreated: 2, IncidentsOpen: 1,
				Elements: []runtime.ElementSeries{{Type: "serviceTask", Activations: 4}, {Type: "startEvent", Activations: 5}}},
			{Key: runtime.OtherLabel, Started: 1},
		},
		Jobs:  []runtime.JobSeries{{Type: "charge", Activated: 4, Completed: 2, Failed: 1, ErrorsThrown: 1}},
		Steps: []runtime.StepSeries{{Trigger: "start", Durations: h}},
	}, nil
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
