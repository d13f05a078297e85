package engine

import (
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
	"github.com/gobpm/gobpm/internal/timer"
)

// applyRunning fires a timer wait that is due.
func (e TimerFired) applyRunning(x *executor) error {
	w, _, err := x.openWait(e.WaitID, WaitTimer)
	if err != nil {
		return err
	}
	if x.now.Before(w.DueAt) {
		return fmt.Errorf("engine: timer %s is due at %s, not before: %w", w.ID, w.DueAt.Format(time.RFC3339Nano), ErrInvalidTransition)
	}
	x.fire(w, nil)
	return nil
}

// applyRunning fires the message subscription the message was
// correlated to, with its variables.
func (e MessageDelivered) applyRunning(x *executor) error {
	w, _, err := x.openWait(e.WaitID, WaitMessage)
	if err != nil {
		return err
	}
	x.fire(w, e.Variables)
	return nil
}

// applyRunning fires every signal subscription of the instance
// with the signal's name.
func (e SignalDelivered) applyRunning(x *executor) error {
	var hits []*Wait
	for _, w := range x.st.Waits {
		if w.Kind == WaitSignal && w.Name == e.Name {
			hits = append(hits, w)
		}
	}
	for _, w := range hits {
		if x.st.Wait(w.ID) != nil { // an earlier firing may have withdrawn it
			x.fire(w, e.Variables)
		}
	}
	return nil
}

// catchEvent parks a track on an intermediate catch event or receive task.
func (x *executor) catchEvent(t *Track, n *bpmn.Node) {
	if n.Kind == bpmn.KindReceiveTask && n.Event == nil {
		x.awaitTrigger(t, n)
		return
	}
	if n.Event == nil || n.Event.Kind == bpmn.TriggerLink {
		// A link catch is reached from its throw and passes straight on.
		x.complete(t, n)
		return
	}
	for _, ev := range n.Event.Triggers() {
		// A multiple catch waits for each of its definitions.
		if !x.subscribe(t, n, ev, false, false) {
			x.withdrawWaits(t) // those armed so far; the retry arms them again
			return
		}
	}
	t.State = TrackWaiting
	if n.Kind == bpmn.KindReceiveTask {
		x.armBoundaries(t, n)
	}
}

// subscribe creates the wait of a catching event definition for track t.
// It reports false when an incident was raised instead.
func (x *executor) subscribe(t *Track, n *bpmn.Node, ev *bpmn.EventDef, boundary, gateway bool) bool {
	s := t.Scope
	if boundary {
		// A boundary event belongs to the scope its activity sits in, not
		// to the activity's io scope (boundariesArmable evaluated it there).
		s = x.flowScope(t)
	}
	w, err := x.arm(s, n, ev, func() *Wait { return x.allocTrackWait("", n.ID, s, t.ID) })
	if err != nil {
		x.incident(t, IncidentTimer, err.Error())
		return false
	}
	if w != nil {
		w.Boundary, w.Gateway = boundary, gateway
	}
	return true
}

// arm creates the wait for a catching event definition ev of node n,
// evaluating expressions in scope s; alloc makes the (track or scope owned)
// wait. Errors and escalations need no wait (they are matched when thrown):
// arm returns nil for them.
func (x *executor) arm(s scope.ID, n *bpmn.Node, ev *bpmn.EventDef, alloc func() *Wait) (*Wait, error) {
	switch ev.Kind {
	case bpmn.TriggerTimer:
		due, spec, err := x.timerDue(s, ev.Timer)
		if err != nil {
			return nil, fmt.Errorf("timer of %s: %w", n.ID, err)
		}
		w := alloc()
		w.Kind = WaitTimer
		w.DueAt, w.TimerKind, w.TimerText = due, string(ev.Timer.Kind), spec
		x.fact(FactTimerArmed, n.ID, s, w.TrackID, map[string]any{"dueAt": due.Format(time.RFC3339Nano)})
		return w, nil
	case bpmn.TriggerMessage:
		key := ""
		if ev.CorrelationKey != nil {
			v, err := ev.CorrelationKey.Eval(x.view(s))
			if err != nil {
				return nil, fmt.Errorf("correlation key of %s: %w", n.ID, err)
			}
			key = keyText(v)
		}
		w := alloc()
		w.Kind = WaitMessage
		w.Name, w.CorrelationKey = ev.MessageName, key
		return w, nil
	case bpmn.TriggerSignal:
		w := alloc()
		w.Kind = WaitSignal
		w.Name = ev.SignalName
		return w, nil
	case bpmn.TriggerConditional:
		w := alloc()
		w.Kind = WaitCondition // evaluated when the step settles (evalConditions)
		return w, nil
	}
	return nil, nil
}

