package engine

import (
	"testing"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// TestCallRefused checks the event the runtime sends for a call its
// call-tree budget has no room for: the call wait goes without a child to
// terminate, the call activity stops in an incident carrying the message,
// and retrying the incident asks for a fresh launch.
func TestCallRefused(t *testing.T) {
	t.Parallel()
	defs, err := bpmn.Parse([]byte(selfCall))
	if err != nil {
		t.Fatal(err)
	}
	p := defs.Processes[0]
	st, fx, err := Step(p, NewState("i1", p.ID, 1), Start{}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.Calls) != 1 || fx.Activations != 2 { // the start event and the call activity
		t.Fatalf("start: calls %+v, activations %d", fx.Calls, fx.Activations)
	}
	child := fx.Calls[0].ChildID

	const msg = "call-tree budget: call activity call was not launched: this step would launch more than 1000 instances"
	st, fx, err = Step(p, st, CallRefused{WaitID: child, Message: msg}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != StatusFailed || len(st.Incidents) != 1 {
		t.Fatalf("after the refusal: status %s, incidents %+v", st.Status, st.Incidents)
	}
	in := st.Incidents[0]
	if in.Kind != IncidentCallTreeBudget || in.NodeID != "call" || in.Message != msg {
		t.Errorf("incident %+v", in)
	}
	if st.Wait(child) != nil || len(fx.CancelChildren) != 0 || len(fx.Calls) != 0 {
		t.Errorf("the refused call left wait %v, cancelled %v, called %v", st.Wait(child), fx.CancelChildren, fx.Calls)
	}
	if _, _, err := Step(p, st, CallRefused{WaitID: child, Message: msg}, t0, Options{}); err == nil {
		t.Error("a second refusal of the same call was accepted")
	}

	st, fx, err = Step(p, st, IncidentRetried{IncidentID: in.ID}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != StatusRunning || len(st.Incidents) != 0 || len(fx.Calls) != 1 || fx.Calls[0].ChildID == child {
		t.Fatalf("after the retry: status %s, incidents %v, calls %+v", st.Status, st.Incidents, fx.Calls)
	}
	timers := 0
	for _, w := range st.Waits {
		if w.Kind == WaitTimer {
			timers++
		}
	}
	if timers != 1 {
		t.Errorf("%d boundary timers armed after the retry, want 1", timers)
	}
}
