package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
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
	// Match narrows the jobs of the topic; the zero value matches all.
	// A job that does not match is never locked: it stays activatable
	// for other fetches.
	Match *JobMatch
}

// JobMatch narrows the jobs a FetchTopic locks by their instance
// (Camunda 7's topic filters). Every condition set must hold.
type JobMatch struct {
	// Nothing matches no job (Camunda 7's tenantIdIn: no gobpm instance
	// has a tenant).
	Nothing bool
	// BusinessKey, when not nil, keeps the jobs of instances with this
	// business key.
	BusinessKey *string
	// ProcessKeys, when not nil, keeps the jobs of instances of one of
	// these process keys (an empty list matches nothing).
	ProcessKeys []string
	// Versions, when not nil, keeps the jobs of instances of one of these
	// process versions (an empty list matches nothing).
	Versions []DefinitionRef
	// VersionTag, when not nil, keeps the jobs of instances of a process
	// version whose model carries this version tag (camunda:versionTag).
	VersionTag *string
	// Variables keeps the jobs of instances whose top-level variables have
	// these values (compared as JSON, as VariableValueKey does).
	Variables map[string]any
}

// byRow reports whether the job row's own columns can match m.
func (m *JobMatch) byRow(row WaitRow) bool {
	if m.Nothing {
		return false
	}
	if m.ProcessKeys != nil && !slices.Contains(m.ProcessKeys, row.ProcessKey) {
		return false
	}
	return m.Versions == nil || slices.Contains(m.Versions, DefinitionRef{Key: row.ProcessKey, Version: row.ProcessVersion})
}

// needsState reports whether matching reads the instance.
func (m *JobMatch) needsState() bool {
	return m.BusinessKey != nil || len(m.Variables) > 0
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
	// ErrorDetails are the details of the job's last failure, if any.
	ErrorDetails string
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
		var rows []WaitRow
		if t.Match == nil {
			rows, err = r.store.ActivateJobs(ctx, t.Type, now, lock)
		} else {
			rows, err = r.activateMatching(ctx, t, now, lock)
		}
		if err != nil {
			return nil, false, fmt.Errorf("runtime: fetch %s jobs: %w", t.Type, err)
		}
		if len(rows) == 0 {
			continue
		}
		r.metrics.activated(t.Type, len(rows))
		views, err := r.jobViews(ctx, rows, tokens[:len(rows)], secret, t.FetchVariables)
		if err != nil {
			return nil, false, err
		}
		for i, v := range views {
			v.LockToken = "" // the worker's name holds the lock, not a token
			j := WorkerJob{JobView: v, ProcessKey: rows[i].ProcessKey, ProcessVersion: rows[i].ProcessVersion,
				Worker: rows[i].LockOwner, ErrorMessage: rows[i].ErrorMessage}
			if j.ErrorMessage != "" { // only a failed job has details
				if j.ErrorDetails, err = r.store.JobErrorDetails(ctx, rows[i].ID); err != nil && ErrorCode(err) != ENOTFOUND {
					return nil, false, fmt.Errorf("runtime: error details of job %s: %w", rows[i].ID, err)
				}
			}
			out = append(out, j)
		}
	}
	if len(out) > 0 || deadline == nil {
		return out, false, nil
	}
	types := make([]string, len(req.Topics))
	for i, t := range req.Topics {
		types[i] = t.Type
	}
	woken, again, err = r.awaitJobs(ctx, types, readies, now, deadline)
	if !again {
		if err != nil {
			return nil, false, err
		}
		return []WorkerJob{}, false, nil
	}
	return nil, true, nil
}

// awaitJobs waits, after a look found no activatable job of types, for
// what may make one activatable: a wake-up of type i (readies[i]: woken
// is i), the earliest time a job of one becomes activatable (retry
// backoff or lock expiry), a poll tick (a wake-up from another node may
// be lost); again is true then, and the caller looks again. It is false
// when the deadline passes or the runtime drains (nil error) or ctx ends
// (its error). woken is -1 unless a wake-up ended the wait.
func (r *Runtime) awaitJobs(ctx context.Context, types []string, readies []<-chan struct{}, now time.Time, deadline <-chan time.Time) (woken int, again bool, err error) {
	cases := make([]reflect.SelectCase, 0, len(readies)+5)
	for _, ch := range readies {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
	}
	var later time.Time
	for _, typ := range types {
		at, ok, err := r.store.NextJobAvailable(ctx, typ, now)
		if err != nil {
			return -1, false, fmt.Errorf("runtime: next %s job: %w", typ, err)
		}
		if ok && (later.IsZero() || at.Before(later)) {
			later = at
		}
	}
	wakers := []<-chan time.Time{}
	if !later.IsZero() {
		t := time.NewTimer(later.Sub(now))
		defer t.Stop()
		wakers = append(wakers, t.C)
	}
	if every := r.pollEvery(); every > 0 {
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
		return chosen, true, nil
	case chosen < ends:
		return -1, true, nil
	case chosen == len(cases)-1:
		return -1, false, ctx.Err()
	}
	return -1, false, nil
}

