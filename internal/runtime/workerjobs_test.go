package runtime_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// detailsStore is hookStore whose SetJobErrorDetails always fails: the
// details of a worker's failure must commit with the failure's step, never
// in a write after it.
type detailsStore struct{ hookStore }

func (*detailsStore) SetJobErrorDetails(context.Context, string, string) error {
	return errors.New("error details written after the failure's step")
}

// TestFailWorkerJobDetailsInStep fails a worker-held job with error
// details: the failure's step record carries them, and a fetch after the
// failure sees the new message with its details.
func TestFailWorkerJobDetailsInStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setupClocked(t)
	mustDeploy(t, c.rt, fixture(t, "job.bpmn"))
	start(t, c.rt, "job", nil)
	var carried []runtime.JobErrorDetails
	h := &detailsStore{hookStore{commit: func(steps []runtime.StepRecord) error {
		for _, s := range steps {
			if s.JobErrorDetails != nil {
				carried = append(carried, *s.JobErrorDetails)
			}
		}
		return nil
	}}}
	db, err := testdb.Open(ctx, c.path)
	if err != nil {
		t.Fatal(err)
	}
	h.Store = db
	rt := runtime.New(h, runtime.Options{Now: c.clk.Now})
	t.Cleanup(func() {
		rt.Close()
		db.Close()
	})

	fetch := func() []runtime.WorkerJob {
		t.Helper()
		jobs, err := rt.FetchJobs(ctx, runtime.FetchRequest{Worker: "w", MaxJobs: 1,
			Topics: []runtime.FetchTopic{{Type: "charge-card", LockDuration: time.Minute}}})
		if err != nil {
			t.Fatal(err)
		}
		return jobs
	}
	jobs := fetch()
	if len(jobs) != 1 {
		t.Fatalf("fetched %d jobs, want 1", len(jobs))
	}
	retries := 1
	err = rt.FailWorkerJob(ctx, jobs[0].Key, runtime.WorkerHolder{Worker: "w"},
		runtime.FailRequest{Retries: &retries, ErrorMessage: "boom", ErrorDetails: "stack trace"})
	if err != nil {
		t.Fatalf("FailWorkerJob: %v", err)
	}
	if len(carried) != 1 || carried[0].Details != "stack trace" {
		t.Fatalf("step records carried error details %+v, want the failure's", carried)
	}
	c.clk.Advance(time.Hour) // past the retry backoff
	again := fetch()
	if len(again) != 1 || again[0].ErrorMessage != "boom" || again[0].ErrorDetails != "stack trace" {
		t.Fatalf("fetched after the failure: %+v, want message boom with its details", again)
	}
	if d, err := rt.WorkerJobErrorDetails(ctx, again[0].Key); err != nil || d != "stack trace" {
		t.Errorf("WorkerJobErrorDetails = %q, %v; want the failure's", d, err)
	}
}

// TestWorkerJobsPaging lists open jobs with an offset and a limit, by
// key, with a Keep filter, and counts them: the runtime pages and counts,
// so a listing never holds more than it answers.
func TestWorkerJobsPaging(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setupClocked(t)
	mustDeploy(t, c.rt, fixture(t, "job.bpmn"))
	var instances []runtime.InstanceID
	for range 5 {
		instances = append(instances, start(t, c.rt, "job", nil).ID)
		c.clk.Advance(time.Second) // distinct creation times: a stable order
	}
	list := func(f runtime.WorkerJobFilter) []runtime.InstanceID {
		t.Helper()
		rows, err := c.rt.WorkerJobs(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []runtime.InstanceID
		for _, row := range rows {
			out = append(out, row.InstanceID)
		}
		return out
	}
	all, err := c.rt.WorkerJobs(ctx, runtime.WorkerJobFilter{Type: "charge-card"})
	if err != nil || len(all) != 5 {
		t.Fatalf("WorkerJobs = %d jobs, %v; want 5", len(all), err)
	}
	for _, tt := range []struct {
		name string
		f    runtime.WorkerJobFilter
		want []runtime.InstanceID
	}{
		{"offset and limit", runtime.WorkerJobFilter{Type: "charge-card", Offset: 1, Limit: 2}, instances[1:3]},
		{"offset past the end", runtime.WorkerJobFilter{Offset: 5}, nil},
		{"key", runtime.WorkerJobFilter{Key: all[3].ID}, instances[3:4]},
		{"key of another type", runtime.WorkerJobFilter{Key: all[3].ID, Type: "other"}, nil},
		{"unknown key", runtime.WorkerJobFilter{Key: "nope.00"}, nil},
		{"keep", runtime.WorkerJobFilter{Keep: func(w runtime.WaitRow) bool { return w.InstanceID != instances[0] }, Limit: 1}, instances[1:2]},
	} {
		if got := list(tt.f); !slicesEqual(got, tt.want) {
			t.Errorf("%s: jobs of %v, want %v", tt.name, got, tt.want)
		}
	}
	if n, err := c.rt.CountWorkerJobs(ctx, runtime.WorkerJobFilter{Offset: 3, Limit: 1,
		Keep: func(w runtime.WaitRow) bool { return w.InstanceID != instances[0] }}); err != nil || n != 4 {
		t.Errorf("CountWorkerJobs = %d, %v; want 4 (offset and limit aside)", n, err)
	}
}

// slicesEqual reports whether two id lists are equal, nil and empty alike.
func slicesEqual(a, b []runtime.InstanceID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
