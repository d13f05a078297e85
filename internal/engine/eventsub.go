package engine

import (
	"slices"
	"strconv"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/expr"
	"github.com/gobpm/gobpm/internal/scope"
)

// graphOf returns the graph that scope s runs: the process's for the root,
// else its container node's inner graph.
func (x *executor) graphOf(s scope.ID) *bpmn.Graph {
	if s == scope.RootID {
		return x.proc.Graph
	}
	sc := x.st.Scopes.Get(s)
	if sc == nil || sc.Kind != "" { // bodies and iterations run no graph of their own
		return nil
	}
	if n := x.proc.Node(sc.NodeID); n != nil {
		return n.Sub
	}
	return nil
}

// armScope arms the event sub-processes declared in scope s's graph
// (docs/scopes.md#boundary-events-and-event-sub-processes): timer, message, signal and conditional starts become waits
// owned by the scope; error and escalation starts are matched when thrown.
func (x *executor) armScope(s scope.ID) {
	g := x.graphOf(s)
	if g == nil {
		return
	}
	for _, esp := range g.EventSubs {
		if esp.Trigger == nil || esp.Trigger.Event == nil || esp.Trigger.Event.Kind == bpmn.TriggerCompensation {
			continue // a compensation event sub-process runs only when its sub-process is compensated
		}
		var err error
		for _, ev := range esp.Trigger.Event.Triggers() {
			if _, err = x.arm(s, esp, ev, func() *Wait {
				w := x.allocWait("", esp.ID, s)
				w.Handler = true
				return w
			}); err != nil {
				break
			}
		}
		if err != nil {
			x.scopeIncident(s, esp.ID, IncidentTimer, err.Error())
			continue
		}
		x.fact(FactHandlerArmed, esp.ID, s, "", map[string]any{"trigger": string(esp.Trigger.Event.Kind), "interrupting": esp.Interrupting})
	}
}

// disarmScope withdraws the event sub-process waits armed in scope s and
// resolves the incidents of handlers that could not be armed in it.
func (x *executor) disarmScope(s scope.ID) {
	var armed []*Wait
	if x.sw != nil {
		for _, w := range x.sw.handlers[s] {
			if !x.sw.goneWaits[w] {
				armed = append(armed, w)
			}
		}
	} else {
		for _, w := range x.st.Waits {
			if w.Handler && w.ScopeID == s {
				armed = append(armed, w)
			}
		}
	}
	for _, w := range armed {
		x.removeWait(w)
	}
	for _, in := range slices.Clone(x.st.Incidents) {
		if in.ScopeID == s && in.TrackID == "" && in.WaitID == "" {
			x.resolveIncidentID(in.ID, "handler disarmed")
		}
	}
}

// matchHandler returns the event sub-processes of scope s catching an error
// or escalation with code: one with exactly that code, and a catch-all.
// An interrupted scope's handlers are disarmed; the event sub-process skip
// (whose handler threw) does not catch.
func (x *executor) matchHandler(s scope.ID, kind bpmn.TriggerKind, code, skip string) (exact, all *bpmn.Node) {
	sc := x.st.Scopes.Get(s)
	g := x.graphOf(s)
	if sc == nil || g == nil || sc.Interrupted {
		return nil, nil
	}
	for _, esp := range g.EventSubs {
		if esp.ID == skip {
			continue
		}
		ex, any := catchesCode(esp.Trigger.Event, kind, code)
		if ex && exact == nil {
			exact = esp
		}
		if any && all == nil {
			all = esp
		}
	}
	return exact, all
}

// catchesCode reports whether the catching event definition ev (or one of
// its multiple definitions) catches an error or escalation of kind with
// code: exactly (the same code) or as a catch-all (no code).
func catchesCode(ev *bpmn.EventDef, kind bpmn.TriggerKind, code string) (exact, all bool) {
	for _, d := range ev.Triggers() {
		if d.Kind != kind {
			continue
		}
		if d.Code == code && code != "" {
			exact = true
		}
		if d.Code == "" {
			all = true
		}
	}
	return exact, all
}

// fireHandler runs the event sub-process a handler wait belongs to.
func (x *executor) fireHandler(w *Wait, vars map[string]any) {
	esp := x.proc.Node(w.NodeID)
	if esp == nil || x.st.Scopes.Get(w.ScopeID) == nil {
		x.removeWait(w)
		return
	}
	x.fx.Fired++
	if esp.Interrupting {
		x.interruptScope(w.ScopeID, esp)
	} else if w.Kind == WaitTimer {
		x.rearm(w) // a cycle fires again; a date or duration fires once
	}
	x.startHandler(w.ScopeID, esp, vars)
}

// interruptScope gives scope s to the interrupting event sub-process esp:
// every other track and nested scope (running handlers included) is
// cancelled, every handler of s is disarmed, and so is any boundary event on
// s's host waiting for the same event (one interrupting budget per event
// declaration). The scope's data stays.
func (x *executor) interruptScope(s scope.ID, esp *bpmn.Node) {
	sc := x.st.Scopes.Get(s)
	x.fact(FactScopeInterrupted, esp.ID, s, "", map[string]any{"handler": esp.ID})
	x.cancelInside(s, "handler "+esp.ID)
	x.disarmScope(s)
	sc.Interrupted = true
	x.st.Scopes.Touch(sc.ID)
	if s == scope.RootID {
		return
	}
	host := x.hostOf(s)
	if host == nil {
		return
	}
	ev := esp.Trigger.Event
	for _, w := range slices.Clone(x.st.Waits) {
		if w.Boundary && w.TrackID == host.ID && sameEvent(x.proc.Node(w.NodeID), ev) {
			x.removeWait(w)
		}
	}
}

