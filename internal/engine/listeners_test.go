package engine

import (
	"errors"
	"slices"
	"testing"

	"github.com/gobpm/gobpm/internal/scope"
)

const listenersFile = "listeners_start.bpmn"

// listenerJob returns the open job wait at node, failing unless it is the
// job of start listener index with job type typ.
func listenerJob(t *testing.T, st *State, node, typ string, index int) *Wait {
	t.Helper()
	return eventListenerJob(t, st, "start", node, typ, index)
}

// eventListenerJob returns the open job wait at node, failing unless it
// is the job of listener index of event ev with job type typ.
func eventListenerJob(t *testing.T, st *State, ev, node, typ string, index int) *Wait {
	t.Helper()
	w := waitAt(t, st, WaitJob, node)
	if w.Listener != ev || w.ListenerIndex != index || w.Name != typ {
		t.Fatalf("job at %s = listener %q #%d type %q, want %s #%d %q", node, w.Listener, w.ListenerIndex, w.Name, ev, index, typ)
	}
	return w
}

// TestStartListeners runs start execution listeners through Step: each a
// job the element waits for, in order, before the element's behaviour.
func TestStartListeners(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		check func(t *testing.T, st *State)
	}{
		{"listeners run in order before the element, their variables local to it", func(t *testing.T, st *State) {
			first := listenerJob(t, st, "work", "audit", 0)
			if waitsAt(st, WaitTimer, "late") != 0 {
				t.Fatal("the boundary timer is armed while the element has not started")
			}
			st, _ = run(t, listenersFile, st, JobCompleted{Key: first.ID, Variables: map[string]any{"audited": true}}, t0)
			second := listenerJob(t, st, "work", "check-x", 1)
			st, _ = run(t, listenersFile, st, JobCompleted{Key: second.ID}, t0)
			job := waitAt(t, st, WaitJob, "work")
			if job.Listener != "" || job.Name != "work" || waitsAt(st, WaitTimer, "late") != 1 {
				t.Fatalf("after the listeners: job %+v, timers %d", job, waitsAt(st, WaitTimer, "late"))
			}
			if _, ok := st.Scopes.Get(scope.RootID).Vars["audited"]; ok {
				t.Error("a start listener's variable reached the process scope")
			}
			st, _ = run(t, listenersFile, st, JobCompleted{Key: job.ID}, t0)
			if _, ok := st.Scopes.Get(scope.RootID).Vars["audited"]; ok {
				t.Error("a start listener's variable outlived its element")
			}
			review := listenerJob(t, st, "review", "prepare-review", 0)
			if hasTask(st, "review") {
				t.Fatal("the user task exists before its start listener completed")
			}
			st, _ = run(t, listenersFile, st, JobCompleted{Key: review.ID}, t0)
			task := waitAt(t, st, WaitTask, "review")
			st, _ = run(t, listenersFile, st, TaskCompleted{TaskID: task.ID}, t0)
			if st.Status != StatusCompleted {
				t.Fatalf("status %s", st.Status)
			}
			assertClean(t, st)
		}},
		{"a failed listener without retries opens an incident; retrying resumes it", func(t *testing.T, st *State) {
			first := listenerJob(t, st, "work", "audit", 0)
			st, _ = run(t, listenersFile, st, JobFailed{Key: first.ID, Decrement: true, ErrorMessage: "audit down"}, t0)
			if len(st.Incidents) != 1 || st.Incidents[0].WaitID != first.ID || st.Incidents[0].NodeID != "work" || st.Incidents[0].Message != "audit down" {
				t.Fatalf("incidents %+v", st.Incidents)
			}
			st, _ = run(t, listenersFile, st, IncidentRetried{IncidentID: st.Incidents[0].ID, Retries: 2}, t0)
			again := listenerJob(t, st, "work", "audit", 0)
			if again.ID != first.ID || again.Retries != 2 || len(st.Incidents) != 0 {
				t.Fatalf("after retry: job %+v, incidents %+v", again, st.Incidents)
			}
			st, _ = run(t, listenersFile, st, JobCompleted{Key: again.ID}, t0)
			listenerJob(t, st, "work", "check-x", 1)
		}},
		{"a listener job cannot throw a BPMN error", func(t *testing.T, st *State) {
			first := listenerJob(t, st, "work", "audit", 0)
			_, _, err := Step(mustProcess(t, listenersFile), roundTrip(t, st), JobErrorThrown{Key: first.ID, Code: "E"}, t0, Options{})
			if !errors.Is(err, ErrInvalidTransition) {
				t.Fatalf("err %v, want ErrInvalidTransition", err)
			}
		}},
		{"a restart between listener and element keeps the listener's place", func(t *testing.T, st *State) {
			first := listenerJob(t, st, "work", "audit", 0)
			st, _ = run(t, listenersFile, st, JobCompleted{Key: first.ID}, t0)
			back := roundTrip(t, st)
			listenerJob(t, back, "work", "check-x", 1)
			second := waitAt(t, back, WaitJob, "work")
			back, _ = run(t, listenersFile, back, JobCompleted{Key: second.ID}, t0)
			if w := waitAt(t, back, WaitJob, "work"); w.Listener != "" {
				t.Fatalf("after the restart the element waits on %+v", w)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, _ := mustStart(t, mustProcess(t, listenersFile), map[string]any{"kind": "x"})
			tt.check(t, st)
		})
	}
}

