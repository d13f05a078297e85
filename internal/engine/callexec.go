package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

// chain returns the process keys from the top-level instance down to this one.
func (x *executor) chain() []string {
	if len(x.st.CallChain) > 0 {
		return slices.Clone(x.st.CallChain)
	}
	return []string{x.st.ProcessKey}
}

// callActivity parks t on a call wait and asks the runtime to launch the
// child (DESIGN §5.7). The wait's id becomes the child's instance id, so
// the caller's checkpoint records the awaited child from the first step.
func (x *executor) callActivity(t *Track, n *bpmn.Node) {
	if n.Call == nil {
		x.incident(t, IncidentUnknownModel, fmt.Sprintf("call activity %s has no called element", n.ID))
		return
	}
	chain := x.chain()
	if len(chain) >= x.opts.MaxCallDepth {
		x.incident(t, IncidentDepth, fmt.Sprintf("call activity %s would exceed the call depth of %d: %s → %s",
			n.ID, x.opts.MaxCallDepth, strings.Join(chain, " → "), n.Call.CalledElement))
		return
	}
	inputs := map[string]any{}
	var missing []string
	if n.Call.IO != nil {
		for _, in := range n.Call.IO.Inputs {
			if v, ok := x.st.Scopes.Lookup(t.Scope, in.Name); ok {
				inputs[in.Name] = scope.CloneValue(v)
			} else {
				missing = append(missing, in.Name)
			}
		}
	}
	w := x.newWait(t, WaitCall, n.ID)
	w.Name = n.Call.CalledElement
	t.State = TrackWaiting
	x.fx.Calls = append(x.fx.Calls, Call{ChildID: w.ID, NodeID: n.ID, Reference: n.Call.CalledElement, Version: n.Call.Version,
		Inputs: inputs, Missing: missing, Chain: chain})
	x.armBoundaries(t, n)
}

// applyCallEvent applies the events about a call activity's child.
func (x *executor) applyCallEvent(ev Event) error {
	switch e := ev.(type) {
	case CallStarted:
		w, t, err := x.openWait(e.WaitID, WaitCall)
		if err != nil {
			return err
		}
		x.fact(FactCallStarted, w.NodeID, w.ScopeID, t.ID, map[string]any{"childId": w.ID, "key": e.Key, "version": e.Version})
	case CallFailed:
		w, t, err := x.openWait(e.WaitID, WaitCall)
		if err != nil {
			return err
		}
		x.consumeWait(w)
		t.State = TrackReady
		x.throwError(t, t.Scope, e.Code, e.Message, true)
	case ChildEnded:
		w, t, err := x.openWait(e.WaitID, WaitCall)
		if err != nil {
			return err
		}
		x.consumeWait(w)
		x.fact(FactCallEnded, w.NodeID, w.ScopeID, t.ID, map[string]any{"childId": w.ID, "status": e.Status, "errorCode": e.ErrorCode})
		t.State = TrackReady
		switch e.Status {
		case StatusCompleted:
			x.mergeVars(t, e.Outputs)
			x.finishActivity(t, w)
		case StatusTerminated:
			x.throwError(t, t.Scope, CodeChildTerminated, fmt.Sprintf("called instance %s was terminated", w.ID), true)
		default:
			x.throwError(t, t.Scope, e.ErrorCode, fmt.Sprintf("called instance %s failed: %s", w.ID, e.ErrorMessage), true)
		}
	case ChildMissing:
		w, t, err := x.openWait(e.WaitID, WaitCall)
		if err != nil {
			return err
		}
		x.consumeWait(w)
		x.incident(t, IncidentChildMissing, fmt.Sprintf("the called instance %s awaited by %s is missing; it is not launched again", w.ID, w.NodeID))
	case Orphaned:
		if x.st.Ended() {
			return fmt.Errorf("engine: orphan instance %s: status is %s: %w", x.st.InstanceID, x.st.Status, ErrInvalidTransition)
		}
		parent := ""
		if x.st.Parent != nil {
			parent = x.st.Parent.InstanceID
		}
		x.failInstance("gobpm.call.orphaned", fmt.Sprintf("the calling instance %s is missing; a called instance never runs orphaned", parent))
	default:
		return fmt.Errorf("engine: event %T: %w", ev, ErrInvalidTransition)
	}
	return nil
}

// consumeWait removes a call wait whose child is done (or never started):
// unlike a withdrawal it does not terminate the child.
func (x *executor) consumeWait(w *Wait) {
	x.consumed = append(x.consumed, w.ID)
	x.removeWait(w)
}

// failInstance ends a called child that cannot handle an error: everything
// is cancelled and the error goes to the caller (DESIGN §5.7 outcomes).
func (x *executor) failInstance(code, msg string) {
	x.cancelScope(scope.RootID, "unhandled error "+code)
	for _, in := range slices.Clone(x.st.Incidents) {
		x.resolveIncidentID(in.ID, "instance failed")
	}
	x.st.Status = StatusFailed
	x.st.Failure = &Failure{Code: code, Message: msg}
	x.fact(FactInstanceFailed, "", scope.RootID, "", map[string]any{"errorCode": code, "message": msg})
}

// noticeParent hands a called child's outcome to its caller once it ended.
func (x *executor) noticeParent() {
	x.fx.ParentNotice = Outcome(x.proc, x.st)
}

// Outcome returns what an ended called child hands to its caller (nil for a
// top-level or still running instance): its status, the callee's declared
// outputs read from its root scope, or its uncaught error.
func Outcome(p *bpmn.Process, st *State) *ChildEnded {
	if st.Parent == nil || !st.Ended() {
		return nil
	}
	n := &ChildEnded{ParentID: st.Parent.InstanceID, WaitID: st.Parent.WaitID, Status: st.Status}
	switch {
	case st.Failure != nil:
		n.Status, n.ErrorCode, n.ErrorMessage = StatusFailed, st.Failure.Code, st.Failure.Message
	case st.Status == StatusCompleted:
		n.Outputs = map[string]any{}
		if p.IO != nil {
			for _, out := range p.IO.Outputs {
				v, _ := st.Scopes.Lookup(scope.RootID, out.Name)
				n.Outputs[out.Name] = scope.CloneValue(v)
			}
		}
	}
	return n
}
