package engine

import (
	"fmt"
	"testing"
	"time"
)

// TestConnectorCallsRecorded: the calls a job's act carries become
// connector-call facts of the act's step, before its own facts, with the
// attempt the job's failures give.
func TestConnectorCallsRecorded(t *testing.T) {
	t.Parallel()
	st, _ := mustStart(t, mustProcess(t, "job.bpmn"), nil)
	key := waitAt(t, st, WaitJob, "charge").ID
	call := ConnectorCall{Method: "GET", URL: "https://api.example.com/x?k={{secrets.K}}", Status: 503, StartedAt: t0, Duration: 1500 * time.Millisecond}
	st, fx := run(t, "job.bpmn", st, JobFailed{Key: key, Retries: 1, ErrorMessage: "HTTP 503", Calls: []ConnectorCall{call}}, t0)
	if len(fx.Facts) < 2 || fx.Facts[0].Kind != FactConnectorCall || fx.Facts[1].Kind != FactJobFailed {
		t.Fatalf("facts = %+v", fx.Facts)
	}
	d := fx.Facts[0].Detail
	if fx.Facts[0].NodeID != "charge" || d["jobKey"] != key || d["attempt"] != 1 || d["method"] != "GET" || d["url"] != call.URL ||
		d["status"] != 503 || d["durationMs"] != int64(1500) || d["startedAt"] != t0.UTC().Format(time.RFC3339Nano) || d["error"] != nil {
		t.Fatalf("detail = %v", d)
	}
	noAnswer := ConnectorCall{Method: "POST", URL: "https://api.example.com/y", Error: "timed out", Duration: time.Second}
	_, fx = run(t, "job.bpmn", st, JobCompleted{Key: key, Calls: []ConnectorCall{noAnswer}}, t0.Add(time.Minute))
	d = fx.Facts[0].Detail
	if fx.Facts[0].Kind != FactConnectorCall || fmt.Sprint(d["attempt"]) != "2" || d["status"] != nil || d["error"] != "timed out" || d["startedAt"] != nil {
		t.Fatalf("facts = %+v", fx.Facts)
	}
	_, fx = run(t, "job.bpmn", st, JobFailed{Key: key, Retries: 0}, t0)
	for _, f := range fx.Facts {
		if f.Kind == FactConnectorCall {
			t.Fatalf("a failure without calls recorded one: %+v", f)
		}
	}
}
