package engine

import (
	"fmt"

	"github.com/gobpm/gobpm/internal/bpmn"
)

func (x *executor) exclusiveGateway(t *Track, n *bpmn.Node) {
	for _, f := range n.Outgoing {
		if f == n.Default {
			continue
		}
		ok, failed := x.condition(t, n, f)
		if failed {
			return
		}
		if ok {
			x.fact(FactElementCompleted, n.ID, t.Scope, t.ID, map[string]any{"flow": f.ID})
			x.move(t, f)
			return
		}
	}
	if n.Default != nil {
		x.fact(FactElementCompleted, n.ID, t.Scope, t.ID, map[string]any{"flow": n.Default.ID})
		x.move(t, n.Default)
		return
	}
	x.incident(t, IncidentNoFlow, fmt.Sprintf("exclusive gateway %s: no outgoing flow condition is true and there is no default flow", n.ID))
}

func (x *executor) parallelGateway(t *Track, n *bpmn.Node) {
	if len(n.Incoming) > 1 {
		t.State = TrackJoining
		x.markTrack(t)
		// One waiting track per incoming flow, the oldest first.
		arrived := map[string]*Track{}
		for _, o := range x.st.Tracks {
			if o.State == TrackJoining && o.Node == n.ID && o.Scope == t.Scope {
				if _, seen := arrived[o.Via]; !seen {
					arrived[o.Via] = o
				}
			}
		}
		for _, f := range n.Incoming {
			if arrived[f.ID] == nil {
				return // keep waiting
			}
		}
		// Fire: the tokens of all incoming flows merge into this track.
		for _, f := range n.Incoming {
			if o := arrived[f.ID]; o != t {
				x.removeTrack(o)
			}
		}
		t.State = TrackReady
	}
	x.fact(FactElementCompleted, n.ID, t.Scope, t.ID, nil)
	x.fork(t, n.Outgoing)
}

func (x *executor) eventGateway(t *Track, n *bpmn.Node) {
	t.State = TrackWaiting
	for _, f := range n.Outgoing {
		target := f.Target
		for _, ev := range target.Event.Triggers() {
			if !x.subscribe(t, target, ev, false, true) {
				return
			}
		}
	}
	x.fact(FactElementCompleted, n.ID, t.Scope, t.ID, nil)
}

func (x *executor) inclusiveGateway(t *Track, n *bpmn.Node) {
	if len(n.Incoming) > 1 {
		t.State = TrackJoining
		x.markTrack(t)
		return // fireInclusiveJoins decides when the queue is empty
	}
	x.inclusiveFork(t, n)
}

func (x *executor) inclusiveFork(t *Track, n *bpmn.Node) {
	if taken, ok := x.takenFlows(t, n, "inclusive gateway "+n.ID); ok {
		x.fact(FactElementCompleted, n.ID, t.Scope, t.ID, nil)
		x.fork(t, taken)
	}
}
