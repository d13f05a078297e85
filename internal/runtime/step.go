package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
)

// The step pipeline. Every change of an instance — a start, an act on a
// job, task, message, signal or wait, a timer, a modification, a
// migration, a child's return, a resume or reconciliation — runs through
// runStep, which reads top to bottom:
//
//  1. lock the instance (a new one: mint nothing, its id is the spec's);
//  2. load its state (acquire: the cache's or the store's), or build the
//     new instance's; a spec's check may find nothing to do (release); a
//     suspended instance refuses every event but its cancellation
//     (suspend.go);
//  3. Apply the event with the engine (the instance's own version, or the
//     model the spec names);
//  4. settle what the step asked of the registry: the children of call
//     activities (each child's first step runs through childStep, the
//     same Apply → settle → record, committed with its caller) and the
//     decisions of business rule tasks, then the reach check of the jobs
//     it created — settle runs only here;
//  5. record the outcome (the whole state for a new or legacy instance,
//     else what changed), with the spec's extra fields, the request's
//     idempotency claim and the job's lock guard;
//  6. commit the records of the command together, and keep the new state
//     in the cache;
//  7. unlock, then run the after-commit work (wake workers and the
//     scheduler, broadcast thrown signals, tell callers).
//
// On a store several nodes share, a step of a stored instance that another
// node's commit overtook (ErrStale) is re-run from 1 on the state that
// commit left, a bounded number of times (cluster.go). So is a step the
// engine refused in 3 (or whose check in 2 found nothing to do) on a
// cached state whose revision the store no longer holds: the wait it acts
// on may be one the other node's step created (movedOn).

// stepSpec is what differs between the steps runStep takes.
type stepSpec struct {
	// id names the instance stepped (with start set, the new one).
	id InstanceID
	// ev is the event applied.
	ev engine.Event
	// start, when its proc is set, creates the instance: nothing is
	// loaded, and its whole state is recorded.
	start startSpec
	// skip, when set, looks at the loaded state first: a reason to do
	// nothing (skip) or an error, and the state goes back unchanged.
	skip func(row InstanceRow, st *engine.State) (bool, error)
	// proc is the model the event is applied with; nil means the
	// instance's own version.
	proc *bpmn.Process
	// version, when positive, is the process version the record names
	// after the step (a migration's target).
	version int
	// guard makes the commit conditional on a job's lock (jobs.go).
	guard *LockGuard
	// extra adds to the record, committed in the same transaction.
	extra func(*StepRecord)
	// label names the step in a failed commit's error; "" means ev.Kind().
	label string
	// view, when set, receives the view of the instance as the step left
	// it (a new instance's, built from what the step committed).
	view *InstanceView
}

// startSpec is what a step creating an instance starts from: its model
// and version, its business key and the start it was asked at ("" for the
// None start).
type startSpec struct {
	proc        *bpmn.Process
	ref         DefinitionRef
	businessKey string
	startNode   string
}

// creates reports whether the step creates its instance.
func (s *stepSpec) creates() bool { return s.start.proc != nil }

// refusal classifies the engine's refusal of the step's event.
func (s *stepSpec) refusal(status string, err error) error {
	if s.creates() {
		return startRefusal(s.start, err)
	}
	return stepError(s.id, status, s.ev, err)
}

// startRefusal is the error of a start the engine refused: a process
// whose start cannot be triggered directly is EINVALID, saying why.
func startRefusal(s startSpec, err error) error {
	if errors.Is(err, engine.ErrInvalidTransition) {
		why := error(err)
		if _, refused := engine.DirectStart(s.proc); refused != nil && s.startNode == "" {
			why = refused
		}
		return &Error{Code: EINVALID, Message: fmt.Sprintf("process %s cannot be started directly: %v", s.ref.Key, why), Err: err}
	}
	return fmt.Errorf("runtime: start %s: %w", s.ref.Key, err)
}

// stepped is what a committed step leaves for its caller. It holds no
// state: once the step's lock is released the state belongs to the cache
// and the next step may change it, so the caller gets only what it reads
// afterwards, taken under the lock.
type stepped struct {
	w      *work
	status string
	// job is what the step did to a job, for the metrics.
	job jobAct
}

