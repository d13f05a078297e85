package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/gobpm/gobpm/internal/engine"
)

// Suspension. A suspended instance takes no step but its cancellation:
// the step pipeline refuses every other event (stepInput), so a user-task
// completion, a job's completion or failure, a variable write, a
// modification, a migration or a trigger answers ECONFLICT wrapping
// ErrSuspended. Its waits are held in the store: due timers do not fire,
// jobs are not activatable, message correlation and signal broadcasts do
// not see its subscriptions (store.SuspensionStore). The flag lives in the
// instance row and every suspension act moves the row's revision on, so
// any node's step computed before it fails its commit and reads the flag
// again. The resume releases the waits: timers that came due meanwhile
// fire then, once; the messages buffered for its subscriptions meanwhile
// (published with a time to live) are delivered; the outcome of a child
// that ended meanwhile is handed over by the outbox's retry.
//
// A suspended process version starts no instance: a start through the
// API, a message or a signal start, a webhook or conditional start answers
// ECONFLICT wrapping ErrSuspended (a signal broadcast skips it), and its
// timer start events are held until the resume. Its running instances go
// on unless the suspension includes them.

// ErrSuspended is wrapped by the ECONFLICT a suspended instance or process
// version answers with; its text ends the message ("instance … is
// suspended: resume it first").
var ErrSuspended = errors.New("resume it first")

// suspendedInstance is the refusal of a step on suspended instance id.
func suspendedInstance(id InstanceID) error {
	return &Error{Code: ECONFLICT, Message: fmt.Sprintf("instance %s is suspended", id), Err: ErrSuspended}
}

// suspendedVersion is the refusal of a start of a suspended version.
func suspendedVersion(ref DefinitionRef) error {
	return &Error{Code: ECONFLICT, Message: fmt.Sprintf("process %s version %d is suspended: it starts no instance", ref.Key, ref.Version), Err: ErrSuspended}
}

// stillSuspended confirms the flag of a suspended row before a step is
// refused for it: on a store several nodes share, another node may have
// resumed the instance since this node cached its state (a refusal
// commits nothing, so no revision check would notice), and a cached row
// whose revision moved on is read again.
func (r *Runtime) stillSuspended(ctx context.Context, row InstanceRow, st *engine.State, legacy bool) (InstanceRow, *engine.State, bool, error) {
	if r.cluster == nil {
		return row, st, legacy, nil
	}
	cur, err := r.store.InstanceRow(ctx, row.ID)
	if err != nil {
		return InstanceRow{}, nil, false, instanceErr(row.ID, err)
	}
	if cur.Revision == row.Revision {
		return row, st, legacy, nil
	}
	return r.readState(ctx, row.ID)
}

// SuspendInstance suspends a running or failed instance and returns it;
// suspending a suspended instance changes nothing. ENOTFOUND for an
// unknown instance, ECONFLICT for an ended one.
func (r *Runtime) SuspendInstance(ctx context.Context, id InstanceID) (InstanceView, error) {
	return r.setSuspended(ctx, id, true)
}

// ResumeInstance resumes a suspended instance and returns it; resuming an
// instance that is not suspended changes nothing. ENOTFOUND for an unknown
// instance, ECONFLICT for an ended one.
func (r *Runtime) ResumeInstance(ctx context.Context, id InstanceID) (InstanceView, error) {
	return r.setSuspended(ctx, id, false)
}

// setSuspended is the suspension act: under the instance's lock it sets the
// flag at the revision the state was read at (read again if another node
// moved it on meanwhile), keeps the state in the cache with the new row,
// and after a resume wakes the scheduler and the job waiters.
func (r *Runtime) setSuspended(ctx context.Context, id InstanceID, suspended bool) (InstanceView, error) {
	changed, err := r.setSuspendedLocked(ctx, id, suspended)
	if err != nil {
		return InstanceView{}, err
	}
	if changed && !suspended {
		r.wakeScheduler()
		r.jobReady.notifyAll()
		r.recheckResumed(ctx, id)
	}
	if changed {
		r.log.Info("instance suspension changed", "instance_id", id, "suspended", suspended)
	}
	return r.Instance(ctx, id)
}

