package engine

import (
	"fmt"
	"slices"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

// applyTo starts the instance: the variables become the root scope's, the
// root scope's handlers are armed, and a track starts at the None start
// events (or at the event start e names).
func (e Start) applyTo(x *executor) error {
	if x.st.NextFact != 0 || len(x.st.Tracks) != 0 {
		return fmt.Errorf("engine: start instance %s: already started: %w", x.st.InstanceID, ErrInvalidTransition)
	}
	if e.StartNode == "" {
		n, err := DirectStart(x.proc)
		if err != nil {
			return fmt.Errorf("engine: start instance %s: %w: %w", x.st.InstanceID, err, ErrInvalidTransition)
		}
		if n != nil {
			e.StartNode = n.ID
		}
	}
	root := x.st.Scopes.Get(scope.RootID)
	x.st.Scopes.Touch(scope.RootID)
	root.Vars = scope.CloneVars(e.Variables)
	var payload map[string]any
	if n := x.proc.Node(e.StartNode); e.StartNode != "" && n != nil && localResults(n) {
		// A triggered start with Zeebe-style outputs: its payload is
		// the start event's result, and only the mapped values reach
		// the instance.
		payload, root.Vars = root.Vars, nil
	}
	if root.Vars == nil {
		root.Vars = map[string]any{}
	}
	for _, name := range x.proc.Graph.DataNames {
		if _, ok := root.Vars[name]; !ok {
			root.Vars[name] = nil
		}
	}
	started := map[string]any{"processKey": x.st.ProcessKey, "version": x.st.ProcessVersion}
	if x.st.Parent != nil {
		started["parentId"], started["parentNodeId"] = x.st.Parent.InstanceID, x.st.Parent.NodeID
	}
	x.fact(FactInstanceStarted, "", scope.RootID, "", started)
	if e.StartNode != "" {
		n := x.proc.Node(e.StartNode)
		if n == nil || !slices.Contains(x.proc.EventStarts, n) {
			return fmt.Errorf("engine: start instance %s at %q: not an event start of %s: %w", x.st.InstanceID, e.StartNode, x.proc.ID, ErrInvalidTransition)
		}
		x.armScope(scope.RootID)
		if n.Kind != bpmn.KindStartEvent {
			x.instantiateAt(n, payload)
			return nil
		}
		t := x.newTrack(scope.RootID, n.ID, "")
		if payload != nil && x.enterIO(t, n) {
			x.deliver(t, n, payload)
		}
		return nil
	}
	x.armScope(scope.RootID)
	x.seed(x.proc.Graph, scope.RootID)
	x.checkDrain(scope.RootID)
	return nil
}

// applyTo cancels the instance: every track and scope inside the root is
// cancelled, every incident resolved.
func (e Cancel) applyTo(x *executor) error {
	if x.st.Ended() {
		return fmt.Errorf("engine: cancel instance %s: status is %s: %w", x.st.InstanceID, x.st.Status, ErrInvalidTransition)
	}
	x.by = e.By
	x.cancelScope(scope.RootID, "instance cancelled")
	for _, in := range x.st.Incidents {
		x.resolveIncident(in, "instance cancelled")
	}
	x.st.Incidents = nil
	x.st.Status = StatusTerminated
	detail := map[string]any{}
	if e.Reason != "" {
		detail["reason"] = e.Reason
	}
	if e.By != "" {
		detail["by"] = e.By
	}
	x.fact(FactInstanceTerminated, "", scope.RootID, "", detail)
	return nil
}

// applyTo queues the ready tracks of a state loaded from a checkpoint.
func (Resume) applyTo(x *executor) error {
	if x.st.Ended() {
		return fmt.Errorf("engine: resume instance %s: status is %s: %w", x.st.InstanceID, x.st.Status, ErrInvalidTransition)
	}
	for _, t := range x.st.Tracks {
		if t.State == TrackReady {
			x.queue = append(x.queue, t.ID)
		}
	}
	return nil
}

// instantiateAt starts the instance at n, the catch event after an
// instantiating event-based gateway or an instantiating receive task,
// whose event just occurred: the gateway (if any) is passed, and n
// completes with the event's payload (nil when it went to the root scope).
func (x *executor) instantiateAt(n *bpmn.Node, payload map[string]any) {
	at := n.ID
	if len(n.Incoming) == 1 && n.Incoming[0].Source.Kind == bpmn.KindEventBasedGateway {
		at = n.Incoming[0].Source.ID // the gateway; an instantiating receive task has no incoming flow
	}
	t := x.newTrackAt(scope.RootID, at)
	if at != n.ID {
		x.fact(FactElementActivated, at, t.Scope, t.ID, map[string]any{"type": string(bpmn.KindEventBasedGateway)})
		x.fact(FactElementCompleted, at, t.Scope, t.ID, nil)
		t.Node = n.ID
	}
	x.fact(FactElementActivated, n.ID, t.Scope, t.ID, map[string]any{"type": string(n.Kind)})
	x.runEvent(t, n, payload)
}

func (x *executor) settleStatus() {
	if x.st.Ended() {
		return
	}
	if len(x.st.Incidents) > 0 {
		x.st.Status = StatusFailed
	} else {
		x.st.Status = StatusRunning
	}
}
