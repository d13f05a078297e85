package engine

import (
	"reflect"
	"testing"

	"github.com/gobpm/gobpm/internal/scope"
)

// compensations returns "started:node" and "completed:node" for each
// compensation fact of fx, in order.
func compensations(fx Effects) []string {
	var out []string
	for _, f := range fx.Facts {
		switch f.Kind {
		case FactCompensationStarted:
			out = append(out, "started:"+f.NodeID)
		case FactCompensationCompleted:
			out = append(out, "completed:"+f.NodeID)
		}
	}
	return out
}

// rootVar reads a root variable.
func rootVar(st *State, name string) any { return st.Scopes.Get(scope.RootID).Vars[name] }

// TestCompensationSaga: a card charge that fails with a BPMN error is
// caught; the compensation end event undoes the flight, then the hotel,
// one job after the other, and the instance completes when both are done.
func TestCompensationSaga(t *testing.T) {
	t.Parallel()
	const file = "compensation_saga.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	st, _ = run(t, file, st, JobCompleted{Key: waitAt(t, st, WaitJob, "bookHotel").ID}, t0)
	st, _ = run(t, file, st, JobCompleted{Key: waitAt(t, st, WaitJob, "bookFlight").ID, Variables: map[string]any{"flight": "LH1"}}, t0)
	if len(st.Entries) != 2 {
		t.Fatalf("entries %+v, want hotel and flight", st.Entries)
	}
	st, fx := run(t, file, st, JobErrorThrown{Key: waitAt(t, st, WaitJob, "chargeCard").ID, Code: "card-declined"}, t0)
	thrown := factsOf(fx, FactCompensationThrown)
	if len(thrown) != 1 || !reflect.DeepEqual(thrown[0].Detail["activities"], []any{"bookFlight", "bookHotel"}) {
		t.Fatalf("thrown %+v", thrown)
	}
	if got := compensations(fx); !reflect.DeepEqual(got, []string{"started:bookFlight"}) {
		t.Fatalf("compensations %v", got)
	}
	if hasWaitAt(st, "undoHotel") || st.Status != StatusRunning {
		t.Fatalf("the hotel is undone before the flight: %+v", st.Waits)
	}
	st, fx = run(t, file, st, JobCompleted{Key: waitAt(t, st, WaitJob, "undoFlight").ID}, t0)
	if got := compensations(fx); !reflect.DeepEqual(got, []string{"completed:bookFlight", "started:bookHotel"}) {
		t.Fatalf("compensations %v", got)
	}
	st, fx = run(t, file, st, JobCompleted{Key: waitAt(t, st, WaitJob, "undoHotel").ID}, t0)
	if got := compensations(fx); !reflect.DeepEqual(got, []string{"completed:bookHotel"}) {
		t.Fatalf("compensations %v", got)
	}
	if st.Status != StatusCompleted || len(st.Entries) != 0 || len(st.Scopes.All()) != 1 {
		t.Fatalf("status %s entries %+v scopes %v", st.Status, st.Entries, st.Scopes.All())
	}
}

// TestCompensationScope (Camunda 7 CompensateEventTest.testCompensateScope):
// every completion of two sequential multi-instance tasks is compensated
// once, the latest first, each handler seeing its iteration's loopCounter;
// a second throw finds nothing left.
func TestCompensationScope(t *testing.T) {
	t.Parallel()
	const file = "compensation_scope.bpmn"
	st, fx := mustStart(t, mustProcess(t, file), map[string]any{"undone": []any{}})
	// The two bodies run side by side in one step, so their iterations
	// complete interleaved; compensation runs in exactly the reverse order.
	want := []any{"flight 5", "hotel 5", "flight 4", "hotel 4", "flight 3", "hotel 3", "flight 2", "hotel 2", "flight 1", "hotel 1"}
	if got := rootVar(st, "undone"); !reflect.DeepEqual(got, want) {
		t.Fatalf("undone = %v\nwant     %v", got, want)
	}
	thrown := factsOf(fx, FactCompensationThrown)
	if len(thrown) != 2 || len(thrown[1].Detail["activities"].([]any)) != 0 {
		t.Fatalf("the second throw compensated again: %+v", thrown)
	}
	if len(st.Entries) != 0 || !hasWaitAt(st, "beforeEnd") {
		t.Fatalf("entries %+v waits %+v", st.Entries, st.Waits)
	}
}

