package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"time"

	"github.com/gobpm/gobpm/internal/engine"
)

// Worker-held jobs: the job acts of protocols where the worker's name is
// the lock holder (Camunda 7's external tasks, workerId), not a lock token
// the activation hands out. They use the same store rows, events and lock
// guards as the token acts (jobs.go): the guard carries the hash of the
// token the activation stored, so a job activated again between the check
// and the commit is still refused in the step's transaction.

// FetchRequest asks for jobs of several types in one call, one long poll
// serving them all (Camunda 7's fetchAndLock with several topics).
type FetchRequest struct {
	// Worker names the worker; it is the lock holder of the jobs.
	Worker string
	// User is the caller's user id ("" without authentication); only the
	// same user may act on the jobs.
	User string
	// MaxJobs caps the jobs returned over all topics (1..1000).
	MaxJobs int
	// RequestTimeout > 0 long-polls: the call waits up to this long for a
	// job of any topic to become activatable.
	RequestTimeout time.Duration
	// Topics are the job types asked for, in the order they are served.
	Topics []FetchTopic
}

// FetchTopic is one job type of a FetchRequest.
type FetchTopic struct {
	Type         string
	LockDuration time.Duration
	// FetchVariables is ActivateRequest.FetchVariables.
	FetchVariables []string
}

// WorkerJob is a job activated for a worker-held protocol: the job as a
// token activation shows it, without its lock token, plus what the
// protocol answers about its process.
type WorkerJob struct {
	JobView
	ProcessKey     string
	ProcessVersion int
	Worker         string
	ErrorMessage   string
}

// WorkerHolder is who acts on a worker-held job: the worker that fetched
// it and the caller's user id ("" without authentication).
type WorkerHolder struct {
	Worker string
	User   string
	// AnyWorker accepts the job whichever worker name holds its lock, and
	// an empty Worker: Camunda 8's job acts name no worker, so only the
	// activating user binds them (camunda8.go).
	AnyWorker bool
}

// FetchJobs locks up to req.MaxJobs activatable jobs of req.Topics'
// types for req.Worker, topic by topic, each with its topic's lock
// duration. With RequestTimeout > 0 and nothing activatable it waits until
// a job of any of the types may have become activatable or the timeout
// passes (then it answers no jobs). EINVALID for a request out of bounds.
func (r *Runtime) FetchJobs(ctx context.Context, req FetchRequest) ([]WorkerJob, error) {
	switch {
	case req.Worker == "":
		return nil, &Error{Code: EINVALID, Message: "workerId is required", Field: "workerId"}
	case req.MaxJobs < 1 || req.MaxJobs > MaxJobsPerActivation:
		return nil, &Error{Code: EINVALID, Message: fmt.Sprintf("maxTasks must be between 1 and %d", MaxJobsPerActivation), Field: "maxTasks"}
	case req.RequestTimeout < 0 || req.RequestTimeout > MaxRequestTimeout:
		return nil, &Error{Code: EINVALID, Message: "asyncResponseTimeout must be between 0 and 5 minutes", Field: "asyncResponseTimeout"}
	}
	for i, t := range req.Topics {
		if t.Type == "" {
			return nil, &Error{Code: EINVALID, Message: fmt.Sprintf("topics[%d].topicName is required", i), Field: fmt.Sprintf("topics[%d].topicName", i)}
		}
		if t.LockDuration <= 0 || t.LockDuration > MaxLockDuration {
			return nil, &Error{Code: EINVALID, Message: fmt.Sprintf("topics[%d].lockDuration must be positive and at most one day", i), Field: fmt.Sprintf("topics[%d].lockDuration", i)}
		}
	}
	if len(req.Topics) == 0 {
		return []WorkerJob{}, nil
	}
	var deadline <-chan time.Time
	if req.RequestTimeout > 0 {
		t := time.NewTimer(req.RequestTimeout)
		defer t.Stop()
		deadline = t.C
	}
	for {
		jobs, again, err := r.fetchOnce(ctx, req, deadline)
		if !again {
			return jobs, err
		}
	}
}

