package engine

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/scope"
)

func completeTaskWith(t *testing.T, file string, st *State, w *Wait, vars map[string]any) *State {
	t.Helper()
	st, _ = run(t, file, st, TaskCompleted{TaskID: w.ID, User: "u", Variables: vars}, t0)
	return st
}

// tasksAt returns the open user tasks of a node in creation order.
func tasksAt(st *State, node string) []*Wait {
	var out []*Wait
	for _, w := range st.Waits {
		if w.Kind == WaitTask && w.NodeID == node {
			out = append(out, w)
		}
	}
	return out
}

func TestMultiInstanceParallelOutputOrder(t *testing.T) {
	t.Parallel()
	const file = "mi_tasks.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), map[string]any{"approvers": []any{"ann", "bob", "cid"}, "quorum": num("3")})
	ws := tasksAt(st, "approve")
	if len(ws) != 3 {
		t.Fatalf("iterations: %d", len(ws))
	}
	var iterations, bodies int
	for _, s := range st.Scopes.All() {
		switch s.Kind {
		case scope.KindIteration:
			iterations++
			if s.Vars["approver"] == nil || s.Vars["loopCounter"] == nil {
				t.Errorf("iteration %d lacks its locals: %v", s.Index, s.Vars)
			}
		case scope.KindBody:
			bodies++
			if s.Vars["nrOfInstances"] != json.Number("3") || s.Vars["nrOfActiveInstances"] != json.Number("3") {
				t.Errorf("body counters %v", s.Vars)
			}
		}
	}
	if iterations != 3 || bodies != 1 {
		t.Fatalf("scopes: %d iterations, %d bodies", iterations, bodies)
	}
	// Complete out of order; each writes its own iteration's vote.
	for _, i := range []int{2, 0, 1} {
		st = completeTaskWith(t, file, st, ws[i], map[string]any{"vote": num(string(rune('1' + i)))})
	}
	want := []any{num("1"), num("2"), num("3")}
	if got := st.Scopes.Get(scope.RootID).Vars["votes"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("votes = %v, want %v in input order", got, want)
	}
	if _, leaked := st.Scopes.Get(scope.RootID).Vars["vote"]; leaked {
		t.Fatal("the output element leaked into the parent")
	}
	// Sequential service task, cardinality 3: one job at a time, loopCounter 1..3.
	for i := 1; i <= 3; i++ {
		jobs := 0
		var key string
		for _, w := range st.Waits {
			if w.Kind == WaitJob {
				jobs++
				key = w.ID
				if c := st.Scopes.Get(w.ScopeID).Vars["loopCounter"]; c != num(string(rune('0'+i))) {
					t.Fatalf("iteration %d has loopCounter %v", i, c)
				}
			}
		}
		if jobs != 1 {
			t.Fatalf("sequential iteration %d: %d jobs open", i, jobs)
		}
		st, _ = run(t, file, st, JobCompleted{Key: key}, t0)
	}
	assertClean(t, st)
}

func TestMultiInstanceCompletionConditionAndBoundary(t *testing.T) {
	t.Parallel()
	const file = "mi_tasks.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), map[string]any{"approvers": []any{"a", "b", "c"}, "quorum": num("2")})
	ws := tasksAt(st, "approve")
	st = completeTaskWith(t, file, st, ws[0], map[string]any{"vote": true})
	st = completeTaskWith(t, file, st, ws[1], map[string]any{"vote": false})
	if len(tasksAt(st, "approve")) != 0 || st.Scopes.Get(scope.RootID).Vars["votes"] == nil {
		t.Fatalf("completion condition did not cancel the rest: %v", tasks(st))
	}
	if votes := st.Scopes.Get(scope.RootID).Vars["votes"].([]any); !reflect.DeepEqual(votes, []any{true, false, nil}) {
		t.Fatalf("votes %v", votes)
	}
	// The boundary timer guards the whole body.
	st, _ = mustStart(t, mustProcess(t, file), map[string]any{"approvers": []any{"a", "b"}, "quorum": num("2")})
	st, fx := run(t, file, st, TimerFired{WaitID: waitAt(t, st, WaitTimer, "timeout").ID}, t0.Add(time.Hour))
	if !slices.Contains(activated(fx), "late") {
		t.Fatalf("path %v", activated(fx))
	}
	assertClean(t, st)
	// An empty collection completes at once with an empty output.
	st, _ = mustStart(t, mustProcess(t, file), map[string]any{"approvers": []any{}, "quorum": num("1")})
	if votes := st.Scopes.Get(scope.RootID).Vars["votes"]; !reflect.DeepEqual(votes, []any{}) {
		t.Fatalf("empty collection: votes %#v", votes)
	}
}

func TestMultiInstanceSubProcessTerminateAndError(t *testing.T) {
	t.Parallel()
	const file = "mi_sub.bpmn"
	// "stop" terminates only its own iteration; the others run on.
	st, _ := mustStart(t, mustProcess(t, file), map[string]any{"items": []any{"x", "stop", "y"}})
	if got := len(tasksAt(st, "work")); got != 2 {
		t.Fatalf("work tasks %d, want 2 (the stop iteration ended)", got)
	}
	for _, w := range tasksAt(st, "work") {
		st = completeTaskWith(t, file, st, w, nil)
	}
	if want := []any{"x!", nil, "y!"}; !st.Ended() || !reflect.DeepEqual(st.Scopes.Get(scope.RootID).Vars["outs"], want) {
		t.Fatalf("status %s outs %v, want %v", st.Status, st.Scopes.Get(scope.RootID).Vars["outs"], want)
	}
	// An error in one iteration is caught outside and cancels every iteration.
	st, fx := mustStart(t, mustProcess(t, file), map[string]any{"items": []any{"x", "bad"}})
	if !slices.Contains(activated(fx), "rejected") {
		t.Fatalf("path %v", activated(fx))
	}
	assertClean(t, st)
}

func TestStandardLoop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file  string
		vars  map[string]any
		count any
	}{
		{"loop.bpmn", map[string]any{"limit": num("3")}, num("3")},
		{"loop.bpmn", map[string]any{"limit": num("100")}, num("10")}, // loopMaximum
		{"loop.bpmn", map[string]any{"limit": num("0")}, num("1")},    // test after: runs once
		{"loop_before.bpmn", map[string]any{"limit": num("0"), "counter": num("0")}, num("0")},
		{"loop_before.bpmn", map[string]any{"limit": num("5"), "counter": num("0")}, num("2")},
	}
	for _, tc := range tests {
		st, _ := mustStart(t, mustProcess(t, tc.file), tc.vars)
		if got := st.Scopes.Get(scope.RootID).Vars["counter"]; got != tc.count {
			t.Errorf("%s %v: counter %v, want %v", tc.file, tc.vars, got, tc.count)
		}
		assertClean(t, st)
	}
}
