package engine

import (
	"fmt"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/expr"
)

// leave takes the outgoing flows of a completed activity or event: every
// unconditional flow and every flow whose condition is true; the default
// flow when none of them is taken; no outgoing flow ends the track.
func (x *executor) leave(t *Track, n *bpmn.Node) {
	if n.Sub != nil && t.Child != "" && x.st.Scopes.Get(t.Child) != nil {
		// A retry after the sub-process's output mappings failed: its
		// drained scope is still open; complete it again.
		t.State = TrackInScope
		x.markTrack(t)
		x.completeScope(t.Child, "")
		return
	}
	entry := x.prepareEntry(t, n) // before the io scope closes: its snapshot
	if !x.leaveIO(t, n) {
		return
	}
	t.Inputs = nil // the activation's variables were the activity's own
	if t.Inner && n.Loop != nil {
		x.iterationDone(t, n, entry) // one iteration of a loop or multi-instance activity
		return
	}
	x.recordEntry(entry)
	if x.endListened(t, n) {
		return // it leaves when its last end listener completes
	}
	if r := x.innerOf(t, n); r != nil {
		x.innerCompleted(t, n, r) // an ad-hoc region asks its router
		return
	}
	x.leaveFlows(t, n)
}

// leaveFlows is leave without the ad-hoc hook. A link throw event has no
// outgoing flows: its token continues at its link catch event.
func (x *executor) leaveFlows(t *Track, n *bpmn.Node) {
	if n.LinkTarget != nil {
		x.followLink(t, n.LinkTarget)
		return
	}
	if len(n.Outgoing) == 0 {
		x.endTrack(t)
		return
	}
	if taken, ok := x.takenFlows(t, n, n.ID); ok {
		x.fork(t, taken)
	}
}

// takenFlows selects the outgoing flows of n a token takes: every flow
// without a condition and every flow whose condition is true, else the
// default flow. None (or a failing condition) raises an incident on t and
// reports false; what names n in the incident's message.
func (x *executor) takenFlows(t *Track, n *bpmn.Node, what string) ([]*bpmn.Flow, bool) {
	var taken []*bpmn.Flow
	for _, f := range n.Outgoing {
		if f == n.Default {
			continue
		}
		ok, failed := x.condition(t, n, f)
		if failed {
			return nil, false
		}
		if ok {
			taken = append(taken, f)
		}
	}
	if len(taken) == 0 && n.Default != nil {
		taken = []*bpmn.Flow{n.Default}
	}
	if len(taken) == 0 {
		x.incident(t, IncidentNoFlow, fmt.Sprintf("%s: no outgoing flow condition is true and there is no default flow", what))
		return nil, false
	}
	return taken, true
}

// fork moves t along the first flow and starts a new track on each other one.
// With no flows the track ends.
func (x *executor) fork(t *Track, flows []*bpmn.Flow) {
	if len(flows) == 0 {
		x.endTrack(t)
		return
	}
	x.move(t, flows[0])
	for _, f := range flows[1:] {
		x.newTrack(t.Scope, f.Target.ID, f.ID)
	}
}

// followLink moves t from a link throw event to its link catch event in
// the same scope, to execute within this step (and this step's budget: a
// loop of links without a wait state ends in a step-budget incident).
func (x *executor) followLink(t *Track, catch *bpmn.Node) {
	t.Node = catch.ID
	t.Via = ""
	t.State = TrackReady
	x.markTrack(t)
	x.queue = append(x.queue, t.ID)
}

func (x *executor) move(t *Track, f *bpmn.Flow) {
	t.Node = f.Target.ID
	t.Via = f.ID
	t.State = TrackReady
	x.markTrack(t)
	x.queue = append(x.queue, t.ID)
}

// condition evaluates a flow condition; failed reports an incident raised.
func (x *executor) condition(t *Track, n *bpmn.Node, f *bpmn.Flow) (ok, failed bool) {
	if f.Condition == nil {
		return true, false
	}
	v, err := expr.Condition(f.Condition, x.view(t.Scope))
	if err != nil {
		x.incident(t, IncidentExpression, fmt.Sprintf("condition of flow %s leaving %s: %v", f.ID, n.ID, err))
		return false, true
	}
	return v, false
}
