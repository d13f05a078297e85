package sqlite

import (
	"strings"
	"testing"
)

// TestWaitsPagePlans checks every indexed WaitsPage statement: it reads
// one of the creation-order indexes of its kind (0020_waits_pages), never
// scans the waits table and never sorts, so a page costs the waits of its
// kind and name it steps over, not the table.
// SQLite-only (not in storetest): it reads SQLite's EXPLAIN QUERY PLAN.
func TestWaitsPagePlans(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	shapes := waitsPageShapes()
	if len(shapes) != 20 {
		t.Fatalf("%d WaitsPage shapes, want 20", len(shapes))
	}
	for _, query := range shapes {
		plan := accessPlan(t, db, query)
		if !strings.Contains(plan, "USING INDEX waits_jobs_age") && !strings.Contains(plan, "USING INDEX waits_jobs_created") &&
			!strings.Contains(plan, "USING INDEX waits_messages_age") {
			t.Errorf("%s\nuses no creation-order index:\n%s", query, plan)
		}
		for _, line := range strings.Split(plan, "\n") {
			if strings.HasPrefix(line, "SCAN waits") && !strings.Contains(line, "INDEX") {
				t.Errorf("%s\nscans waits:\n%s", query, plan)
			}
			if strings.Contains(line, "TEMP B-TREE") {
				t.Errorf("%s\nsorts:\n%s", query, plan)
			}
		}
	}
}
