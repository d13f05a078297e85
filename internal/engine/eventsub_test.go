package engine

import (
	"errors"
	"slices"
	"sort"
	"testing"

	"github.com/gobpm/gobpm/internal/scope"
)

// tasks returns the node ids of the open user tasks, sorted.
func tasks(st *State) []string {
	var out []string
	for _, w := range st.Waits {
		if w.Kind == WaitTask {
			out = append(out, w.NodeID)
		}
	}
	sort.Strings(out)
	return out
}

func complete(t *testing.T, file string, st *State, node string) (*State, Effects) {
	t.Helper()
	return run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, node).ID, User: "u"}, t0)
}

// assertClean checks an ended instance left nothing behind.
func assertClean(t *testing.T, st *State) {
	t.Helper()
	if !st.Ended() || len(st.Tracks) != 0 || len(st.Waits) != 0 || len(st.Scopes.All()) != 1 || len(st.Incidents) != 0 {
		t.Fatalf("not clean: status %s tracks %+v waits %+v scopes %d incidents %+v", st.Status, st.Tracks, st.Waits, len(st.Scopes.All()), st.Incidents)
	}
}

// An interrupting handler fires while a token waits at a parallel join: no stuck instance.
func TestInterruptingHandlerWithTokenAtJoin(t *testing.T) {
	t.Parallel()
	const file = "esp_join.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	if !slices.Equal(tasks(st), []string{"a"}) || !slices.ContainsFunc(st.Tracks, func(tr *Track) bool { return tr.State == TrackJoining }) {
		t.Fatalf("setup: tasks %v tracks %+v", tasks(st), st.Tracks)
	}
	st, fx := run(t, file, st, MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "onAbort").ID}, t0)
	if !slices.Equal(tasks(st), []string{"cleanup"}) || !st.Scopes.Get(scope.RootID).Interrupted {
		t.Fatalf("after abort: tasks %v", tasks(st))
	}
	if len(factsOf(fx, FactHandlerFired)) != 1 || len(factsOf(fx, FactScopeInterrupted)) != 1 {
		t.Errorf("facts: %+v", fx.Facts)
	}
	st, _ = complete(t, file, st, "cleanup")
	assertClean(t, st)
}

// An interrupting event sub-process triggered while non-interrupting ones
// run fires once and cancels the running handlers.
func TestInterruptingAfterNonInterrupting(t *testing.T) {
	t.Parallel()
	const file = "esp_nonint_then_int.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	note := waitAt(t, st, WaitMessage, "onNote").ID
	st, _ = run(t, file, st, MessageDelivered{WaitID: note}, t0)
	st, _ = run(t, file, st, MessageDelivered{WaitID: note}, t0)
	if !slices.Equal(tasks(st), []string{"readNote", "readNote", "work"}) || len(st.Scopes.All()) != 3 {
		t.Fatalf("two notes: tasks %v scopes %d", tasks(st), len(st.Scopes.All()))
	}
	st, fx := run(t, file, st, SignalDelivered{Name: "abort"}, t0)
	if fx.Fired != 1 || st.Scopes.Get(scope.RootID).Vars["aborted"] != true {
		t.Fatalf("abort: fired %d vars %v", fx.Fired, st.Scopes.Get(scope.RootID).Vars)
	}
	if got := len(factsOf(fx, FactScopeCancelled)); got != 2 {
		t.Errorf("running handlers cancelled: %d, want 2", got)
	}
	assertClean(t, st)
}

