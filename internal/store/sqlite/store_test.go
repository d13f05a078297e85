package sqlite

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlite/migrations"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// t0 is the base time of fixtures; it has nanoseconds to prove exact round trips.
var t0 = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)

// MustOpen opens a fresh store in a temp dir and closes it with the test.
func MustOpen(tb testing.TB) *DB {
	tb.Helper()
	return MustOpenPath(tb, filepath.Join(tb.TempDir(), "data", "gobpm.db"), Options{})
}

// MustOpenPath opens the store at path and closes it with the test.
func MustOpenPath(tb testing.TB, path string, opts Options) *DB {
	tb.Helper()
	db, err := Open(context.Background(), path, opts)
	if err != nil {
		tb.Fatalf("Open(%s): %v", path, err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// schemaDump returns the sorted sqlite_master SQL of db.
func schemaDump(tb testing.TB, db *sql.DB) string {
	tb.Helper()
	rows, err := db.Query(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var typ, name, sql string
		if err := rows.Scan(&typ, &name, &sql); err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(&b, "-- %s %s\n%s;\n\n", typ, name, sql)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

// SQLite-only (not in storetest): it dumps sqlite_master.
func TestSchemaGolden(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	got := schemaDump(t, db.read)
	golden := filepath.Join("testdata", "schema.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("schema differs from %s (run go test -update if intended):\n%s", golden, got)
	}
}

// SQLite-only (not in storetest): it checks SQLite's pragmas.
func TestOpenPragmas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		opts     Options
		wantSync int // PRAGMA synchronous: 1 NORMAL, 2 FULL
		wantErr  bool
	}{
		{name: "default is FULL", wantSync: 2},
		{name: "explicit NORMAL", opts: Options{Synchronous: "normal"}, wantSync: 1},
		{name: "unsupported", opts: Options{Synchronous: "OFF"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db, err := Open(context.Background(), filepath.Join(t.TempDir(), "x.db"), tt.opts)
			if tt.wantErr {
				if err == nil {
					db.Close()
					t.Fatal("Open succeeded, want error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, pool := range []*sql.DB{db.write, db.read} {
				var mode string
				var syncMode, fk, busy int
				if err := pool.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
					t.Fatal(err)
				}
				if err := pool.QueryRow(`PRAGMA synchronous`).Scan(&syncMode); err != nil {
					t.Fatal(err)
				}
				if err := pool.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil {
					t.Fatal(err)
				}
				if err := pool.QueryRow(`PRAGMA busy_timeout`).Scan(&busy); err != nil {
					t.Fatal(err)
				}
				if mode != "wal" || syncMode != tt.wantSync || fk != 1 || busy != busyTimeoutMS {
					t.Errorf("pragmas = journal_mode %s, synchronous %d, foreign_keys %d, busy_timeout %d", mode, syncMode, fk, busy)
				}
			}
			if _, err := db.read.Exec(`DELETE FROM deployments`); err == nil {
				t.Error("read pool accepted a write")
			}
		})
	}
}

// SQLite-only (not in storetest): it runs SQLite's migration runner on a file.
func TestReopenDoesNotReapply(t *testing.T) {
	t.Parallel()
	shipped, err := loadMigrations(migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gobpm.db")
	for i := range 3 {
		db, err := Open(context.Background(), path, Options{})
		if err != nil {
			t.Fatalf("open #%d: %v", i, err)
		}
		var n, applied int
		if err := db.read.QueryRow(`SELECT COUNT(*), MIN(applied_at) FROM schema_migrations`).Scan(&n, &applied); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if want := len(shipped); n != want {
			t.Fatalf("open #%d: %d migrations recorded, want %d", i, n, want)
		}
	}
}

// SQLite-only (not in storetest): it runs SQLite's migration runner on test files.
func TestMigrateRunner(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   fstest.MapFS
		tables  []string // expected user tables after migrating
		wantErr string
	}{
		{
			name: "applied in version order",
			files: fstest.MapFS{
				"0002_b.sql": {Data: []byte(`CREATE TABLE b (x INTEGER REFERENCES a (x));`)},
				"0001_a.sql": {Data: []byte(`CREATE TABLE a (x INTEGER PRIMARY KEY); CREATE TABLE a2 (y);`)},
			},
			tables: []string{"a", "a2", "b"},
		},
		{
			name: "failing file rolls back alone",
			files: fstest.MapFS{
				"0001_a.sql": {Data: []byte(`CREATE TABLE a (x);`)},
				"0002_b.sql": {Data: []byte(`CREATE TABLE b (x); SELECT nonsense FROM nowhere;`)},
			},
			tables:  []string{"a"},
			wantErr: "0002_b.sql",
		},
		{
			name:    "bad name",
			files:   fstest.MapFS{"1_a.sql": {Data: []byte(`SELECT 1;`)}},
			wantErr: "NNNN_description",
		},
		{
			name: "duplicate version",
			files: fstest.MapFS{
				"0001_a.sql": {Data: []byte(`SELECT 1;`)},
				"0001_b.sql": {Data: []byte(`SELECT 1;`)},
			},
			wantErr: "share version",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, err := sql.Open(driverName, dsn(filepath.Join(t.TempDir(), "m.db"), "FULL", false))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(1)
			err = migrateFS(ctx, db, tt.files)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("migrate error = %v, want it to contain %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if err := migrateFS(ctx, db, tt.files); err != nil {
				t.Fatalf("second migrate: %v", err)
			}
			var got []string
			rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'schema_migrations' ORDER BY name`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var n string
				rows.Scan(&n)
				got = append(got, n)
			}
			if strings.Join(got, ",") != strings.Join(tt.tables, ",") {
				t.Errorf("tables = %v, want %v", got, tt.tables)
			}
		})
	}
}

// SQLite-only (not in storetest): it runs SQLite's migration runner on a file.
func TestMigrateRefusesNewerDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gobpm.db")
	db := MustOpenPath(t, path, Options{})
	if _, err := db.write.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err := Open(context.Background(), path, Options{}); err == nil {
		db.Close()
		t.Fatal("Open of a newer database succeeded")
	}
}

// BenchmarkCommitSteps measures group commit: the cost per step of a batch
// of 1 versus 16 steps, at the default synchronous=FULL and at NORMAL.
func BenchmarkCommitSteps(b *testing.B) {
	for _, syncMode := range []string{"FULL", "NORMAL"} {
		for _, batch := range []int{1, 16} {
			b.Run(fmt.Sprintf("sync=%s/batch=%d", syncMode, batch), func(b *testing.B) {
				ctx := context.Background()
				db := MustOpenPath(b, filepath.Join(b.TempDir(), "bench.db"), Options{Synchronous: syncMode})
				steps := make([]store.StepRecord, 0, batch)
				b.ResetTimer()
				n := 0
				for b.Loop() {
					steps = steps[:0]
					for range batch {
						n++
						s := storetest.NewStep(store.InstanceID(fmt.Sprintf("i%09d", n)), "order", 1)
						steps = append(steps, s)
					}
					if err := db.CommitSteps(ctx, steps); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/step")
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "steps/s")
			})
		}
	}
}
