package sqlite

import (
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// TestExportQueryPlan checks that the history export reads fact_order by
// its primary key from the cursor on, in that order (no sort), and each
// row's facts and instance by their primary keys, whatever filters it
// has; and that the trigger's delete finds its row by fact_order_row.
// SQLite-only (not in storetest): it reads SQLite's EXPLAIN QUERY PLAN.
func TestExportQueryPlan(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	for name, f := range map[string]store.ExportFilter{
		"all":      {},
		"filtered": {From: time.Unix(1, 0), To: time.Unix(2, 0), ProcessKeys: []string{"a", "b"}, ProcessKeyPatterns: [][]string{{"a*"}}},
	} {
		t.Run(name, func(t *testing.T) {
			q, _ := exportQuery(f)
			plan := accessPlan(t, db, q)
			for _, want := range []string{
				"SEARCH o USING INTEGER PRIMARY KEY (rowid>?)",
				"SEARCH f USING PRIMARY KEY (instance_seq=? AND seq=?)",
				"SEARCH i USING INTEGER PRIMARY KEY (rowid=?)",
			} {
				if !strings.Contains(plan, want) {
					t.Errorf("plan lacks %q:\n%s", want, plan)
				}
			}
			if strings.Contains(plan, "TEMP B-TREE") {
				t.Errorf("plan sorts:\n%s", plan)
			}
		})
	}
	plan := accessPlan(t, db, `DELETE FROM fact_order WHERE instance_seq = ? AND seq = ?`)
	if !strings.Contains(plan, "fact_order_row (instance_seq=? AND seq=?)") {
		t.Errorf("the trigger's delete plan:\n%s", plan)
	}
}
