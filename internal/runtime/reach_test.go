package runtime_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// fakeReach refuses keys in refused to everybody but root, fails to decide
// for the key "boom", and records what it was asked.
type fakeReach struct {
	refused []string
	mu      sync.Mutex
	asked   []string
}

func (f *fakeReach) MayReach(_ context.Context, by runtime.Deployer, r runtime.Reach) (*runtime.ReachRefusal, error) {
	f.mu.Lock()
	f.asked = append(f.asked, by.User+" "+string(r.Kind)+" "+r.Key+" at "+r.Process+"/"+r.Element)
	f.mu.Unlock()
	switch {
	case r.Key == "boom":
		return nil, errors.New("the rights store is down")
	case by.User != "root" && slices.Contains(f.refused, r.Key):
		return &runtime.ReachRefusal{Reach: r, Detail: "deployer " + by.User + " may not reach " + r.Key}, nil
	}
	return nil, nil
}

func (f *fakeReach) questions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asked)
}

// reachCaller calls a dynamic callee; reachChild creates a job of a
// dynamic type and one by name.
const reachCaller = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" targetNamespace="urn:t">
  <process id="caller" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/>
    <callActivity id="call"><extensionElements><zeebe:calledElement processId="= callee"/></extensionElements></callActivity>
    <sequenceFlow id="f2" sourceRef="call" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`

const reachChild = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:t">
  <process id="child" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="split"/>
    <parallelGateway id="split"/>
    <sequenceFlow id="f2" sourceRef="split" targetRef="dyn"/>
    <sequenceFlow id="f3" sourceRef="split" targetRef="named"/>
    <serviceTask id="dyn"><extensionElements><zeebe:taskDefinition type="= kind"/></extensionElements></serviceTask>
    <serviceTask id="named" gobpm:type="child-work"/>
  </process>
</definitions>`

// TestReachCheckedAgainstEachModelsDeployer: the deploy guard gets what
// the models reach by name (not what they reach by expression); at run
// time each dynamic reference is checked against the deployer of the
// model it is in — the caller's callee against root, the child's job type
// against alice, whose refusal stops the child's task in a reach-refused
// incident while its job by name is created.
func TestReachCheckedAgainstEachModelsDeployer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	guard := &fakeReach{refused: []string{"payroll-pay"}}
	rt := runtime.New(db, runtime.Options{Reach: guard})
	t.Cleanup(func() { _ = rt.Close() })

	var plan runtime.DeploymentPlan
	asAlice := runtime.WithDeployGuard(runtime.WithDeployer(ctx, runtime.Deployer{User: "alice"}), func(p runtime.DeploymentPlan) error {
		plan = p
		return nil
	})
	if _, err := rt.Deploy(asAlice, []runtime.File{{Name: "child.bpmn", Content: []byte(reachChild)}}); err != nil {
		t.Fatal(err)
	}
	if len(plan.Reaches) != 1 || plan.Reaches[0].Key != "child-work" || plan.Reaches[0].Element != "named" ||
		plan.Reaches[0].Resource != "child.bpmn" || plan.Reaches[0].Kind != runtime.ReachJobType {
		t.Errorf("plan reaches = %+v, want only the job type by name", plan.Reaches)
	}
	if _, err := rt.Deploy(runtime.WithDeployer(ctx, runtime.Deployer{User: "root"}), []runtime.File{{Name: "caller.bpmn", Content: []byte(reachCaller)}}); err != nil {
		t.Fatal(err)
	}

	inst, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "caller", Variables: map[string]any{"callee": "child", "kind": "payroll-pay"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"root process child at caller/call", "alice job-type payroll-pay at child/dyn"}; !slices.Equal(guard.questions(), want) {
		t.Errorf("asked %v, want %v", guard.questions(), want)
	}
	if len(inst.Children) != 1 {
		t.Fatalf("children = %+v", inst.Children)
	}
	child, err := rt.Instance(ctx, inst.Children[0].InstanceID)
	if err != nil {
		t.Fatal(err)
	}
	if len(child.Incidents) != 1 || child.Incidents[0].Kind != engine.IncidentReach || child.Incidents[0].NodeID != "dyn" ||
		child.Incidents[0].Message != "deployer alice may not reach payroll-pay" {
		t.Errorf("child incidents = %+v", child.Incidents)
	}
	waits, _, err := rt.Waits(ctx, child.ID, "", 10)
	if err != nil || len(waits) != 1 || waits[0].NodeID != "named" {
		t.Errorf("child waits = %+v, %v; want only the job by name", waits, err)
	}
}

// TestReachUnrestrictedWithoutDeployer: a model deployed without a
// deployer (no authentication, or before deployers were recorded) is not
// checked at run time.
func TestReachUnrestrictedWithoutDeployer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	guard := &fakeReach{refused: []string{"payroll-pay", "child"}}
	rt := runtime.New(db, runtime.Options{Reach: guard})
	t.Cleanup(func() { _ = rt.Close() })
	mustDeploy(t, rt, runtime.File{Name: "child.bpmn", Content: []byte(reachChild)}, runtime.File{Name: "caller.bpmn", Content: []byte(reachCaller)})
	inst, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "caller", Variables: map[string]any{"callee": "child", "kind": "payroll-pay"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(guard.questions()) != 0 || len(inst.Children) != 1 {
		t.Errorf("asked %v, children %+v; want no question and the child launched", guard.questions(), inst.Children)
	}
}

// TestReachUndecidedFailsTheStep: when the guard cannot decide (its store
// fails), the step fails and nothing is committed — never a silent pass.
func TestReachUndecidedFailsTheStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	rt := runtime.New(db, runtime.Options{Reach: &fakeReach{}})
	t.Cleanup(func() { _ = rt.Close() })
	if _, err := rt.Deploy(runtime.WithDeployer(ctx, runtime.Deployer{User: "alice"}), []runtime.File{{Name: "caller.bpmn", Content: []byte(reachCaller)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "caller", Variables: map[string]any{"callee": "boom"}}); err == nil {
		t.Fatal("start succeeded although the reach could not be decided")
	}
	if list, _, err := rt.ListInstances(ctx, runtime.InstanceFilter{}); err != nil || len(list) != 0 {
		t.Errorf("instances = %+v, %v; want none committed", list, err)
	}
}
