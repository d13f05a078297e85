package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/telemetry"
	"github.com/gobpm/gobpm/internal/testdb"
)

// tracedRuntime opens the store at path with a runtime that traces into
// a fresh in-memory exporter.
func tracedRuntime(t *testing.T, path string) (*runtime.Runtime, *tracetest.InMemoryExporter, func()) {
	t.Helper()
	db, err := testdb.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	exp := tracetest.NewInMemoryExporter()
	tr := telemetry.NewWithProcessor(sdktrace.NewSimpleSpanProcessor(exp))
	rt := runtime.New(db, runtime.Options{Tracer: tr})
	return rt, exp, func() {
		if err := rt.Close(); err != nil {
			t.Error(err)
		}
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	}
}

// spansNamed returns the exported spans called name, oldest first.
func spansNamed(exp *tracetest.InMemoryExporter, name string) tracetest.SpanStubs {
	var out tracetest.SpanStubs
	for _, s := range exp.GetSpans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func spanAttr(s tracetest.SpanStub, key string) attribute.Value {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// TestJobSpanSurvivesRestart: a job created before a restart ends its span
// after it, from the context the store kept: a failed attempt's span is a
// child of the step that created the job, the next attempt's a child of
// the failure's step, and each activation carries its attempt's
// traceparent.
func TestJobSpanSurvivesRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := testdb.DSN(t)
	rt, before, closeFirst := tracedRuntime(t, path)
	mustDeploy(t, rt, fixture(t, "job.bpmn"))
	start(t, rt, "job", nil)
	closeFirst()
	created := spansNamed(before, "step start")
	if len(created) != 1 {
		t.Fatalf("steps before the restart: %v", before.GetSpans())
	}

	rt, after, closeSecond := tracedRuntime(t, path)
	defer closeSecond()
	job := oneJobOf(t, activateAs(t, rt, "charge-card", "w", "", time.Minute))
	tp := job.CustomHeaders[telemetry.HeaderTraceparent]
	if !strings.HasPrefix(tp, "00-"+created[0].SpanContext.TraceID().String()+"-") {
		t.Fatalf("activated job's traceparent %q, want one in the start's trace %s", tp, created[0].SpanContext.TraceID())
	}
	if err := rt.FailJob(ctx, job.Key, held(job), runtime.FailRequest{ErrorMessage: "card reader down"}); err != nil {
		t.Fatal(err)
	}
	failed := spansNamed(after, "job charge-card")
	if len(failed) != 1 {
		t.Fatalf("job spans after the failure: %v", after.GetSpans())
	}
	f := failed[0]
	if f.Parent.SpanID() != created[0].SpanContext.SpanID() || "00-"+f.SpanContext.TraceID().String()+"-"+f.SpanContext.SpanID().String()+"-01" != tp {
		t.Errorf("failed attempt's span %s (parent %s); want the activated %s under the start step %s", f.SpanContext.SpanID(), f.Parent.SpanID(), tp, created[0].SpanContext.SpanID())
	}
	if spanAttr(f, telemetry.AttrJobOutcome).AsString() != telemetry.OutcomeFailed || spanAttr(f, telemetry.AttrJobRetries).AsInt64() != 1 || f.Status.Description != "card reader down" {
		t.Errorf("failed attempt's span: %v, status %v", f.Attributes, f.Status)
	}
	if !f.StartTime.Before(created[0].EndTime) {
		t.Errorf("failed attempt's span starts at %v, after the start step ended (%v)", f.StartTime, created[0].EndTime)
	}

	var again runtime.JobView
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) { // the retry's backoff
		if jobs := activateAs(t, rt, "charge-card", "w", "", time.Minute); len(jobs) == 1 {
			again = jobs[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the failed job never came back")
		}
	}
	tp2 := again.CustomHeaders[telemetry.HeaderTraceparent]
	if tp2 == "" || tp2 == tp {
		t.Errorf("retried job's traceparent %q; want a new one (the first was %q)", tp2, tp)
	}
	if err := rt.CompleteJob(ctx, again.Key, held(again), nil); err != nil {
		t.Fatal(err)
	}
	jobs := spansNamed(after, "job charge-card")
	failStep := spansNamed(after, "step job-failed")
	if len(jobs) != 2 || len(failStep) != 1 {
		t.Fatalf("spans: %v", after.GetSpans())
	}
	// The failure came from no request: its step is a root, and the next
	// attempt's span joins the step's trace.
	if c := jobs[1]; c.Parent.SpanID() != failStep[0].SpanContext.SpanID() || spanAttr(c, telemetry.AttrJobOutcome).AsString() != telemetry.OutcomeCompleted ||
		"00-"+c.SpanContext.TraceID().String()+"-"+c.SpanContext.SpanID().String()+"-01" != tp2 {
		t.Errorf("second attempt's span %s: parent %s (want the failure step %s), %v; activated as %s", c.SpanContext.SpanID(), c.Parent.SpanID(), failStep[0].SpanContext.SpanID(), c.Attributes, tp2)
	}
}

// TestJobSpanEndsOnCancel: cancelling the instance ends its job's span as
// cancelled.
func TestJobSpanEndsOnCancel(t *testing.T) {
	t.Parallel()
	rt, exp, done := tracedRuntime(t, testdb.DSN(t))
	defer done()
	mustDeploy(t, rt, fixture(t, "job.bpmn"))
	inst := start(t, rt, "job", nil)
	if _, err := rt.Cancel(context.Background(), inst.ID); err != nil {
		t.Fatal(err)
	}
	jobs := spansNamed(exp, "job charge-card")
	if len(jobs) != 1 || spanAttr(jobs[0], telemetry.AttrJobOutcome).AsString() != telemetry.OutcomeCancelled {
		t.Fatalf("job spans after a cancel: %v", exp.GetSpans())
	}
	if steps := spansNamed(exp, "step cancel"); len(steps) != 1 || spanAttr(steps[0], telemetry.AttrInstanceID).AsString() != string(inst.ID) {
		t.Errorf("cancel steps: %v", steps)
	}
}

// TestJobSpansEndOnCancelOfMany: a cancel withdrawing more jobs than the
// tracer reads one by one ends every one of their spans as cancelled.
func TestJobSpansEndOnCancelOfMany(t *testing.T) {
	t.Parallel()
	rt, exp, done := tracedRuntime(t, testdb.DSN(t))
	defer done()
	mustDeploy(t, rt, runtime.File{Name: "large.bpmn", Content: []byte(largeModel)})
	inst := start(t, rt, "large", map[string]any{"n": 40})
	if _, err := rt.Cancel(context.Background(), inst.ID); err != nil {
		t.Fatal(err)
	}
	jobs := spansNamed(exp, "job large-work")
	if len(jobs) != 40 {
		t.Fatalf("%d job spans after the cancel, want 40", len(jobs))
	}
	for _, s := range jobs {
		if o := spanAttr(s, telemetry.AttrJobOutcome).AsString(); o != telemetry.OutcomeCancelled {
			t.Fatalf("a job span ended %q, want cancelled", o)
		}
	}
}
