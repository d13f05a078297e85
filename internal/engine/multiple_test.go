package engine

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// waitsOn counts the open waits on a node.
func waitsOn(st *State, node string) int {
	n := 0
	for _, w := range st.Waits {
		if w.NodeID == node {
			n++
		}
	}
	return n
}

func TestMultipleCatchFiresOnTheFirstEvent(t *testing.T) {
	t.Parallel()
	const file = "multiple_catch.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	if waitsOn(st, "anyOf") != 3 || waitsOn(st, "allOf") != 3 {
		t.Fatalf("waits %+v", st.Waits)
	}
	tests := []struct {
		name string
		ev   Event
		at   time.Time
	}{
		{"message", MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "anyOf").ID, Variables: map[string]any{"by": "message"}}, t0},
		{"signal", SignalDelivered{Name: "stop"}, t0},
		{"timer", TimerFired{WaitID: waitAt(t, st, WaitTimer, "anyOf").ID}, t0.Add(time.Hour)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			next, fx := run(t, file, st, tc.ev, tc.at)
			if waitsOn(next, "anyOf") != 0 || waitsOn(next, "allOf") != 3 {
				t.Errorf("the other definitions stay armed: %+v", next.Waits)
			}
			if got := activated(fx); !slices.Equal(got, []string{"endAny"}) {
				t.Errorf("path %v, want [endAny]", got)
			}
			if got := len(factsOf(fx, FactEventTriggered)); got != 1 {
				t.Errorf("%d event-triggered facts, want 1", got)
			}
		})
	}
}

func TestParallelMultipleCatchWaitsForAll(t *testing.T) {
	t.Parallel()
	const file = "multiple_catch.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	// The events arrive in any order; the catch goes on after the last.
	st, fx := run(t, file, st, MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "allOf").ID, Variables: map[string]any{"a": true}}, t0)
	if waitsOn(st, "allOf") != 2 || len(activated(fx)) != 0 {
		t.Fatalf("after the message: waits %+v path %v", st.Waits, activated(fx))
	}
	if st.Scopes.Get("root").Vars["a"] != true {
		t.Errorf("the message's payload is not set: %v", st.Scopes.Get("root").Vars)
	}
	st, fx = run(t, file, st, TimerFired{WaitID: waitAt(t, st, WaitTimer, "allOf").ID}, t0.Add(2*time.Hour))
	if waitsOn(st, "allOf") != 1 || len(activated(fx)) != 0 {
		t.Fatalf("after the timer: waits %+v path %v", st.Waits, activated(fx))
	}
	st, fx = run(t, file, st, SignalDelivered{Name: "s2"}, t0.Add(2*time.Hour))
	if waitsOn(st, "allOf") != 0 || !slices.Equal(activated(fx), []string{"endAll"}) {
		t.Fatalf("after the signal: waits %+v path %v", st.Waits, activated(fx))
	}
	if st.Status != StatusRunning || waitsOn(st, "anyOf") != 3 {
		t.Errorf("status %s, waits %+v", st.Status, st.Waits)
	}
}

func TestMultipleBoundaryEvents(t *testing.T) {
	t.Parallel()
	const file = "multiple_boundary.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	// anyB: message + timer, allB: message + signal, remind: signal + cycle.
	if waitsOn(st, "anyB") != 2 || waitsOn(st, "allB") != 2 || waitsOn(st, "remind") != 2 {
		t.Fatalf("boundary waits %+v", st.Waits)
	}
	t.Run("anyOf interrupts at the first", func(t *testing.T) {
		next, fx := run(t, file, st, TimerFired{WaitID: waitAt(t, st, WaitTimer, "anyB").ID}, t0.Add(24*time.Hour))
		if next.Status != StatusCompleted || len(next.Waits) != 0 || !slices.Equal(activated(fx), []string{"anyB", "endAny"}) {
			t.Errorf("status %s waits %+v path %v", next.Status, next.Waits, activated(fx))
		}
	})
	t.Run("allOf interrupts after the last", func(t *testing.T) {
		next, fx := run(t, file, st, SignalDelivered{Name: "y"}, t0)
		if next.Status != StatusRunning || waitsOn(next, "allB") != 1 || len(activated(fx)) != 0 || !hasWaitAt(next, "work") {
			t.Fatalf("after the signal: status %s waits %+v path %v", next.Status, next.Waits, activated(fx))
		}
		next, fx = run(t, file, next, MessageDelivered{WaitID: waitAt(t, next, WaitMessage, "allB").ID}, t0)
		if next.Status != StatusCompleted || !slices.Equal(activated(fx), []string{"allB", "endAll"}) {
			t.Errorf("after the message: status %s waits %+v path %v", next.Status, next.Waits, activated(fx))
		}
	})
	t.Run("non-interrupting forks at each", func(t *testing.T) {
		next, fx := run(t, file, st, SignalDelivered{Name: "ping"}, t0)
		next, fx2 := run(t, file, next, TimerFired{WaitID: waitAt(t, next, WaitTimer, "remind").ID}, t0.Add(time.Hour))
		path := append(activated(fx), activated(fx2)...)
		if !slices.Equal(path, []string{"remind", "endRemind", "remind", "endRemind"}) || !hasWaitAt(next, "work") || waitsOn(next, "remind") != 2 {
			t.Errorf("path %v waits %+v", path, next.Waits)
		}
	})
	t.Run("multiple end event throws the signal, then the error", func(t *testing.T) {
		next, fx := run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, "work").ID, User: "u"}, t0)
		if len(fx.Signals) != 1 || fx.Signals[0].Name != "done" {
			t.Errorf("signals %+v, want done", fx.Signals)
		}
		if next.Status != StatusCompleted || !slices.Contains(activated(fx), "endFailed") || slices.Contains(activated(fx), "endOk") {
			t.Errorf("status %s path %v", next.Status, activated(fx))
		}
	})
}