// TestCompensationSubProcesses: a completed sub-process without handler is
// compensated through its inner activities (latest first); one with a
// compensation event sub-process runs it with its local data, and a throw
// inside compensates the sub-process's own activities; activityRef
// compensates one activity, and a user task handler makes the throw wait.
func TestCompensationSubProcesses(t *testing.T) {
	t.Parallel()
	const file = "compensation_sub.bpmn"
	st, fx := mustStart(t, mustProcess(t, file), map[string]any{"log": []any{}})
	if got := compensations(fx); !reflect.DeepEqual(got, []string{"started:d"}) {
		t.Fatalf("activityRef d: compensations %v", got)
	}
	var top []string
	for _, e := range st.Entries {
		if e.Owner == scope.RootID && e.Run == "" {
			top = append(top, e.NodeID)
		}
	}
	if !reflect.DeepEqual(top, []string{"plain", "withEsp"}) || len(st.Entries) != 6 {
		t.Fatalf("unclaimed root entries %v of %d, want plain and withEsp (d's is being compensated; a, b, c are inside)", top, len(st.Entries))
	}
	task := waitAt(t, st, WaitTask, "undoD")
	if tr := st.Track(task.TrackID); tr == nil || tr.Node != "undoD" {
		t.Fatalf("track %+v", tr)
	}
	st, fx = run(t, file, st, TaskCompleted{TaskID: task.ID, User: "u"}, t0)
	want := []any{"esp for o-7", "undo c", "undo b", "undo a"}
	if got := rootVar(st, "log"); !reflect.DeepEqual(got, want) {
		t.Fatalf("log = %v\nwant  %v", got, want)
	}
	if got, want := compensations(fx), []string{
		"completed:d",
		"started:withEsp", "started:c", "completed:c", "completed:withEsp",
		"started:plain", "started:b", "completed:b", "started:a", "completed:a", "completed:plain",
	}; !reflect.DeepEqual(got, want) {
		t.Fatalf("compensations %v\nwant          %v", got, want)
	}
	if st.Status != StatusCompleted || len(st.Entries) != 0 {
		t.Fatalf("status %s entries %+v", st.Status, st.Entries)
	}
}

// TestTransaction: a cancel end event compensates the transaction's
// completed activities (a job handler included) and leaves by the cancel
// boundary event; an error end event leaves by the error boundary event
// and compensates nothing; a normal end leaves by the sequence flow.
func TestTransaction(t *testing.T) {
	t.Parallel()
	const file = "transaction.bpmn"
	tests := []struct {
		outcome string
		end     string
		log     []any
	}{
		{"cancel", "afterCancel", []any{"undo hotel"}},
		{"fail", "afterError", []any{}},
		{"ok", "succeeded", []any{}},
	}
	for _, tc := range tests {
		t.Run(tc.outcome, func(t *testing.T) {
			t.Parallel()
			st, _ := mustStart(t, mustProcess(t, file), map[string]any{"log": []any{}})
			st, fx := run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, "confirm").ID, User: "u", Variables: map[string]any{"outcome": tc.outcome}}, t0)
			if tc.outcome == "cancel" {
				if got := compensations(fx); !reflect.DeepEqual(got, []string{"started:bookFlight"}) {
					t.Fatalf("compensations %v", got)
				}
				if st.Status != StatusRunning || contains(activated(fx), "onCancel") {
					t.Fatalf("left the transaction before compensating: %v", activated(fx))
				}
				st, fx = run(t, file, st, JobCompleted{Key: waitAt(t, st, WaitJob, "undoFlight").ID}, t0)
				if got := compensations(fx); !reflect.DeepEqual(got, []string{"completed:bookFlight", "started:bookHotel", "completed:bookHotel"}) {
					t.Fatalf("compensations %v", got)
				}
			} else if got := compensations(fx); len(got) != 0 {
				t.Fatalf("%s compensated: %v", tc.outcome, got)
			}
			if st.Status != StatusCompleted || !contains(activated(fx), tc.end) {
				t.Fatalf("status %s path %v", st.Status, activated(fx))
			}
			if got := rootVar(st, "log"); !reflect.DeepEqual(got, tc.log) {
				t.Errorf("log = %v, want %v", got, tc.log)
			}
		})
	}
}

// TestCompensationCancelledWithScope: an instance cancelled while a
// compensation runs drops its entries and runs no handler.
func TestCompensationCancelledWithScope(t *testing.T) {
	t.Parallel()
	const file = "compensation_saga.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	st, _ = run(t, file, st, JobCompleted{Key: waitAt(t, st, WaitJob, "bookHotel").ID}, t0)
	st, _ = run(t, file, st, JobCompleted{Key: waitAt(t, st, WaitJob, "bookFlight").ID}, t0)
	st, _ = run(t, file, st, JobErrorThrown{Key: waitAt(t, st, WaitJob, "chargeCard").ID, Code: "card-declined"}, t0)
	st, _ = run(t, file, st, Cancel{Reason: "test"}, t0)
	if st.Status != StatusTerminated || len(st.Entries) != 0 || len(st.Waits) != 0 {
		t.Fatalf("status %s entries %+v waits %+v", st.Status, st.Entries, st.Waits)
	}
}
