package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// startWith starts an instance with a business key.
func startWith(t *testing.T, rt *runtime.Runtime, key, businessKey string, vars map[string]any) runtime.InstanceView {
	t.Helper()
	inst, err := rt.StartInstance(context.Background(), runtime.StartRequest{ProcessKey: key, BusinessKey: businessKey, Variables: vars})
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// onlyChild returns the single child of an instance.
func onlyChild(t *testing.T, rt *runtime.Runtime, inst runtime.InstanceView) runtime.InstanceView {
	t.Helper()
	v := instance(t, rt, inst.ID)
	if len(v.Children) != 1 {
		t.Fatalf("%s has children %+v (status %s, incidents %+v)", inst.ID, v.Children, v.Status, v.Incidents)
	}
	return instance(t, rt, v.Children[0].InstanceID)
}

// hasVars checks that vars hold want (compared as JSON) and none of absent.
func hasVars(t *testing.T, what string, vars, want map[string]any, absent ...string) {
	t.Helper()
	for k, w := range want {
		g, ok := vars[k]
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if !ok || !bytes.Equal(gb, wb) {
			t.Errorf("%s: %s = %s (present %v), want %s", what, k, gb, ok, wb)
		}
	}
	for _, k := range absent {
		if v, ok := vars[k]; ok {
			t.Errorf("%s: %s crossed (= %v)", what, k, v)
		}
	}
}

// incidentAbout checks that an instance stopped in one incident whose
// message holds want.
func incidentAbout(t *testing.T, v runtime.InstanceView, want string) {
	t.Helper()
	if v.Status != runtime.StatusFailed || len(v.Incidents) != 1 || !strings.Contains(v.Incidents[0].Message, want) {
		t.Fatalf("status %s incidents %+v, want one about %q", v.Status, v.Incidents, want)
	}
}

// TestCallVariablesCamunda7 runs Camunda 7 call activities: camunda:in
// (source, sourceExpression, variables="all" local, a missing source as
// null, businessKey), camunda:out (source, sourceExpression read in the
// child, local) with camunda:inputOutput around them; variables="all" both
// ways; and no mapping at all, which passes nothing either way.
func TestCallVariablesCamunda7(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	mustDeploy(t, c.rt, callFixture(t, "c7_vars.bpmn"))

	inst := startWith(t, c.rt, "c7Caller", "bk-1", map[string]any{
		"order": map[string]any{"id": "o-1"}, "amount": json.Number("21"), "secret": "caller only"})
	child := onlyChild(t, c.rt, inst)
	if child.BusinessKey != "o-1" {
		t.Errorf("child business key %q, want o-1 (camunda:in businessKey)", child.BusinessKey)
	}
	hasVars(t, "child", child.Variables, map[string]any{
		"o": map[string]any{"id": "o-1"}, "double": 42, "note": "local note", "absentOne": nil,
	}, "secret", "amount", "order")
	completeTask(t, c.rt, child.ID, "work", map[string]any{"result": "ok", "childId": string(child.ID), "scratch": "tmp", "hidden": 1})
	caller := instance(t, c.rt, inst.ID)
	hasVars(t, "caller", caller.Variables, map[string]any{
		"outcome": "ok", "checked": "true:ok", "noteBack": "local note / ok",
	}, "note", "scratch", "hidden", "result", "o", "double", "childId")
	completeTask(t, c.rt, inst.ID, "after", nil)

	all := start(t, c.rt, "c7All", map[string]any{"a": 1})
	allChild := onlyChild(t, c.rt, all)
	hasVars(t, "variables=all child", allChild.Variables, map[string]any{"a": 1})
	completeTask(t, c.rt, allChild.ID, "work", map[string]any{"b": 2})
	if v := instance(t, c.rt, all.ID); v.Status != runtime.StatusCompleted {
		t.Fatalf("c7All: %s", v.Status)
	} else {
		hasVars(t, "variables=all caller", v.Variables, map[string]any{"a": 1, "b": 2})
	}

	none := start(t, c.rt, "c7None", map[string]any{"a": 1})
	noneChild := onlyChild(t, c.rt, none)
	hasVars(t, "unmapped child", noneChild.Variables, nil, "a")
	completeTask(t, c.rt, noneChild.ID, "work", map[string]any{"b": 2})
	hasVars(t, "unmapped caller", instance(t, c.rt, none.ID).Variables, nil, "b")
}

// TestCallVariablesZeebe runs Camunda 8 call activities: both propagate
// attributes default to true; false passes only the input mappings and
// hands nothing back; output mappings hand back only what they map; a
// dynamic callee is evaluated on entry (a failure is an incident); a
// callee declaring an ioSpecification takes only its declared inputs and
// hands back only its declared outputs.
func TestCallVariablesZeebe(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	mustDeploy(t, c.rt, callFixture(t, "zeebe_vars.bpmn"))
	vars := func() map[string]any { return map[string]any{"order": map[string]any{"id": "o-1"}, "x": 1} }

	def := start(t, c.rt, "zDefault", vars())
	child := onlyChild(t, c.rt, def)
	hasVars(t, "default child", child.Variables, map[string]any{"order": map[string]any{"id": "o-1"}, "x": 1})
	completeTask(t, c.rt, child.ID, "work", map[string]any{"result": "r", "y": 2})
	hasVars(t, "default caller", instance(t, c.rt, def.ID).Variables, map[string]any{"result": "r", "y": 2, "x": 1})

	off := start(t, c.rt, "zFalse", vars())
	child = onlyChild(t, c.rt, off)
	hasVars(t, "propagate=false child", child.Variables, map[string]any{"orderId": "o-1"}, "order", "x")
	completeTask(t, c.rt, child.ID, "work", map[string]any{"result": "r"})
	v := instance(t, c.rt, off.ID)
	if v.Status != runtime.StatusCompleted {
		t.Fatalf("zFalse: %s", v.Status)
	}
	hasVars(t, "propagate=false caller", v.Variables, nil, "result", "orderId")

	outs := start(t, c.rt, "zOutputs", vars())
	child = onlyChild(t, c.rt, outs)
	hasVars(t, "outputs child", child.Variables, map[string]any{"x": 1})
	completeTask(t, c.rt, child.ID, "work", map[string]any{"result": "r", "other": 1})
	hasVars(t, "outputs caller", instance(t, c.rt, outs.ID).Variables, map[string]any{"fromChild": map[string]any{"result": "r"}}, "result", "other")

	dyn := start(t, c.rt, "zDynamic", map[string]any{"suffix": "Child"})
	if got := onlyChild(t, c.rt, dyn).ProcessKey; got != "zChild" {
		t.Errorf("dynamic callee ran %s", got)
	}
	bad := start(t, c.rt, "zDynamic", nil)
	incidentAbout(t, bad, "called element of call activity callDynamic")
	if v := instance(t, c.rt, bad.ID); len(v.Children) != 0 {
		t.Errorf("a failed dynamic callee launched %+v", v.Children)
	}

	con := start(t, c.rt, "zContract", map[string]any{"order": 1, "extra": 2})
	child = onlyChild(t, c.rt, con)
	hasVars(t, "contract child", child.Variables, map[string]any{"order": 1}, "extra")
	completeTask(t, c.rt, child.ID, "work2", map[string]any{"receipt": "R", "internal": 1})
	hasVars(t, "contract caller", instance(t, c.rt, con.ID).Variables, map[string]any{"receipt": "R"}, "internal")
	incidentAbout(t, start(t, c.rt, "zContract", map[string]any{"extra": 2}), `required input "order" is not passed`)
}

// TestCallBindings resolves callees by version tag, by an evaluated
// version and by deployment.
func TestCallBindings(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	mustDeploy(t, c.rt, callFixture(t, "binding_caller.bpmn"), callFixture(t, "tagged_v1.bpmn"))
	mustDeploy(t, c.rt, callFixture(t, "tagged_v2.bpmn"))
	mustDeploy(t, c.rt, callFixture(t, "tagged_v3.bpmn"))

	for _, tt := range []struct {
		tag     string
		version int
	}{{"1.0", 3}, {"2.0", 2}} {
		if got := onlyChild(t, c.rt, start(t, c.rt, "bindTag", map[string]any{"tag": tt.tag})).ProcessVersion; got != tt.version {
			t.Errorf("tag %s ran version %d, want %d", tt.tag, got, tt.version)
		}
	}
	incidentAbout(t, start(t, c.rt, "bindTag", map[string]any{"tag": "9.9"}), `process "tagged" has no version tagged "9.9"`)

	for _, tt := range []struct {
		v       any
		version int
	}{{json.Number("2"), 2}, {"1", 1}} {
		child := onlyChild(t, c.rt, start(t, c.rt, "bindVersion", map[string]any{"callee": "tagged", "v": tt.v}))
		if child.ProcessKey != "tagged" || child.ProcessVersion != tt.version {
			t.Errorf("version %v ran %s version %d", tt.v, child.ProcessKey, child.ProcessVersion)
		}
	}
	incidentAbout(t, start(t, c.rt, "bindVersion", map[string]any{"callee": "tagged", "v": json.Number("7")}), `process "tagged" has no version 7`)
	incidentAbout(t, start(t, c.rt, "bindVersion", map[string]any{"callee": "tagged", "v": "x"}), "is not a version")

	// Binding deployment: the callee deployed together with the caller.
	callerFile, childFile := callFixture(t, "dep_caller.bpmn"), callFixture(t, "dep_child.bpmn")
	revise := func(f runtime.File, rev string) runtime.File {
		return runtime.File{Name: f.Name, Content: bytes.Replace(f.Content, []byte(`name="REV"`), []byte(`name="`+rev+`"`), 1)}
	}
	mustDeploy(t, c.rt, callerFile, childFile) // caller 1, child 1
	c.clk.Advance(time.Minute)
	mustDeploy(t, c.rt, revise(childFile, "B")) // child 2
	if got := onlyChild(t, c.rt, start(t, c.rt, "depCaller", nil)).ProcessVersion; got != 1 {
		t.Errorf("caller 1 ran child version %d, want 1 (deployed with it)", got)
	}
	c.clk.Advance(time.Minute)
	// Caller 2, with child 2 re-sent unchanged (it keeps version 2 and its deployment).
	res := mustDeploy(t, c.rt, revise(callerFile, "B"), revise(childFile, "B"))
	if res.Processes[0].Version != 2 || res.Processes[1].Version != 2 {
		t.Fatalf("deployed %+v", res.Processes)
	}
	c.clk.Advance(time.Minute)
	mustDeploy(t, c.rt, revise(childFile, "C")) // child 3, later
	if got := onlyChild(t, c.rt, start(t, c.rt, "depCaller", nil)).ProcessVersion; got != 2 {
		t.Errorf("caller 2 ran child version %d, want 2 (current when it was deployed)", got)
	}
}

// TestCallPropagationSurvivesRestart: a child asked to hand back all its
// variables (Zeebe's default) still does after a restart, when its caller
// learns of its end from the child's recorded link.
func TestCallPropagationSurvivesRestart(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, callFixture(t, "zeebe_vars.bpmn"))
	inst := start(t, c.rt, "zDefault", map[string]any{"x": 1})
	child := onlyChild(t, c.rt, inst)
	c.close(t)
	c.open(t)
	if _, err := c.rt.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	completeTask(t, c.rt, child.ID, "work", map[string]any{"result": "after restart"})
	v := instance(t, c.rt, inst.ID)
	if v.Status != runtime.StatusCompleted {
		t.Fatalf("caller %s", v.Status)
	}
	hasVars(t, "caller", v.Variables, map[string]any{"x": 1, "result": "after restart"})
}
