package engine

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// applyRunning retries an incident in the name of e.By.
func (e IncidentRetried) applyRunning(x *executor) error {
	x.by = e.By
	defer func() { x.by = "" }()
	return x.retryIncident(e)
}

// incident parks the track and opens an incident.
func (x *executor) incident(t *Track, kind, msg string) {
	x.st.NextIncident++
	in := &Incident{
		ID:      x.st.InstanceID + "-i" + strconv.Itoa(x.st.NextIncident),
		TrackID: t.ID, NodeID: t.Node, ScopeID: t.Scope,
		Kind: kind, Message: msg, At: x.now,
	}
	t.State = TrackIncident
	t.Incident = in.ID
	x.markTrack(t)
	x.st.Incidents = append(x.st.Incidents, in)
	x.markIncident(in)
	x.fx.Incidents = append(x.fx.Incidents, *in)
	x.fact(FactIncidentCreated, t.Node, t.Scope, t.ID, map[string]any{"incidentId": in.ID, "kind": kind, "message": msg})
}

// openIncident opens an incident about a wait (a job out of retries); the
// track keeps waiting.
func (x *executor) openIncident(t *Track, waitID, kind, msg string) {
	x.st.NextIncident++
	in := &Incident{ID: x.st.InstanceID + "-i" + strconv.Itoa(x.st.NextIncident), TrackID: t.ID, NodeID: t.Node, ScopeID: t.Scope, WaitID: waitID, Kind: kind, Message: msg, At: x.now}
	x.st.Incidents = append(x.st.Incidents, in)
	x.markIncident(in)
	x.fx.Incidents = append(x.fx.Incidents, *in)
	x.fact(FactIncidentCreated, t.Node, t.Scope, t.ID, map[string]any{"incidentId": in.ID, "kind": kind, "message": msg})
}

func (x *executor) resolveIncidentID(id, why string) {
	for i, in := range x.st.Incidents {
		if in.ID == id {
			x.resolveIncident(in, why)
			x.st.Incidents = append(x.st.Incidents[:i], x.st.Incidents[i+1:]...)
			return
		}
	}
}

func (x *executor) resolveIncident(in *Incident, why string) {
	x.markIncident(in) // it leaves the state
	in.Resolved = x.now
	x.fx.Incidents = append(x.fx.Incidents, *in)
	detail := map[string]any{"incidentId": in.ID, "reason": why}
	if x.by != "" {
		detail["by"] = x.by
	}
	x.fact(FactIncidentResolved, in.NodeID, in.ScopeID, in.TrackID, detail)
}

func (x *executor) retryIncident(e IncidentRetried) error {
	var in *Incident
	for _, o := range x.st.Incidents {
		if o.ID == e.IncidentID {
			in = o
		}
	}
	if in == nil {
		return fmt.Errorf("engine: retry incident %s: %w", e.IncidentID, ErrUnknownIncident)
	}
	if in.WaitID != "" {
		w := x.st.Wait(in.WaitID)
		if w == nil {
			return fmt.Errorf("engine: retry incident %s: job %s is gone: %w", in.ID, in.WaitID, ErrUnknownWait)
		}
		w.Retries = max(e.Retries, 1)
		w.DueAt = time.Time{}
		x.touch(w.ID)
		x.resolveIncidentID(in.ID, "retried")
		return nil
	}
	t := x.st.Track(in.TrackID)
	if t != nil {
		x.markTrack(t)
	}
	x.resolveIncidentID(in.ID, "retried")
	if in.TrackID == "" && in.Kind == IncidentRouter {
		x.retryRegion(in.ScopeID) // the region's router is asked again
		return nil
	}
	if t != nil && t.State == TrackIncident {
		t.Incident = ""
		if b := x.st.body(t.Child); b != nil && t.Child != "" {
			// A loop condition failed between iterations: the body is still
			// open, so the loop resumes where it stopped (entering the
			// activity again would leave this body behind).
			t.State = TrackInScope
			if n := x.proc.Node(b.NodeID); n != nil && n.Loop != nil && n.Loop.Standard && b.Active == 0 {
				x.nextLoop(b, n)
			}
			return nil
		}
		if t.Done {
			// The element had completed; what failed came after it (its
			// output mappings, a completion condition, a router).
			t.Done, t.State = false, TrackReady
			if n := x.proc.Node(t.Node); n != nil && !x.entryPending(t, n) {
				x.skipEntry = t.ID // its compensation entry was recorded when it completed
			}
			if n := x.proc.Node(t.Node); n != nil && n.Kind == bpmn.KindEndEvent {
				x.finishEndEvent(t, n)
			} else if n != nil {
				x.leave(t, n)
			}
			return nil
		}
		// The activity runs again from its start: the waits of the failed
		// attempt (boundary events still armed, gateway subscriptions) go,
		// it arms its own again.
		x.withdrawWaits(t)
		t.State = TrackReady
		x.queue = append(x.queue, t.ID)
	}
	return nil
}
