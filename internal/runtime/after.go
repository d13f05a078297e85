package runtime

import (
	"context"
	"sync/atomic"

	"github.com/gobpm/gobpm/internal/engine"
)

// waitRow turns an engine wait into the row the store keeps for queries.
func waitRow(inst InstanceRow, w engine.Wait) WaitRow {
	return WaitRow{
		ID: w.ID, InstanceID: inst.ID, Kind: string(w.Kind), NodeID: w.NodeID, ScopeID: string(w.ScopeID), TrackID: w.TrackID,
		ProcessKey: inst.ProcessKey, ProcessVersion: inst.ProcessVersion,
		Name: w.Name, CorrelationKey: w.CorrelationKey, DueAt: w.DueAt, Retries: w.Retries, ErrorMessage: w.ErrorMessage,
		Assignee: w.Assignee, CandidateUsers: w.CandidateUsers, CandidateGroups: w.CandidateGroups, CreatedAt: w.CreatedAt,
	}
}

// signalCascadeKey carries the signalCascade of a command through its
// after-commit work.
type signalCascadeKey struct{}

// signalCascade bounds the signals one command sets off (a signal whose
// catch throws a signal …): each chain in depth, and the whole cascade in
// broadcasts, since fan-out compounds per level (two processes that each
// start on a signal and throw it again would double at every level).
type signalCascade struct {
	depth  int
	budget *atomic.Int64 // broadcasts left, shared by the whole cascade
}

const (
	maxSignalDepth      = 16
	maxSignalBroadcasts = 256
)

// withCascade returns ctx carrying a signal cascade: the one it has, or a
// new one with the full budget.
func withCascade(ctx context.Context) (context.Context, signalCascade) {
	if c, ok := ctx.Value(signalCascadeKey{}).(signalCascade); ok {
		return ctx, c
	}
	c := signalCascade{budget: new(atomic.Int64)}
	c.budget.Store(maxSignalBroadcasts)
	return context.WithValue(ctx, signalCascadeKey{}, c), c
}

// afterCommit runs once a step is durable: it tells live views what
// changed (changes.go), wakes long-polling workers of
// new or re-enabled job types and the timer scheduler, then performs the
// step's outbox rows as committed (outbox.go): terminates children whose
// call was withdrawn, hands an ended child's outcome to its caller, and
// broadcasts the signals the step threw. A row whose work fails stays for
// the scheduler's retry.
func (r *Runtime) afterCommit(ctx context.Context, rec StepRecord, fx engine.Effects) {
	r.changes.publish(&rec)
	for _, w := range fx.Waits {
		switch w.Kind {
		case engine.WaitJob:
			r.jobReady.notify(w.Name)
		case engine.WaitTimer:
			r.wakeScheduler()
		}
	}
	ctx = context.WithoutCancel(ctx) // the cascade must not stop with the request
	for _, row := range rec.Outbox {
		r.performOutbox(ctx, row)
	}
}

// wakeups keeps of a step's effects only what afterCommit reads besides
// the record: the job and timer waits it wakes workers and the scheduler
// for. A command keeps the effects of every child it launches until it
// commits; their records hold the rest, so it need not hold each child's
// facts and waits twice (calltree.go). Keep it in step with afterCommit.
func wakeups(fx engine.Effects) engine.Effects {
	var waits []engine.Wait
	for _, w := range fx.Waits {
		if w.Kind == engine.WaitJob || w.Kind == engine.WaitTimer {
			waits = append(waits, engine.Wait{Kind: w.Kind, Name: w.Name})
		}
	}
	return engine.Effects{Waits: waits}
}
