package bpmn

import "testing"

// TestVendorSettingsWithExecutionMeaningAreRefused checks the settings with execution meaning that
// gobpm does not have: each is refused naming its element, the rule and
// what to do instead (docs/architecture.md#deployment).
func TestVendorSettingsWithExecutionMeaningAreRefused(t *testing.T) {
	t.Parallel()
	verr := MustFail(t, MustRead(t, "vendor_settings_refused.bpmn"))
	checkProblems(t, verr, []want{
		{"m1", RuleUnsupported, `name="=orderName": a message name expression is not supported yet`},
		{"s1", RuleUnsupported, "a signal name expression"},
		{"e1", RuleUnsupported, "an error errorCode expression"},
		{"x1", RuleUnsupported, "an escalation escalationCode expression"},
		{"ck", RuleUnsupported, "correlationKey in collaboration collab is not supported"},
		{"p", RuleUnsupported, "camunda:candidateStarterGroups on process"},
		{"p", RuleUnsupported, "camunda:potentialStarter on process"},
		{"start", RuleUnsupported, "camunda:initiator on startEvent"},
		{"c7user", RuleUnsupported, "camunda:priority on userTask"},
		{"c7user", RuleUnsupported, "camunda:followUpDate on userTask"},
		{"c8user", RuleUnsupported, "zeebe:priorityDefinition on userTask"},
		{"c8user", RuleUnsupported, "zeebe:taskSchedule followUpDate on userTask"},
		{"flowableUser", RuleUnsupported, "flowable:assignee on userTask is not supported: Activiti/Flowable extensions are not read"},
		{"flowableField", RuleUnsupported, "activiti:field on serviceTask"},
		{"ws", RuleUnsupported, `implementation="http://example.org/soap" on serviceTask`},
		{"ws", RuleUnsupported, `operationRef "op" on serviceTask`},
		{"inbound", RuleUnsupported, "a webhook on receiveTask is not supported"},
		{"c8script", RuleInvalidAttribute, "scriptTask has both <script> and zeebe:script: keep one implementation"},
		{"unknownVendor", RuleUnsupported, "camunda:someFutureSetting on serviceTask is not supported: gobpm does not read it"},
		{"unknownVendor", RuleUnsupported, "zeebe:someFutureSetting on serviceTask"},
		{"unknownVendor", RuleUnsupported, "camunda:someFutureElement on serviceTask"},
		{"unknownVendor", RuleUnsupported, "zeebe:someFutureElement on serviceTask"},
		{"caught", RuleUnsupported, "camunda:errorCodeVariable on errorEventDefinition"},
		{"caught", RuleUnsupported, "camunda:errorMessageVariable on errorEventDefinition"},
		{"send", RuleUnsupported, "operationRef in messageEventDefinition"},
	}, true)
}

// TestVendorSettingsWithoutExecutionMeaningAreAccepted checks the settings accepted without effect:
// they have no execution meaning for gobpm (doc.go).
func TestVendorSettingsWithoutExecutionMeaningAreAccepted(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "vendor_settings_accepted.bpmn")
	if n := defs.Processes[0].Node("job"); n == nil || n.Job == nil || n.Job.Type != "x" {
		t.Fatalf("job = %+v", n)
	}
	if u := defs.Processes[0].Node("user").UserTask; u.DueDate == nil || u.Assignee == nil {
		t.Errorf("user task = %+v", u)
	}
}

// TestCamundaAttributeRefusedWhereNothingReadsIt checks that a Camunda attribute the
// parser reads on one element is refused where nothing reads it.
func TestCamundaAttributeRefusedWhereNothingReadsIt(t *testing.T) {
	t.Parallel()
	data := []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:gobpm="urn:gobpm:1" id="d" targetNamespace="urn:t">
<process id="p" isExecutable="true"><startEvent id="s"/>
<serviceTask id="t" gobpm:type="x" camunda:assignee="demo" camunda:resultVariable="r"/>
<endEvent id="e"/><sequenceFlow id="f1" sourceRef="s" targetRef="t"/><sequenceFlow id="f2" sourceRef="t" targetRef="e"/>
</process></definitions>`)
	checkProblems(t, MustFail(t, data), []want{
		{"t", RuleUnsupported, "camunda:assignee on serviceTask is not supported: gobpm does not read it"},
		{"t", RuleUnsupported, "camunda:resultVariable on serviceTask is not supported: a result variable is only read on scriptTask and businessRuleTask"},
	}, true)
}
