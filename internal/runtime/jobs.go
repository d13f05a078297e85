package runtime

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
// req.Worker and req.User and returns them with the variables visible from
// each task, each with its public key and a fresh lock token that complete,
// fail, error and extend need.
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
	secret, err := r.jobKeySecret(ctx)
	if err != nil {
		return nil, false, err
	}
	// One token per job the activation may lock, minted before the store
	// picks them, so the picking and the locking stay one statement.
	tokens, hashes, err := r.mintLockTokens(req.MaxJobs)
	if err != nil {
		return nil, false, err
	}
	now := r.now().UTC()
	lock := JobLock{Worker: req.Worker, User: req.User, Until: now.Add(req.LockDuration), TokenHashes: hashes}
	rows, err := r.store.ActivateJobs(ctx, req.Type, now, lock)
	if err != nil {
		return nil, false, fmt.Errorf("runtime: activate %s jobs: %w", req.Type, err)
	}
	if len(rows) > 0 {
		r.metrics.activated(req.Type, len(rows))
		r.jobHomes.remember(rows)
		jobs, err := r.jobViews(ctx, rows, tokens[:len(rows)], secret, req.FetchVariables)
		return jobs, false, err
	}
	if deadline == nil {
		return []JobView{}, false, nil
	}
	woken, again, err := r.awaitJobs(ctx, []string{req.Type}, []<-chan struct{}{ready}, now, deadline)
	consumed = woken == 0
	switch {
	case again:
		return nil, true, nil
	case err != nil:
		return nil, false, err
	}
	return []JobView{}, false, nil
}

// jobViews reads the variables each job's task sees (only those named in
// fetch, when it is not nil) and gives the i-th job its public key and
// tokens[i]. It reads each instance's state under its lock (from the cache
// when it is hot), so a job of a large instance costs its scope chain, not
// the instance.
func (r *Runtime) jobViews(ctx context.Context, rows []WaitRow, tokens []string, secret []byte, fetch []string) ([]JobView, error) {
	views := make([]JobView, 0, len(rows))
	for i, row := range rows {
		var vars map[string]any
		var headers map[string]string
		err := r.withState(ctx, row.InstanceID, func(inst InstanceRow, st *engine.State) error {
			w := st.Wait(row.ID)
			if engine.IsRouterJob(w) {
				// An ad-hoc region's router job: its variables are the
				// router's snapshot (docs/scopes.md#ad-hoc-sub-processes), read now.
				proc, _, err := r.process(ctx, inst.ProcessKey, inst.ProcessVersion)
				if err != nil {
					return err
				}
				if snap, ok := engine.RouterJobVariables(proc, st, w); ok {
					vars = pickVars(snap, fetch)
					return nil
				}
			}
			vars = scope.CloneVars(visibleVars(st.Scopes, scope.ID(row.ScopeID), fetch))
			if w != nil {
				headers = maps.Clone(w.CustomHeaders)
			}
			headers = withTraceparent(headers, row.TraceContext)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("runtime: instance of job %s: %w", row.ID, err)
		}
		views = append(views, JobView{Key: row.ID + "." + jobMAC(secret, row.ID), LockToken: tokens[i], Type: row.Name,
			InstanceID: row.InstanceID, NodeID: row.NodeID, Retries: row.Retries, Variables: vars, CustomHeaders: headers,
			Deadline: row.LockExpiresAt})
	}
	return views, nil
}

// visibleVars returns the variables visible from scope id, only those
// named in fetch when it is not nil (without copying the others).
func visibleVars(t *scope.Tree, id scope.ID, fetch []string) map[string]any {
	if fetch == nil {
		return t.Visible(id)
	}
	out := make(map[string]any, len(fetch))
	for _, name := range fetch {
		if v, ok := t.Lookup(id, name); ok {
			out[name] = v
		}
	}
	return out
}

// pickVars returns the members of vars named in fetch (vars itself when
// fetch is nil).
func pickVars(vars map[string]any, fetch []string) map[string]any {
	if fetch == nil {
		return vars
	}
	out := make(map[string]any, len(fetch))
	for _, name := range fetch {
		if v, ok := vars[name]; ok {
			out[name] = v
		}
	}
	return out
}

// job returns the row of an open job by its wait id; ENOTFOUND for an
// unknown, completed or withdrawn job.
func (r *Runtime) job(ctx context.Context, id string) (WaitRow, error) {
	row, err := r.store.Wait(ctx, id)
	if err != nil || row.Kind != WaitJob {
		if err == nil || ErrorCode(err) == ENOTFOUND {
			return WaitRow{}, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("job %s not found: it was completed, withdrawn or never existed", id), Err: err}
		}
		return WaitRow{}, err
	}
	return row, nil
}

