package sqlite

import (
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// TestListFilterPlans checks that the element, variable and incident
// filters of ListInstances look up each instance's tokens, variables and
// incidents by an index (the token and variable indexes' primary keys,
// incidents_instance) instead of scanning
// those tables, and that the page still comes out of the list's index in
// order.
// SQLite-only (not in storetest): it reads SQLite's EXPLAIN QUERY PLAN.
func TestListFilterPlans(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name  string
		f     store.InstanceFilter
		index []string
	}{
		{"element", store.InstanceFilter{Element: "pack"},
			[]string{"instances_status", "USING PRIMARY KEY (instance_seq=?)", "USING INDEX incidents_instance (instance_id=?)"}},
		{"element of a version", store.InstanceFilter{ProcessKey: "ship", ProcessVersion: 1, Element: "pack", Status: store.StatusRunning},
			[]string{"instances_process_version", "USING PRIMARY KEY (instance_seq=?)"}},
		{"variable", store.InstanceFilter{Variables: []store.VariableFilter{{Name: "orderId", Value: `"A-17"`}}},
			[]string{"instances_status", "USING PRIMARY KEY (instance_seq=? AND name=?)"}},
		{"two variables of a process", store.InstanceFilter{ProcessKey: "ship", Variables: []store.VariableFilter{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}}},
			[]string{"instances_process", "USING PRIMARY KEY (instance_seq=? AND name=?)"}},
		{"message", store.InstanceFilter{ProcessKey: "ship", IncidentMessage: "boom"},
			[]string{"instances_process", "USING INDEX incidents_instance (instance_id=?)"}},
		{"message prefix", store.InstanceFilter{IncidentMessage: "bo", IncidentMessagePrefix: true, Status: store.StatusFailed},
			[]string{"instances_status (status=? AND created_at>? AND created_at<?)", "USING INDEX incidents_instance (instance_id=?)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.f
			if f.IncidentMessagePrefix {
				f.CreatedAfter, f.CreatedBefore = at, at.Add(time.Hour)
			}
			q := buildList(f, 20, 0, false, 0, 0)
			plan := accessPlan(t, db, q.page)
			for _, want := range tt.index {
				if !strings.Contains(plan, want) {
					t.Errorf("plan does not use %s:\n%s", want, plan)
				}
			}
			for _, line := range strings.Split(plan, "\n") {
				if strings.HasPrefix(line, "SCAN ") && !strings.Contains(line, "INDEX") && !strings.HasPrefix(line, "SCAN (subquery") {
					t.Errorf("full scan:\n%s", plan)
				}
			}
		})
	}
}
