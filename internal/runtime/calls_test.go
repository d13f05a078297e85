package runtime_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

func callFixture(t *testing.T, name string) runtime.File {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "calls", name))
	if err != nil {
		t.Fatal(err)
	}
	return runtime.File{Name: name, Content: data}
}

// onlyTask returns the single open user task of an instance (by element id).
func onlyTask(t *testing.T, rt *runtime.Runtime, id runtime.InstanceID, node string) runtime.TaskView {
	t.Helper()
	tasks, _, err := rt.Tasks(context.Background(), runtime.TaskFilter{InstanceID: id})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if task.NodeID == node {
			return task
		}
	}
	t.Fatalf("instance %s has no open task %s: %+v", id, node, tasks)
	return runtime.TaskView{}
}

func completeTask(t *testing.T, rt *runtime.Runtime, id runtime.InstanceID, node string, vars map[string]any) {
	t.Helper()
	if err := rt.CompleteTask(context.Background(), onlyTask(t, rt, id, node).ID, runtime.Actor{User: "u"}, vars); err != nil {
		t.Fatal(err)
	}
}

func instance(t *testing.T, rt *runtime.Runtime, id runtime.InstanceID) runtime.InstanceView {
	t.Helper()
	v, err := rt.Instance(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCallActivityIOAndOutcome(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	mustDeploy(t, c.rt, callFixture(t, "caller.bpmn"), callFixture(t, "callee.bpmn"))
	inst, err := c.rt.StartInstance(context.Background(), runtime.StartRequest{ProcessKey: "caller", BusinessKey: "bk-1",
		Variables: map[string]any{"order": map[string]any{"amount": json.Number("21")}, "secret": "caller only"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(inst.Children) != 1 || inst.Children[0].NodeID != "callIt" || inst.Children[0].Status != runtime.StatusRunning {
		t.Fatalf("children %+v", inst.Children)
	}
	child := instance(t, c.rt, inst.Children[0].InstanceID)
	if child.ParentID != inst.ID || child.ParentNodeID != "callIt" || child.BusinessKey != "bk-1" {
		t.Fatalf("child linkage %+v", child.InstanceRow)
	}
	if _, seen := child.Variables["secret"]; seen {
		t.Fatal("an undeclared caller variable reached the child")
	}
	if child.Variables["order"] == nil {
		t.Fatal("the declared input did not reach the child")
	}
	completeTask(t, c.rt, child.ID, "work", nil)
	done := instance(t, c.rt, inst.ID)
	if done.Variables["total"] != json.Number("42") {
		t.Fatalf("output not bound: %v", done.Variables)
	}
	if _, leaked := done.Variables["internal"]; leaked {
		t.Fatal("an undeclared child variable reached the caller")
	}
	if instance(t, c.rt, child.ID).Status != runtime.StatusCompleted {
		t.Fatal("child not completed")
	}
	hist, _ := c.rt.History(context.Background(), inst.ID, 0, 0)
	found := false
	for _, f := range hist {
		if f.Kind == "call-started" && strings.Contains(string(f.Detail), `"key":"callee"`) && strings.Contains(string(f.Detail), `"version":1`) {
			found = true
		}
	}
	if !found {
		t.Error("no call-started fact with the resolved key and version")
	}
	completeTask(t, c.rt, inst.ID, "after", nil)
	if instance(t, c.rt, inst.ID).Status != runtime.StatusCompleted {
		t.Fatal("caller not completed")
	}
}

func TestCallErrors(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, callFixture(t, "caller.bpmn"), callFixture(t, "callee.bpmn"), callFixture(t, "caller_sub.bpmn"), callFixture(t, "missing.bpmn"))
	bad := map[string]any{"order": map[string]any{"amount": json.Number("-1")}}
	// The child's error end is caught by the boundary on the call activity.
	inst := start(t, c.rt, "caller", bad)
	onlyTask(t, c.rt, inst.ID, "failedPath")
	if kids := instance(t, c.rt, inst.ID).Children; len(kids) != 1 || kids[0].Status != runtime.StatusFailed {
		t.Fatalf("children %+v", kids)
	}
	// … and by an enclosing sub-process of the caller.
	sub := start(t, c.rt, "callerSub", bad)
	if v := instance(t, c.rt, sub.ID); v.Status != runtime.StatusCompleted {
		t.Fatalf("callerSub: %s", v.Status)
	}
	// A missing input fails the launch by contract; the catch-all boundary takes it.
	noInput := start(t, c.rt, "caller", nil)
	onlyTask(t, c.rt, noInput.ID, "failedPath")
	// A missing callee without a boundary: an incident naming the key.
	lost := start(t, c.rt, "callsNowhere", nil)
	if lost.Status != runtime.StatusFailed || len(lost.Incidents) != 1 || !strings.Contains(lost.Incidents[0].Message, "nowhere") {
		t.Fatalf("missing callee: %+v", lost)
	}
	// The callee deployed later: retrying the incident launches it (resolution at call time).
	mustDeploy(t, c.rt, runtime.File{Name: "nowhere.bpmn", Content: []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL">
  <process id="nowhere" isExecutable="true"><startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="e"/><endEvent id="e"/></process>
</definitions>`)})
	if _, err := c.rt.RetryIncident(ctx, lost.Incidents[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	if v := instance(t, c.rt, lost.ID); v.Status != runtime.StatusCompleted || len(v.Children) != 1 {
		t.Fatalf("after deploying the callee: %s %+v", v.Status, v.Children)
	}
}

func TestCallVersionBinding(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	mustDeploy(t, c.rt, callFixture(t, "pinned.bpmn"), callFixture(t, "versioned_v1.bpmn"))
	mustDeploy(t, c.rt, callFixture(t, "versioned_v2.bpmn"))
	inst := start(t, c.rt, "pinned", nil)
	first := instance(t, c.rt, inst.Children[0].InstanceID)
	if first.ProcessVersion != 1 || onlyTask(t, c.rt, first.ID, "mark").Name != "version 1" {
		t.Fatalf("pinned call ran version %d", first.ProcessVersion)
	}
	completeTask(t, c.rt, first.ID, "mark", nil)
	v := instance(t, c.rt, inst.ID)
	var latest runtime.ChildView
	for _, k := range v.Children {
		if k.NodeID == "callLatest" {
			latest = k
		}
	}
	if got := instance(t, c.rt, latest.InstanceID).ProcessVersion; got != 2 {
		t.Fatalf("unpinned call ran version %d, want the latest (2)", got)
	}
}

func TestCancelCascadeThreeLevels(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, callFixture(t, "levels.bpmn"))
	a := start(t, c.rt, "levelA", nil)
	if len(a.Children) != 2 {
		t.Fatalf("a parallel fork into two call activities: %+v", a.Children)
	}
	var all []runtime.InstanceID
	for _, b := range a.Children {
		all = append(all, b.InstanceID)
		for _, cc := range instance(t, c.rt, b.InstanceID).Children {
			all = append(all, cc.InstanceID)
		}
	}
	if len(all) != 4 {
		t.Fatalf("instances below A: %v", all)
	}
	if _, err := c.rt.Cancel(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range all {
		if v := instance(t, c.rt, id); v.Status != runtime.StatusTerminated {
			t.Errorf("%s is %s after cancelling the top", id, v.Status)
		}
	}
	if tasks, _, _ := c.rt.Tasks(ctx, runtime.TaskFilter{}); len(tasks) != 0 {
		t.Errorf("tasks left: %+v", tasks)
	}
	assertOutboxEmpty(t, c.db) // every cancel-child row was performed
}

func TestChildCompletionResumesCallersUpTheChain(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	mustDeploy(t, c.rt, callFixture(t, "levels.bpmn"))
	a := start(t, c.rt, "levelA", nil)
	tasks, _, _ := c.rt.Tasks(context.Background(), runtime.TaskFilter{})
	for _, task := range tasks {
		if err := c.rt.CompleteTask(context.Background(), task.ID, runtime.Actor{User: "u"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if v := instance(t, c.rt, a.ID); v.Status != runtime.StatusCompleted {
		t.Fatalf("top instance %s", v.Status)
	}
	assertOutboxEmpty(t, c.db) // every child-ended row was performed
}

func TestRecursionAndDepthGuard(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	mustDeploy(t, c.rt, callFixture(t, "recurse.bpmn"), callFixture(t, "runaway.bpmn"))
	inst := start(t, c.rt, "recurse", map[string]any{"n": json.Number("5")})
	if inst.Status != runtime.StatusCompleted || inst.Variables["depth"] != json.Number("5") {
		t.Fatalf("recursion: %s %v", inst.Status, inst.Variables)
	}
	run := start(t, c.rt, "runaway", nil)
	// Follow the chain down to the instance that hit the guard.
	id, depth := run.ID, 1
	for {
		v := instance(t, c.rt, id)
		if len(v.Children) == 0 {
			if v.Status != runtime.StatusFailed || len(v.Incidents) != 1 || !strings.Contains(v.Incidents[0].Message, "runaway → runaway") {
				t.Fatalf("depth %d: %s %+v", depth, v.Status, v.Incidents)
			}
			break
		}
		id, depth = v.Children[0].InstanceID, depth+1
	}
	if depth != 64 {
		t.Fatalf("guard stopped at depth %d, want 64", depth)
	}
}

func TestRestartResumesCallers(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, callFixture(t, "levels.bpmn"))
	a := start(t, c.rt, "levelA", nil)
	c.close(t)
	c.open(t)
	if _, err := c.rt.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	tasks, _, _ := c.rt.Tasks(ctx, runtime.TaskFilter{})
	if len(tasks) != 2 {
		t.Fatalf("tasks after restart: %+v", tasks)
	}
	for _, task := range tasks {
		if err := c.rt.CompleteTask(ctx, task.ID, runtime.Actor{User: "u"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	v := instance(t, c.rt, a.ID)
	if v.Status != runtime.StatusCompleted {
		t.Fatalf("top after restart: %s", v.Status)
	}
	hist, _ := c.rt.History(ctx, a.ID, 0, 0)
	ended := 0
	for _, f := range hist {
		if f.Kind == "call-ended" {
			ended++
		}
	}
	if ended != 2 {
		t.Fatalf("caller resumed %d times, want exactly 2", ended)
	}
}

// TestModifyCancelsACallActivity: cancelling a call activity by a
// modification terminates the instance it called, and everything below
// it, like cancelling the caller does; the caller runs on.
func TestModifyCancelsACallActivity(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, callFixture(t, "levels.bpmn"))
	a := start(t, c.rt, "levelA", nil)
	var b1 runtime.ChildView
	for _, ch := range a.Children {
		if ch.NodeID == "callB1" {
			b1 = ch
		}
	}
	if b1.InstanceID == "" {
		t.Fatalf("no child at callB1: %+v", a.Children)
	}
	below := instance(t, c.rt, b1.InstanceID).Children
	if len(below) != 1 {
		t.Fatalf("children of B1: %+v", below)
	}
	v, err := c.rt.ModifyInstance(ctx, a.ID, []runtime.Modification{{Cancel: &runtime.CancelElement{NodeID: "callB1"}}})
	if err != nil {
		t.Fatal(err)
	}
	running := 0
	for _, ch := range v.Children {
		if ch.Status == runtime.StatusRunning {
			running++
			if ch.NodeID != "callB2" {
				t.Errorf("child at %s still runs", ch.NodeID)
			}
		}
	}
	if v.Status != runtime.StatusRunning || running != 1 {
		t.Fatalf("caller after the modification: %s, children %+v", v.Status, v.Children)
	}
	for _, id := range []runtime.InstanceID{b1.InstanceID, below[0].InstanceID} {
		if got := instance(t, c.rt, id).Status; got != runtime.StatusTerminated {
			t.Errorf("%s is %s after its call activity was cancelled", id, got)
		}
	}
	assertOutboxEmpty(t, c.db)
}