// JobRef is a public job key resolved once (ResolveJob): the job's wait,
// its instance, its type (the key a job act is authorized on) and its
// process. A job act given a JobRef uses it instead of verifying the key
// and reading the job again.
type JobRef struct {
	// Key is the public key as presented.
	Key        string
	WaitID     string
	InstanceID InstanceID
	// Type is the job type.
	Type       string
	ProcessKey string
	// row is the job as ResolveJob read it; nil for a reference only its
	// Key names (JobRef{Key: k}), which the act then verifies itself.
	// Only this field is trusted: the exported ones are for the caller.
	row *WaitRow
}

// ResolveJob verifies the public key of an open job and reads it, once:
// ENOTFOUND for a key that does not verify or names no open job.
func (r *Runtime) ResolveJob(ctx context.Context, key string) (JobRef, error) {
	id, err := r.jobWaitID(ctx, key)
	if err != nil {
		return JobRef{}, err
	}
	row, err := r.job(ctx, id)
	if err != nil {
		return JobRef{}, err
	}
	return JobRef{Key: key, WaitID: row.ID, InstanceID: row.InstanceID, Type: row.Name, ProcessKey: row.ProcessKey, row: &row}, nil
}

// heldJob returns the open job with public key key, provided holder holds
// its lock, and the guard a step acting on it commits under (heldRef).
// ENOTFOUND for a key that does not verify.
func (r *Runtime) heldJob(ctx context.Context, key string, holder JobHolder) (WaitRow, *LockGuard, error) {
	id, err := r.jobWaitID(ctx, key)
	if err != nil {
		return WaitRow{}, nil, err
	}
	return r.heldRef(ctx, id, nil, holder)
}

// heldResolved is heldJob for the job ref names: the row ResolveJob read,
// else the key verified and the job read now.
func (r *Runtime) heldResolved(ctx context.Context, ref JobRef, holder JobHolder) (WaitRow, *LockGuard, error) {
	if ref.row != nil {
		return r.heldRef(ctx, ref.row.ID, ref.row, holder)
	}
	return r.heldJob(ctx, ref.Key, holder)
}

// heldRef returns the open job with wait id id, provided holder holds its
// lock, and the guard a step acting on it commits under. The job is known
// when ResolveJob read it, else it is read now. ENOTFOUND for an id that
// names no open job, EINVALID for a token that is no lock token, and
// checkHolder's refusals.
func (r *Runtime) heldRef(ctx context.Context, id string, known *WaitRow, holder JobHolder) (WaitRow, *LockGuard, error) {
	if holder.Token == "" {
		return WaitRow{}, nil, &Error{Code: EINVALID, Message: "lockToken is required: present the lock token the activation answered", Field: "lockToken"}
	}
	hash, err := lockTokenHash(holder.Token)
	if err != nil {
		return WaitRow{}, nil, err
	}
	row := known
	if row == nil {
		read, err := r.job(ctx, id)
		if err != nil {
			return WaitRow{}, nil, err
		}
		row = &read
	}
	if err := checkHolder(*row, holder, hash); err != nil {
		return WaitRow{}, nil, err
	}
	return *row, &LockGuard{WaitID: row.ID, TokenHash: hash}, nil
}

