package engine

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

// TestMultiInstanceOutputOrderProperty is the property test of output order: a
// multi-instance user task over a random collection of 0..20 items,
// sequential or parallel, whose iterations are completed in a random order,
// each writing a distinct output element. Whatever the order:
//
//   - outs[i] is exactly the value iteration i+1 wrote (input order);
//   - while the body is open its counters are right after every completion
//     (nrOfInstances = n, nrOfCompletedInstances = completions so far,
//     nrOfActiveInstances = the open iterations, nrOfTerminatedInstances = 0),
//     a sequential body has exactly one open iteration, the next one by index,
//     and every open task's iteration holds its own item and loopCounter;
//   - at the end the instance has completed and nothing is left: no track,
//     wait, incident, region or body, only the root scope, and no iteration
//     local (item, out, loopCounter) leaked into it.
//
// The completion-condition variant (nrOfCompletedInstances >= stopAfter,
// stopAfter drawn from 1..n+1, n+1 never firing) checks that the body closes
// exactly at the stopAfter-th completion — so the condition saw
// nrOfCompletedInstances = stopAfter, including stopAfter = n at the last
// completion, which is the only way to observe the final count: the body
// scope holding it closes in the same step — that the cancelled iterations'
// slots stay null and that the cancelled tasks leave nothing behind.
//
// Every step round-trips the checkpoint first, as the runtime does.
func TestMultiInstanceOutputOrderProperty(t *testing.T) {
	t.Parallel()
	procs := map[[2]bool]*bpmn.Process{ // {sequential, condition}
		{false, false}: mustProcess(t, "mi_prop.bpmn"),
		{true, false}:  mustProcess(t, "mi_prop_seq.bpmn"),
		{false, true}:  mustProcess(t, "mi_prop_cond.bpmn"),
		{true, true}:   mustProcess(t, "mi_prop_cond_seq.bpmn"),
	}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 20).Draw(rt, "n")
		sequential := rapid.Bool().Draw(rt, "sequential")
		withCondition := rapid.Bool().Draw(rt, "withCondition")
		stopAfter := n + 1 // never fires
		if withCondition {
			stopAfter = rapid.IntRange(1, n+1).Draw(rt, "stopAfter")
		}
		p := procs[[2]bool{sequential, withCondition}]

		items := make([]any, n)
		for i := range items {
			items[i] = fmt.Sprintf("item-%d", i+1)
		}
		vars := map[string]any{"items": items}
		if withCondition {
			vars["stopAfter"] = number(stopAfter)
		}
		st, _, err := Step(p, NewState("i1", p.ID, 1), Start{Variables: vars}, t0, Options{})
		if err != nil {
			rt.Fatalf("start: %v", err)
		}

		want := make([]any, n) // want[i]: the value iteration i+1 wrote, nil until it completes
		expectStop := n
		if stopAfter <= n {
			expectStop = stopAfter
		}
		for done := 0; done < expectStop; done++ {
			open := miOpenTasks(rt, st, items)
			if len(open) == 0 {
				rt.Fatalf("after %d of %d completions no iteration task is open; status %s", done, n, st.Status)
			}
			checkBody(rt, st, n, done, sequential, len(open))
			if sequential && open[0].index != done+1 {
				rt.Fatalf("sequential: open iteration %d after %d completions, want %d", open[0].index, done, done+1)
			}
			pick := rapid.IntRange(0, len(open)-1).Draw(rt, "pick")
			it := open[pick]
			// A structured, distinct value: the item it belongs to and when it completed.
			val := map[string]any{"item": items[it.index-1], "nth": number(done + 1)}
			st = miStep(rt, p, st, TaskCompleted{TaskID: it.wait.ID, User: "u", Variables: map[string]any{"out": val}})
			want[it.index-1] = val
			if done+1 < expectStop && st.Ended() {
				rt.Fatalf("the instance ended after %d completions, want %d (n=%d stopAfter=%d)", done+1, expectStop, n, stopAfter)
			}
		}

		if !st.Ended() || st.Status != StatusCompleted {
			rt.Fatalf("status %s after %d completions (n=%d stopAfter=%d); tasks %v incidents %+v", st.Status, expectStop, n, stopAfter, tasks(st), st.Incidents)
		}
		if len(st.Tracks) != 0 || len(st.Waits) != 0 || len(st.Incidents) != 0 || len(st.Regions) != 0 || len(st.Bodies) != 0 || len(st.Scopes.All()) != 1 {
			rt.Fatalf("left behind: tracks %+v waits %+v incidents %+v regions %+v bodies %+v scopes %d",
				st.Tracks, st.Waits, st.Incidents, st.Regions, st.Bodies, len(st.Scopes.All()))
		}
		root := st.Scopes.Get(scope.RootID)
		if got := root.Vars["outs"]; !reflect.DeepEqual(got, want) {
			rt.Fatalf("outs = %v\nwant   %v (n=%d sequential=%v stopAfter=%d)", got, want, n, sequential, stopAfter)
		}
		for _, local := range []string{"item", "out", varLoopCounter, varInstances, varCompleted, varActive, varTerminated} {
			if v, leaked := root.Vars[local]; leaked {
				rt.Fatalf("iteration/body variable %s = %v leaked into the root scope", local, v)
			}
		}
	})
}

