package engine

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// regionAt returns the open region of an ad-hoc node.
func regionAt(t *testing.T, st *State, node string) *Region {
	t.Helper()
	for _, r := range st.Regions {
		if r.NodeID == node {
			return r
		}
	}
	t.Fatalf("no open region %s: %+v", node, st.Regions)
	return nil
}

func activateAt(t *testing.T, file string, st *State, node, activity string) (*State, Effects) {
	t.Helper()
	return run(t, file, st, AdHocActivated{ScopeID: string(regionAt(t, st, node).ScopeID), ActivityID: activity, User: "ann"}, t0)
}

func TestAdHocManualStandardParallel(t *testing.T) {
	t.Parallel()
	const file = "adhoc_manual.bpmn"
	st, fx := mustStart(t, mustProcess(t, file), nil)
	if r := regionAt(t, st, "region"); !slices.Equal(r.Offer, []string{"A", "B"}) || len(tasks(st)) != 0 {
		t.Fatalf("offer %v tasks %v", r.Offer, tasks(st))
	}
	if len(factsOf(fx, FactRegionOpened)) != 1 || len(factsOf(fx, FactCandidates)) != 1 {
		t.Errorf("facts %+v", fx.Facts)
	}
	st, fx = activateAt(t, file, st, "region", "A")
	if r := regionAt(t, st, "region"); !slices.Equal(r.Offer, []string{"B"}) || !slices.Equal(tasks(st), []string{"A"}) {
		t.Fatalf("after activating A: offer %v tasks %v", r.Offer, tasks(st))
	}
	if f := factsOf(fx, FactAdHocActivated); len(f) != 1 || f[0].Detail["by"] != "ann" {
		t.Errorf("activation fact %+v", f)
	}
	// A non-candidate changes nothing.
	if _, _, err := Step(mustProcess(t, file), st, AdHocActivated{ScopeID: string(regionAt(t, st, "region").ScopeID), ActivityID: "A", User: "ann"}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("activating a running activity: %v", err)
	}
	if _, _, err := Step(mustProcess(t, file), st, AdHocActivated{ScopeID: string(regionAt(t, st, "region").ScopeID), ActivityID: "B"}, t0, Options{}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("activation without a user: %v", err)
	}
	st, _ = complete(t, file, st, "A") // A → C by its flow; the router offers B still
	if r := regionAt(t, st, "region"); !slices.Equal(r.Offer, []string{"B"}) || !slices.Equal(tasks(st), []string{"C"}) || r.Completed["A"] != 1 {
		t.Fatalf("after A: %+v tasks %v", r, tasks(st))
	}
	st, _ = activateAt(t, file, st, "region", "B")
	st, _ = complete(t, file, st, "B")
	st, _ = complete(t, file, st, "C")
	if !slices.Equal(tasks(st), []string{"after"}) || len(st.Regions) != 0 {
		t.Fatalf("region did not drain: tasks %v regions %+v", tasks(st), st.Regions)
	}
}

func TestAdHocAutomaticRouters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file  string
		steps [][]string // open tasks before each completion, completing the first
	}{
		{"adhoc_auto.bpmn", [][]string{{"A", "B"}, {"B", "C"}, {"C"}}},
		{"adhoc_sequence.bpmn", [][]string{{"B"}, {"A"}}},
		{"adhoc_expression.bpmn", [][]string{{"A", "B"}, {"B", "B"}, {"B"}}},
	}
	for _, tc := range tests {
		st, _ := mustStart(t, mustProcess(t, tc.file), nil)
		for i, want := range tc.steps {
			if got := tasks(st); !slices.Equal(got, want) {
				t.Fatalf("%s step %d: tasks %v, want %v", tc.file, i, got, want)
			}
			st, _ = complete(t, tc.file, st, want[0])
		}
		if !slices.Equal(tasks(st), []string{"after"}) {
			t.Fatalf("%s: region did not finish: %v", tc.file, tasks(st))
		}
	}
}

func TestAdHocCompletionCondition(t *testing.T) {
	t.Parallel()
	for file, left := range map[string][]string{"adhoc_condition.bpmn": {"after"}, "adhoc_keep.bpmn": {"B"}} {
		st, _ := mustStart(t, mustProcess(t, file), map[string]any{"done": false})
		st, _ = activateAt(t, file, st, "region", "A")
		st, _ = activateAt(t, file, st, "region", "B")
		st, fx := run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, "A").ID, User: "u", Variables: map[string]any{"done": true}}, t0)
		if got := tasks(st); !slices.Equal(got, left) {
			t.Fatalf("%s: tasks %v, want %v", file, got, left)
		}
		if f := factsOf(fx, FactRegionStopped); len(f) == 0 || f[0].Detail["reason"] != reasonCondition {
			t.Errorf("%s: stop facts %+v", file, f)
		}
		if file == "adhoc_keep.bpmn" {
			st, _ = complete(t, file, st, "B")
			if !slices.Equal(tasks(st), []string{"after"}) {
				t.Fatalf("keep: after B %v", tasks(st))
			}
		}
	}
}

