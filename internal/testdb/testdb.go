// Package testdb opens the database a test of the layers above the store
// (runtime, API) runs on: a fresh SQLite file by default, a fresh
// PostgreSQL database when GOBPM_TEST_DB=postgres. The same suites thus
// run on both stores; make test runs them twice (see the Makefile).
//
// A package whose tests use it runs them through pgtest.Main, which stops
// the PostgreSQL server a test started:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		db := testdb.MustOpen(t) // closed when the test ends
//		rt := runtime.New(db, runtime.Options{})
//		…
//	}
package testdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/pgtest"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/postgres"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// Env names the environment variable that picks the driver: "sqlite"
// (or unset) or "postgres".
const Env = "GOBPM_TEST_DB"

// Drivers.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// Store is what the tests get: both stores implement it.
type Store interface {
	runtime.Store
	access.Store
}

// Driver returns the driver GOBPM_TEST_DB picks, or an error for an
// unknown one.
func Driver() (string, error) {
	switch v := os.Getenv(Env); v {
	case "", SQLite:
		return SQLite, nil
	case Postgres:
		return Postgres, nil
	default:
		return "", fmt.Errorf("%s=%q: want %s or %s", Env, v, SQLite, Postgres)
	}
}

// DSN returns the location of a fresh, empty database for the test: a
// file path in the test's temp dir or a PostgreSQL URL (dropped when the
// test ends). Open it as often as the test needs (restarts).
func DSN(tb testing.TB) string {
	tb.Helper()
	driver, err := Driver()
	if err != nil {
		tb.Fatal(err)
	}
	if driver == Postgres {
		return pgtest.URL(tb)
	}
	return filepath.Join(tb.TempDir(), "gobpm.db")
}

// Open opens the store at dsn (a DSN): SQLite for a path, PostgreSQL for
// a URL, each with its default options.
func Open(ctx context.Context, dsn string) (Store, error) {
	if postgres.IsURL(dsn) {
		return postgres.Open(ctx, dsn, postgres.Options{})
	}
	return sqlite.Open(ctx, dsn, sqlite.Options{})
}

// MustOpen opens a fresh store for the test and closes it when the test
// ends.
func MustOpen(tb testing.TB) Store {
	tb.Helper()
	db, err := Open(context.Background(), DSN(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
