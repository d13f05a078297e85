package engine

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/gobpm/gobpm/internal/scope"
)

const modifyFile = "modify.bpmn"

// waitNodes returns the nodes of the open waits, sorted.
func waitNodes(st *State) []string {
	var out []string
	for _, w := range st.Waits {
		out = append(out, w.NodeID)
	}
	slices.Sort(out)
	return out
}

// subScopes returns the open scopes of sub-process sub.
func subScopes(st *State) []scope.ID {
	var out []scope.ID
	for _, sc := range st.Scopes.All() {
		if sc.NodeID == "sub" && sc.Kind == "" {
			out = append(out, sc.ID)
		}
	}
	return out
}

func cancelNode(id string) Instruction { return Instruction{Cancel: &CancelTarget{NodeID: id}} }
func activateNode(id string) Instruction {
	return Instruction{Activate: &ActivateTarget{NodeID: id}}
}

func TestModify(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, modifyFile)
	started, _ := mustStart(t, p, nil)
	trackAt := func(st *State, node string) string {
		for _, tr := range st.Tracks {
			if tr.Node == node {
				return tr.ID
			}
		}
		t.Fatalf("no track at %s: %+v", node, st.Tracks)
		return ""
	}
	tests := []struct {
		name      string
		prepare   func(t *testing.T, st *State) *State // nil: the started instance, waiting at a
		mod       func(st *State) Modify
		status    string
		waits     []string // nodes of the open waits after the step
		subs      int      // open instances of sub
		terminals []string // element-terminated facts
	}{
		{
			name: "move a token: cancel a, start c",
			mod: func(*State) Modify {
				return Modify{Instructions: []Instruction{cancelNode("a"), activateNode("c")}, By: "ops"}
			},
			status:    StatusRunning,
			waits:     []string{"c"},
			terminals: []string{"a"},
		},
		{
			name:   "start inside a sub-process that is not open: it opens, a stays",
			mod:    func(*State) Modify { return Modify{Instructions: []Instruction{activateNode("b")}} },
			status: StatusRunning,
			waits:  []string{"a", "b", "late"}, // a's job and its timer boundary
			subs:   1,
		},
		{
			name: "cancel the only element: the instance ends terminated",
			mod: func(st *State) Modify {
				return Modify{Instructions: []Instruction{{Cancel: &CancelTarget{TrackID: trackAt(st, "a")}}}}
			},
			status:    StatusTerminated,
			terminals: []string{"a"},
		},
		{
			name: "cancel a sub-process instance by its scope: the rest runs on",
			prepare: func(t *testing.T, st *State) *State {
				st, _ = run(t, modifyFile, st, Modify{Instructions: []Instruction{activateNode("b")}}, t0)
				return st
			},
			mod: func(st *State) Modify {
				return Modify{Instructions: []Instruction{{Cancel: &CancelTarget{ScopeID: subScopes(st)[0]}}}}
			},
			status:    StatusRunning,
			waits:     []string{"a", "late"},
			terminals: []string{"b", "sub"},
		},
		{
			name: "cancel the last element inside a sub-process: the sub-process goes too",
			prepare: func(t *testing.T, st *State) *State {
				st, _ = run(t, modifyFile, st, Modify{Instructions: []Instruction{cancelNode("a"), activateNode("b")}}, t0)
				return st
			},
			mod:       func(*State) Modify { return Modify{Instructions: []Instruction{cancelNode("b"), activateNode("c")}} },
			status:    StatusRunning,
			waits:     []string{"c"},
			terminals: []string{"b", "sub"},
		},
		{
			name: "out of an incident: cancel the failed task, start the next",
			prepare: func(t *testing.T, st *State) *State {
				st, _ = run(t, modifyFile, st, JobFailed{Key: waitAt(t, st, WaitJob, "a").ID, Retries: 0}, t0)
				if st.Status != StatusFailed || len(st.Incidents) != 1 {
					t.Fatalf("prepare: status %s incidents %+v", st.Status, st.Incidents)
				}
				return st
			},
			mod:       func(*State) Modify { return Modify{Instructions: []Instruction{cancelNode("a"), activateNode("c")}} },
			status:    StatusRunning,
			waits:     []string{"c"},
			terminals: []string{"a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := started.Clone()
			if tt.prepare != nil {
				st = tt.prepare(t, st)
			}
			next, fx := run(t, modifyFile, st, tt.mod(st), t0)
			if next.Status != tt.status {
				t.Fatalf("status %s, want %s (incidents %+v)", next.Status, tt.status, next.Incidents)
			}
			if got := waitNodes(next); !reflect.DeepEqual(got, tt.waits) && (len(got) > 0 || len(tt.waits) > 0) {
				t.Errorf("waits at %v, want %v", got, tt.waits)
			}
			if got := len(subScopes(next)); got != tt.subs {
				t.Errorf("%d open instances of sub, want %d", got, tt.subs)
			}
			var terminated []string
			for _, f := range factsOf(fx, FactElementTerminated) {
				terminated = append(terminated, f.NodeID)
			}
			slices.Sort(terminated)
			if !reflect.DeepEqual(terminated, tt.terminals) && (len(terminated) > 0 || len(tt.terminals) > 0) {
				t.Errorf("terminated %v, want %v", terminated, tt.terminals)
			}
			if m := factsOf(fx, FactInstanceModified); len(m) != 1 || m[0].Detail["instructions"] != len(tt.mod(st).Instructions) {
				t.Errorf("instance-modified facts: %+v", m)
			}
			if len(next.Incidents) != 0 {
				t.Errorf("incidents left open: %+v", next.Incidents)
			}
		})
	}
}

