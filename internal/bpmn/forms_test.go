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

// The model keeps the form a user task or start event links: a
// zeebe:formDefinition formId before gobpm:formRef before camunda:formRef
// before a camunda:formKey naming a deployed form; a global user task
// keeps its own.
func TestParseFormRef(t *testing.T) {
	t.Parallel()
	data := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:test">
  <process id="forms" isExecutable="true">
    <startEvent id="s" camunda:formKey="camunda-forms:bpmn:begin"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="z"/>
    <userTask id="z" gobpm:formRef="g" camunda:formRef="c"><extensionElements><zeebe:formDefinition formId="pack"/></extensionElements></userTask>
    <sequenceFlow id="f2" sourceRef="z" targetRef="g"/>
    <userTask id="g" gobpm:formRef="mine" camunda:formRef="theirs"/>
    <sequenceFlow id="f3" sourceRef="g" targetRef="c"/>
    <userTask id="c" camunda:formRef=" cam " camunda:formKey="other"/>
    <sequenceFlow id="f4" sourceRef="c" targetRef="k"/>
    <userTask id="k" camunda:formKey="bare"/>
    <sequenceFlow id="f5" sourceRef="k" targetRef="x"/>
    <userTask id="x" camunda:formKey="embedded:app:forms/x.html"/>
    <sequenceFlow id="f6" sourceRef="x" targetRef="n"/>
    <userTask id="n"/>
    <sequenceFlow id="f7" sourceRef="n" targetRef="e"/>
    <endEvent id="e"/>
  </process>
  <globalUserTask id="approve" gobpm:formRef="approval"/>
</definitions>`)
	defs, err := Parse(data)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	want := map[string]string{"s": "begin", "z": "pack", "g": "mine", "c": "cam", "k": "bare", "x": "", "n": "", "e": ""}
	var proc, global *Process
	for _, p := range defs.Processes {
		switch p.ID {
		case "forms":
			proc = p
		case "approve":
			global = p
		}
	}
	if proc == nil || global == nil {
		t.Fatalf("processes %v: want forms and approve", defs.Processes)
	}
	for id, ref := range want {
		if got := proc.Node(id).FormRef; got != ref {
			t.Errorf("%s: FormRef = %q, want %q", id, got, ref)
		}
	}
	if got := global.Node("approve").FormRef; got != "approval" {
		t.Errorf("global user task: FormRef = %q, want approval", got)
	}
}