// fetchOnce is activateOnce over several job types: it registers a waiter
// for every type before looking, so no notify is missed, and waits on all
// of them when it finds nothing.
func (r *Runtime) fetchOnce(ctx context.Context, req FetchRequest, deadline <-chan time.Time) (jobs []WorkerJob, again bool, err error) {
	readies := make([]<-chan struct{}, len(req.Topics))
	releases := make([]func(bool), len(req.Topics))
	woken := -1 // the topic whose wake-up the loop consumes by looking again
	for i, t := range req.Topics {
		readies[i], releases[i] = r.jobReady.wait(t.Type)
	}
	defer func() {
		for i, release := range releases {
			release(i == woken)
		}
	}()
	secret, err := r.jobKeySecret(ctx)
	if err != nil {
		return nil, false, err
	}
	now := r.now().UTC()
	out := []WorkerJob{}
	for _, t := range req.Topics {
		left := req.MaxJobs - len(out)
		if left == 0 {
			break
		}
		tokens, hashes, err := r.mintLockTokens(left)
		if err != nil {
			return nil, false, err
		}
		lock := JobLock{Worker: req.Worker, User: req.User, Until: now.Add(t.LockDuration), TokenHashes: hashes}
		rows, err := r.store.ActivateJobs(ctx, t.Type, now, lock)
		if err != nil {
			return nil, false, fmt.Errorf("runtime: fetch %s jobs: %w", t.Type, err)
		}
		if len(rows) == 0 {
			continue
		}
		r.metrics.jobsActivated.Add(int64(len(rows)))
		views, err := r.jobViews(ctx, rows, tokens[:len(rows)], secret, t.FetchVariables)
		if err != nil {
			return nil, false, err
		}
		for i, v := range views {
			v.LockToken = "" // the worker's name holds the lock, not a token
			out = append(out, WorkerJob{JobView: v, ProcessKey: rows[i].ProcessKey, ProcessVersion: rows[i].ProcessVersion,
				Worker: rows[i].LockOwner, ErrorMessage: rows[i].ErrorMessage})
		}
	}
	if len(out) > 0 || deadline == nil {
		return out, false, nil
	}
	// Nothing activatable: wait for a wake-up of any topic, the earliest
	// time a job of one becomes activatable, a poll tick, the deadline.
	cases := make([]reflect.SelectCase, 0, len(readies)+5)
	for _, ch := range readies {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
	}
	var later time.Time
	for _, t := range req.Topics {
		at, ok, err := r.store.NextJobAvailable(ctx, t.Type, now)
		if err != nil {
			return nil, false, fmt.Errorf("runtime: next %s job: %w", t.Type, err)
		}
		if ok && (later.IsZero() || at.Before(later)) {
			later = at
		}
	}
	again = true
	wakers := []<-chan time.Time{}
	if !later.IsZero() {
		t := time.NewTimer(later.Sub(now))
		defer t.Stop()
		wakers = append(wakers, t.C)
	}
	if every := r.pollEvery(); every > 0 {
		// A wake-up from another node may be lost: look again now and then.
		t := time.NewTimer(every)
		defer t.Stop()
		wakers = append(wakers, t.C)
	}
	for _, ch := range wakers {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
	}
	ends := len(cases)
	cases = append(cases,
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(deadline)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(r.draining)},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())})
	chosen, _, _ := reflect.Select(cases)
	switch {
	case chosen < len(readies):
		woken = chosen
		return nil, true, nil
	case chosen < ends:
		return nil, true, nil
	case chosen == len(cases)-1:
		return nil, false, ctx.Err()
	}
	return []WorkerJob{}, false, nil
}

