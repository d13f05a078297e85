package main

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/pgtest"
)

// TestMain stops the PostgreSQL server TestSeveralNodes started.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestParseConfigNodes reads -nodes and a list of -addr nodes and refuses
// what cannot work.
func TestParseConfigNodes(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]string{"-addr", "127.0.0.1:8081, 127.0.0.1:8082"}, io.Discard)
	if err != nil || len(cfg.addrs()) != 2 || cfg.addrs()[1] != "127.0.0.1:8082" {
		t.Fatalf("ParseConfig = %v, %v", cfg.addrs(), err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-addr", "127.0.0.1:8081,10.0.0.2:8080"}, "only loopback"},
		{[]string{"-spawn", "-nodes", "2"}, "postgres://"},
		{[]string{"-spawn", "-nodes", "2", "-db", "data/gobpm.db"}, "postgres://"},
		{[]string{"-addr", "127.0.0.1:8081", "-nodes", "2"}, "use it with -spawn"},
		{[]string{"-spawn", "-nodes", "0"}, "at least 1"},
	} {
		if _, err := ParseConfig(tt.args, io.Discard); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseConfig(%v) = %v, want an error about %q", tt.args, err, tt.want)
		}
	}
}

// TestSeveralNodes spawns two servers on one PostgreSQL database and runs
// the throughput scenarios over both; the bytes scenario, which measures a
// SQLite file, says it is skipped.
func TestSeveralNodes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	url := pgtest.URL(t)
	bin := serverBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, tiny(t, "-spawn", "-server", bin, "-nodes", "2", "-db", url, "-scenario", "straight,job,bytes"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	assertSane(t, rep)
	if rep.ServerRef.Nodes != 2 {
		t.Errorf("report names %d nodes, want 2", rep.ServerRef.Nodes)
	}
	if by := scenario(t, rep, "bytes"); len(by.Bytes) != 0 || len(by.Notes) == 0 || !strings.Contains(by.Notes[0], "skipped") {
		t.Errorf("bytes on PostgreSQL: %+v", by)
	}
}
