package engine

import (
	"fmt"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

// throwError propagates a BPMN error from track t
// (docs/scopes.md#errors-and-escalations): first the
// error boundaries of t's activity (when atActivity), then scope by scope
// outward from scope from: an error event sub-process declared in the scope,
// or an error boundary on the scope's host sub-process. At one level a
// matching code beats a catch-all, and an event sub-process beats a boundary
// of the same rank. Uncaught → incident naming the code and the thrower.
func (x *executor) throwError(t *Track, from scope.ID, code, detail string, atActivity bool) {
	x.fact(FactErrorThrown, t.Node, t.Scope, t.ID, map[string]any{"errorCode": code, "message": detail})
	if atActivity && !t.Inner {
		if n := x.proc.Node(t.Node); n != nil {
			if b, _ := matchBoundary(n, bpmn.TriggerError, code); b != nil {
				x.interrupt(t, b)
				x.fact(FactElementActivated, b.ID, t.Scope, t.ID, map[string]any{"type": string(b.Kind)})
				x.runEvent(t, b, nil)
				return
			}
		}
	}
	if x.catchAtLevels(t, from, bpmn.TriggerError, code) {
		return
	}
	// Uncaught: a called child ends and hands the error to its caller;
	// otherwise the thrower stops in an incident naming the code.
	if x.st.Parent != nil {
		x.failInstance(code, fmt.Sprintf("BPMN error %q thrown at %s was not caught: %s", code, t.Node, detail))
		return
	}
	if x.st.Track(t.ID) == nil {
		return
	}
	msg := fmt.Sprintf("BPMN error %q thrown at %s was not caught: %s", code, t.Node, detail)
	if code == "" {
		msg = fmt.Sprintf("a BPMN error without code thrown at %s was not caught: %s", t.Node, detail)
	}
	x.incident(t, IncidentUnhandled, msg)
}

// throwEscalation propagates an escalation from track t outward like an
// error. A non-interrupting catch lets the thrower continue; an
// interrupting one cancels the scope (and the thrower with it). Uncaught
// escalation is recorded and is not a failure.
func (x *executor) throwEscalation(t *Track, code string) {
	x.fact(FactEscalationThrown, t.Node, t.Scope, t.ID, map[string]any{"escalationCode": code})
	if !x.catchAtLevels(t, t.Scope, bpmn.TriggerEscalation, code) {
		x.fact(FactEscalationUncaught, t.Node, t.Scope, t.ID, map[string]any{"escalationCode": code})
	}
}

// catchAtLevels walks the scope chain from scope from to the root looking
// for an event sub-process or host boundary catching an error or escalation
// thrown by t, and runs the first it finds. It reports whether one caught it.
func (x *executor) catchAtLevels(t *Track, from scope.ID, kind bpmn.TriggerKind, code string) bool {
	// skip is the event sub-process whose handler scope the walk just left:
	// an event a handler re-throws goes past it to the next level (a
	// handler absorbs what it catches; what it throws again is the next
	// level's), it never catches its own re-throw.
	skip := ""
	for s := from; s != ""; {
		sc := x.st.Scopes.Get(s)
		if sc == nil {
			return false
		}
		espExact, espAll := x.matchHandler(s, kind, code, skip)
		var host *Track
		var hostNode, bExact, bAll *bpmn.Node
		if s != scope.RootID {
			if host = x.hostOf(s); host != nil && !host.Inner { // an iteration's boundaries guard the body
				if hostNode = x.proc.Node(host.Node); hostNode != nil {
					if b, exact := matchBoundary(hostNode, kind, code); exact {
						bExact = b
					} else {
						bAll = b
					}
				}
			}
		}
		switch {
		case espExact != nil:
			x.catchByHandler(t, s, espExact)
			return true
		case bExact != nil:
			x.catchByBoundary(t, host, bExact)
			return true
		case espAll != nil:
			x.catchByHandler(t, s, espAll)
			return true
		case bAll != nil:
			x.catchByBoundary(t, host, bAll)
			return true
		}
		if s == scope.RootID {
			return false
		}
		skip = ""
		if n := x.proc.Node(sc.NodeID); n != nil && n.TriggeredByEvent && sc.Kind == "" {
			skip = n.ID
		}
		s = sc.Parent
	}
	return false
}

// catchByHandler runs event sub-process esp of scope s for an error or
// escalation thrown by t; an interrupting one cancels t with the scope.
func (x *executor) catchByHandler(t *Track, s scope.ID, esp *bpmn.Node) {
	if esp.Interrupting {
		x.interruptScope(s, esp)
	}
	x.startHandler(s, esp, nil)
}

// catchByBoundary runs boundary b of host for an error or escalation thrown
// inside host's scope by t.
func (x *executor) catchByBoundary(t *Track, host *Track, b *bpmn.Node) {
	if !b.CancelActivity {
		nt := x.newTrackAt(host.Scope, b.ID)
		x.fact(FactElementActivated, b.ID, nt.Scope, nt.ID, map[string]any{"type": string(b.Kind)})
		x.runEvent(nt, b, nil)
		return
	}
	if x.st.Track(t.ID) != nil && t != host {
		x.removeTrack(t)
	}
	x.interrupt(host, b)
	x.fact(FactElementActivated, b.ID, host.Scope, host.ID, map[string]any{"type": string(b.Kind)})
	x.runEvent(host, b, nil)
}

// matchBoundary returns the boundary event of activity n catching a trigger
// with the code: an exact code match first (exact), else a catch-all.
func matchBoundary(n *bpmn.Node, kind bpmn.TriggerKind, code string) (b *bpmn.Node, exact bool) {
	var all *bpmn.Node
	for _, c := range n.Boundaries {
		ex, any := catchesCode(c.Event, kind, code)
		if ex {
			return c, true
		}
		if any && all == nil {
			all = c
		}
	}
	return all, false
}