// A boundary event and an event sub-process listening to the same event
// share one interrupting budget: the inline handler takes it, the boundary
// is disarmed, and the parent resumes normally (absorbed).
func TestOneInterruptingBudget(t *testing.T) {
	t.Parallel()
	const file = "esp_budget.bpmn"
	for _, ev := range []struct {
		name string
		make func(st *State) Event
	}{
		{"message", func(st *State) Event { return MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "onStop").ID} }},
		{"signal", func(st *State) Event { return SignalDelivered{Name: "halt"} }},
	} {
		st, _ := mustStart(t, mustProcess(t, file), nil)
		if got := len(st.Waits); got != 5 { // task, 2 handlers, 2 boundaries
			t.Fatalf("%s: waits %+v", ev.name, st.Waits)
		}
		st, fx := run(t, file, st, ev.make(st), t0)
		path := activated(fx)
		if slices.Contains(path, "viaBoundary") || !slices.Equal(tasks(st), []string{"after"}) {
			t.Fatalf("%s: path %v tasks %v", ev.name, path, tasks(st))
		}
		if ev.name == "signal" && fx.Fired != 1 {
			t.Errorf("signal fired %d handlers, want 1", fx.Fired)
		}
	}
}

func TestErrorPrecedenceAbsorbAndRethrow(t *testing.T) {
	t.Parallel()
	const file = "esp_errors.bpmn"
	// Error 123: the event sub-process with code 123 beats the catch-all
	// sub-process and the catch-all boundary; ending normally absorbs it.
	st, fx := mustStart(t, mustProcess(t, file), map[string]any{"mode": "error", "rethrow": false})
	path := activated(fx)
	if !slices.Contains(path, "absorbed") || slices.Contains(path, "caEnd") || slices.Contains(path, "viaBoundary") || !slices.Contains(path, "after") {
		t.Fatalf("absorb: path %v", path)
	}
	if len(factsOf(fx, FactEventAbsorbed)) != 1 {
		t.Errorf("no event-absorbed fact")
	}
	assertClean(t, st)
	// Re-throwing the same error from the handler: the boundary fires after it.
	st, fx = mustStart(t, mustProcess(t, file), map[string]any{"mode": "error", "rethrow": true})
	path = activated(fx)
	if !slices.Contains(path, "rethrow") || !slices.Contains(path, "viaBoundary") || slices.Contains(path, "after") {
		t.Fatalf("rethrow: path %v", path)
	}
	assertClean(t, st)
}

// An error thrown inside a non-interrupting handler is caught by an error
// event sub-process of the enclosing scope when there is one, else by the
// host's boundary.
func TestErrorInNonInterruptingHandler(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{"esp_errors.bpmn": "caEnd", "esp_poke.bpmn": "viaBoundary"} {
		st, _ := mustStart(t, mustProcess(t, file), map[string]any{"mode": "work"})
		if !slices.Equal(tasks(st), []string{"inner"}) {
			t.Fatalf("%s: tasks %v", file, tasks(st))
		}
		st, fx := run(t, file, st, MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "onPoke").ID}, t0)
		if path := activated(fx); !slices.Contains(path, want) {
			t.Fatalf("%s: path %v, want %s", file, path, want)
		}
		assertClean(t, st)
	}
}

func TestNestedErrorCodes(t *testing.T) {
	t.Parallel()
	const file = "nested_codes.bpmn"
	for code, end := range map[string]string{"A": "caughtA", "B": "caughtB"} {
		st, fx := mustStart(t, mustProcess(t, file), map[string]any{"code": code})
		if path := activated(fx); !slices.Contains(path, end) {
			t.Errorf("code %s: path %v, want %s", code, path, end)
		}
		assertClean(t, st)
	}
}

// Terminate inside a scope with running handlers ends the handlers too.
func TestTerminateWithRunningHandlers(t *testing.T) {
	t.Parallel()
	const file = "esp_terminate.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	note := waitAt(t, st, WaitMessage, "onNote").ID
	st, _ = run(t, file, st, MessageDelivered{WaitID: note}, t0)
	st, _ = run(t, file, st, MessageDelivered{WaitID: note}, t0)
	if !slices.Equal(tasks(st), []string{"readNote", "readNote", "work"}) {
		t.Fatalf("tasks %v", tasks(st))
	}
	st, _ = complete(t, file, st, "work")
	if !slices.Equal(tasks(st), []string{"after"}) || len(st.Scopes.All()) != 1 || len(st.Waits) != 1 {
		t.Fatalf("after terminate: tasks %v scopes %d waits %+v", tasks(st), len(st.Scopes.All()), st.Waits)
	}
	st, _ = complete(t, file, st, "after")
	assertClean(t, st)
}