// TestStartListenerTypeIncident: a start listener whose job type
// expression fails raises an incident; its retry runs the element's
// start listeners again from the first, as Camunda 8 does, and the
// element then runs once.
func TestStartListenerTypeIncident(t *testing.T) {
	t.Parallel()
	st, _ := mustStart(t, mustProcess(t, listenersFile), nil) // no kind: "check-" + null is null
	st, _ = run(t, listenersFile, st, JobCompleted{Key: listenerJob(t, st, "work", "audit", 0).ID}, t0)
	if len(st.Incidents) != 1 || st.Incidents[0].Kind != IncidentExpression || st.Incidents[0].NodeID != "work" {
		t.Fatalf("incidents %+v", st.Incidents)
	}
	st, _ = run(t, listenersFile, st, VariablesSet{Variables: map[string]any{"kind": "y"}}, t0)
	st, _ = run(t, listenersFile, st, IncidentRetried{IncidentID: st.Incidents[0].ID}, t0)
	again := listenerJob(t, st, "work", "audit", 0) // from the first again
	st, _ = run(t, listenersFile, st, JobCompleted{Key: again.ID}, t0)
	st, _ = run(t, listenersFile, st, JobCompleted{Key: listenerJob(t, st, "work", "check-y", 1).ID}, t0)
	if job := waitAt(t, st, WaitJob, "work"); job.Listener != "" || waitsAt(st, WaitTimer, "late") != 1 {
		t.Fatalf("after the retried listeners: job %+v, timers %d", job, waitsAt(st, WaitTimer, "late"))
	}
	if n := len(st.Scopes.All()); n != 1 {
		t.Errorf("%d scopes, want the root alone (no listener set a variable)", n)
	}
}

// hasTask reports an open user-task wait at node.
func hasTask(st *State, node string) bool {
	return slices.ContainsFunc(st.Waits, func(w *Wait) bool { return w.Kind == WaitTask && w.NodeID == node })
}

const endListenersFile = "listeners_end.bpmn"