// step applies ev to instance id through the step pipeline (runStep).
// When needed is non-nil and returns false for the loaded state, nothing
// is stepped.
func (r *Runtime) step(ctx context.Context, id InstanceID, ev engine.Event, needed func(*engine.State) bool) (engine.Effects, error) {
	return r.stepGuarded(ctx, id, ev, needed, nil)
}

// stepGuarded is step for an act on a job: with guard non-nil the step
// commits only while the job still holds the caller's lock token (the
// store checks it in the step's transaction), else it fails with
// ErrLockLost.
func (r *Runtime) stepGuarded(ctx context.Context, id InstanceID, ev engine.Event, needed func(*engine.State) bool, guard *LockGuard) (engine.Effects, error) {
	spec := stepSpec{id: id, ev: ev, guard: guard}
	if needed != nil {
		spec.skip = func(_ InstanceRow, st *engine.State) (bool, error) { return !needed(st), nil }
	}
	return r.runStep(ctx, spec)
}

// runStep runs spec through the pipeline (see above) and returns the
// stepped instance's effects once its after-commit work has run.
func (r *Runtime) runStep(ctx context.Context, spec stepSpec) (engine.Effects, error) {
	began := time.Now()
	ctx, span := r.tracer.StartStep(ctx, string(spec.id), spec.ev.Kind()) // tracing.go; nil when off
	out, err := r.stepOnce(ctx, spec)
	for attempt := 1; err != nil && !spec.creates() && r.cluster != nil && attempt < maxStepAttempts && stale(err); attempt++ {
		r.metrics.metStale(attempt) // collisions.go
		out, err = r.stepOnce(ctx, spec)
	}
	for attempt := 1; err != nil && attempt < maxStepAttempts && errors.Is(err, ErrMessageTaken); attempt++ {
		out, err = r.stepOnce(ctx, spec) // a buffered message went elsewhere meanwhile (msgbuffer.go)
	}
	r.endStep(ctx, span, out, err)
	if err != nil {
		return engine.Effects{}, err
	}
	r.metrics.stepped(spec.ev, out, time.Since(began))
	if spec.creates() {
		r.log.Debug("instance started", "instance_id", spec.id, "definition_key", spec.start.ref.Key, "status", out.status)
	}
	out.w.afterCommit(ctx, r)
	r.recheckBuffered(ctx, out.w)
	return out.w.main(), nil
}

// stepOnce is steps 1 to 6 of the pipeline under the instance's lock.
func (r *Runtime) stepOnce(ctx context.Context, spec stepSpec) (stepped, error) {
	unlock := r.locks.lock(spec.id)
	defer unlock()
	// The state is this step's own: taken out of the cache (or decoded, or
	// new), it goes back only after the commit succeeded, so a failure
	// anywhere below never leaves a half-changed state behind.
	row, st, proc, whole, cached, err := r.stepInput(ctx, spec)
	if err != nil || st == nil {
		return stepped{w: &work{}}, err
	}
	now := r.now().UTC()
	if spec.creates() {
		row.CreatedAt = now
	}
	// The job the event acts on is read before Apply: a completed job is
	// gone after it.
	status, before, job := st.Status, st.NextWait, jobActOf(spec.ev, st)
	next, fx, err := engine.Apply(proc, st, spec.ev, now, r.engine) // st is this step's own: no copy needed
	if err != nil {
		if cached && r.movedOn(ctx, row) {
			// The wait acted on may be one another node's step created
			// after this node cached the state: not a refusal yet.
			return stepped{}, fmt.Errorf("runtime: %s of %s refused on a cached state another node moved on: %w", spec.ev.Kind(), spec.id, ErrStale)
		}
		return stepped{}, spec.refusal(status, err)
	}
	w := &work{}
	if next, fx, err = r.settle(ctx, w, proc, row.BusinessKey, next, fx, now); err != nil {
		return stepped{}, err
	}
	if next, fx, err = r.settleBuffered(ctx, w, proc, row.BusinessKey, next, fx, now, before); err != nil {
		return stepped{}, err
	}
	if spec.version > 0 {
		row.ProcessVersion = spec.version
	}
	if err := r.commitStep(ctx, spec, w, row, next, fx, now, whole); err != nil {
		return stepped{}, err
	}
	if spec.view != nil {
		*spec.view = startedView(proc, w, next)
	}
	r.states.put(w.recs[0].Instance, next)
	return stepped{w: w, status: next.Status, job: job}, nil
}