// A non-interrupting handler keeps its enclosing scope open until it finishes.
func TestNonInterruptingHandlerDelaysDrain(t *testing.T) {
	t.Parallel()
	const file = "esp_nonint_then_int.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	st, _ = run(t, file, st, MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "onNote").ID}, t0)
	st, _ = complete(t, file, st, "work")
	if st.Ended() || !slices.Equal(tasks(st), []string{"readNote"}) {
		t.Fatalf("ended before the handler finished: %s %v", st.Status, tasks(st))
	}
	st, _ = complete(t, file, st, "readNote")
	assertClean(t, st)
}

func TestConditionalEvents(t *testing.T) {
	t.Parallel()
	const file = "conditional.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), map[string]any{"amount": num("50"), "approved": false, "cancelled": false})
	job := waitAt(t, st, WaitJob, "update").ID
	st, fx := run(t, file, st, JobCompleted{Key: job, Variables: map[string]any{"amount": num("150")}}, t0)
	if st.Scopes.Get(scope.RootID).Vars["alerts"] != num("1") || !slices.Contains(activated(fx), "alertEnd") {
		t.Fatalf("boundary did not fire on false→true: vars %v", st.Scopes.Get(scope.RootID).Vars)
	}
	// Still true after another change: no second firing (edge, not level).
	job = waitAt(t, st, WaitJob, "update2").ID
	st, _ = run(t, file, st, JobCompleted{Key: job, Variables: map[string]any{"amount": num("200"), "approved": true}}, t0)
	if st.Scopes.Get(scope.RootID).Vars["alerts"] != num("1") {
		t.Fatalf("fired again while still true")
	}
	if hasWaitAt(st, "waitApproval") {
		t.Fatalf("intermediate conditional did not fire")
	}
	// The interrupting conditional event sub-process ends everything.
	st, _ = run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, "review").ID, User: "u", Variables: map[string]any{"cancelled": true}}, t0)
	if !st.Ended() {
		t.Fatalf("status %s", st.Status)
	}
	assertClean(t, st)
}

func TestArmedHandlers(t *testing.T) {
	t.Parallel()
	const file = "esp_budget.bpmn"
	p := mustProcess(t, file)
	st, _ := mustStart(t, p, nil)
	h := ArmedHandlers(p, st)
	var sub scope.ID
	for _, s := range st.Scopes.All() {
		if s.NodeID == "scope" {
			sub = s.ID
		}
	}
	var got []string
	for _, x := range h[sub] {
		got = append(got, x.Kind+":"+x.NodeID+":"+x.Name)
	}
	want := []string{"event-subprocess:onStop:stop", "event-subprocess:onHalt:halt", "boundary:stopBoundary:stop", "boundary:haltBoundary:halt"}
	if !slices.Equal(got, want) {
		t.Fatalf("handlers %v, want %v", got, want)
	}
}

func TestVariablesSetFiresConditions(t *testing.T) {
	t.Parallel()
	const file = "conditional.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), map[string]any{"amount": num("50"), "approved": false, "cancelled": false})
	st, fx := run(t, file, st, VariablesSet{Variables: map[string]any{"cancelled": true}}, t0)
	if !st.Ended() || len(factsOf(fx, FactVariableSet)) != 1 {
		t.Fatalf("status %s facts %+v", st.Status, fx.Facts)
	}
	assertClean(t, st)
	st, _ = mustStart(t, mustProcess(t, file), map[string]any{"amount": num("50")})
	if _, _, err := Step(mustProcess(t, file), st, VariablesSet{ScopeID: "nope", Variables: map[string]any{"x": true}}, t0, Options{}); !errors.Is(err, scope.ErrUnknownScope) {
		t.Fatalf("unknown scope: %v", err)
	}
}
