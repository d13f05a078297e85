package engine

import (
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// reachModel creates a job of a dynamic type and then calls a dynamic callee.
const reachModel = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" targetNamespace="urn:t">
  <process id="reach" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="pay"/>
    <serviceTask id="pay"><extensionElements><zeebe:taskDefinition type="= kind"/></extensionElements></serviceTask>
    <sequenceFlow id="f2" sourceRef="pay" targetRef="call"/>
    <callActivity id="call"><extensionElements><zeebe:calledElement processId="= callee"/></extensionElements></callActivity>
    <sequenceFlow id="f3" sourceRef="call" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// TestReachRefusedStopsTheElement: a refused job or call drops its wait
// and stops the element in a reach-refused incident naming the refusal; a
// retry runs the element again (a new job, a new call), so the runtime
// checks the reference anew.
func TestReachRefusedStopsTheElement(t *testing.T) {
	t.Parallel()
	defs, err := bpmn.Parse([]byte(reachModel))
	if err != nil {
		t.Fatal(err)
	}
	p := defs.Processes[0]
	st, _ := mustStart(t, p, map[string]any{"kind": "payroll-pay", "callee": "payroll"})
	job := onlyWait(t, st, WaitJob)
	if job.Name != "payroll-pay" {
		t.Fatalf("job type = %q", job.Name)
	}
	const why = "deployer alice may not deploy job-type \"payroll-pay\""
	st, fx, err := Step(p, st, ReachRefused{WaitID: job.ID, Message: why}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Waits) != 0 || len(st.Incidents) != 1 {
		t.Fatalf("after refusal: waits %v, incidents %v", st.Waits, st.Incidents)
	}
	in := st.Incidents[0]
	if in.Kind != IncidentReach || in.Message != why || in.NodeID != "pay" || in.WaitID != "" {
		t.Errorf("incident = %+v", in)
	}
	if len(fx.RemovedWaits) != 1 || fx.RemovedWaits[0] != job.ID {
		t.Errorf("removed waits = %v, want the job %s", fx.RemovedWaits, job.ID)
	}

	st, _, err = Step(p, st, IncidentRetried{IncidentID: in.ID}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	again := onlyWait(t, st, WaitJob)
	if again.ID == job.ID || again.Name != "payroll-pay" {
		t.Errorf("retry: job %s of type %q, want a new job", again.ID, again.Name)
	}

	st, fx, err = Step(p, st, JobCompleted{Key: again.ID}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.Calls) != 1 || fx.Calls[0].Reference != "payroll" {
		t.Fatalf("calls = %+v", fx.Calls)
	}
	call := fx.Calls[0]
	st, fx, err = Step(p, st, ReachRefused{WaitID: call.ChildID, Message: "deployer alice may not start process \"payroll\""}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Waits) != 0 || len(st.Incidents) != 1 || st.Incidents[0].NodeID != "call" || st.Incidents[0].Kind != IncidentReach {
		t.Fatalf("after call refusal: waits %v, incidents %+v", st.Waits, st.Incidents)
	}
	if len(fx.CancelChildren) != 0 {
		t.Errorf("a child never launched is cancelled: %v", fx.CancelChildren)
	}
	if !strings.Contains(factsOf(fx, FactIncidentCreated)[0].Detail["message"].(string), "may not start process") {
		t.Errorf("incident fact = %+v", factsOf(fx, FactIncidentCreated))
	}

	if _, _, err := Step(p, st, ReachRefused{WaitID: call.ChildID, Message: "again"}, t0, Options{}); err == nil {
		t.Error("a refusal for a wait that is gone was applied")
	}
}

// onlyWait returns the one open wait of st, which must be of kind.
func onlyWait(tb testing.TB, st *State, kind WaitKind) *Wait {
	tb.Helper()
	if len(st.Waits) != 1 || st.Waits[0].Kind != kind {
		tb.Fatalf("waits = %+v, want one %s", st.Waits, kind)
	}
	return st.Waits[0]
}
