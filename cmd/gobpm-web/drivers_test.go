package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// drivers are the databases the end-to-end tests run on, one subtest
// each: a fresh SQLite file and a fresh PostgreSQL database (skipped when
// PostgreSQL is not installed, failed under CI=true).
var drivers = []struct {
	name string
	// db returns the --db value of a fresh database.
	db func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "data", "gobpm.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.URL(t) }},
}

// TestParseConfigDatabase reads --db as a file or a PostgreSQL URL and
// refuses settings that do not apply to the database chosen.
func TestParseConfigDatabase(t *testing.T) {
	t.Parallel()
	const url = "postgres://gobpm:secret@db.internal/gobpm"
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    DBConfig
		wantErr string
	}{
		{name: "default file", want: DBConfig{DB: "./data/gobpm.db", Synchronous: "FULL"}},
		{name: "url", args: []string{"--db", url, "--db-pool", "32", "--db-statement-timeout", "5s"},
			want: DBConfig{DB: url, Synchronous: "FULL", Pool: 32, StatementTimeout: 5 * time.Second}},
		{name: "url from the environment", env: map[string]string{"GOBPM_DB": "postgresql://h/db", "GOBPM_DB_POOL": "8",
			"GOBPM_DB_STATEMENT_TIMEOUT": "1m"},
			want: DBConfig{DB: "postgresql://h/db", Synchronous: "FULL", Pool: 8, StatementTimeout: time.Minute}},
		{name: "node", args: []string{"--db", url, "--node-id", "east-1", "--node-timeout", "30s"},
			want: DBConfig{DB: url, Synchronous: "FULL", NodeID: "east-1", NodeTimeout: 30 * time.Second}},
		{name: "node from the environment", env: map[string]string{"GOBPM_DB": url, "GOBPM_NODE_ID": "west-2", "GOBPM_NODE_TIMEOUT": "5s"},
			want: DBConfig{DB: url, Synchronous: "FULL", NodeID: "west-2", NodeTimeout: 5 * time.Second}},
		{name: "node on a file", args: []string{"--node-id", "n1"}, wantErr: "apply to PostgreSQL"},
		{name: "node timeout on a file", args: []string{"--node-timeout", "5s"}, wantErr: "apply to PostgreSQL"},
		{name: "node timeout too short", args: []string{"--db", url, "--node-timeout", "10ms"}, wantErr: "at least 1s"},
		{name: "bad node timeout variable", env: map[string]string{"GOBPM_NODE_TIMEOUT": "later"}, wantErr: "GOBPM_NODE_TIMEOUT"},
		{name: "pool on a file", args: []string{"--db-pool", "4"}, wantErr: "apply to PostgreSQL"},
		{name: "timeout on a file", args: []string{"--db-statement-timeout", "1s"}, wantErr: "apply to PostgreSQL"},
		{name: "sync on postgres", args: []string{"--db", url, "--sync", "NORMAL"}, wantErr: "synchronous_commit"},
		{name: "negative pool", args: []string{"--db", url, "--db-pool", "-1"}, wantErr: "want 0 or more"},
		{name: "bad pool variable", env: map[string]string{"GOBPM_DB_POOL": "many"}, wantErr: "GOBPM_DB_POOL"},
		{name: "bad timeout variable", env: map[string]string{"GOBPM_DB_STATEMENT_TIMEOUT": "soon"}, wantErr: "GOBPM_DB_STATEMENT_TIMEOUT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseConfig = %v, want an error about %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || cfg.DBConfig != tt.want {
				t.Fatalf("ParseConfig = %+v, %v; want %+v", cfg.DBConfig, err, tt.want)
			}
		})
	}
	if got := (DBConfig{DB: url}).name(); strings.Contains(got, "secret") {
		t.Errorf("name() = %q shows the password", got)
	}
}