// actOnHeldJob steps the instance of the job ref names, which holder must
// hold, with the event ev(wait id), under the job's lock guard. A job
// ResolveJob read is checked against that row (heldRef) and stepped.
// Otherwise its key is verified, once: a job activated here steps its
// instance at once, the guard checking token and user in the step's
// transaction; any refusal then, and a job not activated here, go through
// heldRef, which reads the job's row and says precisely why (or steps, if
// the first refusal was a race that has passed). Either way nothing
// changes unless holder holds the lock.
func (r *Runtime) actOnHeldJob(ctx context.Context, ref JobRef, holder JobHolder, ev func(waitID string) engine.Event) error {
	if ref.row != nil {
		return r.actOnKnownJob(ctx, ref.row.ID, ref.row, holder, ev, nil)
	}
	id, err := r.jobWaitID(ctx, ref.Key)
	if err != nil {
		return err
	}
	var refused error // the fast path's refusal
	if home, ok := r.jobHomes.home(id); ok && holder.Token != "" {
		hash, err := lockTokenHash(holder.Token)
		if err != nil {
			return err
		}
		guard := &LockGuard{WaitID: id, TokenHash: hash, User: holder.User, CheckUser: true}
		_, err = r.stepGuarded(ctx, home, ev(id), nil, guard)
		if err == nil {
			r.jobHomes.forget(id)
			return nil
		}
		if !errors.Is(err, ErrLockLost) && ErrorCode(err) != ENOTFOUND {
			return err
		}
		refused = err // the reading path explains it
	}
	return r.actOnKnownJob(ctx, id, nil, holder, ev, refused)
}

// actOnKnownJob is the reading path of actOnHeldJob for the job with wait
// id id (its row known, or read now): check the holder, step under the
// guard. refused is the fast path's refusal, if there was one.
func (r *Runtime) actOnKnownJob(ctx context.Context, id string, known *WaitRow, holder JobHolder, ev func(waitID string) engine.Event, refused error) error {
	row, guard, err := r.heldRef(ctx, id, known, holder)
	if err != nil {
		// A lock lost at the commit stays visible as ErrLockLost.
		if e, ok := err.(*Error); ok && e.Err == nil && errors.Is(refused, ErrLockLost) {
			e.Err = refused
		}
		return err
	}
	if err := r.actOnJob(ctx, row, guard, ev(row.ID)); err != nil {
		return err
	}
	r.jobHomes.forget(id)
	return nil
}

// actOnJob steps the instance of a held job with ev under the job's lock
// guard: if the job was activated again between the check and the commit,
// nothing changes and the answer is ECONFLICT.
func (r *Runtime) actOnJob(ctx context.Context, row WaitRow, guard *LockGuard, ev engine.Event) error {
	return r.actOnJobWith(ctx, row, guard, ev, nil)
}

// actOnJobWith is actOnJob with extra adding to the step's record (nil:
// nothing), committed in the step's transaction.
func (r *Runtime) actOnJobWith(ctx context.Context, row WaitRow, guard *LockGuard, ev engine.Event, extra func(*StepRecord)) error {
	_, err := r.runStep(ctx, stepSpec{id: row.InstanceID, ev: ev, guard: guard, extra: extra})
	if errors.Is(err, ErrLockLost) {
		return &Error{Code: ECONFLICT, Message: fmt.Sprintf("job %s was activated again meanwhile: its lock expired and another activation holds it now", row.ID), Err: err}
	}
	return err
}

// CompleteJob completes the job with public key key for holder: its
// variables merge into the instance and the instance continues, in one
// step. A key that is no longer open is ENOTFOUND, so a job is never
// continued twice; a holder that does not hold the job's lock is refused
// (heldJob).
func (r *Runtime) CompleteJob(ctx context.Context, key string, holder JobHolder, vars map[string]any) error {
	return r.CompleteResolvedJob(ctx, JobRef{Key: key}, holder, vars)
}

// CompleteResolvedJob is CompleteJob for a job ref names: one ResolveJob
// returned (its key is not verified nor the job read again), or
// JobRef{Key: key}, which is CompleteJob.
func (r *Runtime) CompleteResolvedJob(ctx context.Context, ref JobRef, holder JobHolder, vars map[string]any) error {
	return r.CompleteJobWithCalls(ctx, ref, holder, vars, nil)
}

