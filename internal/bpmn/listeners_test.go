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