// stepInput is step 2: the row and state a step starts from and the model
// it applies. A nil state (and nil error) means the spec found nothing to
// do; whole reports a state to record whole (new, or stored legacy);
// cached, a state taken from the cache (acquire). A check that finds
// nothing to do, or fails, on a cached state another node moved on is
// ErrStale instead, so that it runs again on the store's state.
func (r *Runtime) stepInput(ctx context.Context, spec stepSpec) (row InstanceRow, st *engine.State, proc *bpmn.Process, whole, cached bool, err error) {
	if s := spec.start; spec.creates() {
		st := engine.NewState(string(spec.id), s.ref.Key, s.ref.Version)
		st.BusinessKey = s.businessKey
		row := InstanceRow{ID: spec.id, ProcessKey: s.ref.Key, ProcessVersion: s.ref.Version, BusinessKey: s.businessKey}
		return row, st, s.proc, true, false, nil
	}
	row, st, legacy, cached, err := r.acquire(ctx, spec.id)
	if err != nil {
		return InstanceRow{}, nil, nil, false, false, err
	}
	if spec.skip != nil {
		skip, err := spec.skip(row, st)
		if (skip || err != nil) && cached && r.movedOn(ctx, row) {
			return InstanceRow{}, nil, nil, false, false, fmt.Errorf("runtime: %s of %s checked on a cached state another node moved on: %w", spec.ev.Kind(), spec.id, ErrStale)
		}
		if skip || err != nil {
			r.release(row, st, legacy)
			return InstanceRow{}, nil, nil, false, false, err
		}
	}
	if row.Suspended && !runsSuspended(spec.ev) {
		if row, st, legacy, err = r.stillSuspended(ctx, row, st, legacy); err != nil {
			return InstanceRow{}, nil, nil, false, false, err
		}
		if row.Suspended {
			r.release(row, st, legacy)
			return InstanceRow{}, nil, nil, false, false, suspendedInstance(spec.id)
		}
	}
	proc = spec.proc
	if proc == nil {
		if proc, _, err = r.process(ctx, row.ProcessKey, row.ProcessVersion); err != nil {
			return InstanceRow{}, nil, nil, false, false, unreadableDefinition(row.ProcessKey, row.ProcessVersion, err)
		}
	}
	return row, st, proc, legacy, cached, nil
}

// runsSuspended reports the events a suspended instance still takes: its
// cancellation (suspend.go); every other step is refused.
func runsSuspended(ev engine.Event) bool {
	_, cancel := ev.(engine.Cancel)
	return cancel
}

// commitStep is steps 5 and 6: it records the stepped instance ahead of
// the children w holds and commits them together. The idempotency claim
// the step took goes back if the commit fails.
func (r *Runtime) commitStep(ctx context.Context, spec stepSpec, w *work, row InstanceRow, st *engine.State, fx engine.Effects, now time.Time, whole bool) error {
	prev := row.Revision
	if spec.creates() {
		prev = 0
	}
	rec, err := r.record(ctx, row, prev, st, fx, now, whole)
	if err != nil {
		return err
	}
	if spec.extra != nil {
		rec = withExtra(rec, spec.extra)
	}
	if err := r.traceJobs(ctx, spec, w, &rec); err != nil {
		return err
	}
	rec.MessageTakes = append(rec.MessageTakes, w.takes[spec.id]...)
	rec.Idempotency = takeClaim(ctx, spec.id)
	rec.LockGuard = spec.guard
	rec.CompletedTasks = completedTasks(ctx, spec.id, fx, now)
	w.prepend(rec, fx)
	if err := r.commit.commitIn(ctx, w.recs); err != nil {
		if rec.Idempotency != nil { // only the step that took the key gives it back
			returnClaim(ctx)
		}
		label := spec.label
		if label == "" {
			label = spec.ev.Kind()
		}
		return fmt.Errorf("runtime: commit %s of %s: %w", label, spec.id, err)
	}
	return nil
}

