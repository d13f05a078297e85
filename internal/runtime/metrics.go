package runtime

import "sync/atomic"

// metrics are the runtime's counters, exported by Metrics for /metrics.
type metrics struct {
	stepsCommitted   atomic.Int64
	commitBatches    atomic.Int64
	instancesStarted atomic.Int64
	instancesEnded   atomic.Int64
	jobsActivated    atomic.Int64
	timersFired      atomic.Int64
	incidentsOpened  atomic.Int64
	instancesDeleted atomic.Int64
}

// Metrics is a snapshot of the runtime's counters since start.
type Metrics struct {
	// StepsCommitted counts committed steps (one per instance per command);
	// CommitBatches counts the transactions they shared (group commit).
	StepsCommitted int64
	CommitBatches  int64
	// InstancesStarted and InstancesEnded count instances (children included).
	InstancesStarted int64
	InstancesEnded   int64
	JobsActivated    int64
	TimersFired      int64
	IncidentsOpened  int64
	// InstancesDeleted counts ended instances deleted with their history
	// (the retention cleaner and DeleteInstance).
	InstancesDeleted int64
}

// Metrics returns the current counters.
func (r *Runtime) Metrics() Metrics {
	m := &r.metrics
	return Metrics{
		StepsCommitted: m.stepsCommitted.Load(), CommitBatches: m.commitBatches.Load(),
		InstancesStarted: m.instancesStarted.Load(), InstancesEnded: m.instancesEnded.Load(),
		JobsActivated: m.jobsActivated.Load(), TimersFired: m.timersFired.Load(), IncidentsOpened: m.incidentsOpened.Load(),
		InstancesDeleted: m.instancesDeleted.Load(),
	}
}

// count records what a committed unit of work did.
func (m *metrics) count(recs []StepRecord) {
	m.stepsCommitted.Add(int64(len(recs)))
	for _, rec := range recs {
		if rec.PrevRevision == 0 {
			m.instancesStarted.Add(1)
		}
		if !rec.Instance.EndedAt.IsZero() && rec.Instance.UpdatedAt.Equal(rec.Instance.EndedAt) {
			m.instancesEnded.Add(1)
		}
		for _, in := range rec.Incidents {
			if in.ResolvedAt.IsZero() {
				m.incidentsOpened.Add(1)
			}
		}
	}
}
