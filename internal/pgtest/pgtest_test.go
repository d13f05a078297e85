package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestURL proves each test gets its own empty database on a server that
// answers over the unix socket.
func TestURL(t *testing.T) {
	ctx := context.Background()
	a, b := URL(t), URL(t)
	if a == b {
		t.Fatalf("two databases share the URL %s", a)
	}
	for _, u := range []string{a, b} {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, `CREATE TABLE x (n int)`); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		var collate string
		if err := conn.QueryRow(ctx, `SELECT datcollate FROM pg_database WHERE datname = current_database()`).Scan(&collate); err != nil {
			t.Fatal(err)
		}
		if collate != "C" {
			t.Errorf("collation %q, want C", collate)
		}
		conn.Close(ctx)
	}
}