// withExtra returns rec with what extra adds. It is apart from commitStep,
// and not inlined, so that the record of a step without extras stays on
// the stack (a pointer to it passed to a func value would move it).
//
//go:noinline
func withExtra(rec StepRecord, extra func(*StepRecord)) StepRecord {
	extra(&rec)
	return rec
}

// childStep is a launched child's first step inside its caller's command:
// Apply start, settle what it asks (its own children inherit its business
// key), and record it whole. Nothing commits here: the caller's runStep
// commits the child's record with its own. notice is the child's outcome
// when it ended at once, for the caller to take in the same step; an
// engine refusal of the start comes back as a childRefusal.
func (r *Runtime) childStep(ctx context.Context, w *work, proc *bpmn.Process, child *engine.State, start engine.Start, row InstanceRow, now time.Time) (rec StepRecord, fx engine.Effects, notice *engine.ChildEnded, err error) {
	next, fx, err := engine.Apply(proc, child, start, now, r.engine)
	if err != nil {
		return StepRecord{}, engine.Effects{}, nil, childRefusal{err}
	}
	if next, fx, err = r.settle(ctx, w, proc, child.BusinessKey, next, fx, now); err != nil {
		return StepRecord{}, engine.Effects{}, nil, err
	}
	if next, fx, err = r.settleBuffered(ctx, w, proc, child.BusinessKey, next, fx, now, 0); err != nil {
		return StepRecord{}, engine.Effects{}, nil, err
	}
	notice, fx.ParentNotice = fx.ParentNotice, nil // the caller continues with it, no outbox row tells it
	if rec, err = r.record(ctx, row, 0, next, fx, now, true); err != nil {
		return StepRecord{}, engine.Effects{}, nil, err
	}
	rec.MessageTakes = w.takes[InstanceID(next.InstanceID)]
	r.traceChildJobs(ctx, &rec)
	return rec, fx, notice, nil
}

// childRefusal is the engine's refusal of a child's start, which launch
// turns into the call's failure (not the step's).
type childRefusal struct{ err error }

func (c childRefusal) Error() string { return c.err.Error() }
func (c childRefusal) Unwrap() error { return c.err }

// settle answers what st's step asked of the registry (settleCalls: call
// activities and decisions), then refuses, before the step commits, the
// jobs it created with a dynamic type that its deployer may not create
// (their elements stop in incidents, so no worker ever sees them), and
// settles what those refusals asked for in turn. Only the pipeline calls
// it: runStep for the stepped instance, childStep for each child.
func (r *Runtime) settle(ctx context.Context, w *work, proc *bpmn.Process, businessKey string, st *engine.State, fx engine.Effects, now time.Time) (*engine.State, engine.Effects, error) {
	st, fx, err := r.settleCalls(ctx, w, proc, businessKey, st, fx, now)
	checked := map[string]bool{}
	for err == nil && r.reach != nil {
		var refusals []engine.Event
		if refusals, err = r.refusedJobs(ctx, proc, st, fx, checked); err != nil || len(refusals) == 0 {
			break
		}
		for _, ev := range refusals {
			next, more, aerr := engine.Apply(proc, st, ev, now, r.engine)
			if aerr != nil {
				return nil, fx, fmt.Errorf("runtime: %s in %s: %w", ev.Kind(), st.InstanceID, aerr)
			}
			st, fx = next, mergeEffects(fx, more)
		}
		st, fx, err = r.settleCalls(ctx, w, proc, businessKey, st, fx, now) // what the refusals asked for, if anything
	}
	if err != nil {
		return nil, fx, err
	}
	return st, fx, nil
}
