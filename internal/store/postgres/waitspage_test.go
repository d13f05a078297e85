package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/gobpm/gobpm/internal/pgtest"
	"github.com/gobpm/gobpm/internal/store/postgres"
)

// TestWaitsPagePlans checks every indexed WaitsPage statement: with
// sequential scans priced out, the planner reads a partial index that
// keeps creation order (the literal kind lets it apply) and never sorts.
func TestWaitsPagePlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustOpen(t, pgtest.URL(t), postgres.Options{})
	queries, args := postgres.WaitsPageShapes()
	if len(queries) != 20 {
		t.Fatalf("%d WaitsPage shapes, want 20", len(queries))
	}
	for i, query := range queries {
		var plan []string
		err := pgx.BeginFunc(ctx, db.Pool(), func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, `EXPLAIN `+query, args[i]...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					return err
				}
				plan = append(plan, line)
			}
			return rows.Err()
		})
		if err != nil {
			t.Fatalf("EXPLAIN %s: %v", query, err)
		}
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, "waits_jobs ") && !strings.Contains(text, "waits_jobs_created") && !strings.Contains(text, "waits_messages_age") {
			t.Errorf("%s\nuses no creation-order index:\n%s", query, text)
		}
		if strings.Contains(text, "Sort") || strings.Contains(text, "Seq Scan") {
			t.Errorf("%s\nsorts or scans:\n%s", query, text)
		}
	}
}
