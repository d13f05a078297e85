package postgres_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/pgtest"
	"github.com/gobpm/gobpm/internal/store/postgres"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestConformance runs the store suite every implementation passes
// (storetest) against PostgreSQL, one fresh database per test.
func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(tb testing.TB) *storetest.Harness {
		return harness(tb, pgtest.URL(tb))
	})
}

// harness opens the store at url for the suite.
func harness(tb testing.TB, url string) *storetest.Harness {
	tb.Helper()
	db := mustOpen(tb, url, postgres.Options{})
	return &storetest.Harness{
		Store: db,
		Exec: func(query string, args ...any) error {
			_, err := db.Pool().Exec(context.Background(), placeholders(query), args...)
			return err
		},
		Query: func(query string, args ...any) ([][]any, error) {
			rows, err := db.Pool().Query(context.Background(), placeholders(query), args...)
			if err != nil {
				return nil, err
			}
			defer rows.Close()
			var out [][]any
			for rows.Next() {
				vals, err := rows.Values()
				if err != nil {
					return nil, err
				}
				out = append(out, vals)
			}
			return out, rows.Err()
		},
		Reopen: func(tb testing.TB) *storetest.Harness { return harness(tb, url) },
	}
}

// mustOpen opens the store at url and closes it with the test.
func mustOpen(tb testing.TB, url string, opts postgres.Options) *postgres.DB {
	tb.Helper()
	db, err := postgres.Open(context.Background(), url, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// placeholders rewrites the suite's ? placeholders as $1, $2, ….
func placeholders(query string) string {
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
