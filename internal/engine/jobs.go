package engine

import (
	"fmt"
	"maps"
	"math"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

// Default retry schedule of a failed job without an explicit backoff.
const (
	retryBase = time.Second
	retryMax  = 5 * time.Minute
)

// applyRunning completes a job: its variables are delivered to the
// task's scope and the activity is left; a router job takes its answer.
func (e JobCompleted) applyRunning(x *executor) error {
	j, routed, err := x.routerJobOf(e.Key, e.Answered)
	switch {
	case err != nil:
		return err
	case routed:
		return x.routerAnswered(j.w, j.n, j.r, e)
	}
	w, t, err := x.openWait(e.Key, WaitJob)
	if err != nil {
		return err
	}
	if isTaskEvent(w.Listener) {
		return x.taskListenerCompleted(t, w, e)
	}
	if e.Result != nil {
		return fmt.Errorf("engine: complete job %s with a result: only a user task listener's job takes one: %w", w.ID, ErrInvalidTransition)
	}
	x.recordCalls(t, w, e.Calls)
	if w.Listener != "" {
		return x.listenerCompleted(t, w, e.Variables)
	}
	n := x.proc.Node(t.Node)
	x.deliver(t, n, e.Variables)
	if !x.stillActive(t, n) {
		return nil // a condition the variables satisfied interrupted the task
	}
	x.finishActivity(t, w)
	return nil
}

// applyRunning counts a failed attempt on a job; out of retries, it
// opens an incident. A router job's failure is the region's.
func (e JobFailed) applyRunning(x *executor) error {
	j, routed, err := x.routerJobOf(e.Key, false)
	switch {
	case err != nil:
		return err
	case routed:
		x.routerJobFailed(j.w, j.r, e)
		return nil
	}
	w, t, err := x.openWait(e.Key, WaitJob)
	if err != nil {
		return err
	}
	x.recordCalls(t, w, e.Calls)
	if err := x.failureLocals(t, w, e.Variables); err != nil {
		return err
	}
	x.failJob(t, w, e)
	return nil
}

// failureLocals writes the variables of a failure of job w as local
// variables of its task, which track t runs: into the task's io scope,
// opened now when the task runs without one (as for an ad-hoc
// activation's variables), the track and the job moving into it. The io
// scope closes when the task is left (its locals dropped, no outputs
// unless the task maps some), so only the job's later attempts see them.
// Without variables nothing changes.
func (x *executor) failureLocals(t *Track, w *Wait, vars map[string]any) error {
	if len(vars) == 0 {
		return nil
	}
	io := x.ioScope(t)
	if io == nil || io.NodeID != t.Node {
		var err error
		if io, err = x.st.Scopes.Open(t.Scope, t.Node, nil); err != nil {
			return fmt.Errorf("engine: variables of the failure of job %s: %w: %w", w.ID, err, ErrCheckpoint)
		}
		io.Kind = scopeKindIO
		x.moveTrack(t, io.ID)
		x.markTrack(t)
		x.fact(FactScopeOpened, t.Node, io.ID, t.ID, map[string]any{"mappings": true})
		w.ScopeID = io.ID
		x.touch(w.ID)
	}
	x.writeLocals(t, io, sortedKeys(vars), scope.CloneVars(vars))
	return nil
}

// applyRunning sets a job's retries (see JobRetriesSet). A router job's
// retries are the region's: refused.
func (e JobRetriesSet) applyRunning(x *executor) error {
	if e.Retries < 0 {
		return fmt.Errorf("engine: set retries of job %s to %d: %w", e.Key, e.Retries, ErrInvalidTransition)
	}
	if _, routed, err := x.routerJobOf(e.Key, false); err != nil {
		return err
	} else if routed {
		return fmt.Errorf("engine: set retries of router job %s: %w", e.Key, ErrInvalidTransition)
	}
	w, t, err := x.openWait(e.Key, WaitJob)
	if err != nil {
		return err
	}
	var open *Incident
	for _, in := range x.st.Incidents {
		if in.WaitID == w.ID {
			open = in
		}
	}
	switch {
	case e.Retries == 0 && open == nil:
		w.Retries, w.DueAt = 0, time.Time{}
		x.touch(w.ID)
		msg := w.ErrorMessage
		if msg == "" {
			msg = "the job's retries were set to 0"
		}
		x.openIncident(t, w.ID, IncidentJobFailed, msg)
	case e.Retries == 0:
		// Out of retries with its incident open already: nothing changes.
	case open != nil:
		x.by = e.By
		defer func() { x.by = "" }()
		return x.retryIncident(IncidentRetried{IncidentID: open.ID, Retries: e.Retries, By: e.By})
	default:
		w.Retries = e.Retries
		x.touch(w.ID)
	}
	return nil
}

// applyRunning throws a BPMN error a job's worker reported at the
// job's activity. A router job's error is the region's.
func (e JobErrorThrown) applyRunning(x *executor) error {
	j, routed, err := x.routerJobOf(e.Key, false)
	switch {
	case err != nil:
		return err
	case routed:
		x.routerJobError(j.w, j.n, j.r, e)
		return nil
	}
	w, t, err := x.openWait(e.Key, WaitJob)
	if err != nil {
		return err
	}
	if w.Listener != "" {
		// As Camunda 8: a listener's worker reports a failure, never a
		// BPMN error (the element has not started or already completed:
		// nothing could catch it).
		return fmt.Errorf("engine: throw error %q from execution listener job %s: %w", e.Code, w.ID, ErrInvalidTransition)
	}
	x.recordCalls(t, w, e.Calls)
	x.mergeVars(t, e.Variables)
	x.removeWait(w)
	detail := e.ErrorMessage
	if detail == "" {
		detail = "thrown by the worker of job " + w.ID
	}
	x.throwError(t, t.Scope, e.Code, detail, true)
	return nil
}

func (x *executor) createJob(t *Track, n *bpmn.Node) {
	typ := n.Job.Type
	if n.Job.TypeExpr != nil {
		// A job type given as an expression is evaluated in the scope the
		// job is created in (its inputs included), once per job.
		v, err := n.Job.TypeExpr.Eval(x.view(t.Scope))
		if err != nil {
			x.incident(t, IncidentExpression, fmt.Sprintf("job type of %s: %v", n.ID, err))
			return
		}
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" {
			x.incident(t, IncidentExpression, fmt.Sprintf("job type of %s: %s yields %s, not a non-empty string", n.ID, n.Job.TypeExpr.Source(), describeValue(v)))
			return
		}
		typ = s
	}
	w := x.newWait(t, WaitJob, n.ID)
	w.Name = typ
	w.CustomHeaders = maps.Clone(n.Job.Headers)
	w.Retries = n.Job.Retries
	t.State = TrackWaiting
	x.fact(FactJobCreated, n.ID, t.Scope, t.ID, map[string]any{"jobKey": w.ID, "type": w.Name})
	if w.Retries <= 0 {
		x.openIncident(t, w.ID, IncidentJobFailed, "the job was created with no retries")
	}
	x.armBoundaries(t, n)
}

