package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/scope"
)

// Limits of the job-worker protocol.
const (
	MaxJobsPerActivation = 1000
	MaxLockDuration      = 24 * time.Hour
	MaxRequestTimeout    = 5 * time.Minute
)

// ActivateJobs locks up to req.MaxJobs activatable jobs of req.Type for
// req.Worker and returns them with the variables visible from each task.
// With RequestTimeout > 0 it waits until a job becomes activatable (a new
// job, a retry backoff or a lock running out) or the timeout passes, and
// then returns what it has (possibly nothing). A lock that expires makes the
// job activatable again: delivery is at least once.
func (r *Runtime) ActivateJobs(ctx context.Context, req ActivateRequest) ([]JobView, error) {
	switch {
	case req.Type == "":
		return nil, &Error{Code: EINVALID, Message: "type is required", Field: "type"}
	case req.Worker == "":
		return nil, &Error{Code: EINVALID, Message: "worker is required", Field: "worker"}
	case req.MaxJobs < 1 || req.MaxJobs > MaxJobsPerActivation:
		return nil, &Error{Code: EINVALID, Message: fmt.Sprintf("maxJobs must be between 1 and %d", MaxJobsPerActivation), Field: "maxJobs"}
	case req.LockDuration <= 0 || req.LockDuration > MaxLockDuration:
		return nil, &Error{Code: EINVALID, Message: "lockDurationMs must be positive and at most one day", Field: "lockDurationMs"}
	case req.RequestTimeout < 0 || req.RequestTimeout > MaxRequestTimeout:
		return nil, &Error{Code: EINVALID, Message: "requestTimeoutMs must be between 0 and 5 minutes", Field: "requestTimeoutMs"}
	}
	var deadline <-chan time.Time
	if req.RequestTimeout > 0 {
		t := time.NewTimer(req.RequestTimeout)
		defer t.Stop()
		deadline = t.C
	}
	for {
		jobs, again, err := r.activateOnce(ctx, req, deadline)
		if !again {
			return jobs, err
		}
	}
}

