package engine

import (
	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
	"strings"
)

// Handler kinds.
const (
	HandlerEventSubProcess = "event-subprocess"
	HandlerBoundary        = "boundary"
)

// Handler is an event handler armed on an open scope: an event sub-process
// declared in it, or a boundary event on its host sub-process.
type Handler struct {
	NodeID string
	Kind   string
	// Trigger is the event kind (message, timer, signal, error, escalation,
	// conditional; multiple or parallelMultiple for several definitions).
	Trigger string
	// Name is the message or signal name, the error or escalation code, the
	// timer text or the condition ("" = catch-all error/escalation); for
	// several definitions their names, comma-separated.
	Name         string
	Interrupting bool
}

// ArmedHandlers lists the handlers armed on every open scope of st. Timer,
// message, signal and conditional handlers are armed while their wait is
// open; error and escalation handlers while the scope can still catch.
func ArmedHandlers(p *bpmn.Process, st *State) map[scope.ID][]Handler {
	return ArmedHandlersOf(p, st, nil)
}

// ArmedHandlersOf is ArmedHandlers for the scopes ids only (every open
// scope when ids is nil), for a page of a large instance's scopes.
func ArmedHandlersOf(p *bpmn.Process, st *State, ids []scope.ID) map[scope.ID][]Handler {
	out := map[scope.ID][]Handler{}
	if st.Ended() {
		return out // nothing can fire in an ended instance
	}
	// Index the waits and hosts once: a view of n scopes costs O(n).
	type at struct{ node, owner string }
	handlerWaits, boundaryWaits := map[at]*Wait{}, map[at]*Wait{}
	for _, w := range st.Waits {
		if w.Handler {
			if k := (at{w.NodeID, string(w.ScopeID)}); handlerWaits[k] == nil {
				handlerWaits[k] = w
			}
		}
		if w.Boundary {
			if k := (at{w.NodeID, w.TrackID}); boundaryWaits[k] == nil {
				boundaryWaits[k] = w
			}
		}
	}
	hosts := map[scope.ID]*Track{}
	for _, t := range st.Tracks {
		if t.State == TrackInScope && t.Child != "" && !t.Inner {
			hosts[t.Child] = t
		}
	}
	scopes := make([]*scope.Scope, 0, len(ids))
	if ids == nil {
		scopes = st.Scopes.All()
	}
	for _, id := range ids {
		if sc := st.Scopes.Get(id); sc != nil {
			scopes = append(scopes, sc)
		}
	}
	for _, sc := range scopes {
		var g *bpmn.Graph
		if sc.ID == scope.RootID {
			g = p.Graph
		} else if n := p.Node(sc.NodeID); n != nil && sc.Kind == "" {
			g = n.Sub
		}
		if g != nil && !sc.Interrupted {
			for _, esp := range g.EventSubs {
				if esp.Trigger == nil || esp.Trigger.Event == nil {
					continue
				}
				ev := esp.Trigger.Event
				w := handlerWaits[at{esp.ID, string(sc.ID)}]
				if w == nil && ev.Kind != bpmn.TriggerError && ev.Kind != bpmn.TriggerEscalation {
					continue
				}
				out[sc.ID] = append(out[sc.ID], Handler{NodeID: esp.ID, Kind: HandlerEventSubProcess, Trigger: string(ev.Kind), Name: eventName(ev, w), Interrupting: esp.Interrupting})
			}
		}
		if sc.ID == scope.RootID {
			continue
		}
		host := hosts[sc.ID]
		hostNode := (*bpmn.Node)(nil)
		if host != nil {
			hostNode = p.Node(host.Node)
		}
		if hostNode == nil {
			continue
		}
		for _, b := range hostNode.Boundaries {
			if b.Event == nil {
				continue
			}
			w := boundaryWaits[at{b.ID, host.ID}]
			if w == nil && b.Event.Kind != bpmn.TriggerError && b.Event.Kind != bpmn.TriggerEscalation {
				continue
			}
			out[sc.ID] = append(out[sc.ID], Handler{NodeID: b.ID, Kind: HandlerBoundary, Trigger: string(b.Event.Kind), Name: eventName(b.Event, w), Interrupting: b.CancelActivity})
		}
	}
	return out
}

func eventName(ev *bpmn.EventDef, w *Wait) string {
	switch ev.Kind {
	case bpmn.TriggerMultiple, bpmn.TriggerParallelMultiple:
		var names []string
		for _, d := range ev.Multiple {
			if s := eventName(d, nil); s != "" {
				names = append(names, s)
			}
		}
		return strings.Join(names, ", ")
	case bpmn.TriggerMessage:
		return ev.MessageName
	case bpmn.TriggerSignal:
		return ev.SignalName
	case bpmn.TriggerError, bpmn.TriggerEscalation:
		return ev.Code
	case bpmn.TriggerTimer:
		if w != nil {
			return w.TimerText
		}
	case bpmn.TriggerConditional:
		if ev.Condition != nil {
			return ev.Condition.Source()
		}
	}
	return ""
}
