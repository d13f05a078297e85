package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

const nestedFile = "camunda7/SubProcessTest.testNestedSimpleSubProcess.bpmn20.xml"

// scopesAt lists the open scope ids of node's instances.
func scopesAt(st *State, node string) []scope.ID {
	var out []scope.ID
	for _, sc := range st.Scopes.All() {
		if sc.NodeID == node {
			out = append(out, sc.ID)
		}
	}
	return out
}

// TestModifyActivateUnderAnAncestor: an activation may name an instance of
// a container around the element's own; the containers in between get new
// instances under it, as Camunda 7's startBeforeActivity with an ancestor
// activity instance id opens them (SubProcessTest.testNestedSimpleSubProcess
// as the model).
func TestModifyActivateUnderAnAncestor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		ancestor func(*State) scope.ID
		outer    int    // open instances of outerSubProcess after the modification
		inner    int    // and of innerSubProcess
		after    string // what completing the new task starts ("" = nothing outside)
	}{
		{name: "the instance, two levels up", ancestor: func(*State) scope.ID { return scope.RootID }, outer: 2, inner: 2, after: "afterSubProcessTask"},
		{name: "the outer sub-process, one level up", ancestor: func(st *State) scope.ID { return scopesAt(st, "outerSubProcess")[0] }, outer: 1, inner: 2},
		{name: "the element's own container", ancestor: func(st *State) scope.ID { return scopesAt(st, "innerSubProcess")[0] }, outer: 1, inner: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := mustProcess(t, nestedFile)
			st, _ := mustStart(t, p, map[string]any{"someVar": "abc"})
			first := waitAt(t, st, WaitTask, "innerSubProcessTask")
			mod := Modify{By: "ops", Instructions: []Instruction{{Activate: &ActivateTarget{NodeID: "innerSubProcessTask", ScopeID: tc.ancestor(st), Variables: map[string]any{"x": "y"}}}}}
			st, _ = run(t, nestedFile, st, mod, t0)
			if got := [2]int{len(scopesAt(st, "outerSubProcess")), len(scopesAt(st, "innerSubProcess"))}; got != [2]int{tc.outer, tc.inner} {
				t.Fatalf("instances of outer, inner = %v, want %d, %d; scopes %+v", got, tc.outer, tc.inner, st.Scopes.All())
			}
			tasks := tasksAt(st, "innerSubProcessTask")
			if len(tasks) != 2 {
				t.Fatalf("%d tasks, want 2", len(tasks))
			}
			second := tasks[1]
			if second.ID == first.ID {
				t.Fatal("the new task is the old one")
			}
			// The variables are local to the scope the new track runs in.
			if sc := st.Scopes.Get(second.ScopeID); sc.Vars["x"] != "y" || st.Scopes.Get(scope.RootID).Vars["x"] != nil {
				t.Errorf("variables of the new task's scope %v", sc.Vars)
			}
			st, _ = run(t, nestedFile, st, TaskCompleted{TaskID: second.ID, User: "u"}, t0)
			after := tasksAt(st, "afterSubProcessTask")
			if (tc.after != "") != (len(after) == 1) || st.Wait(first.ID) == nil {
				t.Fatalf("after completing the new task: waits %+v", st.Waits)
			}
			// The original task then ends the instance (or its second branch).
			st, _ = run(t, nestedFile, st, TaskCompleted{TaskID: first.ID, User: "u"}, t0)
			for _, w := range tasksAt(st, "afterSubProcessTask") {
				st, _ = run(t, nestedFile, st, TaskCompleted{TaskID: w.ID, User: "u"}, t0)
			}
			if st.Status != StatusCompleted {
				t.Errorf("status %s, waits %+v", st.Status, st.Waits)
			}
		})
	}
}

// TestModifyAncestorRefusals: the scope must be an instance of a container
// around the element, and every container in between one a modification
// may open; nothing changes otherwise.
func TestModifyAncestorRefusals(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, nestedFile)
	st, _ := mustStart(t, p, nil)
	inner := scopesAt(st, "innerSubProcess")[0]
	_, _, err := Step(p, roundTrip(t, st), Modify{Instructions: []Instruction{{Activate: &ActivateTarget{NodeID: "afterSubProcessTask", ScopeID: inner}}}}, t0, Options{})
	if !errors.Is(err, ErrInvalidModification) || !strings.Contains(err.Error(), "or of a container around it") {
		t.Errorf("a scope inside the element's container: %v", err)
	}

	const loop = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="urn:t"><process id="p" isExecutable="true">
		<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="hold"/><userTask id="hold"/><sequenceFlow id="f2" sourceRef="hold" targetRef="mi"/>
		<subProcess id="mi"><multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics>
			<startEvent id="ms"/><sequenceFlow id="m1" sourceRef="ms" targetRef="in"/>
			<subProcess id="in"><startEvent id="is"/><sequenceFlow id="i1" sourceRef="is" targetRef="task"/><userTask id="task"/></subProcess></subProcess>
		<sequenceFlow id="f3" sourceRef="mi" targetRef="e"/><endEvent id="e"/></process></definitions>`
	defs, err := bpmn.Parse([]byte(loop))
	if err != nil {
		t.Fatal(err)
	}
	lp := defs.Processes[0]
	lst, _ := mustStart(t, lp, nil)
	_, _, err = Step(lp, roundTrip(t, lst), Modify{Instructions: []Instruction{{Activate: &ActivateTarget{NodeID: "task", ScopeID: scope.RootID}}}}, t0, Options{})
	if !errors.Is(err, ErrInvalidModification) || !strings.Contains(err.Error(), "multi-instance") {
		t.Errorf("a multi-instance container in between: %v", err)
	}
	if !slices.ContainsFunc(lst.Waits, func(w *Wait) bool { return w.NodeID == "hold" }) {
		t.Errorf("the instance changed: %+v", lst.Waits)
	}
}
