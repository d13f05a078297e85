package engine

import (
	"testing"
)

// completeTasks completes n open user tasks on node (the oldest first).
func completeTasks(t *testing.T, file string, st *State, node string, n int, vars map[string]any) *State {
	t.Helper()
	for range n {
		st, _ = run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, node).ID, User: "u", Variables: vars}, t0)
	}
	return st
}

// TestCompensationActiveMultiInstance (Camunda 7
// CompensateEventTest.testCompensateConcurrentMiActivity): a throw naming
// a parallel multi-instance activity while 4 of its 5 iterations have
// completed compensates nothing, since the activity has not completed as a
// whole (BPMN 10.7); the fifth iteration, completed after the throw, is
// not compensated either, and the instance ends. Once every iteration has
// completed (testCompensateActivityRefMiActivity), the same throw
// compensates all five.
func TestCompensationActiveMultiInstance(t *testing.T) {
	t.Parallel()
	t.Run("active", func(t *testing.T) {
		t.Parallel()
		const file = "camunda7/CompensateEventTest.testCompensateConcurrentMiActivity.bpmn20.xml"
		st, _ := mustStart(t, mustProcess(t, file), nil)
		if n := waitsAt(st, WaitTask, "bookHotel"); n != 5 {
			t.Fatalf("%d Book Hotel tasks, want 5", n)
		}
		st = completeTasks(t, file, st, "bookHotel", 4, nil)
		st, fx := run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, "parallelTask").ID, User: "u", Variables: map[string]any{"accept": false}}, t0)
		thrown := factsOf(fx, FactCompensationThrown)
		if len(thrown) != 1 || len(thrown[0].Detail["activities"].([]any)) != 0 {
			t.Fatalf("the throw compensated an active activity: %+v", thrown)
		}
		if n := waitsAt(st, WaitTask, "undoBookHotel"); n != 0 {
			t.Fatalf("%d Cancel Hotel tasks, want none", n)
		}
		st, fx = run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, "bookHotel").ID, User: "u"}, t0)
		if got := compensations(fx); len(got) != 0 {
			t.Fatalf("compensated after the throw: %v", got)
		}
		if st.Status != StatusCompleted || len(st.Entries) != 0 {
			t.Fatalf("status %s entries %+v", st.Status, st.Entries)
		}
	})
	t.Run("completed", func(t *testing.T) {
		t.Parallel()
		const file = "camunda7/CompensateEventTest.testCompensateActivityRefMiActivity.bpmn20.xml"
		st, _ := mustStart(t, mustProcess(t, file), nil)
		st = completeTasks(t, file, st, "bookHotel", 5, nil)
		st, _ = run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, "task").ID, User: "u", Variables: map[string]any{"accept": false}}, t0)
		undo := 0
		for waitsAt(st, WaitTask, "undoBookHotel") > 0 {
			undo++
			st, _ = run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, "undoBookHotel").ID, User: "u"}, t0)
		}
		if undo != 5 || st.Status != StatusCompleted {
			t.Fatalf("%d Cancel Hotel tasks, status %s; want 5, completed", undo, st.Status)
		}
	})
}