// activateOnce looks for activatable jobs once and, when there are none
// and the call long-polls (deadline non-nil), waits until one may have
// become activatable (again) or the poll is over.
func (r *Runtime) activateOnce(ctx context.Context, req ActivateRequest, deadline <-chan time.Time) (jobs []JobView, again bool, err error) {
	ready, release := r.jobReady.wait(req.Type) // before looking, so no notify is missed
	consumed := false                           // true once woken with nothing found: the loop looks again
	defer func() { release(consumed) }()
	now := r.now().UTC()
	rows, err := r.store.ActivateJobs(ctx, req.Type, req.Worker, req.MaxJobs, now, now.Add(req.LockDuration))
	if err != nil {
		return nil, false, fmt.Errorf("runtime: activate %s jobs: %w", req.Type, err)
	}
	if len(rows) > 0 {
		r.metrics.jobsActivated.Add(int64(len(rows)))
		jobs, err := r.jobViews(ctx, rows)
		return jobs, false, err
	}
	if deadline == nil {
		return []JobView{}, false, nil
	}
	var later <-chan time.Time
	if at, ok, err := r.store.NextJobAvailable(ctx, req.Type, now); err != nil {
		return nil, false, fmt.Errorf("runtime: next %s job: %w", req.Type, err)
	} else if ok {
		t := time.NewTimer(at.Sub(now))
		defer t.Stop()
		later = t.C
	}
	select {
	case <-ready:
		consumed = true
		return nil, true, nil
	case <-later:
		return nil, true, nil
	case <-deadline:
	case <-r.draining:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	return []JobView{}, false, nil
}

// jobViews reads the variables each job's task sees. It reads each
// instance's state under its lock (from the cache when it is hot), so a job
// of a large instance costs its scope chain, not the instance.
func (r *Runtime) jobViews(ctx context.Context, rows []WaitRow) ([]JobView, error) {
	views := make([]JobView, 0, len(rows))
	for _, row := range rows {
		var vars map[string]any
		err := r.withState(ctx, row.InstanceID, func(_ InstanceRow, st *engine.State) error {
			vars = scope.CloneVars(st.Scopes.Visible(scope.ID(row.ScopeID)))
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("runtime: instance of job %s: %w", row.ID, err)
		}
		views = append(views, JobView{Key: row.ID, Type: row.Name, InstanceID: row.InstanceID, NodeID: row.NodeID,
			Retries: row.Retries, Variables: vars, Deadline: row.LockExpiresAt})
	}
	return views, nil
}

// job returns the row of an open job; ENOTFOUND for an unknown, completed or withdrawn key.
func (r *Runtime) job(ctx context.Context, key string) (WaitRow, error) {
	row, err := r.store.Wait(ctx, key)
	if err != nil || row.Kind != WaitJob {
		if err == nil || ErrorCode(err) == ENOTFOUND {
			return WaitRow{}, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("job %s not found: it was completed, withdrawn or never existed", key), Err: err}
		}
		return WaitRow{}, err
	}
	return row, nil
}

// CompleteJob completes a job: its variables merge into the instance and
// the instance continues, in one step. A key that is no longer open is
// ENOTFOUND, so a job is never continued twice.
func (r *Runtime) CompleteJob(ctx context.Context, key string, vars map[string]any) error {
	row, err := r.job(ctx, key)
	if err != nil {
		return err
	}
	_, err = r.step(ctx, row.InstanceID, engine.JobCompleted{Key: key, Variables: vars}, nil)
	return err
}

// FailJob records a failed attempt. Without req.Retries the job has one
// retry less; at 0 retries an incident opens and the instance shows failed.
func (r *Runtime) FailJob(ctx context.Context, key string, req FailRequest) error {
	if req.RetryBackoff < 0 {
		return &Error{Code: EINVALID, Message: "retryBackoffMs must not be negative", Field: "retryBackoffMs"}
	}
	row, err := r.job(ctx, key)
	if err != nil {
		return err
	}
	ev := engine.JobFailed{Key: key, Decrement: true, Backoff: req.RetryBackoff, Jitter: rand.Float64(), ErrorMessage: req.ErrorMessage}
	if req.Retries != nil {
		if *req.Retries < 0 {
			return &Error{Code: EINVALID, Message: "retries must not be negative", Field: "retries"}
		}
		ev.Retries, ev.Decrement = *req.Retries, false
	}
	_, err = r.step(ctx, row.InstanceID, ev, nil)
	return err
}

// ThrowJobError throws a BPMN error with code at the job's task; an error
// boundary event (or an enclosing one) catches it, otherwise an incident
// names the code.
func (r *Runtime) ThrowJobError(ctx context.Context, key, code, message string, vars map[string]any) error {
	if code == "" {
		return &Error{Code: EINVALID, Message: "errorCode is required", Field: "errorCode"}
	}
	row, err := r.job(ctx, key)
	if err != nil {
		return err
	}
	_, err = r.step(ctx, row.InstanceID, engine.JobErrorThrown{Key: key, Code: code, ErrorMessage: message, Variables: vars}, nil)
	return err
}

// ExtendJobLock extends the lock of an activated job by d from now.
// ENOTFOUND for an unknown key, ECONFLICT if the job is not locked.
func (r *Runtime) ExtendJobLock(ctx context.Context, key string, d time.Duration) error {
	if d <= 0 || d > MaxLockDuration {
		return &Error{Code: EINVALID, Message: "lockDurationMs must be positive and at most one day", Field: "lockDurationMs"}
	}
	now := r.now().UTC()
	if err := r.store.ExtendJobLock(ctx, key, now, now.Add(d)); err != nil {
		switch ErrorCode(err) {
		case ENOTFOUND:
			return &Error{Code: ENOTFOUND, Message: fmt.Sprintf("job %s not found", key), Err: err}
		case ECONFLICT:
			return &Error{Code: ECONFLICT, Message: fmt.Sprintf("job %s is not locked (never activated, or its lock expired)", key), Err: err}
		}
		return err
	}
	return nil
}
