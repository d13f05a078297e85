package engine

import (
	"strings"
	"testing"
)

// TestJUELConditions routes an exclusive gateway on Camunda 7 conditions:
// EL's meaning of not, empty, size() and gt (not FEEL's), the business key
// through execution, and a condition that yields a string is an incident,
// never a branch.
func TestJUELConditions(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "juel_gateway.bpmn")
	tests := []struct {
		name, businessKey string
		vars              map[string]any
		wantEnd           string // the end event reached; "" for an incident
		wantIncident      string
	}{
		{"not approved", "", map[string]any{"approved": false, "items": []any{}, "label": true}, "rejected", ""},
		{"vip by business key", "VIP-1", map[string]any{"approved": true, "items": []any{"a"}, "label": true}, "vip", ""},
		{"big by size()", "B-2", map[string]any{"approved": true, "items": []any{"a", "b", "c"}, "label": false}, "big", ""},
		{"a string is no condition", "B-3", map[string]any{"approved": true, "items": []any{}, "label": "yes"}, "", "returned a string, not a boolean"},
		{"a missing variable is an error", "B-4", map[string]any{"items": []any{}, "label": true}, "", "approved"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := NewState("i1", p.ID, 1)
			st.BusinessKey = tc.businessKey
			next, fx, err := Step(p, st, Start{Variables: tc.vars}, t0, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantIncident != "" {
				if len(next.Incidents) != 1 || !strings.Contains(next.Incidents[0].Message, tc.wantIncident) {
					t.Fatalf("incidents = %+v, want one about %q", next.Incidents, tc.wantIncident)
				}
				return
			}
			acts := activated(fx)
			if next.Status != StatusCompleted || acts[len(acts)-1] != tc.wantEnd {
				t.Errorf("status %s, activated %v; want completed at %s", next.Status, acts, tc.wantEnd)
			}
		})
	}
}

// TestEvaluationLimitsAreIncidents: a FEEL script or condition that would
// iterate beyond the step limit raises an incident naming the limit; it
// never yields a null the process could branch on (the condition's default
// flow is not taken).
func TestEvaluationLimitsAreIncidents(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "limits.bpmn")
	st, fx := mustStart(t, p, nil)
	if len(st.Incidents) != 2 {
		t.Fatalf("incidents = %+v, want one on the script and one on the gateway", st.Incidents)
	}
	for _, in := range st.Incidents {
		if !strings.Contains(in.Message, "step limit") {
			t.Errorf("incident %s on %s does not name the limit: %s", in.ID, in.NodeID, in.Message)
		}
	}
	for _, id := range activated(fx) {
		if id == "end3" || id == "end1" {
			t.Errorf("%s was reached past an evaluation limit", id)
		}
	}
}
