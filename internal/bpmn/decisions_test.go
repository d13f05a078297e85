package bpmn

import (
	"testing"
)

func TestParseBusinessRuleTasks(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "decisions.bpmn")
	if len(defs.Processes) != 2 {
		t.Fatalf("got %d processes, want rules + 1 global task", len(defs.Processes))
	}
	p := defs.Processes[0]
	tests := []struct {
		id       string
		want     DecisionDef
		outgoing int
	}{
		{"plain", DecisionDef{Ref: "approval", Map: "resultList"}, 1},
		{"mapped", DecisionDef{Ref: "discount", ResultVariable: "discount", Map: "singleEntry"}, 1},
		{"c7", DecisionDef{Ref: "risk", ResultVariable: "risks", Map: "collectEntries"}, 1},
		// Zeebe stores the decision's output as is: singleEntry.
		{"c8", DecisionDef{Ref: "risk_check", ResultVariable: "result", Map: "singleEntry"}, 1},
		{"c8override", DecisionDef{Ref: "risk_check", ResultVariable: "result", Map: "singleResult"}, 1},
		// gobpm wins per setting; camunda:mapDecisionResult still applies.
		{"both", DecisionDef{Ref: "approval", ResultVariable: "ok", Map: "singleResult"}, 1},
		{"each", DecisionDef{Ref: "scoring", ResultVariable: "score", Map: "resultList"}, 1},
	}
	for _, tt := range tests {
		n := p.Node(tt.id)
		if n == nil {
			t.Errorf("%s: no node", tt.id)
			continue
		}
		if n.Kind != KindBusinessRuleTask || !n.IsActivity() {
			t.Errorf("%s: kind %s", tt.id, n.Kind)
		}
		if n.Decision == nil || *n.Decision != tt.want {
			t.Errorf("%s: decision %+v, want %+v", tt.id, n.Decision, tt.want)
		}
		if n.Job != nil || n.Script != nil || n.ResultVariable != "" {
			t.Errorf("%s: job %v, script %v, result variable %q", tt.id, n.Job, n.Script, n.ResultVariable)
		}
		if len(n.Outgoing) != tt.outgoing {
			t.Errorf("%s: %d outgoing flows", tt.id, len(n.Outgoing))
		}
	}
	each := p.Node("each")
	if each.Loop == nil || !each.Loop.Sequential || each.Loop.Collection == nil || each.Loop.ElementVariable != "applicant" {
		t.Errorf("each: loop %+v", each.Loop)
	}
	if len(each.Boundaries) != 1 || each.Boundaries[0].ID != "failed" || p.Node("failed").AttachedTo != each {
		t.Errorf("each: boundaries %v", ids(each.Boundaries))
	}

	g := defs.Processes[1]
	if g.ID != "grade" || !g.GlobalTask || !g.Executable || g.Name != "Grade" {
		t.Fatalf("global process = %s (global %v, executable %v, name %q)", g.ID, g.GlobalTask, g.Executable, g.Name)
	}
	task := g.Node("grade")
	want := DecisionDef{Ref: "grading", ResultVariable: "grade", Map: "singleResult"}
	if task == nil || task.Kind != KindBusinessRuleTask || task.Decision == nil || *task.Decision != want {
		t.Fatalf("global task node = %+v", task)
	}
	if ids(g.Graph.Nodes) != "grade.start, grade, grade.end" || len(g.Graph.Starts) != 1 {
		t.Errorf("global graph nodes = %s", ids(g.Graph.Nodes))
	}
	if g.IO == nil || !eq(params(g.IO.Inputs), []string{"score"}) || !eq(params(g.IO.Outputs), []string{"grade"}) {
		t.Errorf("global IO = %+v", g.IO)
	}
}