// setSuspendedLocked runs the act under the lock and reports whether it
// changed the flag.
func (r *Runtime) setSuspendedLocked(ctx context.Context, id InstanceID, suspended bool) (bool, error) {
	unlock := r.locks.lock(id)
	defer unlock()
	for attempt := 0; ; attempt++ {
		// acquireCurrent: the idempotence check must not trust a state
		// another node's act has moved on since this node cached it.
		row, st, legacy, err := r.acquireCurrent(ctx, id)
		if err != nil {
			return false, err
		}
		if !row.EndedAt.IsZero() || st.Ended() {
			r.release(row, st, legacy)
			return false, &Error{Code: ECONFLICT, Message: fmt.Sprintf("instance %s is %s: only a running instance can be suspended or resumed", id, row.Status)}
		}
		if row.Suspended == suspended {
			r.release(row, st, legacy)
			return false, nil
		}
		next, err := r.store.SetInstanceSuspended(ctx, id, row.Revision, suspended, r.now().UTC())
		if err == nil {
			r.release(next, st, legacy)
			return true, nil
		}
		// The state is not released: a stale one is read again.
		if !errors.Is(err, ErrConflict) || attempt >= maxStepAttempts {
			return false, fmt.Errorf("runtime: suspension of %s: %w", id, err)
		}
	}
}

// recheckResumed delivers to a resumed instance's message subscriptions
// the buffered messages published for them while it was suspended (as a
// step that opens a subscription looks them up: recheckBuffered). A
// failure is logged: the messages stay buffered.
func (r *Runtime) recheckResumed(ctx context.Context, id InstanceID) {
	waits, err := r.store.InstanceWaits(ctx, id)
	if err != nil {
		r.log.Error("resumed instance's subscriptions not read", "instance_id", id, "error", err)
		return
	}
	w := &work{}
	for _, wt := range waits {
		if wt.Kind == WaitMessage {
			w.rechecks = append(w.rechecks, bufferRecheck{instance: id, wait: wt.ID, name: wt.Name, key: wt.CorrelationKey, processKey: wt.ProcessKey})
		}
	}
	r.recheckBuffered(ctx, w)
}

// VersionSuspension asks to suspend or resume a process version.
type VersionSuspension struct {
	Key     string
	Version int
	// IncludeInstances also suspends (resumes) every running instance of
	// the version.
	IncludeInstances bool
}

// SuspendVersion suspends a process version (idempotent) and, with
// IncludeInstances, its running instances; it returns how many instances
// it suspended. ENOTFOUND for an unknown version.
func (r *Runtime) SuspendVersion(ctx context.Context, req VersionSuspension) (int, error) {
	return r.setVersionSuspended(ctx, req, true)
}

// ResumeVersion resumes a process version (idempotent) and, with
// IncludeInstances, its suspended instances; it returns how many instances
// it resumed. ENOTFOUND for an unknown version.
func (r *Runtime) ResumeVersion(ctx context.Context, req VersionSuspension) (int, error) {
	return r.setVersionSuspended(ctx, req, false)
}

// setVersionSuspended records the version's suspension, then acts on its
// instances page by page (each act is the instance's own, as
// SuspendInstance; an instance that ended meanwhile is skipped).
func (r *Runtime) setVersionSuspended(ctx context.Context, req VersionSuspension, suspended bool) (int, error) {
	if err := r.store.SetVersionSuspended(ctx, req.Key, req.Version, suspended, r.now().UTC()); err != nil {
		if ErrorCode(err) == ENOTFOUND {
			return 0, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("process %s version %d not found", req.Key, req.Version), Err: err}
		}
		return 0, err
	}
	if !suspended {
		r.wakeScheduler() // its start timers may be due
	}
	if !req.IncludeInstances {
		return 0, nil
	}
	n := 0
	state := !suspended
	var after InstanceID
	for {
		rows, _, err := r.store.ListInstances(ctx, InstanceFilter{ProcessKey: req.Key, ProcessVersion: req.Version, Suspended: &state, After: after, Limit: 100})
		if err != nil {
			return n, fmt.Errorf("runtime: instances of %s version %d: %w", req.Key, req.Version, err)
		}
		for _, row := range rows {
			if !row.EndedAt.IsZero() {
				continue
			}
			if _, err := r.setSuspended(ctx, row.ID, suspended); err != nil {
				if ErrorCode(err) == ECONFLICT || ErrorCode(err) == ENOTFOUND {
					continue // ended or deleted meanwhile
				}
				return n, err
			}
			n++
		}
		if len(rows) < 100 {
			return n, nil
		}
		after = rows[len(rows)-1].ID
	}
}

// SuspendedVersions returns the suspended versions of a process key,
// ascending.
func (r *Runtime) SuspendedVersions(ctx context.Context, key string) ([]int, error) {
	return r.store.SuspendedVersions(ctx, key)
}

// checkStartable refuses a start of a suspended process version.
func (r *Runtime) checkStartable(ctx context.Context, ref DefinitionRef) error {
	vs, err := r.store.SuspendedVersions(ctx, ref.Key)
	if err != nil {
		return fmt.Errorf("runtime: start %s: %w", ref.Key, err)
	}
	if slices.Contains(vs, ref.Version) {
		return suspendedVersion(ref)
	}
	return nil
}