// countFailure records a failed attempt on job w: one failure more, the
// retries left, the error message and the backoff until it may be
// activated again: the worker's, else the model's retry cycle, else
// defaultBackoff.
func (x *executor) countFailure(w *Wait, e JobFailed) {
	w.Failures++
	if e.Decrement {
		w.Retries = max(w.Retries-1, 0)
	} else {
		w.Retries = max(e.Retries, 0)
	}
	w.ErrorMessage = e.ErrorMessage
	switch n := x.proc.Node(w.NodeID); {
	case e.Backoff > 0:
		w.DueAt = x.now.Add(e.Backoff)
	case n != nil && n.Job != nil && n.Job.RetryCycle != nil && w.Listener == "":
		// The model's schedule (camunda:failedJobRetryTimeCycle) when the
		// worker names no backoff of its own; it is the element's job's,
		// not its listeners'.
		w.DueAt = n.Job.RetryCycle.WaitAfter(w.Failures, x.now)
	default:
		w.DueAt = x.now.Add(defaultBackoff(w.Failures, e.Jitter))
	}
	x.touch(w.ID)
}

func (x *executor) failJob(t *Track, w *Wait, e JobFailed) {
	x.countFailure(w, e)
	x.fact(FactJobFailed, w.NodeID, w.ScopeID, t.ID, map[string]any{"jobKey": w.ID, "retries": w.Retries, "errorMessage": e.ErrorMessage})
	if w.Retries == 0 {
		w.DueAt = time.Time{}
		msg := e.ErrorMessage
		if msg == "" {
			msg = "the job failed and has no retries left"
		}
		x.openIncident(t, w.ID, IncidentJobFailed, msg)
	}
}

// defaultBackoff is 1 s doubling per failure up to 5 min, scaled by 1 ± jitter/5.
func defaultBackoff(failures int, jitter float64) time.Duration {
	d := float64(retryBase) * math.Pow(2, float64(max(failures-1, 0)))
	d = min(d, float64(retryMax))
	if jitter >= 0 && jitter < 1 {
		d *= 1 + (jitter*2-1)/5
	}
	return time.Duration(d)
}
