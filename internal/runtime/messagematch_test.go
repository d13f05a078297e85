package runtime_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// loadCounter is the real store counting the instance states it loads.
type loadCounter struct {
	runtime.Store
	loads atomic.Int64
}

func (l *loadCounter) Instance(ctx context.Context, id runtime.InstanceID) (runtime.StoredInstance, error) {
	l.loads.Add(1)
	return l.Store.Instance(ctx, id)
}

// TestCorrelateMatchingByIndex correlates by business key and by
// correlation key among many waiting instances: the match comes from the
// indexed instance filters intersected with the message waits, so the
// runtime loads the state of the instance it delivers to, not of every
// waiting instance.
func TestCorrelateMatchingByIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setupClocked(t)
	mustDeploy(t, c.rt, fixture(t, "messages.bpmn"))
	const n = 30
	ids := make([]runtime.InstanceID, n)
	for i := range n {
		inst, err := c.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "messages", BusinessKey: fmt.Sprintf("b-%d", i),
			Variables: map[string]any{"orderId": fmt.Sprintf("o-%d", i), "region": "eu"}})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = inst.ID
	}
	db, err := testdb.Open(ctx, c.path)
	if err != nil {
		t.Fatal(err)
	}
	counter := &loadCounter{Store: db}
	rt := runtime.New(counter, runtime.Options{Now: c.clk.Now})
	t.Cleanup(func() {
		rt.Close()
		db.Close()
	})
	for _, tt := range []struct {
		name string
		m    runtime.MessageMatch
		want runtime.InstanceID
	}{
		{"business key", runtime.MessageMatch{Name: "order-paid", BusinessKey: "b-7"}, ids[7]},
		{"correlation key", runtime.MessageMatch{Name: "order-paid", CorrelationKeys: map[string]any{"orderId": "o-11", "region": "eu"}}, ids[11]},
		{"both", runtime.MessageMatch{Name: "order-cancelled", BusinessKey: "b-3", CorrelationKeys: map[string]any{"orderId": "o-3"}}, ids[3]},
	} {
		before := counter.loads.Load()
		got, err := rt.CorrelateMatching(ctx, tt.m)
		if err != nil || len(got) != 1 || got[0].InstanceID != tt.want {
			t.Fatalf("%s: CorrelateMatching = %+v, %v; want a delivery to %s", tt.name, got, err, tt.want)
		}
		if loads := counter.loads.Load() - before; loads > 2 {
			t.Errorf("%s: loaded %d instance states among %d waiting instances, want at most 2", tt.name, loads, n)
		}
	}
	if _, err := rt.CorrelateMatching(ctx, runtime.MessageMatch{Name: "order-paid", BusinessKey: "b-7"}); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("correlating again to an instance that took the message: %v, want ENOTFOUND", err)
	}
	if _, err := rt.CorrelateMatching(ctx, runtime.MessageMatch{Name: "order-paid", CorrelationKeys: map[string]any{"region": "eu"}}); runtime.ErrorCode(err) != runtime.ECONFLICT {
		t.Errorf("a correlation key many instances share: %v, want ECONFLICT", err)
	}
}

// LockJob forwards to the real store (runtime.JobLocker).
func (l *loadCounter) LockJob(ctx context.Context, id string, now time.Time, lock runtime.JobLock) (runtime.WaitRow, error) {
	return l.Store.(runtime.JobLocker).LockJob(ctx, id, now, lock)
}

// TestFetchMatchingByIndex fetches with a business key and a variable
// filter among many jobs of the topic: the indexed instance filters
// select the candidates, so only the matching instance's state is read.
func TestFetchMatchingByIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setupClocked(t)
	mustDeploy(t, c.rt, fixture(t, "job.bpmn"))
	const n = 30
	ids := make([]runtime.InstanceID, n)
	for i := range n {
		inst, err := c.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "job", BusinessKey: fmt.Sprintf("b-%d", i),
			Variables: map[string]any{"n": i}})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = inst.ID
	}
	c.clk.Advance(time.Second) // the jobs are older than the fetch
	db, err := testdb.Open(ctx, c.path)
	if err != nil {
		t.Fatal(err)
	}
	counter := &loadCounter{Store: db}
	rt := runtime.New(counter, runtime.Options{Now: c.clk.Now})
	t.Cleanup(func() {
		rt.Close()
		db.Close()
	})
	bk := "b-21"
	for _, tt := range []struct {
		name  string
		match runtime.JobMatch
		want  runtime.InstanceID
	}{
		{"business key", runtime.JobMatch{BusinessKey: &bk}, ids[21]},
		{"variable", runtime.JobMatch{Variables: map[string]any{"n": 25}}, ids[25]},
	} {
		before := counter.loads.Load()
		jobs, err := rt.FetchJobs(ctx, runtime.FetchRequest{Worker: "w", MaxJobs: 5,
			Topics: []runtime.FetchTopic{{Type: "charge-card", LockDuration: time.Minute, Match: &tt.match}}})
		if err != nil || len(jobs) != 1 || jobs[0].InstanceID != tt.want {
			t.Fatalf("%s: fetched %+v, %v; want the job of %s", tt.name, jobs, err, tt.want)
		}
		if loads := counter.loads.Load() - before; loads > 2 {
			t.Errorf("%s: loaded %d instance states among %d jobs, want at most 2", tt.name, loads, n)
		}
	}
}
