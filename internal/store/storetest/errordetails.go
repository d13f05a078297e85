package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

// testJobErrorDetails stores, reads, replaces and clears the error
// details of a job; details beyond MaxJobErrorDetails are cut at a
// character boundary, and an unknown job or a wait that is not a job is
// ErrNotFound.
func testJobErrorDetails(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	CreateWithWaits(t, db, "I", Job("I-w000001", "pay", 1), Sub("I-w000002", store.WaitMessage, "paid", "", 2))

	if got, err := db.JobErrorDetails(ctx, "I-w000001"); err != nil || got != "" {
		t.Fatalf("details before a failure = %q, %v", got, err)
	}
	trace := "java.lang.IllegalStateException: no funds\n\tat Worker.charge(Worker.java:42)\n"
	if err := db.SetJobErrorDetails(ctx, "I-w000001", trace); err != nil {
		t.Fatal(err)
	}
	if got, err := db.JobErrorDetails(ctx, "I-w000001"); err != nil || got != trace {
		t.Fatalf("details = %q, %v; want %q", got, err, trace)
	}
	long := strings.Repeat("a", store.MaxJobErrorDetails-1) + "é" + "tail"
	if err := db.SetJobErrorDetails(ctx, "I-w000001", long); err != nil {
		t.Fatal(err)
	}
	if got, err := db.JobErrorDetails(ctx, "I-w000001"); err != nil || got != long[:store.MaxJobErrorDetails-1] {
		t.Fatalf("long details: %d bytes, %v; want them cut before the split character, at %d", len(got), err, store.MaxJobErrorDetails-1)
	}
	if err := db.SetJobErrorDetails(ctx, "I-w000001", ""); err != nil {
		t.Fatal(err)
	}
	if got, err := db.JobErrorDetails(ctx, "I-w000001"); err != nil || got != "" {
		t.Fatalf("cleared details = %q, %v", got, err)
	}
	for _, id := range []string{"nope", "I-w000002"} {
		if err := db.SetJobErrorDetails(ctx, id, "x"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("SetJobErrorDetails(%s) = %v, want ErrNotFound", id, err)
		}
		if _, err := db.JobErrorDetails(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("JobErrorDetails(%s) = %v, want ErrNotFound", id, err)
		}
	}
}

// testJobErrorDetailsInStep commits a job's failure with its error
// details in the step (StepRecord.JobErrorDetails): they are there with
// the failure's error message, the next failure's replace them (none
// clears them), and a step that ends the job commits and keeps none.
func testJobErrorDetailsInStep(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	s := CreateWithWaits(t, db, "I", Job("I-w000001", "pay", 1))
	job := s.Waits[0]
	for _, details := range []string{"first trace", "second trace", ""} {
		next := NextStep(s, store.StatusRunning)
		failed := job
		failed.Retries--
		failed.ErrorMessage = "failed: " + details
		next.Waits = []store.WaitRow{failed}
		next.JobErrorDetails = &store.JobErrorDetails{WaitID: job.ID, Details: details}
		MustCommit(t, db, next)
		if got, err := db.JobErrorDetails(ctx, job.ID); err != nil || got != details {
			t.Fatalf("details after the failure's step = %q, %v; want %q", got, err, details)
		}
		if w, err := db.Wait(ctx, job.ID); err != nil || w.ErrorMessage != failed.ErrorMessage {
			t.Fatalf("job after the failure's step = %+v, %v; want error message %q", w, err, failed.ErrorMessage)
		}
		s, job = next, failed
	}
	ended := NextStep(s, store.StatusRunning)
	ended.RemovedWaits = []string{job.ID}
	ended.JobErrorDetails = &store.JobErrorDetails{WaitID: job.ID, Details: "late"}
	MustCommit(t, db, ended)
	if _, err := db.JobErrorDetails(ctx, job.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("details of a job the step ended: %v, want ErrNotFound", err)
	}
}