// timerDue computes the first due time of a timer definition armed now.
func (x *executor) timerDue(s scope.ID, def *bpmn.TimerDef) (time.Time, string, error) {
	text := def.Text
	if def.Expr != nil {
		v, err := def.Expr.Eval(x.view(s))
		if err != nil {
			return time.Time{}, "", err
		}
		str, ok := v.(string)
		if !ok {
			return time.Time{}, "", fmt.Errorf("expression %q yields %v, not a timer text", def.Expr.Source(), v)
		}
		text = str
	}
	spec, err := timer.Parse(timer.Kind(def.Kind), text)
	if err != nil {
		return time.Time{}, "", err
	}
	if floor := x.opts.MinTimerPeriod; def.Expr != nil && floor > 0 {
		// A literal was held to the floor at deployment; what an
		// expression yields is held to it now.
		if period, ok := spec.Period(); ok && period < floor {
			return time.Time{}, "", fmt.Errorf("timer %q fires every %v; the minimum timer period is %v (the timer floor)", text, period, floor)
		}
	}
	due, ok := spec.First(x.now)
	if !ok {
		return time.Time{}, "", fmt.Errorf("timer %q never fires", text)
	}
	return due, text, nil
}

// fire triggers a timer, message, signal or condition wait.
func (x *executor) fire(w *Wait, vars map[string]any) {
	if w.Handler {
		x.fireHandler(w, vars)
		return
	}
	t := x.st.Track(w.TrackID)
	n := x.proc.Node(w.NodeID)
	if t == nil || n == nil {
		return
	}
	x.markTrack(t)
	x.fx.Fired++
	detail := map[string]any{"kind": string(w.Kind), "waitId": w.ID}
	if w.Kind == WaitTrigger && x.by != "" {
		detail["by"] = x.by
	}
	x.fact(FactEventTriggered, n.ID, w.ScopeID, t.ID, detail)
	switch {
	case w.Boundary && n.Event.Kind == bpmn.TriggerParallelMultiple:
		// An interrupting parallel multiple boundary event (bpmn refuses a
		// non-interrupting one) fires once all its events occurred; each
		// wait it no longer has is an event that did.
		x.removeWait(w)
		x.mergeVars(t, vars)
		if !x.awaiting(t, n, true) {
			x.fireBoundary(t, w, n, nil)
		}
	case w.Boundary:
		x.fireBoundary(t, w, n, vars)
	case w.Gateway:
		// The first event wins: withdraw the others and run the chosen catch.
		x.withdrawWaits(t)
		t.Node, t.State, t.Via = n.ID, TrackReady, ""
		x.fact(FactElementActivated, n.ID, t.Scope, t.ID, map[string]any{"type": string(n.Kind)})
		x.runEvent(t, n, vars)
	default:
		x.removeWait(w)
		x.deliver(t, n, vars)
		// Only a payload is a change of its own; a conditional catch fired
		// by evalConditions itself brings none.
		if len(vars) > 0 && !x.stillActive(t, n) {
			return // a condition the payload satisfied interrupted the catch
		}
		if n.Event != nil && n.Event.Kind == bpmn.TriggerParallelMultiple && x.awaiting(t, n, false) {
			return // a parallel multiple catch waits for all its events
		}
		t.State = TrackReady
		x.complete(t, n)
	}
}

// awaiting reports whether track t still has a wait for node n (its
// boundary waits when boundary): a parallel multiple event whose other
// events have not all occurred.
func (x *executor) awaiting(t *Track, n *bpmn.Node, boundary bool) bool {
	for _, w := range x.st.trackWaits(t.ID) {
		if w.NodeID == n.ID && w.Boundary == boundary && (x.sw == nil || !x.sw.goneWaits[w]) {
			return true
		}
	}
	return false
}

// rearm schedules the next firing of a cycle timer or removes the wait.
func (x *executor) rearm(w *Wait) {
	w.Fired++
	if w.TimerKind == string(bpmn.TimerCycle) {
		if spec, err := timer.Parse(timer.KindCycle, w.TimerText); err == nil {
			if next, ok := spec.Next(x.now, w.Fired); ok {
				w.DueAt = next
				x.touch(w.ID)
				return
			}
		}
	}
	x.removeWait(w)
}
