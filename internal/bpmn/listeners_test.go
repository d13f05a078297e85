package bpmn

import "testing"

// TestParseStartListeners checks that an element's start execution
// listeners are read in document order, with their job types (literal or
// expression) and retries (retries="" taking the default).
func TestParseStartListeners(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "listeners_start.bpmn")
	n := defs.Processes[0].Node("work")
	if n == nil {
		t.Fatal("node work missing")
	}
	if len(n.StartListeners) != 2 {
		t.Fatalf("StartListeners = %d, want 2", len(n.StartListeners))
	}
	first, second := n.StartListeners[0], n.StartListeners[1]
	if first.Event != ListenerStart || first.Type != "audit" || first.TypeExpr != nil || first.Retries != 2 {
		t.Errorf("first listener = %+v, want start/audit/2", first)
	}
	if second.Type != "" || second.TypeExpr == nil || second.Retries != DefaultJobRetries {
		t.Errorf("second listener = %+v, want an expression type and %d retries", second, DefaultJobRetries)
	}
	if m := defs.Processes[0].Node("end"); len(m.StartListeners) != 0 {
		t.Errorf("end has %d listeners, want none", len(m.StartListeners))
	}
}

// TestParseRefusesListeners checks that every execution listener gobpm
// does not run exactly as Camunda 8 does is refused, naming its element.
func TestParseRefusesListeners(t *testing.T) {
	t.Parallel()
	checkProblems(t, MustFail(t, MustRead(t, "listeners_refused.bpmn")), []want{
		{"p", RuleUnsupported, "zeebe:executionListeners on process is not supported"},
		{"start", RuleUnsupported, "a start execution listener on startEvent is not supported"},
		{"bad", RuleInvalidAttribute, `eventType="take"`},
		{"bad", RuleMissingAttribute, "needs a job type"},
		{"bad", RuleInvalidAttribute, `retries="-1"`},
		{"bad", RuleInvalidAttribute, `two end execution listeners of type "audit"`},
		{"join", RuleUnsupported, "a start execution listener on parallelGateway is not supported"},
		{"join", RuleUnsupported, "an end execution listener on parallelGateway is not supported: Camunda 8 runs no end listeners on gateways"},
		{"errEnd", RuleUnsupported, "an end execution listener on endEvent is not supported: an error end event"},
		{"loop", RuleUnsupported, "a start execution listener on task is not supported: a loop"},
	}, true)
}

// TestParseTaskListeners checks that a user task's assigning and
// completing listeners are read in document order, and that every other
// event, an expression type, a duplicate and a task listener off a user
// task are refused, naming the element.
func TestParseTaskListeners(t *testing.T) {
	t.Parallel()
	checkProblems(t, MustFail(t, MustRead(t, "tasklisteners_refused.bpmn")), []want{
		{"u", RuleUnsupported, "a creating task listener on userTask is not supported"},
		{"u", RuleInvalidAttribute, `eventType="assignment"`},
		{"u", RuleUnsupported, `zeebe:taskListener type="=kind" on userTask is not supported`},
		{"u", RuleInvalidAttribute, `two completing task listeners of type "c"`},
		{"svc", RuleUnsupported, "zeebe:taskListeners on serviceTask is not supported: task listeners belong on user tasks"},
	}, true)
	defs := MustParseFile(t, "tasklisteners.bpmn")
	n := defs.Processes[0].Node("ok")
	if len(n.TaskListeners) != 2 || n.TaskListeners[0].Event != ListenerAssigning || n.TaskListeners[0].Type != "a" || n.TaskListeners[0].Retries != 2 ||
		n.TaskListeners[1].Event != ListenerCompleting || n.TaskListeners[1].Retries != DefaultJobRetries {
		t.Fatalf("TaskListeners = %+v", n.TaskListeners)
	}
}