func TestParseRejectBusinessRuleTasks(t *testing.T) {
	t.Parallel()
	verr := MustFail(t, MustRead(t, "reject_decisions.bpmn"))
	const engine = "gobpm evaluates DMN decisions in the engine"
	checkProblems(t, verr, []want{
		{"noRef", RuleMissingAttribute, `businessRuleTask "noRef" needs a decision: gobpm:decisionRef`},
		{"emptyRef", RuleMissingAttribute, "gobpm:decisionRef is empty"},
		{"exprRef", RuleUnsupported, `gobpm:decisionRef "= pick": a decision reference expression is not supported yet`},
		{"c7exprRef", RuleUnsupported, `camunda:decisionRef "${decisionKey}": a decision reference expression is not supported yet`},
		{"emptyResult", RuleInvalidAttribute, "gobpm:resultVariable is empty"},
		{"badMap", RuleInvalidAttribute, `gobpm:mapDecisionResult="firstRow": want singleEntry, singleResult, collectEntries, resultList`},
		{"c7badMap", RuleInvalidAttribute, `camunda:mapDecisionResult="singleValue"`},
		{"c7binding", RuleUnsupported, `camunda:decisionRefBinding="deployment" is not supported`},
		{"c7version", RuleUnsupported, `camunda:decisionRefBinding="version" is not supported`},
		{"c7version", RuleUnsupported, "camunda:decisionRefVersion on businessRuleTask is not supported"},
		{"c7tenant", RuleUnsupported, "camunda:decisionRefTenantId on businessRuleTask is not supported: tenants"},
		{"c7class", RuleUnsupported, "camunda:class (a Java delegate) on businessRuleTask is not supported; " + engine},
		{"c7expression", RuleUnsupported, "camunda:expression (a Java delegate)"},
		{"c7delegate", RuleUnsupported, "camunda:delegateExpression (a Java delegate)"},
		{"c7external", RuleUnsupported, "an external task (camunda:type=\"external\", camunda:topic) on businessRuleTask is not supported: no worker evaluates the rules; " + engine},
		{"c7mail", RuleUnsupported, `camunda:type="mail" on businessRuleTask is not supported`},
		{"c8worker", RuleUnsupported, "zeebe:taskDefinition on businessRuleTask (a job worker evaluating the rules) is not supported; " + engine},
		{"c8binding", RuleUnsupported, `zeebe:calledDecision bindingType="deployment" is not supported`},
		{"c8noId", RuleMissingAttribute, `businessRuleTask "c8noId" needs a decision`},
		{"c8exprId", RuleUnsupported, `zeebe:calledDecision decisionId "= key": a decision reference expression`},
		{"wrongAttr", RuleUnknownExtension, `unknown gobpm attribute "type" on businessRuleTask`},
		{"brScript", RuleUnsupported, "script in businessRuleTask"},
		{"brIO", RuleUnsupported, "ioSpecification in businessRuleTask"},
		{"gExternal", RuleUnsupported, "an external task (camunda:type=\"external\", camunda:topic) on globalBusinessRuleTask"},
		{"gBadMap", RuleInvalidAttribute, `gobpm:mapDecisionResult="all"`},
	}, true)
}

// TestParseBusinessRuleTaskAttributes checks the gobpm attributes are
// known on business rule tasks only.
func TestParseBusinessRuleTaskAttributes(t *testing.T) {
	t.Parallel()
	const tail = `<startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="x"/>`
	verr := MustFail(t, process(`<serviceTask id="x" gobpm:type="t" gobpm:decisionRef="d" gobpm:mapDecisionResult="singleEntry"/>`+tail))
	checkProblems(t, verr, []want{
		{"x", RuleUnknownExtension, `"decisionRef" on serviceTask`},
		{"x", RuleUnknownExtension, `"mapDecisionResult" on serviceTask`},
	}, true)
	defs, err := Parse(process(`<businessRuleTask id="x" gobpm:decisionRef="d"/>` + tail))
	if err != nil {
		t.Fatal(err)
	}
	if d := defs.Processes[0].Node("x").Decision; d == nil || d.Ref != "d" || d.Map != "resultList" || d.ResultVariable != "" {
		t.Errorf("decision = %+v", d)
	}
}