// TestModifiedInstanceRunsOn: an element started inside a sub-process that
// a modification opened completes the sub-process, which continues after
// it as if it had been entered by its flow.
func TestModifiedInstanceRunsOn(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, modifyFile)
	st, _ := mustStart(t, p, nil)
	st, _ = run(t, modifyFile, st, Modify{Instructions: []Instruction{
		cancelNode("a"),
		{Activate: &ActivateTarget{NodeID: "b", Variables: map[string]any{"note": "moved"}}},
	}}, t0)
	subs := subScopes(st)
	if len(subs) != 1 || st.Scopes.Get(subs[0]).Vars["note"] != "moved" {
		t.Fatalf("sub scopes %v, vars %+v", subs, st.Scopes.All())
	}
	st, _ = run(t, modifyFile, st, JobCompleted{Key: waitAt(t, st, WaitJob, "b").ID}, t0)
	if got := waitNodes(st); !reflect.DeepEqual(got, []string{"c"}) || len(subScopes(st)) != 0 {
		t.Fatalf("after b: waits %v, subs %v", got, subScopes(st))
	}
	st, _ = run(t, modifyFile, st, JobCompleted{Key: waitAt(t, st, WaitJob, "c").ID}, t0)
	if st.Status != StatusCompleted {
		t.Fatalf("status %s", st.Status)
	}
}

