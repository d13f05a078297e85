package engine

import (
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// Execution listeners (Camunda 8.6's zeebe:executionListener) run as
// jobs, one after another in document order, the element's track waiting
// on each listener's job (a WaitJob whose Listener is the event and
// ListenerIndex its place among the element's listeners of that event).
//
// Start listeners (bpmn.Node.StartListeners) run after an element's input
// mappings and before its behaviour, with no boundary event armed yet:
// the element has not started. A start listener's variables become
// local variables of the element (its io scope, opened for them when the
// element has none); after the last one the element's behaviour runs.
//
// End listeners (bpmn.Node.EndListeners) run after the element's
// behaviour completed and its output mappings applied, before it leaves:
// its boundary events are withdrawn and its io scope closed. An end
// listener's variables are set from the element's flow scope as an output
// mapping's are (propagated to the scope that holds them); after the last
// one the element takes its outgoing flows (an end event ends its track
// or throws what it throws).
//
// A failure counts down the listener's retries as any job's does; with
// none left an incident opens on the element, and retrying it makes the
// job activatable again (the listeners before it are not run again). A
// job type expression that fails raises an incident on the track; its
// retry runs the element's listeners of that event again from the first,
// as Camunda 8 does. A listener job cannot throw a BPMN error.

// listenersOf returns node n's execution listeners of event ev.
// A user task's task listeners of ev are the ones of that event among
// n.TaskListeners, in document order.
func listenersOf(n *bpmn.Node, ev bpmn.ListenerEvent) []bpmn.Listener {
	switch ev {
	case bpmn.ListenerEnd:
		return n.EndListeners
	case bpmn.ListenerStart:
		return n.StartListeners
	}
	var out []bpmn.Listener
	for _, l := range n.TaskListeners {
		if l.Event == ev {
			out = append(out, l)
		}
	}
	return out
}

// createListenerJob creates the job of listener i of event ev of node n,
// which track t is in.
func (x *executor) createListenerJob(t *Track, n *bpmn.Node, ev bpmn.ListenerEvent, i int) {
	l := listenersOf(n, ev)[i]
	typ := l.Type
	if l.TypeExpr != nil {
		fail := func(msg string) {
			x.incident(t, IncidentExpression, msg)
			if ev == bpmn.ListenerEnd {
				t.Done = true // a retry leaves the element again, not runs it
				x.markTrack(t)
			}
		}
		v, err := l.TypeExpr.Eval(x.view(t.Scope))
		if err != nil {
			fail(fmt.Sprintf("job type of %s execution listener %d of %s: %v", ev, i+1, n.ID, err))
			return
		}
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" {
			fail(fmt.Sprintf("job type of %s execution listener %d of %s: %s yields %s, not a non-empty string", ev, i+1, n.ID, l.TypeExpr.Source(), describeValue(v)))
			return
		}
		typ = s
	}
	w := x.newWait(t, WaitJob, n.ID)
	w.Name = typ
	w.Retries = l.Retries
	w.Listener, w.ListenerIndex = string(ev), i
	t.State = TrackWaiting
	x.fact(FactJobCreated, n.ID, t.Scope, t.ID, map[string]any{"jobKey": w.ID, "type": w.Name, "listenerEventType": w.Listener})
	if w.Retries <= 0 {
		x.openIncident(t, w.ID, IncidentJobFailed, "the execution listener's job was created with no retries")
	}
}

// endListened reports whether node n, which track t has completed (output
// mappings applied), has end listeners; if so, the first one's job is
// created and the element leaves when the last completes.
func (x *executor) endListened(t *Track, n *bpmn.Node) bool {
	if len(n.EndListeners) == 0 {
		return false
	}
	x.createListenerJob(t, n, bpmn.ListenerEnd, 0)
	return true
}

// listenerCompleted completes listener job w of the element track t
// waits in: a start listener's variables become the element's locals, an
// end listener's are set as an output mapping's; then the next listener
// runs, or, after the last, the element's behaviour (start) or its
// leaving (end).
func (x *executor) listenerCompleted(t *Track, w *Wait, vars map[string]any) error {
	n := x.node(t)
	if n == nil {
		return nil
	}
	ev := bpmn.ListenerEvent(w.Listener)
	if ev == bpmn.ListenerEnd {
		x.mergeVars(t, vars)
	} else if err := x.failureLocals(t, w, vars); err != nil {
		return fmt.Errorf("engine: complete execution listener job %s: %w", w.ID, err)
	}
	x.removeWait(w)
	t.State = TrackReady
	if next := w.ListenerIndex + 1; next < len(listenersOf(n, ev)) {
		x.createListenerJob(t, n, ev, next)
		return nil
	}
	switch {
	case ev != bpmn.ListenerEnd:
		x.behave(t, n)
	case n.Kind == bpmn.KindEndEvent:
		x.endEventThrow(t, n)
	default:
		x.leaveFlows(t, n)
	}
	return nil
}
