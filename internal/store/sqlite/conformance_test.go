package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/gobpm/gobpm/internal/store/storetest"
)

// TestConformance runs the store suite every implementation passes
// (storetest) against SQLite. The tests left in this package are
// SQLite-only; each says why.
func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(tb testing.TB) *storetest.Harness {
		return harness(tb, filepath.Join(tb.TempDir(), "data", "gobpm.db"))
	})
}

// harness opens the store at path for the suite.
func harness(tb testing.TB, path string) *storetest.Harness {
	tb.Helper()
	db := MustOpenPath(tb, path, Options{})
	return &storetest.Harness{
		Store: db,
		Exec: func(query string, args ...any) error {
			_, err := db.write.Exec(query, args...)
			return err
		},
		Query: func(query string, args ...any) ([][]any, error) {
			return queryAll(db.read, query, args...)
		},
		Reopen: func(tb testing.TB) *storetest.Harness { return harness(tb, path) },
	}
}

// queryAll runs query on pool and returns every row's values.
func queryAll(pool *sql.DB, query string, args ...any) ([][]any, error) {
	rows, err := pool.QueryContext(context.Background(), query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}