// CompleteJobWithCalls is CompleteResolvedJob for a built-in connector:
// the history records calls, the calls the attempt made, in the
// completion's step.
func (r *Runtime) CompleteJobWithCalls(ctx context.Context, ref JobRef, holder JobHolder, vars map[string]any, calls []ConnectorCall) error {
	return r.actOnHeldJob(ctx, ref, holder, func(id string) engine.Event {
		return engine.JobCompleted{Key: id, Variables: vars, Calls: calls}
	})
}

// JobResult is the result the job of a user task listener completes
// with (Camunda 8.8's job result for user task listeners): Denied refuses
// the task change the listener ran for, Corrections change the task as
// the change applies (engine/tasklisteners.go).
type JobResult = engine.JobResult

// TaskCorrections are the task fields a task listener's result corrects;
// a nil field keeps the task's value.
type TaskCorrections = engine.TaskCorrections

// CompleteResolvedJobWithResult completes the job of a user task
// listener for holder with its result, in one step: the task change it
// ran for is denied, or the next listener's job is created, or the change
// applies. A job that is no task listener's is ECONFLICT; the rest is
// CompleteResolvedJob's.
func (r *Runtime) CompleteResolvedJobWithResult(ctx context.Context, ref JobRef, holder JobHolder, res JobResult) error {
	return r.actOnHeldJob(ctx, ref, holder, func(id string) engine.Event {
		return engine.JobCompleted{Key: id, Result: &res}
	})
}

// RouterAnswer is a router job's answer (docs/scopes.md#ad-hoc-sub-processes, gobpm:router="job"):
// the activities to start, each with the variables that become its local
// variables (empty: start nothing), and variables written from the
// region's scope.
type RouterAnswer struct {
	Activate  []Activation
	Variables map[string]any
}

// Activation is one activity to start in an ad-hoc region, with the
// variables that become local variables of its scope.
type Activation struct {
	ActivityID string
	Variables  map[string]any
}

// CompleteRouterJob answers the router job with public key key for holder
// (the worker's completion with activate): in one step the job is
// consumed and the region starts (automatic) or offers (manual) the
// activities. An answer the region cannot take (an id that is no inner
// activity, two live activities in a sequential region) is an incident
// of the region, not an error of the call. A job that is no router job is
// ECONFLICT, and so is a router job completed without an answer
// (CompleteJob); the rest is CompleteJob's.
func (r *Runtime) CompleteRouterJob(ctx context.Context, key string, holder JobHolder, a RouterAnswer) error {
	return r.CompleteResolvedRouterJob(ctx, JobRef{Key: key}, holder, a)
}

// CompleteResolvedRouterJob is CompleteRouterJob for a job ref names (see
// CompleteResolvedJob).
func (r *Runtime) CompleteResolvedRouterJob(ctx context.Context, ref JobRef, holder JobHolder, a RouterAnswer) error {
	acts, err := engineActivations(a.Activate, "activate")
	if err != nil {
		return err
	}
	row, guard, err := r.heldResolved(ctx, ref, holder)
	if err != nil {
		return err
	}
	return r.actOnJob(ctx, row, guard, engine.JobCompleted{Key: row.ID, Variables: a.Variables, Answered: true, Activate: acts, Worker: row.LockOwner})
}

// engineActivations checks and converts activations; field names the
// request member for errors.
func engineActivations(acts []Activation, field string) ([]engine.Activation, error) {
	out := make([]engine.Activation, len(acts))
	for i, a := range acts {
		if a.ActivityID == "" {
			return nil, &Error{Code: EINVALID, Message: fmt.Sprintf("%s[%d].activityId is required", field, i), Field: fmt.Sprintf("%s[%d].activityId", field, i)}
		}
		out[i] = engine.Activation{ActivityID: a.ActivityID, Variables: a.Variables}
	}
	return out, nil
}

// FailJob records a failed attempt of the job holder holds. Without
// req.Retries the job has one retry less; at 0 retries an incident opens
// and the instance shows failed. Either way the lock is released.
func (r *Runtime) FailJob(ctx context.Context, key string, holder JobHolder, req FailRequest) error {
	return r.FailResolvedJob(ctx, JobRef{Key: key}, holder, req)
}

