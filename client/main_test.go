package client_test

import (
	"os"
	"testing"

	"github.com/gobpm/gobpm/internal/pgtest"
)

// TestMain stops the PostgreSQL server the tests started when they run on
// PostgreSQL (GOBPM_TEST_DB=postgres, see internal/testdb). The client's
// tests run on either store, except ops_test.go (backups are SQLite's) and
// example_test.go (documentation, as a user would write it).
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
