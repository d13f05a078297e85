package runtime

import (
	"context"

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

// signalDepthKey bounds signal chains (a signal whose catch throws a signal …).
type signalDepthKey struct{}

const maxSignalDepth = 16

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
	depth, _ := ctx.Value(signalDepthKey{}).(int)
	if depth >= maxSignalDepth {
		r.log.Warn("signal chain too deep; not broadcasting", "depth", depth)
		return
	}
	ctx = context.WithValue(ctx, signalDepthKey{}, depth+1)
	for _, s := range fx.Signals {
		if _, err := r.BroadcastSignal(ctx, s.Name, s.Variables); err != nil {
			r.log.Error("signal broadcast failed", "signal", s.Name, "error", err)
		}
	}
}
