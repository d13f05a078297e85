package bpmn

import (
	"slices"
	"testing"
)

// referencesModel reaches something outside its instance in every way
// gobpm executes, in gobpm, Camunda 7 and Camunda 8 spellings, at the top
// level and nested; the elements named quiet reach nothing.
const referencesModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
  xmlns:lib="urn:lib" targetNamespace="urn:t">
  <signal id="sigAlarm" name="alarm"/>
  <message id="msgNote" name="note"/>
  <process id="p" isExecutable="true">
    <callActivity id="callG" calledElement="payroll"/>
    <callActivity id="callZ"><extensionElements><zeebe:calledElement processId="billing"/></extensionElements></callActivity>
    <callActivity id="callDyn"><extensionElements><zeebe:calledElement processId="= callee"/></extensionElements></callActivity>
    <callActivity id="callQ" calledElement="lib:audit"/>
    <businessRuleTask id="ruleG" gobpm:decisionRef="rates"/>
    <businessRuleTask id="ruleC7" camunda:decisionRef="risk"/>
    <businessRuleTask id="ruleZ"><extensionElements><zeebe:calledDecision decisionId="limits" resultVariable="r"/></extensionElements></businessRuleTask>
    <serviceTask id="jobG" gobpm:type="pay"/>
    <serviceTask id="jobC7" camunda:type="external" camunda:topic="ship"/>
    <serviceTask id="jobZ"><extensionElements><zeebe:taskDefinition type="mail"/></extensionElements></serviceTask>
    <serviceTask id="jobDyn"><extensionElements><zeebe:taskDefinition type="= kind"/></extensionElements></serviceTask>
    <sendTask id="send" gobpm:type="send-note"/>
    <scriptTask id="scriptJob"><extensionElements><zeebe:taskDefinition type="score"/></extensionElements></scriptTask>
    <intermediateThrowEvent id="throwSig"><signalEventDefinition signalRef="sigAlarm"/></intermediateThrowEvent>
    <intermediateThrowEvent id="throwMsg" gobpm:type="notify"><messageEventDefinition messageRef="msgNote"/></intermediateThrowEvent>
    <intermediateCatchEvent id="quietCatch"><signalEventDefinition signalRef="sigAlarm"/></intermediateCatchEvent>
    <sequenceFlow id="f1" sourceRef="quietUser" targetRef="throwSig"/>
    <sequenceFlow id="f2" sourceRef="throwSig" targetRef="throwMsg"/>
    <sequenceFlow id="f3" sourceRef="throwMsg" targetRef="quietCatch"/>
    <userTask id="quietUser"/>
    <subProcess id="sub">
      <endEvent id="endSig"><signalEventDefinition signalRef="sigAlarm"/></endEvent>
      <callActivity id="nestedCall" calledElement="${target}"/>
    </subProcess>
    <adHocSubProcess id="region" gobpm:router="job" gobpm:routerType="triage"><task id="quietTask"/></adHocSubProcess>
  </process>
</definitions>`

func TestProcessReferences(t *testing.T) {
	t.Parallel()
	defs, err := Parse([]byte(referencesModel))
	if err != nil {
		t.Fatal(err)
	}
	got := defs.Processes[0].References()
	want := []Reference{
		{"callG", KindCallActivity, RefProcess, "payroll", false},
		{"callZ", KindCallActivity, RefProcess, "billing", false},
		{"callDyn", KindCallActivity, RefProcess, "= callee", true},
		{"callQ", KindCallActivity, RefProcess, "lib:audit", true},
		{"ruleG", KindBusinessRuleTask, RefDecision, "rates", false},
		{"ruleC7", KindBusinessRuleTask, RefDecision, "risk", false},
		{"ruleZ", KindBusinessRuleTask, RefDecision, "limits", false},
		{"jobG", KindServiceTask, RefJobType, "pay", false},
		{"jobC7", KindServiceTask, RefJobType, "ship", false},
		{"jobZ", KindServiceTask, RefJobType, "mail", false},
		{"jobDyn", KindServiceTask, RefJobType, "= kind", true},
		{"send", KindSendTask, RefJobType, "send-note", false},
		{"scriptJob", KindScriptTask, RefJobType, "score", false},
		{"throwSig", KindIntermediateThrowEvent, RefSignal, "alarm", false},
		{"throwMsg", KindIntermediateThrowEvent, RefJobType, "notify", false},
		{"endSig", KindEndEvent, RefSignal, "alarm", false},
		{"nestedCall", KindCallActivity, RefProcess, "${target}", true},
		{"region", KindAdHocSubProcess, RefJobType, "triage", false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("References() =\n%v\nwant\n%v", got, want)
	}
}

func TestReferencesOfNothing(t *testing.T) {
	t.Parallel()
	if got := (*Process)(nil).References(); got != nil {
		t.Errorf("nil process: %v", got)
	}
}
