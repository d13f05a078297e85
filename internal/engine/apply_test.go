package engine

import (
	"errors"
	"testing"
)

// strangeEvent is an Event of a type the engine has no handler for.
type strangeEvent struct{}

// Kind implements Event.
func (strangeEvent) Kind() string { return "strange" }

// TestApplyRefusesUnknownEvent pins the dispatch's answers for an event
// without a handler: on a running instance it is an invalid transition
// naming its type; on an ended one the status refusal comes first, as for
// every event but start, cancel and resume.
func TestApplyRefusesUnknownEvent(t *testing.T) {
	p := mustProcess(t, "retry_boundary_retry.bpmn")
	st, _ := mustStart(t, p, nil)
	_, _, err := Step(p, st, strangeEvent{}, t0, Options{})
	if !errors.Is(err, ErrInvalidTransition) || err.Error() != "engine: event engine.strangeEvent: invalid transition" {
		t.Fatalf("unknown event on a running instance: %v", err)
	}
	ended, _, err := Step(p, st, Cancel{}, t0, Options{})
	if err != nil {
		t.Fatalf("cancel: %v", err)
	}
	for _, ev := range []Event{strangeEvent{}, JobCompleted{Key: waitAt(t, st, WaitJob, "charge").ID}, Orphaned{}} {
		_, _, err := Step(p, ended, ev, t0, Options{})
		want := "engine: " + ev.Kind() + " on instance i1: status is terminated: invalid transition"
		if !errors.Is(err, ErrInvalidTransition) || err.Error() != want {
			t.Errorf("%s on an ended instance: %v, want %q", ev.Kind(), err, want)
		}
	}
	for _, c := range []struct {
		ev   Event
		want string
	}{
		{Cancel{}, "engine: cancel instance i1: status is terminated: invalid transition"},
		{Resume{}, "engine: resume instance i1: status is terminated: invalid transition"},
		{Start{}, "engine: start instance i1: already started: invalid transition"},
	} {
		if _, _, err := Step(p, ended, c.ev, t0, Options{}); err == nil || err.Error() != c.want {
			t.Errorf("%s on an ended instance: %v, want %q", c.ev.Kind(), err, c.want)
		}
	}
}
