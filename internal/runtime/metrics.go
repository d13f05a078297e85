package runtime

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// CommitBuckets are the upper bounds, in seconds, of the commit duration
// histogram: from a fast fsync to a disk that stalls.
var CommitBuckets = [...]float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}

// metrics are the runtime's counters, exported by Metrics for /metrics.
type metrics struct {
	stepsCommitted   atomic.Int64
	commitBatches    atomic.Int64
	instancesStarted atomic.Int64
	instancesEnded   atomic.Int64
	jobsActivated    atomic.Int64
	timersFired      atomic.Int64
	// staleSteps counts steps re-run because another node committed their
	// instance first (cluster.go).
	staleSteps       atomic.Int64
	collisions       atomic.Int64 // commands that met a stale step (collisions.go)
	incidentsOpened  atomic.Int64
	instancesDeleted atomic.Int64
	// commits is the duration of each store transaction the committer ran.
	commits durationHistogram
}

// durationHistogram counts durations into CommitBuckets.
type durationHistogram struct {
	mu     sync.Mutex
	counts [len(CommitBuckets)]int64
	count  int64
	sum    time.Duration
}

func (h *durationHistogram) observe(d time.Duration) {
	i, _ := slices.BinarySearch(CommitBuckets[:], d.Seconds())
	h.mu.Lock()
	defer h.mu.Unlock()
	if i < len(CommitBuckets) {
		h.counts[i]++
	}
	h.count++
	h.sum += d
}

func (h *durationHistogram) snapshot() Histogram {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Histogram{Counts: h.counts, Count: h.count, Sum: h.sum}
}

// Histogram is a snapshot of a duration histogram over CommitBuckets:
// Counts[i] counts the observations at most CommitBuckets[i] seconds and
// above the bound before (not cumulative); Count counts them all, those
// above the last bound included.
type Histogram struct {
	Counts [len(CommitBuckets)]int64
	Count  int64
	Sum    time.Duration
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
	// StaleSteps counts steps re-run because another node of the cluster
	// committed their instance first.
	StaleSteps int64
	// Collisions counts the commands that met at least one stale step.
	Collisions int64
	// Commits is the duration of every store transaction of steps (a group
	// commit, its fsync included): how fast the disk makes steps durable.
	Commits Histogram
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
		Commits:          m.commits.snapshot(),
		InstancesDeleted: m.instancesDeleted.Load(),
		StaleSteps:       m.staleSteps.Load(),
		Collisions:       m.collisions.Load(),
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