// workerHeld returns the open job with public key key, provided worker h
// holds its lock, and the guard a step acting on it commits under.
// ENOTFOUND for an unknown key; ECONFLICT for a job that is not locked or
// locked by another worker (Camunda 7: "the task's most recent lock was not
// acquired by the provided worker"); EFORBIDDEN for another user.
func (r *Runtime) workerHeld(ctx context.Context, key string, h WorkerHolder) (WaitRow, *LockGuard, error) {
	if h.Worker == "" && !h.AnyWorker {
		return WaitRow{}, nil, &Error{Code: EINVALID, Message: "workerId is required", Field: "workerId"}
	}
	id, err := r.jobWaitID(ctx, key)
	if err != nil {
		return WaitRow{}, nil, err
	}
	row, err := r.job(ctx, id)
	if err != nil {
		return WaitRow{}, nil, err
	}
	switch {
	case row.LockTokenHash == nil || row.LockOwner == "":
		return WaitRow{}, nil, &Error{Code: ECONFLICT, Message: fmt.Sprintf("External task %s is not locked: fetch and lock it first", key)}
	case row.LockOwner != h.Worker && !h.AnyWorker:
		return WaitRow{}, nil, &Error{Code: ECONFLICT, Message: fmt.Sprintf("External task %s cannot be acted on by worker '%s'. It is locked by worker '%s'.", key, h.Worker, row.LockOwner)}
	case row.LockUser != h.User:
		return WaitRow{}, nil, &Error{Code: EFORBIDDEN, Message: fmt.Sprintf("external task %s was locked by another user: only the user who locked a task may act on it", key)}
	}
	return row, &LockGuard{WaitID: row.ID, TokenHash: row.LockTokenHash, CheckUser: true, User: h.User}, nil
}

// actAsWorker steps the instance of the job key names, which worker h
// must hold, with ev(wait id) under the job's lock guard.
func (r *Runtime) actAsWorker(ctx context.Context, key string, h WorkerHolder, ev func(row WaitRow) engine.Event) error {
	row, guard, err := r.workerHeld(ctx, key, h)
	if err != nil {
		return err
	}
	if err := r.actOnJob(ctx, row, guard, ev(row)); err != nil {
		return err
	}
	r.jobHomes.forget(row.ID)
	return nil
}

// CompleteWorkerJob completes the job with public key key for worker h:
// vars merge into the instance (the write rule) and localVars into the
// task's own scope, and the instance continues, in one step. workerHeld's
// refusals.
func (r *Runtime) CompleteWorkerJob(ctx context.Context, key string, h WorkerHolder, vars, localVars map[string]any) error {
	return r.actAsWorker(ctx, key, h, func(row WaitRow) engine.Event {
		merged := vars
		if len(localVars) > 0 {
			// gobpm's job completion has no local variables: they are
			// written like the others (documented in docs/camunda7.md).
			merged = make(map[string]any, len(vars)+len(localVars))
			for k, v := range vars {
				merged[k] = v
			}
			for k, v := range localVars {
				merged[k] = v
			}
		}
		return engine.JobCompleted{Key: row.ID, Variables: merged, Worker: h.Worker}
	})
}

// FailWorkerJob records a failed attempt of the job worker h holds (see
// FailJob): at 0 retries an incident opens. workerHeld's refusals.
func (r *Runtime) FailWorkerJob(ctx context.Context, key string, h WorkerHolder, req FailRequest) error {
	if req.RetryBackoff < 0 {
		return &Error{Code: EINVALID, Message: "retryTimeout must not be negative", Field: "retryTimeout"}
	}
	ev := engine.JobFailed{Decrement: true, Backoff: req.RetryBackoff, Jitter: rand.Float64(), ErrorMessage: req.ErrorMessage}
	if req.Retries != nil {
		if *req.Retries < 0 {
			return &Error{Code: EINVALID, Message: "retries must not be negative", Field: "retries"}
		}
		ev.Retries, ev.Decrement = *req.Retries, false
	}
	return r.actAsWorker(ctx, key, h, func(row WaitRow) engine.Event {
		ev.Key = row.ID
		return ev
	})
}

// ThrowWorkerJobError throws a BPMN error with code at the task of the
// job worker h holds (see ThrowJobError).
func (r *Runtime) ThrowWorkerJobError(ctx context.Context, key string, h WorkerHolder, code, message string, vars map[string]any) error {
	if code == "" {
		return &Error{Code: EINVALID, Message: "errorCode is required", Field: "errorCode"}
	}
	return r.actAsWorker(ctx, key, h, func(row WaitRow) engine.Event {
		return engine.JobErrorThrown{Key: row.ID, Code: code, ErrorMessage: message, Variables: vars}
	})
}

