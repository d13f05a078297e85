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

// afterCommit runs once a step is durable: it wakes long-polling workers of
// new or re-enabled job types and the timer scheduler, terminates children
// whose call was withdrawn, hands an ended child's outcome to its caller,
// and broadcasts the signals the step threw.
func (r *Runtime) afterCommit(ctx context.Context, fx engine.Effects) {
	for _, w := range fx.Waits {
		switch w.Kind {
		case engine.WaitJob:
			r.jobReady.notify(w.Name)
		case engine.WaitTimer:
			r.wakeScheduler()
		}
	}
	ctx = context.WithoutCancel(ctx) // the cascade must not stop with the request
	for _, child := range fx.CancelChildren {
		_, err := r.step(ctx, InstanceID(child), engine.Cancel{Reason: "the calling activity was cancelled"}, nil)
		if err != nil && ErrorCode(err) != ENOTFOUND && ErrorCode(err) != ECONFLICT {
			r.log.Error("cancel cascade failed", "instance_id", child, "error", err)
		}
	}
	if n := fx.ParentNotice; n != nil {
		_, err := r.step(ctx, InstanceID(n.ParentID), *n, nil)
		if err != nil && ErrorCode(err) != ENOTFOUND && ErrorCode(err) != ECONFLICT {
			r.log.Error("handing a child's outcome to its caller failed", "instance_id", n.ParentID, "error", err)
		}
	}
	if len(fx.Signals) == 0 {
		return
	}
	ctx, c := withCascade(ctx)
	if c.depth >= maxSignalDepth {
		r.log.Warn("signal chain too deep; not broadcasting", "depth", c.depth)
		return
	}
	ctx = context.WithValue(ctx, signalCascadeKey{}, signalCascade{depth: c.depth + 1, budget: c.budget})
	for _, s := range fx.Signals {
		if c.budget.Add(-1) < 0 {
			r.log.Warn("signal cascade exceeded its budget; not broadcasting", "signal", s.Name, "broadcasts", maxSignalBroadcasts)
			return
		}
		if _, err := r.BroadcastSignal(ctx, s.Name, s.Variables); err != nil {
			r.log.Error("signal broadcast failed", "signal", s.Name, "error", err)
		}
	}
}