func TestAdHocSequential(t *testing.T) {
	t.Parallel()
	const file = "adhoc_seq_manual.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	st, _ = activateAt(t, file, st, "region", "A")
	if r := regionAt(t, st, "region"); len(r.Offer) != 0 {
		t.Fatalf("the offer stays open while an activity runs: %v", r.Offer)
	}
	if _, _, err := Step(mustProcess(t, file), st, AdHocActivated{ScopeID: string(regionAt(t, st, "region").ScopeID), ActivityID: "B", User: "ann"}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("second activation: %v", err)
	}
	st, _ = complete(t, file, st, "A")
	if r := regionAt(t, st, "region"); !slices.Equal(r.Offer, []string{"B"}) {
		t.Fatalf("offer after A: %v", r.Offer)
	}
	// A sequential automatic region whose router answers two activities is a loud error.
	bad, _ := mustStart(t, mustProcess(t, "adhoc_seq_bad.bpmn"), nil)
	if bad.Status != StatusFailed || len(bad.Incidents) != 1 || bad.Incidents[0].Kind != IncidentRouter {
		t.Fatalf("sequential router with two answers: %s %+v", bad.Status, bad.Incidents)
	}
}

func TestAdHocNestedTimerAndCatch(t *testing.T) {
	t.Parallel()
	st, _ := mustStart(t, mustProcess(t, "adhoc_nested.bpmn"), nil)
	st, _ = activateAt(t, "adhoc_nested.bpmn", st, "region", "inner")
	if len(st.Regions) != 2 || !slices.Equal(regionAt(t, st, "inner").Offer, []string{"X", "Y"}) || !slices.Equal(regionAt(t, st, "region").Offer, []string{"A"}) {
		t.Fatalf("nested offers: %+v", st.Regions)
	}
	// A boundary timer on a manual region cancels it with its offer.
	st, _ = mustStart(t, mustProcess(t, "adhoc_timer.bpmn"), nil)
	st, fx := run(t, "adhoc_timer.bpmn", st, TimerFired{WaitID: waitAt(t, st, WaitTimer, "expire").ID}, t0.Add(time.Hour))
	if !st.Ended() || !slices.Contains(activated(fx), "expired") {
		t.Fatalf("timer on region: %s %v", st.Status, activated(fx))
	}
	assertClean(t, st)
	// An intermediate catch event lets an idle region react to a message.
	st, _ = mustStart(t, mustProcess(t, "adhoc_catch.bpmn"), nil)
	st, _ = complete(t, "adhoc_catch.bpmn", st, "A")
	if len(tasks(st)) != 0 || len(st.Regions) != 1 {
		t.Fatalf("idle region: tasks %v", tasks(st))
	}
	st, _ = run(t, "adhoc_catch.bpmn", st, MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "wake").ID}, t0)
	st, _ = complete(t, "adhoc_catch.bpmn", st, "B")
	if !slices.Equal(tasks(st), []string{"after"}) {
		t.Fatalf("after the message: %v", tasks(st))
	}
}

// A failing router or completion condition stops in an incident that a
// retry continues from where it stopped: nothing runs twice.
func TestRetryAfterRouterOrConditionFailure(t *testing.T) {
	t.Parallel()
	const file = "adhoc_retry.bpmn"
	// The router fails when the region opens: the region stays open.
	st, _ := mustStart(t, mustProcess(t, file), map[string]any{"ids": []any{"nope"}})
	if st.Status != StatusFailed || len(st.Incidents) != 1 || len(st.Regions) != 1 {
		t.Fatalf("open failure: %s %+v regions %d", st.Status, st.Incidents, len(st.Regions))
	}
	st, _ = run(t, file, st, VariablesSet{Variables: map[string]any{"ids": []any{"A"}}}, t0)
	st, _ = run(t, file, st, IncidentRetried{IncidentID: st.Incidents[0].ID, Retries: 1}, t0)
	if st.Status != StatusRunning || !slices.Equal(tasks(st), []string{"A"}) {
		t.Fatalf("after retry: %s tasks %v", st.Status, tasks(st))
	}
	// The router fails after A completed: the retry asks again, A is not run again.
	st, _ = run(t, file, st, VariablesSet{Variables: map[string]any{"ids": []any{"bogus"}}}, t0)
	st, _ = complete(t, file, st, "A")
	if st.Status != StatusFailed || len(tasks(st)) != 0 || regionAt(t, st, "region").Completed["A"] != 0 {
		t.Fatalf("inner failure: %s tasks %v region %+v", st.Status, tasks(st), st.Regions)
	}
	st, _ = run(t, file, st, VariablesSet{Variables: map[string]any{"ids": []any{}}}, t0)
	st, _ = run(t, file, st, IncidentRetried{IncidentID: st.Incidents[0].ID, Retries: 1}, t0)
	if !slices.Equal(tasks(st), []string{"after"}) {
		t.Fatalf("after the second retry: %s tasks %v", st.Status, tasks(st))
	}
	// A failing completion condition: the retry ends the iteration, the task is not created again.
	const mi = "mi_cond_err.bpmn"
	st, _ = mustStart(t, mustProcess(t, mi), map[string]any{"items": []any{"a", "b"}, "bad": true})
	st, _ = complete(t, mi, st, "approve")
	if st.Status != StatusFailed || len(tasks(st)) != 0 {
		t.Fatalf("condition failure: %s tasks %v", st.Status, tasks(st))
	}
	st, _ = run(t, mi, st, VariablesSet{Variables: map[string]any{"bad": false}}, t0)
	st, _ = run(t, mi, st, IncidentRetried{IncidentID: st.Incidents[0].ID, Retries: 1}, t0)
	if st.Status != StatusRunning || len(tasksAt(st, "approve")) != 1 {
		t.Fatalf("after retry: %s tasks %v", st.Status, tasks(st))
	}
	st, _ = complete(t, mi, st, "approve")
	assertClean(t, st)
}
