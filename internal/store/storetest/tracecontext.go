package storetest

import (
	"context"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

// testJobTraceContext stores a job's span context (WaitRow.TraceContext)
// with the job: it reads back, activation returns it, a rewrite of the
// job without one keeps it, a rewrite with another replaces it.
func testJobTraceContext(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	const first = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01;00f067aa0ba902b7;1741964966535897932"
	const second = "00-0af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01;b7ad6b7169203331;1741964999000000000"
	job := Job("I-w000001", "pay", 1)
	job.TraceContext = first
	s := CreateWithWaits(t, db, "I", job, Job("I-w000002", "ship", 2))
	if got := MustWait(t, db, job.ID); got.TraceContext != first {
		t.Fatalf("trace context = %q, want %q", got.TraceContext, first)
	}
	if got := MustWait(t, db, "I-w000002"); got.TraceContext != "" {
		t.Fatalf("trace context of a job without one = %q", got.TraceContext)
	}
	rows, err := db.ActivateJobs(ctx, "pay", Sec(10), store.JobLock{Worker: "w", Until: Sec(100), TokenHashes: [][]byte{make([]byte, 32)}})
	if err != nil || len(rows) != 1 || rows[0].TraceContext != first {
		t.Fatalf("activated %+v, %v; want the job with its trace context", rows, err)
	}
	for _, tt := range []struct{ write, want string }{{"", first}, {second, second}} {
		next := NextStep(s, store.StatusRunning)
		rewritten := job
		rewritten.Retries--
		rewritten.TraceContext = tt.write
		next.Waits = []store.WaitRow{rewritten}
		MustCommit(t, db, next)
		if got := MustWait(t, db, job.ID); got.TraceContext != tt.want {
			t.Errorf("after a rewrite with %q: trace context = %q, want %q", tt.write, got.TraceContext, tt.want)
		}
		s = next
	}
}
