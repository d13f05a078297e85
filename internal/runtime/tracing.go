package runtime

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/telemetry"
)

// Tracing of steps and jobs (docs/telemetry.md). With Options.Tracer nil
// every hook here returns at once: the step path pays a nil check.

// jobSpanEnd is a job span a step ends once it committed: the job's
// stored span context and what ended it.
type jobSpanEnd struct {
	stored string
	end    telemetry.JobEnd
}

// endStep ends the span of a step (runStep) and, when the step committed,
// the spans of the jobs it completed, failed or withdrew.
func (r *Runtime) endStep(ctx context.Context, span telemetry.Span, out stepped, err error) {
	if span == nil {
		return
	}
	var o telemetry.StepOutcome
	if err == nil && out.w != nil && len(out.w.recs) > 0 {
		rec := &out.w.recs[0]
		o.ProcessKey, o.ProcessVersion = rec.Instance.ProcessKey, rec.Instance.ProcessVersion
		for i := range rec.Facts { // the first element the step's history names
			if o.ElementID = rec.Facts[i].NodeID; o.ElementID != "" {
				break
			}
		}
		now := time.Now() // spans are in wall-clock time, whatever the engine's clock (--clock manual)
		for _, j := range out.w.jobSpans {
			r.tracer.EndJob(ctx, j.stored, j.end, now)
		}
	}
	telemetry.EndStep(span, o, err)
}

// traceJobs gives the jobs a step's record rec creates (or re-arms after a
// failure) a fresh span context, and notes on w the stored job spans the
// step ends: the job it completes or throws an error at, the job whose
// attempt it fails, the jobs it withdraws. Only with tracing on.
func (r *Runtime) traceJobs(ctx context.Context, spec stepSpec, w *work, rec *StepRecord) error {
	if r.tracer == nil {
		return nil
	}
	now := time.Now() // wall-clock, as the SDK times the other spans
	var old map[string]WaitRow
	if !spec.creates() {
		var err error
		if old, err = r.tracedWaits(ctx, spec.id, rec); err != nil {
			return err
		}
	}
	key, outcome := actedJob(spec.ev)
	for _, id := range rec.RemovedWaits {
		row, ok := old[id]
		if !ok {
			continue
		}
		o := telemetry.OutcomeCancelled
		if id == key {
			o = outcome
		}
		w.jobSpans = append(w.jobSpans, jobSpanEnd{row.TraceContext, jobEnd(row, o)})
	}
	for i := range rec.Waits {
		wr := &rec.Waits[i]
		if wr.Kind != WaitJob {
			continue
		}
		if row, ok := old[wr.ID]; ok {
			if wr.ID != key || outcome != telemetry.OutcomeFailed {
				continue // rewritten, not a new attempt: the stored context stays (store.WaitRow.TraceContext)
			}
			end := jobEnd(row, telemetry.OutcomeFailed)
			end.Retries, end.Message = wr.Retries, wr.ErrorMessage
			w.jobSpans = append(w.jobSpans, jobSpanEnd{row.TraceContext, end})
		}
		wr.TraceContext = r.tracer.NewJob(ctx, now)
	}
	return nil
}

// tracedWaitsByID is how many waits a step may touch for tracedWaits to
// read them one by one; a step touching more reads the instance's waits
// once.
const tracedWaitsByID = 32

// tracedWaits returns the stored jobs with a span context among the waits
// rec removes or writes, by id: read one by one, so a step costs what it
// changes, or all at once when it changes many.
func (r *Runtime) tracedWaits(ctx context.Context, id InstanceID, rec *StepRecord) (map[string]WaitRow, error) {
	ids := slices.Clone(rec.RemovedWaits)
	for i := range rec.Waits {
		if rec.Waits[i].Kind == WaitJob {
			ids = append(ids, rec.Waits[i].ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var rows []WaitRow
	if len(ids) > tracedWaitsByID {
		var err error
		if rows, err = r.store.InstanceWaits(ctx, id); err != nil {
			return nil, err
		}
	} else {
		for _, wid := range ids {
			row, err := r.store.Wait(ctx, wid)
			if errors.Is(err, ErrNotFound) {
				continue // a new job
			}
			if err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
	}
	var old map[string]WaitRow
	for _, row := range rows {
		if row.Kind == WaitJob && row.TraceContext != "" && row.InstanceID == id {
			if old == nil {
				old = map[string]WaitRow{}
			}
			old[row.ID] = row
		}
	}
	return old, nil
}

// traceChildJobs gives the jobs a launched child's first step creates
// their span contexts.
func (r *Runtime) traceChildJobs(ctx context.Context, rec *StepRecord) {
	if r.tracer == nil {
		return
	}
	now := time.Now()
	for i := range rec.Waits {
		if rec.Waits[i].Kind == WaitJob {
			rec.Waits[i].TraceContext = r.tracer.NewJob(ctx, now)
		}
	}
}

// actedJob returns the job an event acts on and the outcome it gives the
// job's span; "" for an event on no job.
func actedJob(ev engine.Event) (key, outcome string) {
	switch e := ev.(type) {
	case engine.JobCompleted:
		return e.Key, telemetry.OutcomeCompleted
	case engine.JobFailed:
		return e.Key, telemetry.OutcomeFailed
	case engine.JobErrorThrown:
		return e.Key, telemetry.OutcomeError
	}
	return "", ""
}

func jobEnd(row WaitRow, outcome string) telemetry.JobEnd {
	return telemetry.JobEnd{ID: row.ID, Type: row.Name, Retries: row.Retries, Outcome: outcome, Message: row.ErrorMessage}
}

// withTraceparent adds the traceparent of a job's stored span context to
// its custom headers, for the worker to continue the trace; headers as
// they are when the job has none (tracing was off as it was created).
func withTraceparent(headers map[string]string, stored string) map[string]string {
	tp := telemetry.Traceparent(stored)
	if tp == "" {
		return headers
	}
	if headers == nil {
		headers = make(map[string]string, 1)
	}
	headers[telemetry.HeaderTraceparent] = tp
	return headers
}