// FailResolvedJob is FailJob for a job ref names (see CompleteResolvedJob).
func (r *Runtime) FailResolvedJob(ctx context.Context, ref JobRef, holder JobHolder, req FailRequest) error {
	if req.RetryBackoff < 0 {
		return &Error{Code: EINVALID, Message: "retryBackoffMs must not be negative", Field: "retryBackoffMs"}
	}
	ev := engine.JobFailed{Decrement: true, Backoff: req.RetryBackoff, Jitter: rand.Float64(), ErrorMessage: req.ErrorMessage, Variables: req.Variables}
	ev.Calls = req.Calls
	if req.Retries != nil {
		if *req.Retries < 0 {
			return &Error{Code: EINVALID, Message: "retries must not be negative", Field: "retries"}
		}
		ev.Retries, ev.Decrement = *req.Retries, false
	}
	return r.actOnHeldJob(ctx, ref, holder, func(id string) engine.Event {
		ev.Key = id
		return ev
	})
}

// ThrowJobError throws a BPMN error with code at the task of the job
// holder holds; an error boundary event (or an enclosing one) catches it,
// otherwise an incident names the code.
func (r *Runtime) ThrowJobError(ctx context.Context, key string, holder JobHolder, code, message string, vars map[string]any) error {
	return r.ThrowResolvedJobError(ctx, JobRef{Key: key}, holder, code, message, vars)
}

// ThrowResolvedJobError is ThrowJobError for a job ref names (see
// CompleteResolvedJob).
func (r *Runtime) ThrowResolvedJobError(ctx context.Context, ref JobRef, holder JobHolder, code, message string, vars map[string]any) error {
	return r.ThrowJobErrorWithCalls(ctx, ref, holder, code, message, vars, nil)
}

// ThrowJobErrorWithCalls is ThrowResolvedJobError for a built-in
// connector: the history records calls, the calls the attempt made, in
// the throw's step.
func (r *Runtime) ThrowJobErrorWithCalls(ctx context.Context, ref JobRef, holder JobHolder, code, message string, vars map[string]any, calls []ConnectorCall) error {
	if code == "" {
		return &Error{Code: EINVALID, Message: "errorCode is required", Field: "errorCode"}
	}
	return r.actOnHeldJob(ctx, ref, holder, func(id string) engine.Event {
		return engine.JobErrorThrown{Key: id, Code: code, ErrorMessage: message, Variables: vars, Calls: calls}
	})
}

// ExtendJobLock extends the lock holder holds on a job by d from now.
// ENOTFOUND for an unknown key; heldJob's refusals; ECONFLICT for a lock
// that has expired (activate the job again).
func (r *Runtime) ExtendJobLock(ctx context.Context, key string, holder JobHolder, d time.Duration) error {
	return r.ExtendResolvedJobLock(ctx, JobRef{Key: key}, holder, d)
}

// ExtendResolvedJobLock is ExtendJobLock for a job ref names (see
// CompleteResolvedJob).
func (r *Runtime) ExtendResolvedJobLock(ctx context.Context, ref JobRef, holder JobHolder, d time.Duration) error {
	if d <= 0 || d > MaxLockDuration {
		return &Error{Code: EINVALID, Message: "lockDurationMs must be positive and at most one day", Field: "lockDurationMs"}
	}
	row, guard, err := r.heldResolved(ctx, ref, holder)
	if err != nil {
		return err
	}
	now := r.now().UTC()
	if !row.LockExpiresAt.After(now) {
		return &Error{Code: ECONFLICT, Message: fmt.Sprintf("the lock of job %s expired at %s: activate the job again", row.ID, row.LockExpiresAt.Format(time.RFC3339Nano))}
	}
	if err := r.store.ExtendJobLock(ctx, row.ID, guard.TokenHash, now, now.Add(d)); err != nil {
		switch ErrorCode(err) {
		case ENOTFOUND:
			return &Error{Code: ENOTFOUND, Message: fmt.Sprintf("job %s not found: it was completed, withdrawn or never existed", row.ID), Err: err}
		case ECONFLICT:
			return &Error{Code: ECONFLICT, Message: fmt.Sprintf("the lock of job %s expired or the job was activated again meanwhile", row.ID), Err: err}
		}
		return err
	}
	return nil
}