// TestEndListeners runs end execution listeners through Step: each a job
// the element waits for after its output mappings, in order, before it
// takes its outgoing flows or, for an end event, ends its track.
func TestEndListeners(t *testing.T) {
	t.Parallel()
	// toEnd runs the start listener and the element's own job (result
	// "ok", mapped to out), returning at the first end listener's job.
	toEnd := func(t *testing.T, st *State) (*State, *Wait) {
		t.Helper()
		st, _ = run(t, endListenersFile, st, JobCompleted{Key: listenerJob(t, st, "work", "before", 0).ID}, t0)
		job := waitAt(t, st, WaitJob, "work")
		st, _ = run(t, endListenersFile, st, JobCompleted{Key: job.ID, Variables: map[string]any{"result": "ok"}}, t0)
		return st, eventListenerJob(t, st, "end", "work", "after", 0)
	}
	tests := []struct {
		name  string
		check func(t *testing.T, st *State)
	}{
		{"end listeners run in order after the output mappings, before the flows", func(t *testing.T, st *State) {
			st, first := toEnd(t, st)
			root := st.Scopes.Get(scope.RootID).Vars
			if root["out"] != "ok" {
				t.Fatalf("out = %v before the end listener, want the output mapping's ok", root["out"])
			}
			if waitsAt(st, WaitTimer, "late") != 0 || hasTask(st, "wait") {
				t.Fatal("the boundary timer is still armed or the next element started during an end listener")
			}
			st, _ = run(t, endListenersFile, st, JobCompleted{Key: first.ID, Variables: map[string]any{"cleaned": true}}, t0)
			if st.Scopes.Get(scope.RootID).Vars["cleaned"] != true {
				t.Error("an end listener's variable did not reach the process scope")
			}
			second := eventListenerJob(t, st, "end", "work", "after-ok", 1) // its type read out
			if hasTask(st, "wait") {
				t.Fatal("the next element started before the last end listener completed")
			}
			st, _ = run(t, endListenersFile, st, JobCompleted{Key: second.ID}, t0)
			task := waitAt(t, st, WaitTask, "wait")
			st, _ = run(t, endListenersFile, st, TaskCompleted{TaskID: task.ID}, t0)
			closing := eventListenerJob(t, st, "end", "end", "closing", 0)
			if st.Status == StatusCompleted {
				t.Fatal("the instance completed before the end event's end listener")
			}
			st, _ = run(t, endListenersFile, st, JobCompleted{Key: closing.ID}, t0)
			if st.Status != StatusCompleted {
				t.Fatalf("status %s after the end event's listener", st.Status)
			}
			assertClean(t, st)
		}},
		{"a failed end listener opens an incident; retrying runs it, not the element", func(t *testing.T, st *State) {
			st, first := toEnd(t, st)
			st, _ = run(t, endListenersFile, st, JobFailed{Key: first.ID, Decrement: true, ErrorMessage: "cleanup down"}, t0)
			if len(st.Incidents) != 1 || st.Incidents[0].WaitID != first.ID || st.Incidents[0].NodeID != "work" {
				t.Fatalf("incidents %+v", st.Incidents)
			}
			st, _ = run(t, endListenersFile, st, IncidentRetried{IncidentID: st.Incidents[0].ID, Retries: 1}, t0)
			again := eventListenerJob(t, st, "end", "work", "after", 0)
			if again.ID != first.ID || len(st.Incidents) != 0 {
				t.Fatalf("after retry: job %+v, incidents %+v", again, st.Incidents)
			}
		}},
		{"a restart between end listener and leaving loses nothing", func(t *testing.T, st *State) {
			st, first := toEnd(t, st)
			back := roundTrip(t, st)
			back, _ = run(t, endListenersFile, back, JobCompleted{Key: first.ID}, t0)
			back = roundTrip(t, back)
			second := eventListenerJob(t, back, "end", "work", "after-ok", 1)
			back, _ = run(t, endListenersFile, back, JobCompleted{Key: second.ID}, t0)
			waitAt(t, back, WaitTask, "wait")
		}},
		{"an end listener's job cannot throw a BPMN error", func(t *testing.T, st *State) {
			st, first := toEnd(t, st)
			_, _, err := Step(mustProcess(t, endListenersFile), roundTrip(t, st), JobErrorThrown{Key: first.ID, Code: "E"}, t0, Options{})
			if !errors.Is(err, ErrInvalidTransition) {
				t.Fatalf("err %v, want ErrInvalidTransition", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, _ := mustStart(t, mustProcess(t, endListenersFile), nil)
			tt.check(t, st)
		})
	}
}
