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
