package api_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/pgtest"
)

// TestMain stops the PostgreSQL server the tests started when they run
// on PostgreSQL (GOBPM_TEST_DB=postgres, see testdb). After a full run
// (no -run, no -short) it fails the run when an engine-rest route was
// never checked against Camunda 7's document (camunda7_shapes_test.go).
func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		unchecked, err := uncheckedCamunda7Routes()
		switch {
		case err != nil:
			fmt.Fprintln(os.Stderr, "FAIL:", err)
			code = 1
		case len(unchecked) > 0:
			fmt.Fprintln(os.Stderr, "FAIL: no test checked these engine-rest routes against Camunda 7's document:", strings.Join(unchecked, ", "))
			code = 1
		}
	}
	os.Exit(code)
}