// miTask is an open iteration task with its iteration index (1-based).
type miTask struct {
	wait  *Wait
	index int
}

// miOpenTasks lists the open tasks of node "work" and checks each sits in
// its own iteration scope with the right item and loopCounter.
func miOpenTasks(rt *rapid.T, st *State, items []any) []miTask {
	var out []miTask
	seen := map[int]bool{}
	for _, w := range st.Waits {
		if w.Kind != WaitTask || w.NodeID != "work" {
			continue
		}
		it := st.Scopes.Get(w.ScopeID)
		if it == nil || it.Kind != scope.KindIteration || it.Index < 1 || it.Index > len(items) || seen[it.Index] {
			rt.Fatalf("task %s is not in a fresh iteration scope: %+v", w.ID, it)
		}
		seen[it.Index] = true
		if it.Vars["item"] != items[it.Index-1] || it.Vars[varLoopCounter] != number(it.Index) {
			rt.Fatalf("iteration %d holds item %v loopCounter %v", it.Index, it.Vars["item"], it.Vars[varLoopCounter])
		}
		if v, ok := it.Vars["out"]; !ok || v != nil {
			rt.Fatalf("iteration %d: output element %v (present %v), want a local null", it.Index, v, ok)
		}
		out = append(out, miTask{wait: w, index: it.Index})
	}
	return out
}

// checkBody checks the body scope's counters after done completions.
func checkBody(rt *rapid.T, st *State, n, done int, sequential bool, open int) {
	if len(st.Bodies) != 1 {
		rt.Fatalf("%d bodies open, want 1", len(st.Bodies))
	}
	b := st.Scopes.Get(st.Bodies[0].ScopeID)
	if b == nil || b.Kind != scope.KindBody {
		rt.Fatalf("body scope %+v", b)
	}
	active := n - done
	if sequential {
		active = 1
	}
	if open != active {
		rt.Fatalf("%d open iteration tasks after %d of %d completions, want %d", open, done, n, active)
	}
	want := map[string]json.Number{varInstances: number(n), varCompleted: number(done), varActive: number(active), varTerminated: number(0)}
	for k, v := range want {
		if b.Vars[k] != v {
			rt.Fatalf("after %d completions %s = %v, want %v (body vars %v)", done, k, b.Vars[k], v, b.Vars)
		}
	}
}

// miStep round-trips the checkpoint and runs one step.
func miStep(rt *rapid.T, p *bpmn.Process, st *State, ev Event) *State {
	st = roundTrip(rt, st)
	next, _, err := Step(p, st, ev, t0, Options{})
	if err != nil {
		rt.Fatalf("%s: %v", ev.Kind(), err)
	}
	return next
}

// TestMultiInstancePropertyFixturesAgree pins that the four fixtures of the
// property differ only in ordering and condition (a typo in one would make
// a variant vacuous).
func TestMultiInstancePropertyFixturesAgree(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"mi_prop.bpmn", "mi_prop_seq.bpmn", "mi_prop_cond.bpmn", "mi_prop_cond_seq.bpmn"} {
		p := mustProcess(t, f)
		n := p.Node("work")
		if n == nil || n.Loop == nil || n.Loop.Standard || n.Loop.Collection == nil || n.Loop.ElementVariable != "item" ||
			n.Loop.OutputCollection != "outs" || n.Loop.OutputElement != "out" {
			t.Fatalf("%s: loop %+v", f, n)
		}
		if seq := f == "mi_prop_seq.bpmn" || f == "mi_prop_cond_seq.bpmn"; n.Loop.Sequential != seq {
			t.Errorf("%s: sequential %v", f, n.Loop.Sequential)
		}
		if cond := f == "mi_prop_cond.bpmn" || f == "mi_prop_cond_seq.bpmn"; (n.Loop.CompletionCondition != nil) != cond {
			t.Errorf("%s: completion condition %v", f, n.Loop.CompletionCondition)
		}
	}
}
