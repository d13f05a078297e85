package engine

import (
	"fmt"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// boundariesArmable evaluates the timers and correlation keys of the
// boundary events of activity n before track t starts it, so that a
// boundary that cannot be armed stops the activity in an incident before it
// created anything (a job, a task, a child, a seeded scope): the retry then
// starts it once. armBoundaries evaluates the same expressions on the same
// data later in the step.
func (x *executor) boundariesArmable(t *Track, n *bpmn.Node) bool {
	if t.Inner {
		return true // a loop's boundary events guard the body, armed on its host
	}
	s := x.flowScope(t) // where armBoundaries evaluates them
	for _, b := range n.Boundaries {
		for _, ev := range b.Event.Triggers() {
			var err error
			switch ev.Kind {
			case bpmn.TriggerTimer:
				if _, _, err = x.timerDue(s, ev.Timer); err != nil {
					err = fmt.Errorf("timer of %s: %w", b.ID, err)
				}
			case bpmn.TriggerMessage:
				if ev.CorrelationKey != nil {
					if _, err = ev.CorrelationKey.Eval(x.view(s)); err != nil {
						err = fmt.Errorf("correlation key of %s: %w", b.ID, err)
					}
				}
			}
			if err != nil {
				x.incident(t, IncidentTimer, err.Error())
				return false
			}
		}
	}
	return true
}

// armBoundaries arms the timer, message and signal boundary events of the
// activity n that track t now executes.
func (x *executor) armBoundaries(t *Track, n *bpmn.Node) {
	if t.Inner {
		return // a loop's boundary events guard the body, armed on its host
	}
	for _, b := range n.Boundaries {
		for _, ev := range b.Event.Triggers() {
			switch ev.Kind {
			case bpmn.TriggerTimer, bpmn.TriggerMessage, bpmn.TriggerSignal, bpmn.TriggerConditional:
				if !x.subscribe(t, b, ev, true, false) {
					return
				}
			}
		}
	}
}

// fireBoundary runs a boundary event b of the activity hosted by track host.
func (x *executor) fireBoundary(host *Track, w *Wait, b *bpmn.Node, vars map[string]any) {
	if b.CancelActivity {
		x.interrupt(host, b)
		x.fact(FactElementActivated, b.ID, host.Scope, host.ID, map[string]any{"type": string(b.Kind)})
		x.runEvent(host, b, vars)
		return
	}
	// Non-interrupting: a timer cycle re-arms, a duration or date fires once;
	// message and signal boundaries stay armed while the activity runs.
	if w.Kind == WaitTimer {
		x.rearm(w)
	}
	t := x.newTrackAt(x.flowScope(host), b.ID)
	x.fact(FactElementActivated, b.ID, t.Scope, t.ID, map[string]any{"type": string(b.Kind)})
	x.runEvent(t, b, vars)
}

// interrupt cancels the activity of host for an interrupting boundary event
// b: its waits are withdrawn, a hosted scope is cancelled, and the track
// moves onto the boundary event.
func (x *executor) interrupt(host *Track, b *bpmn.Node) {
	x.stopActivity(host, "boundary "+b.ID, "activity interrupted", b.ID)
	host.Node, host.State, host.Via = b.ID, TrackReady, ""
}

// stopActivity ends the activity track t runs without completing it: its
// waits are withdrawn, its incident resolved (why), a hosted scope
// cancelled and an I/O scope left without outputs (cause), and an
// element-terminated fact names by. The track itself stays for the caller
// to move or remove.
func (x *executor) stopActivity(t *Track, cause, why, by string) {
	x.markTrack(t)
	x.withdrawWaits(t)
	if t.Incident != "" {
		x.resolveIncidentID(t.Incident, why)
		t.Incident = ""
	}
	t.Done = false
	if t.Child != "" {
		// A hosted scope, also while its host stops in an incident (a
		// loop condition or output mapping that failed).
		if x.st.Scopes.Get(t.Child) != nil {
			x.cancelScope(t.Child, cause)
		}
		t.Child = ""
	}
	if io := x.ioScope(t); io != nil {
		x.exitIO(t, io, cause) // its locals are discarded, no outputs
	}
	x.fact(FactElementTerminated, t.Node, t.Scope, t.ID, map[string]any{"by": by})
}
