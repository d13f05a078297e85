package runtime

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
)

// TestLabelSetBound: the first limit values get series of their own, the
// later ones and a value spelled "other" share the other series, from any
// number of goroutines.
func TestLabelSetBound(t *testing.T) {
	t.Parallel()
	s := &labelSet[jobCounters]{limit: 3}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				s.get(fmt.Sprintf("t%d", (g+i)%10)).completed.Add(1)
			}
		}()
	}
	wg.Wait()
	s.get(OtherLabel).completed.Add(1)
	var names []string
	var total int64
	s.each(func(j *jobCounters) bool { return j.used() }, func(v string, j *jobCounters) {
		names = append(names, v)
		total += j.completed.Load()
	})
	if len(names) != 4 || names[3] != OtherLabel {
		t.Fatalf("series %v, want three values and other", names)
	}
	if total != 801 {
		t.Errorf("counted %d, want 801", total)
	}
	if a, b := s.get(names[0]), s.get(names[0]); a != b || a == &s.other {
		t.Errorf("an admitted value moved")
	}
	if s.get("t-new") != &s.other {
		t.Errorf("a value past the limit got a series")
	}
}

// TestLabelSetOtherOnlyWhenUsed: no other series until something is
// counted there.
func TestLabelSetOtherOnlyWhenUsed(t *testing.T) {
	t.Parallel()
	s := &labelSet[atomicHistogram]{}
	s.get("start").observe(time.Millisecond)
	var names []string
	s.each((*atomicHistogram).used, func(v string, _ *atomicHistogram) { names = append(names, v) })
	if len(names) != 1 || names[0] != "start" {
		t.Errorf("series %v", names)
	}
}

func TestAtomicHistogram(t *testing.T) {
	t.Parallel()
	var h atomicHistogram
	for _, d := range []time.Duration{100 * time.Microsecond, 3 * time.Millisecond, 3 * time.Millisecond, 10 * time.Second} {
		h.observe(d)
	}
	got := h.snapshot()
	if got.Count != 4 || got.Counts[0] != 1 || got.Counts[3] != 2 || got.Sum != 10*time.Second+6100*time.Microsecond {
		t.Errorf("snapshot %+v", got)
	}
	var inBounds int64
	for _, n := range got.Counts {
		inBounds += n
	}
	if inBounds != 3 {
		t.Errorf("%d observations within the bounds, want 3 (10 s is above them)", inBounds)
	}
}

func TestElementType(t *testing.T) {
	t.Parallel()
	for detail, want := range map[string]string{
		`{"type":"serviceTask"}`:                  "serviceTask",
		`{"by":"modification","type":"userTask"}`: "userTask",
		`{ "type" : "endEvent" }`:                 "endEvent",
		`{}`:                                      "unknown",
		`not json`:                                "unknown",
	} {
		if got := string(elementType([]byte(detail))); got != want {
			t.Errorf("elementType(%s) = %q, want %q", detail, got, want)
		}
	}
}

func TestJobActOf(t *testing.T) {
	t.Parallel()
	st := engine.NewState("i-1", "orders", 1)
	st.Waits = []*engine.Wait{
		{ID: "i-1-w000001", Kind: engine.WaitJob, Name: "charge"},
		{ID: "i-1-w000002", Kind: engine.WaitMessage, Name: "paid"},
	}
	for _, tt := range []struct {
		ev   engine.Event
		want jobAct
	}{
		{engine.JobCompleted{Key: "i-1-w000001"}, jobAct{typ: "charge", kind: jobCompleted}},
		{engine.JobFailed{Key: "i-1-w000001"}, jobAct{typ: "charge", kind: jobFailed}},
		{engine.JobErrorThrown{Key: "i-1-w000001"}, jobAct{typ: "charge", kind: jobErrorThrown}},
		{engine.JobCompleted{Key: "i-1-w000002"}, jobAct{}}, // not a job
		{engine.JobCompleted{Key: "i-1-w000009"}, jobAct{}}, // gone
		{engine.Cancel{}, jobAct{}},
	} {
		if got := jobActOf(tt.ev, st); got != tt.want {
			t.Errorf("jobActOf(%T %+v) = %+v, want %+v", tt.ev, tt.ev, got, tt.want)
		}
	}
}

// TestCountFactsAllocatesNothing: counting a step of a process, trigger and
// element types seen before allocates nothing. Not parallel: AllocsPerRun
// counts every goroutine's allocations.
func TestCountFactsAllocatesNothing(t *testing.T) {
	rec := StepRecord{Instance: InstanceRow{ProcessKey: "orders"}, Facts: []FactRow{
		{Kind: engine.FactElementActivated, Detail: []byte(`{"type":"serviceTask"}`)},
		{Kind: engine.FactElementCompleted, Detail: []byte(`{}`)},
		{Kind: engine.FactInstanceCompleted, Detail: []byte(`{}`)},
	}}
	var m metrics
	recs := []StepRecord{rec}
	m.count(recs)
	if n := testing.AllocsPerRun(100, func() { m.count(recs) }); n != 0 {
		t.Errorf("count allocates %v times per record", n)
	}
	st := engine.NewState("i-1", "orders", 1)
	st.Waits = []*engine.Wait{{ID: "i-1-w000001", Kind: engine.WaitJob, Name: "charge"}}
	out := stepped{w: &work{recs: recs}, job: jobActOf(engine.JobCompleted{Key: "i-1-w000001"}, st)}
	m.stepped(engine.JobCompleted{}, out, time.Millisecond)
	if n := testing.AllocsPerRun(100, func() { m.stepped(engine.JobCompleted{}, out, time.Millisecond) }); n != 0 {
		t.Errorf("stepped allocates %v times per step", n)
	}
	p := m.labels.processes.get("orders")
	if p.completed.Load() != 102 || p.elements.get("serviceTask").Load() != 102 || m.labels.jobs.get("charge").completed.Load() != 102 {
		t.Errorf("counted %d completions, %d activations, %d job completions", p.completed.Load(), p.elements.get("serviceTask").Load(), m.labels.jobs.get("charge").completed.Load())
	}
}
