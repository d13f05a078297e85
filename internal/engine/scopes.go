package engine

import (
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

func (x *executor) enterSubProcess(t *Track, n *bpmn.Node) {
	parent := x.st.Scopes.Get(t.Scope)
	if depth := strings.Count(parent.Path, "/"); parent.Path != "/" && depth >= x.opts.MaxScopeDepth {
		x.incident(t, IncidentDepth, fmt.Sprintf("sub-process %s would nest scopes deeper than %d (%s)", n.ID, x.opts.MaxScopeDepth, parent.Path))
		return
	}
	names, vals, ok := x.inputs(t, n, t.Scope)
	if !ok {
		return
	}
	child, err := x.st.Scopes.Open(t.Scope, n.ID, n.Sub.DataNames)
	if err != nil {
		x.incident(t, IncidentUnknownModel, err.Error())
		return
	}
	t.State = TrackInScope
	t.Child = child.ID
	x.markTrack(t)
	x.fact(FactScopeOpened, n.ID, child.ID, t.ID, nil)
	x.writeLocals(t, child, names, vals)
	x.writeActivation(t, child)
	x.armScope(child.ID) // inline handlers first: they see an event before the host's boundaries
	x.armBoundaries(t, n)
	x.seed(n.Sub, child.ID)
	x.checkDrain(child.ID)
}

// seed puts a new ready track on every start node of g inside scope s.
func (x *executor) seed(g *bpmn.Graph, s scope.ID) {
	for _, start := range g.Starts {
		x.newTrack(s, start.ID, "")
	}
}

// checkDrain completes scope s when no track and no child scope remains in it.
func (x *executor) checkDrain(s scope.ID) {
	if x.st.Ended() || x.st.Scopes.Get(s) == nil {
		return
	}
	if x.tracksIn(s) > 0 {
		return
	}
	if len(x.st.Scopes.Children(s)) > 0 {
		return
	}
	if r := x.st.region(s); r != nil && x.regionHolds(r) {
		return // a manual ad-hoc region waits on its offer, a job router on its worker, a failed router on an operator
	}
	x.completeScope(s, "")
}

// completeScope closes a drained (or terminated) scope and continues its host.
func (x *executor) completeScope(s scope.ID, reason string) {
	x.disarmScope(s)
	x.closeRegion(s, "drained")
	x.closeBody(s)
	x.bodyCompleted(s) // a loop or multi-instance activity's iterations become compensable
	if sc := x.st.Scopes.Get(s); sc != nil && sc.Kind == scopeKindCompensating {
		x.handlerDone(sc)
		return
	} else if sc != nil && sc.Kind == scopeKindCompensation {
		x.nextEntry(s)
		return
	}
	if s == scope.RootID {
		for _, e := range x.st.Entries {
			x.markEntry(e) // nothing can compensate them any more
		}
		x.st.Entries = nil
		x.st.Status = StatusCompleted
		detail := map[string]any{}
		if reason != "" {
			detail["reason"] = reason
		}
		x.fact(FactInstanceCompleted, "", scope.RootID, "", detail)
		return
	}
	sc := x.st.Scopes.Get(s)
	host := x.hostOf(s)
	if host != nil && sc.Kind == "" {
		// A sub-process's output mappings read its scope before it closes.
		if n := x.proc.Node(sc.NodeID); n != nil && n.Mappings != nil && !x.outputs(host, n, s, host.Scope) {
			return // the host stops in an incident; its retry completes s again
		}
	}
	detail := map[string]any{}
	if reason != "" {
		detail["reason"] = reason
	}
	x.fact(FactScopeClosed, sc.NodeID, s, "", detail)
	if n := x.proc.Node(sc.NodeID); n != nil && n.TriggeredByEvent && n.Trigger != nil && n.Trigger.Event != nil {
		if k := n.Trigger.Event.Kind; k == bpmn.TriggerError || k == bpmn.TriggerEscalation {
			x.fact(FactEventAbsorbed, n.ID, sc.Parent, "", map[string]any{"trigger": string(k), "code": n.Trigger.Event.Code})
		}
	}
	if n := x.proc.Node(sc.NodeID); host != nil && sc.Kind == "" && n != nil && n.Sub != nil && !n.TriggeredByEvent {
		// Its entries become the inner entries of the one its host records.
		if x.closing == nil {
			x.closing = map[string]closedSub{}
		}
		x.closing[host.ID] = closedSub{id: s, vars: scope.CloneVars(sc.Vars)}
	} else {
		x.dropEntries(s)
	}
	x.st.Scopes.Close(s)
	if host == nil {
		return // cannot happen for a consistent state: a scope always has a host track
	}
	host.Child = ""
	host.State = TrackReady
	x.markTrack(host)
	n := x.node(host)
	if n == nil {
		return
	}
	x.complete(host, n)
}

// hostOf returns the track waiting on scope s.
func (x *executor) hostOf(s scope.ID) *Track {
	for _, t := range x.st.Tracks {
		if t.State == TrackInScope && t.Child == s {
			return t
		}
	}
	return nil
}

// terminateScope ends scope s by a terminate end event reached by track by:
// every other track and nested scope inside is cancelled, then s completes.
func (x *executor) terminateScope(s scope.ID, by *Track) {
	x.removeTrack(by)
	x.cancelInside(s, "terminate end event "+by.Node)
	x.completeScope(s, "terminate end event "+by.Node)
}

// cancelScope cancels every track and nested scope inside s and s itself,
// disarming their handlers; cause names why (boundary, terminate, handler,
// instance cancel) in the scope-cancelled facts. The root scope stays (its
// variables remain visible).
func (x *executor) cancelScope(s scope.ID, cause string) {
	if x.beginSweep() {
		defer x.endSweep()
	}
	x.cancelInside(s, cause)
	x.disarmScope(s)
	x.closeRegion(s, "cancelled: "+cause)
	x.closeBody(s)
	x.dropEntries(s)
	x.releaseEntries(s)
	if s != scope.RootID {
		sc := x.st.Scopes.Get(s)
		x.fact(FactScopeCancelled, sc.NodeID, s, "", map[string]any{"cause": cause})
		x.st.Scopes.Close(s)
	}
}

// cancelInside terminates every track inside s (recursively through nested
// scopes, innermost first) and closes the nested scopes.
func (x *executor) cancelInside(s scope.ID, cause string) {
	if x.beginSweep() {
		defer x.endSweep()
	}
	for _, c := range x.st.Scopes.Children(s) {
		x.cancelScope(c.ID, cause)
	}
	for _, t := range x.sw.tracks[s] {
		if x.sw.goneTracks[t] {
			continue
		}
		x.fact(FactElementTerminated, t.Node, t.Scope, t.ID, nil)
		x.markTrack(t)
		x.withdrawWaits(t)
		if t.Incident != "" {
			x.resolveIncidentID(t.Incident, "element terminated")
		}
		x.sw.goneTracks[t] = true
	}
}
