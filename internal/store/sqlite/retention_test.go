package sqlite

import (
	"strings"
	"testing"
)

// TestRetentionQueryPlan (SQLite-only: it reads SQLite query plans) checks that a batch reads instances_ended by its
// version prefix and end-time range, never the whole table, and sorts
// nothing.
func TestRetentionQueryPlan(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	plan := accessPlan(t, db, expiredSQL)
	if !strings.Contains(plan, "USING INDEX instances_ended (process_key=? AND process_version=? AND ended_at<?)") {
		t.Errorf("plan does not range instances_ended:\n%s", plan)
	}
	if strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("plan sorts:\n%s", plan)
	}
	for _, q := range []string{deleteCheckSQL, deleteFactsSQL, deleteIncidentsSQL} {
		if p := accessPlan(t, db, q); strings.Contains(p, "SCAN i") || strings.Contains(p, "SCAN facts") || strings.Contains(p, "SCAN incidents") {
			t.Errorf("%s scans:\n%s", q, p)
		}
	}
}