func TestMultipleThrowEvent(t *testing.T) {
	t.Parallel()
	const file = "multiple_throw.bpmn"
	st, fx := mustStart(t, mustProcess(t, file), nil)
	job := waitAt(t, st, WaitJob, "notify")
	if job.Name != "send-order" || len(fx.Signals) != 0 {
		t.Fatalf("job %+v signals %+v", job, fx.Signals)
	}
	// The message is sent first (its job); then the signal and the escalation.
	st, fx = run(t, file, st, JobCompleted{Key: job.ID}, t0)
	if len(fx.Signals) != 1 || fx.Signals[0].Name != "orderSignal" {
		t.Errorf("signals %+v", fx.Signals)
	}
	if got := factsOf(fx, FactEscalationThrown); len(got) != 1 {
		t.Errorf("escalations %+v", got)
	}
	if st.Status != StatusCompleted || !slices.Contains(activated(fx), "lateEnd") || !slices.Contains(activated(fx), "end") {
		t.Errorf("status %s path %v", st.Status, activated(fx))
	}
}

func TestMultipleStartEvents(t *testing.T) {
	t.Parallel()
	const file = "multiple_start.bpmn"
	p := mustProcess(t, file)
	// A plain start begins at the process's only start event (DirectStart).
	for _, start := range []string{"", "start"} {
		st, fx, err := Step(p, NewState("i1", p.ID, 1), Start{StartNode: start}, t0, Options{})
		if err != nil || !slices.Equal(activated(fx), []string{"start", "work"}) {
			t.Fatalf("start: %v, path %v", err, activated(fx))
		}
		// The event sub-process waits for both of its definitions; each starts a handler.
		if waitsOn(st, "onPoke") != 2 {
			t.Fatalf("handler waits %+v", st.Waits)
		}
		if hs := ArmedHandlersOf(p, st, nil)["root"]; len(hs) != 1 || hs[0].Trigger != "multiple" || hs[0].Name != "poke, nudge" {
			t.Errorf("armed handlers %+v", hs)
		}
		st, fx = run(t, file, st, SignalDelivered{Name: "nudge"}, t0)
		st, fx2 := run(t, file, st, MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "onPoke").ID}, t0)
		if path := append(activated(fx), activated(fx2)...); !slices.Equal(path, []string{"pokeStart", "pokeEnd", "pokeStart", "pokeEnd"}) {
			t.Errorf("handler path %v", path)
		}
		if waitsOn(st, "onPoke") != 2 || st.Status != StatusRunning {
			t.Errorf("status %s waits %+v", st.Status, st.Waits)
		}
	}
}

func TestInstantiatingEventGateway(t *testing.T) {
	t.Parallel()
	const file = "instantiate_gateway.bpmn"
	p := mustProcess(t, file)
	if len(p.EventStarts) != 3 || p.EventStarts[0].ID != "gotOrder" || p.EventStarts[1].ID != "gotRestock" || p.EventStarts[2].ID != "gotReturn" {
		t.Fatalf("event starts %v", p.EventStarts)
	}
	tests := []struct {
		start  string
		path   []string
		status string
	}{
		{"gotOrder", []string{"gw", "gotOrder", "ship"}, StatusRunning},
		{"gotRestock", []string{"gw", "gotRestock", "restocked"}, StatusCompleted},
		{"gotReturn", []string{"gw", "gotReturn", "returned"}, StatusCompleted},
	}
	for _, tc := range tests {
		t.Run(tc.start, func(t *testing.T) {
			st, fx, err := Step(p, NewState("i1", p.ID, 1), Start{StartNode: tc.start, Variables: map[string]any{"id": num("7")}}, t0, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(activated(fx), tc.path) || st.Status != tc.status {
				t.Errorf("path %v status %s, want %v %s", activated(fx), st.Status, tc.path, tc.status)
			}
			if tc.status == StatusRunning && (len(st.Waits) != 1 || st.Waits[0].NodeID != "ship") {
				t.Errorf("the gateway's other events are armed: %+v", st.Waits)
			}
		})
	}
	if _, _, err := Step(p, NewState("i1", p.ID, 1), Start{}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Errorf("a plain start: %v", err)
	}
}

func TestInstantiatingReceiveTask(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "instantiate_receive.bpmn")
	st, fx, err := Step(p, NewState("i1", p.ID, 1), Start{StartNode: "receiveOrder"}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(activated(fx), []string{"receiveOrder", "ship"}) || waitsOn(st, "receiveOrder") != 0 {
		t.Errorf("path %v waits %+v", activated(fx), st.Waits)
	}
}