// activateMatching locks, oldest first, up to len(lock.TokenHashes)
// activatable jobs of t.Type that match t.Match, each with the next token
// hash: it pages through the activatable jobs of the type, checks each
// against the match and locks only the ones that match, one by one (a job
// another fetch locked meanwhile, even for the same worker, is skipped:
// the lock asks for no renewal). A job that does not match
// is never locked.
func (r *Runtime) activateMatching(ctx context.Context, t FetchTopic, now time.Time, lock JobLock) ([]WaitRow, error) {
	m := t.Match
	if m.Nothing {
		return nil, nil
	}
	locker, ok := r.store.(JobLocker)
	if !ok {
		return nil, &Error{Code: EINVALID, Message: "this server's store cannot lock single jobs: fetch without topic filters"}
	}
	var out []WaitRow
	var keys map[string]string               // m.Variables' value keys, once per topic
	var matching map[InstanceID]bool         // the instances the index selects, when few
	indexed, indexedAt := false, time.Time{} // indexedAt: when matching was read
	f := WaitPageFilter{Kind: WaitJob, Name: t.Type, ActivatableAt: now}
	for {
		page, err := r.store.WaitsPage(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, row := range page {
			if !indexed && m.needsState() && m.byRow(row) {
				indexed, indexedAt = true, r.now().UTC()
				if matching, err = r.fewMatchingInstances(ctx, m); err != nil {
					return nil, err
				}
			}
			if matching != nil && !matching[row.InstanceID] && row.CreatedAt.Before(indexedAt) {
				continue // the index says the instance does not match
			}
			ok, err := r.jobMatches(ctx, m, &keys, row)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			one := lock
			one.TokenHashes = lock.TokenHashes[len(out) : len(out)+1]
			locked, err := locker.LockJob(ctx, row.ID, now, one)
			if ErrorCode(err) == ECONFLICT || ErrorCode(err) == ENOTFOUND {
				continue // locked, completed or withdrawn meanwhile
			}
			if err != nil {
				return nil, err
			}
			out = append(out, locked)
			if len(out) == len(lock.TokenHashes) {
				return out, nil
			}
		}
		if len(page) < MaxWaitsPage || len(page) == 0 {
			return out, nil
		}
		f.After = CursorOf(page[len(page)-1])
	}
}

// jobMatches reports whether the job row matches m, reading its
// instance's version tag, business key and variables as m needs them.
// *keys holds m.Variables' value keys: computed on first need, then
// reused for every row of the topic.
func (r *Runtime) jobMatches(ctx context.Context, m *JobMatch, keys *map[string]string, row WaitRow) (bool, error) {
	if !m.byRow(row) {
		return false, nil
	}
	if m.VersionTag != nil {
		proc, _, err := r.process(ctx, row.ProcessKey, row.ProcessVersion)
		if err != nil {
			return false, fmt.Errorf("runtime: process of job %s: %w", row.ID, err)
		}
		if proc.VersionTag != *m.VersionTag {
			return false, nil
		}
	}
	if !m.needsState() {
		return true, nil
	}
	if *keys == nil {
		k, err := valueKeys(m.Variables, "process variable")
		if err != nil {
			return false, err
		}
		*keys = k
	}
	return r.instanceMatches(ctx, row.InstanceID, m.BusinessKey, *keys)
}

// fewMatchingInstances returns the instances whose business key and
// variables match m, looked up in the store's indexes (business key
// column, variable index), when they fit in one list page; nil when there
// are more (or m's business key is empty, which the index does not
// select): the caller then checks each job's instance. A job whose
// instance is not in the set cannot match, so no state is read for it.
func (r *Runtime) fewMatchingInstances(ctx context.Context, m *JobMatch) (map[InstanceID]bool, error) {
	if m.BusinessKey != nil && *m.BusinessKey == "" {
		return nil, nil
	}
	f := InstanceFilter{Limit: matchPage}
	if m.BusinessKey != nil {
		f.BusinessKey = *m.BusinessKey
	}
	keys, err := valueKeys(m.Variables, "process variable")
	if err != nil {
		return nil, err
	}
	for name, key := range keys {
		f.Variables = append(f.Variables, VariableFilter{Name: name, Value: key})
	}
	slices.SortFunc(f.Variables, func(a, b VariableFilter) int { return strings.Compare(a.Name, b.Name) })
	rows, total, err := r.store.ListInstances(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("runtime: instances for a topic filter: %w", err)
	}
	if total > len(rows) {
		return nil, nil
	}
	out := make(map[InstanceID]bool, len(rows))
	for _, in := range rows {
		out[in.ID] = true
	}
	return out, nil
}

// valueKeys maps each variable value to its VariableValueKey; what
// names the values in a refusal ("correlation key").
func valueKeys(vars map[string]any, what string) (map[string]string, error) {
	keys := make(map[string]string, len(vars))
	for name, v := range vars {
		key, err := valueKey(v)
		if err != nil {
			return nil, &Error{Code: EINVALID, Message: fmt.Sprintf("%s %s: %v", what, name, err), Err: err}
		}
		keys[name] = key
	}
	return keys, nil
}

// valueKey is VariableValueKey of a variable value.
func valueKey(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("runtime: encode a variable value: %w", err)
	}
	return VariableValueKey(raw)
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
	ev := engine.JobFailed{Decrement: true, Backoff: req.RetryBackoff, Jitter: rand.Float64(), ErrorMessage: req.ErrorMessage, Variables: req.Variables}
	if req.Retries != nil {
		if *req.Retries < 0 {
			return &Error{Code: EINVALID, Message: "retries must not be negative", Field: "retries"}
		}
		ev.Retries, ev.Decrement = *req.Retries, false
	}
	row, guard, err := r.workerHeld(ctx, key, h)
	if err != nil {
		return err
	}
	ev.Key = row.ID
	// The details commit with the failure's step: a job the step ended (a
	// boundary event took it) has none to keep.
	details := func(rec *StepRecord) {
		rec.JobErrorDetails = &JobErrorDetails{WaitID: row.ID, Details: req.ErrorDetails}
	}
	if err := r.actOnJobWith(ctx, row, guard, ev, details); err != nil {
		return err
	}
	r.jobHomes.forget(row.ID)
	return nil
}

