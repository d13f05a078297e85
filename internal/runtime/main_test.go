package runtime_test

import (
	"os"
	"testing"

	"github.com/gobpm/gobpm/internal/pgtest"
)

// TestMain stops the PostgreSQL server the tests started when they run
// on PostgreSQL (GOBPM_TEST_DB=postgres, see testdb).
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
