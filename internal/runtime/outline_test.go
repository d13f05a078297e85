package runtime_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// outlineModel has what an outline shows: names, flows, a user task's
// form and declared outputs, a call activity, an ad-hoc region and a
// transaction.
const outlineModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
    xmlns:gobpm="urn:gobpm:1" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="urn:test">
  <process id="outlined" name="Outlined" isExecutable="true">
    <startEvent id="start" name="Order in" camunda:formKey="camunda-forms:bpmn:order"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="check"/>
    <userTask id="check" name="Check it" gobpm:formRef="check-form">
      <extensionElements><zeebe:ioMapping>
        <zeebe:output source="=approved" target="ok"/>
        <zeebe:output source="=a + 1" target="b"/>
        <zeebe:output source="=note" target="n"/>
      </zeebe:ioMapping></extensionElements>
    </userTask>
    <sequenceFlow id="f2" name="Next" sourceRef="check" targetRef="call"/>
    <callActivity id="call" calledElement="other"/>
    <sequenceFlow id="f3" sourceRef="call" targetRef="region"/>
    <adHocSubProcess id="region" name="Extras" gobpm:router="standard" gobpm:selection="manual">
      <userTask id="A" name="Task A"/>
      <userTask id="B"/>
    </adHocSubProcess>
    <sequenceFlow id="f4" sourceRef="region" targetRef="tx"/>
    <transaction id="tx" name="Book">
      <startEvent id="txs"/>
      <sequenceFlow id="t1" name="Inner" sourceRef="txs" targetRef="txe"/>
      <endEvent id="txe" name="Booked"/>
    </transaction>
    <sequenceFlow id="f5" sourceRef="tx" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// A process version's outline names its elements and flows, nested ones
// too, with the forms, outputs, call targets and region contents the
// parsed model holds; it is a copy, and an unknown version is ENOTFOUND.
func TestOutline(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, runtime.File{Name: "outlined.bpmn", Content: []byte(outlineModel)})
	o, err := c.rt.Outline(ctx, "outlined", 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.Key != "outlined" || o.Version != 1 || o.Name != "Outlined" {
		t.Errorf("outline of %s version %d named %q", o.Key, o.Version, o.Name)
	}
	wantNames := map[string]string{"outlined": "Outlined", "start": "Order in", "check": "Check it", "f2": "Next",
		"region": "Extras", "A": "Task A", "tx": "Book", "t1": "Inner", "txe": "Booked"}
	if got := o.Names(); !reflect.DeepEqual(got, wantNames) {
		t.Errorf("names %v\nwant  %v", got, wantNames)
	}
	if len(o.Elements) != 10 || len(o.Flows) != 6 {
		t.Errorf("%d elements, %d flows: want 10 and 6", len(o.Elements), len(o.Flows))
	}
	check := o.Elements["check"]
	if check.Kind != runtime.ElementUserTask || check.FormRef != "check-form" || !reflect.DeepEqual(check.Outputs, []string{"approved", "note"}) {
		t.Errorf("user task %+v", check)
	}
	if s := o.Elements["start"]; s.Kind != runtime.ElementStartEvent || s.FormRef != "order" {
		t.Errorf("start event %+v", s)
	}
	if call := o.Elements["call"]; call.Kind != runtime.ElementCallActivity || call.Called != "other" {
		t.Errorf("call activity %+v", call)
	}
	if rg := o.Elements["region"]; rg.Kind != runtime.ElementAdHocSubProcess || !reflect.DeepEqual(rg.Contents, []string{"A", "B"}) {
		t.Errorf("ad-hoc region %+v", rg)
	}
	if got := o.OfKind(runtime.ElementTransaction); !reflect.DeepEqual(got, map[string]bool{"tx": true}) {
		t.Errorf("transactions %v", got)
	}
	if f := o.Flows["t1"]; f != (runtime.OutlineFlow{ID: "t1", Name: "Inner", Source: "txs", Target: "txe"}) {
		t.Errorf("nested flow %+v", f)
	}

	delete(o.Elements, "check")
	o.Flows["f1"] = runtime.OutlineFlow{}
	again, err := c.rt.Outline(ctx, "outlined", 1)
	if err != nil {
		t.Fatal(err)
	}
	if again.Elements["check"].Name != "Check it" || again.Flows["f1"].Source != "start" {
		t.Errorf("a changed outline changed the next one: %+v %+v", again.Elements["check"], again.Flows["f1"])
	}
	for _, v := range []int{2, 0} {
		key := "outlined"
		if v == 0 {
			key = "nope"
		}
		if _, err := c.rt.Outline(ctx, key, v); runtime.ErrorCode(err) != runtime.ENOTFOUND {
			t.Errorf("%s version %d: %v, want ENOTFOUND", key, v, err)
		}
	}
}