// sameEvent reports whether boundary b listens to an event declaration ev
// listens to (any of their definitions, for multiple events).
func sameEvent(b *bpmn.Node, ev *bpmn.EventDef) bool {
	if b == nil {
		return false
	}
	for _, d := range b.Event.Triggers() {
		for _, e := range ev.Triggers() {
			if sameTrigger(d, e) {
				return true
			}
		}
	}
	return false
}

// sameTrigger reports whether two single event definitions catch the same event.
func sameTrigger(a, b *bpmn.EventDef) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case bpmn.TriggerMessage:
		return a.MessageName == b.MessageName
	case bpmn.TriggerSignal:
		return a.SignalName == b.SignalName
	}
	return true
}

// startHandler opens a fresh child scope of s for event sub-process esp and
// starts it at its trigger start event; a host track in s waits for it, so
// s drains only after the handler finished.
func (x *executor) startHandler(s scope.ID, esp *bpmn.Node, vars map[string]any) {
	host := x.newTrackAt(s, esp.ID)
	child, err := x.st.Scopes.Open(s, esp.ID, esp.Sub.DataNames)
	if err != nil {
		x.incident(host, IncidentUnknownModel, err.Error())
		return
	}
	host.State, host.Child = TrackInScope, child.ID
	x.markTrack(host)
	x.fact(FactHandlerFired, esp.ID, s, host.ID, map[string]any{"trigger": string(esp.Trigger.Event.Kind), "interrupting": esp.Interrupting})
	x.fact(FactScopeOpened, esp.ID, child.ID, host.ID, nil)
	if !localResults(esp.Trigger) {
		x.setVarsAt(child.ID, host, vars)
	}
	x.armScope(child.ID)
	t := x.newTrack(child.ID, esp.Trigger.ID, "")
	if localResults(esp.Trigger) && x.enterIO(t, esp.Trigger) {
		x.deliver(t, esp.Trigger, vars) // only the start event's mapped values reach the handler
	}
}

// setVarsAt writes variables by the write rule (docs/scopes.md#variables)
// from scope s.
func (x *executor) setVarsAt(s scope.ID, by *Track, vars map[string]any) {
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		at, err := x.st.Scopes.Set(s, k, vars[k])
		if err == nil {
			x.fact(FactVariableSet, by.Node, at, by.ID, map[string]any{"name": k})
		}
	}
}

// scopeIncident opens an incident that belongs to a scope, not a track
// (a handler that could not be armed). Retrying it only resolves it.
func (x *executor) scopeIncident(s scope.ID, node, kind, msg string) {
	x.st.NextIncident++
	in := &Incident{ID: x.st.InstanceID + "-i" + strconv.Itoa(x.st.NextIncident), NodeID: node, ScopeID: s, Kind: kind, Message: msg, At: x.now}
	x.st.Incidents = append(x.st.Incidents, in)
	x.markIncident(in)
	x.fx.Incidents = append(x.fx.Incidents, *in)
	x.fact(FactIncidentCreated, node, s, "", map[string]any{"incidentId": in.ID, "kind": kind, "message": msg})
}

// maxConditionRounds bounds how often conditions may fire in one step.
const maxConditionRounds = 100

// evalConditions evaluates every conditional event wait and fires those
// whose condition turned from false to true. It reports whether any fired.
// A condition that fails to evaluate counts as false.
func (x *executor) evalConditions() bool {
	if !x.proc.HasConditionalEvents() {
		return false // nothing to evaluate: a step over n waits must not scan them
	}
	fired := false
	for _, w := range slices.Clone(x.st.Waits) {
		if w.Kind != WaitCondition || x.st.Wait(w.ID) == nil {
			continue
		}
		cond := conditionOf(x.proc.Node(w.NodeID))
		if cond == nil {
			continue
		}
		v, err := expr.Condition(cond, x.view(w.ScopeID))
		holds := err == nil && v
		switch {
		case holds && !w.Holds:
			w.Holds = true
			x.touch(w.ID)
			x.fire(w, nil)
			fired = true
		case !holds && w.Holds:
			w.Holds = false
			x.touch(w.ID)
		}
	}
	return fired
}

// conditionOf returns the condition of a conditional catch, boundary or
// event sub-process node.
func conditionOf(n *bpmn.Node) expr.Expression {
	if n == nil {
		return nil
	}
	ev := n.Event
	if n.TriggeredByEvent && n.Trigger != nil {
		ev = n.Trigger.Event
	}
	if c := ev.Find(bpmn.TriggerConditional); c != nil {
		return c.Condition // a multiple event holds at most one (bpmn)
	}
	return nil
}

// stillActive applies the rule of conditional events to a change of
// variables made by the activity (or catch event) n that track t is
// completing — the variables a job, a user task or a message completed it
// with, a script's result: the armed conditions are evaluated after the
// change and before n completes, as Camunda 7 evaluates them on the
// variable change itself. It reports whether t still runs n: false when
// an interrupting conditional event cancelled it (a boundary on n or on an
// enclosing sub-process, or an interrupting event sub-process of an
// enclosing scope); the completion is then void, and n neither leaves by
// its flows nor applies its output mappings. A non-interrupting event
// fires and n completes as well.
func (x *executor) stillActive(t *Track, n *bpmn.Node) bool {
	if !x.varsChanged || !x.proc.HasConditionalEvents() {
		return true
	}
	x.varsChanged = false
	x.evalConditions()
	return n != nil && x.st.Track(t.ID) == t && t.Node == n.ID
}

// settle runs the ready tracks, then fires conditions that turned true and
// runs again, until nothing changes (bounded).
func (x *executor) settle() {
	x.run()
	for i := 0; i < maxConditionRounds && !x.st.Ended(); i++ {
		if !x.evalConditions() {
			return
		}
		x.run()
	}
}
