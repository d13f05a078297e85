package engine

import (
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// Execution listeners (bpmn.Node.StartListeners, Camunda 8.6's
// zeebe:executionListener eventType="start") run as jobs: after an
// element's input mappings, before its behaviour, one after another in
// document order. The element's track waits on each listener's job (a
// WaitJob whose Listener is "start" and ListenerIndex its place), with
// no boundary event armed yet: the element has not started. Completing
// the job writes its variables as local variables of the element (its io
// scope, opened for them when the element has none) and starts the next
// listener, or, after the last, the element's behaviour. A failure counts
// down the listener's retries as any job's does; with none left an
// incident opens on the element, and retrying it makes the job
// activatable again. A listener job cannot throw a BPMN error.

// createListenerJob creates the job of start listener i of node n, which
// track t has entered.
func (x *executor) createListenerJob(t *Track, n *bpmn.Node, i int) {
	l := n.StartListeners[i]
	typ := l.Type
	if l.TypeExpr != nil {
		v, err := l.TypeExpr.Eval(x.view(t.Scope))
		if err != nil {
			x.incident(t, IncidentExpression, fmt.Sprintf("job type of start execution listener %d of %s: %v", i+1, n.ID, err))
			return
		}
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" {
			x.incident(t, IncidentExpression, fmt.Sprintf("job type of start execution listener %d of %s: %s yields %s, not a non-empty string", i+1, n.ID, l.TypeExpr.Source(), describeValue(v)))
			return
		}
		typ = s
	}
	w := x.newWait(t, WaitJob, n.ID)
	w.Name = typ
	w.Retries = l.Retries
	w.Listener, w.ListenerIndex = string(bpmn.ListenerStart), i
	t.State = TrackWaiting
	x.fact(FactJobCreated, n.ID, t.Scope, t.ID, map[string]any{"jobKey": w.ID, "type": w.Name, "listenerEventType": w.Listener})
	if w.Retries <= 0 {
		x.openIncident(t, w.ID, IncidentJobFailed, "the execution listener's job was created with no retries")
	}
}

// listenerCompleted completes listener job w of the element track t
// waits in: its variables become the element's locals, then the next
// listener or the element's behaviour runs.
func (x *executor) listenerCompleted(t *Track, w *Wait, vars map[string]any) error {
	n := x.node(t)
	if n == nil {
		return nil
	}
	if err := x.failureLocals(t, w, vars); err != nil {
		return fmt.Errorf("engine: complete execution listener job %s: %w", w.ID, err)
	}
	x.removeWait(w)
	t.State = TrackReady
	if next := w.ListenerIndex + 1; next < len(n.StartListeners) {
		x.createListenerJob(t, n, next)
		return nil
	}
	x.behave(t, n)
	return nil
}