// ExtendWorkerJobLock moves the lock worker h holds on a job to d from
// now; ECONFLICT also for a lock that has expired.
func (r *Runtime) ExtendWorkerJobLock(ctx context.Context, key string, h WorkerHolder, d time.Duration) error {
	if d <= 0 || d > MaxLockDuration {
		return &Error{Code: EINVALID, Message: "newDuration must be positive and at most one day", Field: "newDuration"}
	}
	row, guard, err := r.workerHeld(ctx, key, h)
	if err != nil {
		return err
	}
	now := r.now().UTC()
	if !row.LockExpiresAt.After(now) {
		return &Error{Code: ECONFLICT, Message: fmt.Sprintf("the lock of external task %s expired at %s: fetch and lock it again", key, row.LockExpiresAt.Format(time.RFC3339Nano))}
	}
	return r.moveWorkerLock(ctx, row, guard, now, now.Add(d))
}

// UnlockJob releases the lock of the job with public key key at once,
// without a penalty (its retries stay): the job is activatable again and a
// waiting long poll wakes. A job that is not locked is left as it is.
// ENOTFOUND for an unknown key.
func (r *Runtime) UnlockJob(ctx context.Context, key string) error {
	id, err := r.jobWaitID(ctx, key)
	if err != nil {
		return err
	}
	row, err := r.job(ctx, id)
	if err != nil {
		return err
	}
	now := r.now().UTC()
	if row.LockTokenHash == nil || !row.LockExpiresAt.After(now) {
		return nil
	}
	// The lock ends now: an expiry not after now is activatable again.
	if err := r.moveWorkerLock(ctx, row, &LockGuard{WaitID: row.ID, TokenHash: row.LockTokenHash}, now, now); err != nil {
		if ErrorCode(err) == ECONFLICT {
			return nil // activated again or expired meanwhile: not ours to release
		}
		return err
	}
	r.jobHomes.forget(row.ID)
	r.jobReady.notify(row.Name)
	return nil
}

// moveWorkerLock moves a held job's lock expiry to until.
func (r *Runtime) moveWorkerLock(ctx context.Context, row WaitRow, guard *LockGuard, now, until time.Time) error {
	if err := r.store.ExtendJobLock(ctx, row.ID, guard.TokenHash, now, until); err != nil {
		switch ErrorCode(err) {
		case ENOTFOUND:
			return &Error{Code: ENOTFOUND, Message: fmt.Sprintf("external task %s not found: it was completed, withdrawn or never existed", row.ID), Err: err}
		case ECONFLICT:
			return &Error{Code: ECONFLICT, Message: fmt.Sprintf("the lock of external task %s expired or the task was locked again meanwhile", row.ID), Err: err}
		}
		return fmt.Errorf("runtime: move the lock of job %s: %w", row.ID, err)
	}
	return nil
}

// WorkerJobFilter selects open jobs for a listing (Camunda 7's GET
// /external-task). Empty fields match all.
type WorkerJobFilter struct {
	// InstanceID keeps the jobs of one instance; without it the listing
	// walks the running and failed instances, newest first.
	InstanceID InstanceID
	Type       string
	Worker     string
	// Locked keeps locked jobs (true) or unlocked ones (false).
	Locked *bool
	// ProcessKey keeps the jobs of instances of this process key.
	ProcessKey string
	// Limit caps the jobs returned (default and most 1000).
	Limit int
}

// maxWorkerJobScan caps the instances one job listing walks.
const maxWorkerJobScan = 1000

// WorkerJobs lists open jobs matching f, each with its public key (never
// its lock token's hash). It reads instance by instance, so it costs the
// instances it walks (at most maxWorkerJobScan): it serves tools and tests,
// not workers, which fetch.
func (r *Runtime) WorkerJobs(ctx context.Context, f WorkerJobFilter) ([]WaitRow, error) {
	limit := f.Limit
	if limit <= 0 || limit > MaxJobsPerActivation {
		limit = MaxJobsPerActivation
	}
	var ids []InstanceID
	if f.InstanceID != "" {
		ids = []InstanceID{f.InstanceID}
	} else {
		for _, status := range []string{StatusRunning, StatusFailed} {
			rows, _, err := r.ListInstances(ctx, InstanceFilter{Status: status, ProcessKey: f.ProcessKey, Limit: maxWorkerJobScan})
			if err != nil {
				return nil, fmt.Errorf("runtime: list instances for jobs: %w", err)
			}
			for _, row := range rows {
				ids = append(ids, row.ID)
			}
		}
	}
	now := r.now().UTC()
	out := []WaitRow{}
	for _, id := range ids {
		waits, err := r.store.InstanceWaits(ctx, id)
		if err != nil {
			if ErrorCode(err) == ENOTFOUND {
				continue
			}
			return nil, fmt.Errorf("runtime: waits of instance %s: %w", id, err)
		}
		for _, w := range waits {
			if w.Kind != WaitJob || (f.Type != "" && w.Name != f.Type) || (f.Worker != "" && w.LockOwner != f.Worker) ||
				(f.ProcessKey != "" && w.ProcessKey != f.ProcessKey) {
				continue
			}
			if locked := w.LockTokenHash != nil && w.LockExpiresAt.After(now); f.Locked != nil && *f.Locked != locked {
				continue
			}
			w.LockTokenHash = nil
			if w.ID, err = r.JobKey(ctx, w.ID); err != nil {
				return nil, err
			}
			out = append(out, w)
			if len(out) == limit {
				return out, nil
			}
		}
	}
	return out, nil
}

