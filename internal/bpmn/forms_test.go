package bpmn

import "testing"

// A user task links a Camunda Form by zeebe:formDefinition formId,
// camunda:formRef or gobpm:formRef: all three deploy (the cockpit reads
// them), and a misspelt gobpm attribute is still refused.
func TestParseFormLinks(t *testing.T) {
	t.Parallel()
	data := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:test">
  <process id="forms" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="z"/>
    <userTask id="z"><extensionElements><zeebe:formDefinition formId="pack"/></extensionElements></userTask>
    <sequenceFlow id="f2" sourceRef="z" targetRef="c"/>
    <userTask id="c" camunda:formRef="pack" camunda:formRefBinding="latest"/>
    <sequenceFlow id="f3" sourceRef="c" targetRef="g"/>
    <userTask id="g" gobpm:formRef="pack"/>
    <sequenceFlow id="f4" sourceRef="g" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`)
	if _, err := Parse(data); err != nil {
		t.Fatalf("form links refused: %v", err)
	}
	bad := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:test">
  <process id="forms" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="g"/>
    <userTask id="g" gobpm:formReference="pack"/>
    <sequenceFlow id="f2" sourceRef="g" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`)
	checkProblems(t, MustFail(t, bad), []want{{"g", RuleUnknownExtension, `"formReference"`}}, true)
}