func TestModifyRefusals(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, modifyFile)
	st, _ := mustStart(t, p, nil)
	// Two instances of sub, each entered by its own start.
	twice, _ := run(t, modifyFile, st, Modify{Instructions: []Instruction{activateNode("sub"), activateNode("sub")}}, t0)
	if n := len(subScopes(twice)); n != 2 {
		t.Fatalf("%d instances of sub, want 2", n)
	}
	ended, _ := run(t, modifyFile, st, Modify{Instructions: []Instruction{cancelNode("a")}}, t0)
	tests := []struct {
		name string
		st   *State
		mod  Modify
		want error
	}{
		{"no instructions", st, Modify{}, ErrInvalidModification},
		{"unknown element", st, Modify{Instructions: []Instruction{activateNode("nope")}}, ErrInvalidModification},
		{"element not active", st, Modify{Instructions: []Instruction{cancelNode("c")}}, ErrInvalidModification},
		{"unknown track", st, Modify{Instructions: []Instruction{{Cancel: &CancelTarget{TrackID: "t99"}}}}, ErrInvalidModification},
		{"unknown scope", st, Modify{Instructions: []Instruction{{Cancel: &CancelTarget{ScopeID: "s99"}}}}, ErrInvalidModification},
		{"the root scope", st, Modify{Instructions: []Instruction{{Cancel: &CancelTarget{ScopeID: scope.RootID}}}}, ErrInvalidModification},
		{"two targets", st, Modify{Instructions: []Instruction{{Cancel: &CancelTarget{NodeID: "a", TrackID: "t1"}}}}, ErrInvalidModification},
		{"cancel and activate at once", st, Modify{Instructions: []Instruction{{Cancel: &CancelTarget{NodeID: "a"}, Activate: &ActivateTarget{NodeID: "c"}}}}, ErrInvalidModification},
		{"a boundary event", st, Modify{Instructions: []Instruction{activateNode("late")}}, ErrInvalidModification},
		// An ancestor of the element's container is accepted (modify_ancestor_test.go); an inner scope is not.
		{"scope of another container", twice, Modify{Instructions: []Instruction{{Activate: &ActivateTarget{NodeID: "c", ScopeID: subScopes(twice)[0]}}}}, ErrInvalidModification},
		{"ambiguous container", twice, Modify{Instructions: []Instruction{activateNode("b")}}, ErrAmbiguousScope},
		{"ended instance", ended, Modify{Instructions: []Instruction{activateNode("c")}}, ErrInvalidTransition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := roundTrip(t, tt.st)
			_, _, err := Step(p, before, tt.mod, t0, Options{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	// Naming one of the two instances works.
	next, _ := run(t, modifyFile, twice, Modify{Instructions: []Instruction{{Activate: &ActivateTarget{NodeID: "b", ScopeID: subScopes(twice)[1]}}}}, t0)
	if got := waitNodes(next); !reflect.DeepEqual(got, []string{"a", "b", "b", "b", "late"}) {
		t.Errorf("waits %v, want a's two and three b jobs", got)
	}
}

// TestModifyAroundOtherScopes: modifications next to multi-instance
// bodies, ad-hoc regions and event sub-processes.
func TestModifyAroundOtherScopes(t *testing.T) {
	t.Parallel()
	const file = "modify_more.bpmn"
	p := mustProcess(t, file)
	st, _ := mustStart(t, p, nil)
	if got := waitNodes(st); !reflect.DeepEqual(got, []string{"onPoke", "work", "work"}) {
		t.Fatalf("started: waits %v", got)
	}
	iterations := func(st *State) []scope.ID {
		var out []scope.ID
		for _, sc := range st.Scopes.All() {
			if sc.NodeID == "each" && sc.Kind == "" {
				out = append(out, sc.ID)
			}
		}
		return out
	}
	mod := func(ins ...Instruction) Modify { return Modify{Instructions: ins} }
	refused := func(name string, st *State, m Modify, want error) {
		t.Helper()
		if _, _, err := Step(p, roundTrip(t, st), m, t0, Options{}); !errors.Is(err, want) {
			t.Errorf("%s: err = %v, want %v", name, err, want)
		}
	}

	// Multi-instance: two iterations hold "work"; naming one works, an
	// unnamed one is ambiguous, emptying an iteration is refused.
	refused("work without a scope", st, mod(activateNode("work")), ErrAmbiguousScope)
	refused("emptying the iterations", st, mod(cancelNode("work")), ErrInvalidModification)
	next, _ := run(t, file, st, mod(Instruction{Activate: &ActivateTarget{NodeID: "work", ScopeID: iterations(st)[0]}}), t0)
	if got := waitNodes(next); !reflect.DeepEqual(got, []string{"onPoke", "work", "work", "work"}) {
		t.Errorf("after a third work: %v", got)
	}
	// Cancelling the multi-instance activity takes its body; moving on to
	// the region opens it as its flow would.
	next, _ = run(t, file, st, mod(cancelNode("each"), activateNode("region")), t0)
	if len(iterations(next)) != 0 || next.Status != StatusRunning || len(next.Regions) != 1 {
		t.Fatalf("after each → region: iterations %v, status %s, regions %+v", iterations(next), next.Status, next.Regions)
	}
	// Starting the multi-instance activity anew starts a whole body.
	next, _ = run(t, file, st, mod(activateNode("each")), t0)
	if got := len(iterations(next)); got != 4 {
		t.Errorf("after starting each again: %d iterations, want 4", got)
	}

	// Ad-hoc: its activities are started through the region, not here.
	refused("an ad-hoc activity", st, mod(activateNode("A")), ErrInvalidModification)

	// Event sub-process: not started by a modification; a running
	// handler's element can be cancelled and its handler scope goes.
	refused("an event sub-process", st, mod(activateNode("onPoke")), ErrInvalidModification)
	refused("inside a handler that is not running", st, mod(activateNode("handle")), ErrInvalidModification)
	poked, _ := run(t, file, st, MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "onPoke").ID}, t0)
	if !hasWaitAt(poked, "handle") {
		t.Fatalf("poke: waits %v", waitNodes(poked))
	}
	next, fx := run(t, file, poked, mod(cancelNode("handle")), t0)
	if hasWaitAt(next, "handle") || next.Status != StatusRunning || len(factsOf(fx, FactScopeCancelled)) != 1 {
		t.Errorf("after cancelling handle: waits %v, status %s, cancelled scopes %v", waitNodes(next), next.Status, factsOf(fx, FactScopeCancelled))
	}
	if got := waitNodes(next); !reflect.DeepEqual(got, []string{"onPoke", "work", "work"}) {
		t.Errorf("the rest of the instance changed: %v", got)
	}
}