// WorkerJob returns the open job with public key key as a listing shows
// it; ENOTFOUND for an unknown key.
func (r *Runtime) WorkerJob(ctx context.Context, key string) (WaitRow, error) {
	id, err := r.jobWaitID(ctx, key)
	if err != nil {
		return WaitRow{}, err
	}
	row, err := r.job(ctx, id)
	if err != nil {
		return WaitRow{}, err
	}
	row.LockTokenHash = nil
	row.ID = key
	return row, nil
}

// JobLocker is the optional store method LockWorkerJob needs; the SQLite
// and PostgreSQL stores implement it.
type JobLocker interface {
	// LockJob locks the open job with wait id id with lock (exactly one
	// token hash), provided it has retries left, is not backing off, and is
	// not locked, its lock expired at now, or it is locked by lock.Worker
	// and lock.User (a renewal). ErrNotFound for an unknown job,
	// ErrConflict for one that may not be locked.
	LockJob(ctx context.Context, id string, now time.Time, lock JobLock) (WaitRow, error)
}

// LockWorkerJob locks the job with public key key for worker h for d from
// now, without fetching it (Camunda 7's lock): a job nobody holds (or
// whose lock expired) is locked afresh, one h holds gets a new lock
// duration. ENOTFOUND for an unknown key; ECONFLICT for a job locked by
// another worker, backing off or out of retries; EINVALID when the store
// cannot lock single jobs.
func (r *Runtime) LockWorkerJob(ctx context.Context, key string, h WorkerHolder, d time.Duration) error {
	switch {
	case h.Worker == "":
		return &Error{Code: EINVALID, Message: "workerId is required", Field: "workerId"}
	case d <= 0 || d > MaxLockDuration:
		return &Error{Code: EINVALID, Message: "lockDuration must be positive and at most one day", Field: "lockDuration"}
	}
	locker, ok := r.store.(JobLocker)
	if !ok {
		return &Error{Code: EINVALID, Message: "this server's store cannot lock a single job: fetch and lock it"}
	}
	id, err := r.jobWaitID(ctx, key)
	if err != nil {
		return err
	}
	row, err := r.job(ctx, id)
	if err != nil {
		return err
	}
	now := r.now().UTC()
	if row.LockTokenHash != nil && row.LockExpiresAt.After(now) && (row.LockOwner != h.Worker || row.LockUser != h.User) {
		return &Error{Code: ECONFLICT, Message: fmt.Sprintf("External task %s is already locked by worker '%s'", key, row.LockOwner)}
	}
	_, hashes, err := r.mintLockTokens(1)
	if err != nil {
		return err
	}
	if _, err := locker.LockJob(ctx, id, now, JobLock{Worker: h.Worker, User: h.User, Until: now.Add(d), TokenHashes: hashes}); err != nil {
		switch ErrorCode(err) {
		case ENOTFOUND:
			return &Error{Code: ENOTFOUND, Message: fmt.Sprintf("external task %s not found: it was completed, withdrawn or never existed", key), Err: err}
		case ECONFLICT:
			return &Error{Code: ECONFLICT, Message: fmt.Sprintf("External task %s cannot be locked now: another worker locked it, it backs off after a failure, or it has no retries left", key), Err: err}
		}
		return fmt.Errorf("runtime: lock job %s: %w", id, err)
	}
	r.jobHomes.forget(id)
	return nil
}
