package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
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
	// folderDeployments and folderRefusals count what --deploy-dir's
	// watcher deployed and had refused (CountFolderDeployment).
	folderDeployments atomic.Int64
	folderRefusals    atomic.Int64
	// commits is the duration of each store transaction the committer ran.
	commits durationHistogram
	// labels are the series per process key, job type and trigger.
	labels labelled
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
	// FolderDeployments and FolderRefusals count the deployments from a
	// watched folder (--deploy-dir) and the refusals of one.
	FolderDeployments int64
	FolderRefusals    int64
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

		FolderDeployments: m.folderDeployments.Load(),
		FolderRefusals:    m.folderRefusals.Load(),
	}
}

// CountFolderDeployment counts one deployment from a watched folder, or
// one refusal of it, for Metrics (the watcher deploys through Deploy like
// any caller; only it knows where the files came from).
func (r *Runtime) CountFolderDeployment(refused bool) {
	if refused {
		r.metrics.folderRefusals.Add(1)
		return
	}
	r.metrics.folderDeployments.Add(1)
}

// count records what a committed unit of work did.
func (m *metrics) count(recs []StepRecord) {
	m.stepsCommitted.Add(int64(len(recs)))
	for i := range recs {
		rec := &recs[i]
		m.labels.countFacts(rec)
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

// Labelled series: the runtime's counters per process key, element type,
// job type and step trigger (GET /metrics, docs/metrics.md).
//
// # Cost
//
// count, which the committer runs once per committed batch, does work in
// proportion to the records the batch wrote: one lookup of the process's
// series per record and one per fact it reads (instance ends, incidents
// created, element activations). A step's duration and a job's outcome cost
// one lookup and a few atomic additions in the step's own goroutine. No
// path that steps take holds a mutex: a series is found in a map published
// through an atomic pointer and counted with atomic additions; only the
// first sight of a new label value takes labelSet's mutex, to publish a
// copy of the map with it (at most limit times per set).
//
// # Bounds
//
// Each label set keeps at most limit distinct values (Options.
// MetricsLabelLimit, DefaultMetricsLabelLimit when 0); the values seen after
// it is full, and a value spelled OtherLabel, are counted under OtherLabel.
// Element types (bpmn.Kind) and triggers (engine.Event.Kind) are closed
// sets of the engine's, bounded the same way. Instance ids and element ids
// are never labels.

// DefaultMetricsLabelLimit is how many distinct process keys, and how many
// distinct job types, get series of their own on /metrics when
// Options.MetricsLabelLimit is 0.
const DefaultMetricsLabelLimit = 500

// OtherLabel is the label value of the series that count every process key
// (job type, element type, trigger) beyond a label set's limit.
const OtherLabel = "other"

// labelSet maps label values to their series, at most limit of them plus
// OtherLabel's. Lookups are lock-free: the map is replaced, never changed,
// and published through an atomic pointer.
type labelSet[T any] struct {
	// limit is the bound; 0 or less means DefaultMetricsLabelLimit. It is set
	// before the set is used (New).
	limit int
	m     atomic.Pointer[map[string]*T]
	full  atomic.Bool
	other T
	// mu serializes the admissions of new values.
	mu sync.Mutex
}

// get returns v's series, admitting v when there is room.
func (s *labelSet[T]) get(v string) *T {
	if m := s.m.Load(); m != nil {
		if p, ok := (*m)[v]; ok {
			return p
		}
	}
	if v == OtherLabel || s.full.Load() {
		return &s.other
	}
	return s.admit(v)
}

// getBytes is get for a value in bytes: a value already admitted is found
// without converting it to a string (no allocation).
func (s *labelSet[T]) getBytes(v []byte) *T {
	if m := s.m.Load(); m != nil {
		if p, ok := (*m)[string(v)]; ok {
			return p
		}
	}
	return s.get(string(v))
}

func (s *labelSet[T]) admit(v string) *T {
	s.mu.Lock()
	defer s.mu.Unlock()
	var old map[string]*T
	if m := s.m.Load(); m != nil {
		old = *m
	}
	if p, ok := old[v]; ok {
		return p
	}
	limit := s.limit
	if limit <= 0 {
		limit = DefaultMetricsLabelLimit
	}
	if len(old) >= limit {
		s.full.Store(true)
		return &s.other
	}
	next := make(map[string]*T, len(old)+1)
	for k, p := range old {
		next[k] = p
	}
	p := new(T)
	next[v] = p
	s.m.Store(&next)
	return p
}

// each calls fn for every admitted value in label order, then for
// OtherLabel when anything was counted there (used reports it of the
// other series).
func (s *labelSet[T]) each(used func(*T) bool, fn func(v string, p *T)) {
	var m map[string]*T
	if p := s.m.Load(); p != nil {
		m = *p
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fn(k, m[k]) // an admitted value keeps its series, even at zero
	}
	if used(&s.other) {
		fn(OtherLabel, &s.other)
	}
}

// labelled are the runtime's labelled series.
type labelled struct {
	processes labelSet[processCounters]
	jobs      labelSet[jobCounters]
	steps     labelSet[atomicHistogram]
}

// setLimit bounds the process keys and the job types (0: the default).
func (l *labelled) setLimit(n int) {
	l.processes.limit, l.jobs.limit = n, n
}

// processCounters are one process key's counters.
type processCounters struct {
	started, completed, terminated, failed, incidents atomic.Int64
	elements                                          labelSet[atomic.Int64]
}

func (p *processCounters) used() bool {
	return p.started.Load()+p.completed.Load()+p.terminated.Load()+p.failed.Load()+p.incidents.Load() > 0 ||
		p.elements.m.Load() != nil || p.elements.other.Load() > 0
}

// jobCounters are one job type's counters.
type jobCounters struct {
	activated, completed, failed, errors atomic.Int64
}

func (j *jobCounters) used() bool {
	return j.activated.Load()+j.completed.Load()+j.failed.Load()+j.errors.Load() > 0
}

// atomicHistogram counts durations into CommitBuckets without a lock:
// counts[len(CommitBuckets)] holds those above the last bound, and the
// total is the sum of the buckets, so a snapshot's +Inf bucket always
// equals its count.
type atomicHistogram struct {
	counts [len(CommitBuckets) + 1]atomic.Int64
	sum    atomic.Int64 // nanoseconds
}

func (h *atomicHistogram) observe(d time.Duration) {
	i, _ := slices.BinarySearch(CommitBuckets[:], d.Seconds())
	h.counts[i].Add(1)
	h.sum.Add(int64(d))
}

func (h *atomicHistogram) used() bool {
	for i := range h.counts {
		if h.counts[i].Load() > 0 {
			return true
		}
	}
	return false
}

func (h *atomicHistogram) snapshot() Histogram {
	var out Histogram
	for i := range h.counts {
		n := h.counts[i].Load()
		if i < len(CommitBuckets) {
			out.Counts[i] = n
		}
		out.Count += n
	}
	out.Sum = time.Duration(h.sum.Load())
	return out
}

// countFacts counts what one committed record did per process: its
// instance's start and end, the incidents it raised and the elements it
// activated, by type.
func (l *labelled) countFacts(rec *StepRecord) {
	var p *processCounters
	for i := range rec.Facts {
		f := &rec.Facts[i]
		var c *atomic.Int64
		switch f.Kind {
		case engine.FactInstanceStarted, engine.FactInstanceCompleted, engine.FactInstanceTerminated,
			engine.FactInstanceFailed, engine.FactIncidentCreated, engine.FactElementActivated:
		default:
			continue
		}
		if p == nil {
			p = l.processes.get(rec.Instance.ProcessKey)
		}
		switch f.Kind {
		case engine.FactInstanceStarted:
			c = &p.started
		case engine.FactInstanceCompleted:
			c = &p.completed
		case engine.FactInstanceTerminated:
			c = &p.terminated
		case engine.FactInstanceFailed:
			c = &p.failed
		case engine.FactIncidentCreated:
			c = &p.incidents
		case engine.FactElementActivated:
			c = p.elements.getBytes(elementType(f.Detail))
		}
		c.Add(1)
	}
}

// elementType reads the element type of an element-activated fact's detail
// (the engine writes {"type":"serviceTask"}, with "by" before it after a
// modification): a scan for the usual shape, the JSON decoder otherwise.
// The scan returns a slice of detail, so counting allocates nothing.
func elementType(detail []byte) []byte {
	const key = `"type":"`
	if i := bytes.Index(detail, []byte(key)); i >= 0 {
		rest := detail[i+len(key):]
		if j := bytes.IndexByte(rest, '"'); j > 0 && bytes.IndexByte(rest[:j], '\\') < 0 {
			return rest[:j]
		}
	}
	var d struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(detail, &d) != nil || d.Type == "" {
		return []byte("unknown")
	}
	return []byte(d.Type)
}

// jobAct is what a step did to a job, for its type's counters: the
// job's type and which of its counters the step adds to (jobNone: none).
type jobAct struct {
	typ  string
	kind jobActKind
}

type jobActKind uint8

const (
	jobNone jobActKind = iota
	jobCompleted
	jobFailed
	jobErrorThrown
)

// jobActOf returns what ev does to a job of st, read before the step
// applies it (the job is gone after a completion); the zero jobAct for an
// event that acts on no job of st.
func jobActOf(ev engine.Event, st *engine.State) jobAct {
	var (
		key  string
		kind jobActKind
	)
	switch e := ev.(type) {
	case engine.JobCompleted:
		key, kind = e.Key, jobCompleted
	case engine.JobFailed:
		key, kind = e.Key, jobFailed
	case engine.JobErrorThrown:
		key, kind = e.Key, jobErrorThrown
	default:
		return jobAct{}
	}
	if w := st.Wait(key); w != nil && w.Kind == engine.WaitJob {
		return jobAct{typ: w.Name, kind: kind}
	}
	return jobAct{}
}

// stepped records a step that ran ev: its duration by trigger and what it
// did to a job, if it committed anything (a step its spec skipped did not).
func (m *metrics) stepped(ev engine.Event, out stepped, d time.Duration) {
	if len(out.w.recs) == 0 {
		return
	}
	m.labels.steps.get(ev.Kind()).observe(d)
	job := out.job
	if job.kind == jobNone {
		return
	}
	j := m.labels.jobs.get(job.typ)
	switch job.kind {
	case jobCompleted:
		j.completed.Add(1)
	case jobFailed:
		j.failed.Add(1)
	case jobErrorThrown:
		j.errors.Add(1)
	}
}

// activated counts n jobs of type typ locked for workers.
func (m *metrics) activated(typ string, n int) {
	m.jobsActivated.Add(int64(n))
	m.labels.jobs.get(typ).activated.Add(int64(n))
}

// ProcessMetrics are the runtime's labelled series (GET /metrics): per
// process key, per job type and per step trigger, each list in label order
// with OtherLabel's series last. Counters count what this node did since
// it started; IncidentsOpen is read from the store.
type ProcessMetrics struct {
	Processes []ProcessSeries
	Jobs      []JobSeries
	Steps     []StepSeries
}

// ProcessSeries are one process key's series (every version together).
type ProcessSeries struct {
	// Key is the process key, or OtherLabel for the keys beyond the limit.
	Key string
	// Started counts instances started (called children included);
	// Completed, Terminated and Failed count instances that ended so
	// (Failed: ended by an error nothing caught, handed to the caller).
	Started, Completed, Terminated, Failed int64
	// IncidentsCreated counts incidents raised in its instances.
	IncidentsCreated int64
	// IncidentsOpen is the number of open incidents of its instances, as
	// the store holds them now (every node's).
	IncidentsOpen int64
	// Elements count the element activations by element type.
	Elements []ElementSeries
}

// ElementSeries counts the activations of one element type.
type ElementSeries struct {
	Type        string
	Activations int64
}

// JobSeries are one job type's counters: jobs locked for workers, and the
// workers' completions, failed attempts and BPMN errors thrown.
type JobSeries struct {
	Type                                       string
	Activated, Completed, Failed, ErrorsThrown int64
}

// StepSeries is the duration of the committed steps of one trigger (the
// event's kind: start, job-completed, timer-fired…), from the instance's
// lock to its commit being durable.
type StepSeries struct {
	Trigger   string
	Durations Histogram
}

// ProcessMetrics returns the labelled series: the counters, and the open
// incidents per process key read from the store (a page at a time: the
// cost follows the open incidents).
func (r *Runtime) ProcessMetrics(ctx context.Context) (ProcessMetrics, error) {
	open, err := r.openIncidents(ctx)
	if err != nil {
		return ProcessMetrics{}, err
	}
	l := &r.metrics.labels
	// A key with open incidents gets series of its own if there is room
	// (they may predate this node's start).
	openOf := map[*processCounters]int64{}
	for key, n := range open {
		openOf[l.processes.get(key)] += n
	}
	var out ProcessMetrics
	l.processes.each(func(p *processCounters) bool { return p.used() || openOf[p] > 0 }, func(key string, p *processCounters) {
		s := ProcessSeries{Key: key, Started: p.started.Load(), Completed: p.completed.Load(), Terminated: p.terminated.Load(),
			Failed: p.failed.Load(), IncidentsCreated: p.incidents.Load(), IncidentsOpen: openOf[p]}
		p.elements.each(func(c *atomic.Int64) bool { return c.Load() > 0 }, func(typ string, c *atomic.Int64) {
			s.Elements = append(s.Elements, ElementSeries{Type: typ, Activations: c.Load()})
		})
		out.Processes = append(out.Processes, s)
	})
	l.jobs.each((*jobCounters).used, func(typ string, j *jobCounters) {
		out.Jobs = append(out.Jobs, JobSeries{Type: typ, Activated: j.activated.Load(), Completed: j.completed.Load(),
			Failed: j.failed.Load(), ErrorsThrown: j.errors.Load()})
	})
	l.steps.each((*atomicHistogram).used, func(trigger string, h *atomicHistogram) {
		out.Steps = append(out.Steps, StepSeries{Trigger: trigger, Durations: h.snapshot()})
	})
	return out, nil
}

// openIncidentsPage is how many open incidents ProcessMetrics reads at once.
const openIncidentsPage = 1000

// openIncidents counts the open incidents per process key.
func (r *Runtime) openIncidents(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	f := IncidentFilter{OpenOnly: true, Limit: openIncidentsPage}
	for {
		rows, err := r.store.IncidentsPage(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("runtime: count open incidents: %w", err)
		}
		for _, in := range rows {
			key := in.ProcessKey
			if key == "" {
				key = OtherLabel // no instance row to name it: never an empty label
			}
			out[key]++
		}
		if len(rows) < openIncidentsPage {
			return out, nil
		}
		last := rows[len(rows)-1]
		f.After, f.AfterAt = last.ID, last.CreatedAt
	}
}
