package engine

import (
	"reflect"
	"testing"
)

// TestCompensationSubProcessHandlerAndInner: compensating
// a completed sub-process that has a compensation boundary event and inner
// activities with handlers runs both, as Camunda 7 does: the sub-process's
// own handler first (a user task: the throw waits for it), then the inner
// activities, the latest first; a later throw finds nothing left.
func TestCompensationSubProcessHandlerAndInner(t *testing.T) {
	t.Parallel()
	const file = "compensation_sub_boundary.bpmn"
	st, fx := mustStart(t, mustProcess(t, file), map[string]any{"log": []any{}})
	if got := compensations(fx); !reflect.DeepEqual(got, []string{"started:booking"}) {
		t.Fatalf("compensations %v, want the sub-process's handler first", got)
	}
	if got := rootVar(st, "log"); len(got.([]any)) != 0 {
		t.Fatalf("log = %v before the sub-process's handler completed", got)
	}
	st, fx = run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, "undoBooking").ID, User: "u"}, t0)
	if got, want := compensations(fx), []string{
		"completed:booking",
		"started:booking", "started:bookFlight", "completed:bookFlight", "started:bookHotel", "completed:bookHotel", "completed:booking",
	}; !reflect.DeepEqual(got, want) {
		t.Fatalf("compensations %v\nwant          %v", got, want)
	}
	if got, want := rootVar(st, "log"), []any{"undo flight", "undo hotel"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("log = %v, want %v", got, want)
	}
	if thrown := factsOf(fx, FactCompensationThrown); len(thrown) != 1 || len(thrown[0].Detail["activities"].([]any)) != 0 {
		t.Fatalf("the second throw compensated again: %+v", thrown)
	}
	if st.Status != StatusCompleted || len(st.Entries) != 0 {
		t.Fatalf("status %s entries %+v", st.Status, st.Entries)
	}
}