// SetJobRetries sets the retries left of the job with public key key
// (Camunda 7's PUT /external-task/{id}/retries), whoever holds it: 0
// opens an incident, as a last failure does; more resolves the job's
// open incident, so the job is activatable again. ENOTFOUND for an
// unknown key; EINVALID for negative retries.
func (r *Runtime) SetJobRetries(ctx context.Context, key string, retries int) error {
	if retries < 0 {
		return &Error{Code: EINVALID, Message: "retries must not be negative", Field: "retries"}
	}
	row, err := r.jobByKey(ctx, key)
	if err != nil {
		return err
	}
	if _, err := r.step(ctx, row.InstanceID, engine.JobRetriesSet{Key: row.ID, Retries: retries, By: ActingUser(ctx)}, nil); err != nil {
		return err
	}
	if retries > 0 {
		r.jobReady.notify(row.Name)
	}
	return nil
}

// WorkerJobErrorDetails returns the error details of the last failure of
// the job with public key key ("" when there are none); ENOTFOUND for an
// unknown key.
func (r *Runtime) WorkerJobErrorDetails(ctx context.Context, key string) (string, error) {
	id, err := r.jobWaitID(ctx, key)
	if err != nil {
		return "", err
	}
	details, err := r.store.JobErrorDetails(ctx, id)
	if ErrorCode(err) == ENOTFOUND {
		return "", &Error{Code: ENOTFOUND, Message: fmt.Sprintf("external task %s not found: it was completed, withdrawn or never existed", key), Err: err}
	}
	if err != nil {
		return "", fmt.Errorf("runtime: error details of job %s: %w", key, err)
	}
	return details, nil
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
	row, err := r.jobByKey(ctx, key)
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

// MaxWorkerJobsListed caps the jobs one WorkerJobs call returns: a
// listing answers at most this many, however many match (page on with
// Offset), so no request holds every open job in memory.
const MaxWorkerJobsListed = 1000

// WorkerJobFilter selects open jobs for a listing (Camunda 7's GET
// /external-task). Empty fields match all.
type WorkerJobFilter struct {
	// Key, when set, keeps the job with this public key: one lookup, not
	// a listing.
	Key string
	// InstanceID keeps the jobs of one instance; without it the listing
	// pages through the open jobs of every instance, oldest first.
	InstanceID InstanceID
	Type       string
	Worker     string
	// Locked keeps locked jobs (true) or unlocked ones (false).
	Locked *bool
	// ProcessKey keeps the jobs of instances of this process key.
	ProcessKey string
	// Keep, when set, keeps only the jobs it reports true for (the
	// caller's visibility, say). It sees the store's row: its ID is the
	// wait id, not the public key.
	Keep func(WaitRow) bool
	// Offset skips that many matching jobs before the first returned.
	Offset int
	// Limit caps the jobs returned (<= 0 or above MaxWorkerJobsListed:
	// MaxWorkerJobsListed).
	Limit int
}

// WorkerJobs lists open jobs matching f, oldest first, each with its
// public key (never its lock token's hash): at most f.Limit of them
// (MaxWorkerJobsListed at most), after the first f.Offset. Without an
// instance or a key it pages through the store's open jobs (of the type
// and process key, when set), so no job is missed however many instances
// there are, and holds one page at a time; it serves tools and tests, not
// workers, which fetch.
func (r *Runtime) WorkerJobs(ctx context.Context, f WorkerJobFilter) ([]WaitRow, error) {
	limit := f.Limit
	if limit <= 0 || limit > MaxWorkerJobsListed {
		limit = MaxWorkerJobsListed
	}
	out := []WaitRow{}
	skip := f.Offset
	err := r.eachWorkerJob(ctx, f, func(w WaitRow) (bool, error) {
		if skip > 0 {
			skip--
			return false, nil
		}
		w.LockTokenHash = nil
		var err error
		if w.ID, err = r.JobKey(ctx, w.ID); err != nil {
			return false, err
		}
		out = append(out, w)
		return len(out) == limit, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CountWorkerJobs counts the open jobs matching f (its Offset and Limit
// aside), page by page: it holds no job beyond the store's current page.
func (r *Runtime) CountWorkerJobs(ctx context.Context, f WorkerJobFilter) (int, error) {
	n := 0
	err := r.eachWorkerJob(ctx, f, func(WaitRow) (bool, error) {
		n++
		return false, nil
	})
	return n, err
}

// eachWorkerJob calls fn with each open job matching f (Offset and Limit
// aside), oldest first, until fn reports done or fails.
func (r *Runtime) eachWorkerJob(ctx context.Context, f WorkerJobFilter, fn func(WaitRow) (done bool, err error)) error {
	now := r.now().UTC()
	// visit calls fn with w when it matches.
	visit := func(w WaitRow) (done bool, err error) {
		if w.Kind != WaitJob || (f.Type != "" && w.Name != f.Type) || (f.Worker != "" && w.LockOwner != f.Worker) ||
			(f.ProcessKey != "" && w.ProcessKey != f.ProcessKey) || (f.InstanceID != "" && w.InstanceID != f.InstanceID) {
			return false, nil
		}
		if locked := w.LockTokenHash != nil && w.LockExpiresAt.After(now); f.Locked != nil && *f.Locked != locked {
			return false, nil
		}
		if f.Keep != nil && !f.Keep(w) {
			return false, nil
		}
		return fn(w)
	}
	if f.Key != "" {
		id, err := r.jobWaitID(ctx, f.Key)
		if ErrorCode(err) == ENOTFOUND {
			return nil
		}
		if err != nil {
			return err
		}
		w, err := r.job(ctx, id)
		if ErrorCode(err) == ENOTFOUND {
			return nil
		}
		if err != nil {
			return fmt.Errorf("runtime: job %s: %w", f.Key, err)
		}
		if canonical, err := r.JobKey(ctx, id); err != nil || canonical != f.Key {
			return err // a key in another spelling names no listed job
		}
		_, err = visit(w)
		return err
	}
	if f.InstanceID != "" {
		waits, err := r.store.InstanceWaits(ctx, f.InstanceID)
		if ErrorCode(err) == ENOTFOUND {
			return nil
		}
		if err != nil {
			return fmt.Errorf("runtime: waits of instance %s: %w", f.InstanceID, err)
		}
		for _, w := range waits {
			if done, err := visit(w); err != nil || done {
				return err
			}
		}
		return nil
	}
	page := WaitPageFilter{Kind: WaitJob, Name: f.Type, ProcessKey: f.ProcessKey}
	for {
		waits, err := r.store.WaitsPage(ctx, page)
		if err != nil {
			return fmt.Errorf("runtime: list jobs: %w", err)
		}
		for _, w := range waits {
			if done, err := visit(w); err != nil || done {
				return err
			}
		}
		if len(waits) < MaxWaitsPage {
			return nil
		}
		page.After = CursorOf(waits[len(waits)-1])
	}
}

// jobByKey returns the row of the open job with public key key;
// ENOTFOUND for an unknown key or a job that is no longer open.
func (r *Runtime) jobByKey(ctx context.Context, key string) (WaitRow, error) {
	id, err := r.jobWaitID(ctx, key)
	if err != nil {
		return WaitRow{}, err
	}
	return r.job(ctx, id)
}

// WorkerJob returns the open job with public key key as a listing shows
// it; ENOTFOUND for an unknown key.
func (r *Runtime) WorkerJob(ctx context.Context, key string) (WaitRow, error) {
	row, err := r.jobByKey(ctx, key)
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
	// not locked, its lock expired at now, or, with lock.Renew, it is
	// locked by lock.Worker and lock.User (a renewal). ErrNotFound for an
	// unknown job,
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
	if _, err := locker.LockJob(ctx, id, now, JobLock{Worker: h.Worker, User: h.User, Until: now.Add(d), TokenHashes: hashes, Renew: true}); err != nil {
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
