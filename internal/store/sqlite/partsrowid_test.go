package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlite/migrations"
)

// TestMigratePartsRowid writes parts into the WITHOUT ROWID instance_parts
// of a database at the version before migration 0024 (a big part, integer,
// text and UUID keys, two instances), opens it with the store, which
// migrates it, and reads every part back as it was written: no part lost,
// every key's type kept, the table now a rowid table with its unique key
// index. SQLite-only (not in storetest): it writes the old layout itself.
func TestMigratePartsRowid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "before-0024.db")
	raw, err := sql.Open(driverName, dsn(path, "FULL", false))
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1)
	if err := migrateFS(ctx, raw, migrationsUpTo(t, versionOf(t, "_parts_rowid.sql")-1)); err != nil {
		t.Fatal(err)
	}
	const uuid = "01a232eb-82de-7b57-b901-872a49ee64c7"
	big := strings.Repeat("b", 2<<20)
	stmts := []struct {
		q    string
		args []any
	}{
		{q: `INSERT INTO instances (seq, id, process_key, process_version, status, created_at, revision, state)
		     VALUES (1, 'inst-a', 'order', 1, 'running', 100, 1, x''), (2, ?, 'order', 1, 'running', 100, 1, x'')`,
			args: []any{dbID(uuid)}},
		{q: `INSERT OR IGNORE INTO kinds (name) VALUES ('scope'), ('track'), ('wait')`},
		{q: `INSERT INTO instance_parts (instance_seq, kind, key, ord, data) VALUES
		     (1, (SELECT id FROM kinds WHERE name = 'scope'), 'root', 0, ?),
		     (1, (SELECT id FROM kinds WHERE name = 'scope'), 's1', 1, 'scope 1'),
		     (1, (SELECT id FROM kinds WHERE name = 'track'), 't1', 1, 'track 1'),
		     (1, (SELECT id FROM kinds WHERE name = 'wait'), 7, 7, 'wait 7'),
		     (2, (SELECT id FROM kinds WHERE name = 'scope'), 'root', 0, 'root of b'),
		     (2, (SELECT id FROM kinds WHERE name = 'wait'), ?, 1, 'wait of b')`,
			args: []any{big, dbID("01a232eb-0000-7000-8000-000000000001")}},
	}
	for _, s := range stmts {
		if _, err := raw.ExecContext(ctx, s.q, s.args...); err != nil {
			t.Fatalf("%s: %v", s.q, err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	db := MustOpenPath(t, path, Options{})
	tests := []struct {
		id   store.InstanceID
		want []store.Part
	}{
		{id: "inst-a", want: []store.Part{
			{Kind: "scope", Key: "root", Ord: 0, Data: []byte(big)},
			{Kind: "scope", Key: "s1", Ord: 1, Data: []byte("scope 1")},
			{Kind: "track", Key: "t1", Ord: 1, Data: []byte("track 1")},
			{Kind: "wait", Key: "inst-a-w000007", Ord: 7, Data: []byte("wait 7")},
		}},
		{id: uuid, want: []store.Part{
			{Kind: "scope", Key: "root", Ord: 0, Data: []byte("root of b")},
			{Kind: "wait", Key: "01a232eb-0000-7000-8000-000000000001", Ord: 1, Data: []byte("wait of b")},
		}},
	}
	for _, tt := range tests {
		si, err := db.Instance(ctx, tt.id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(si.Parts, tt.want) {
			t.Errorf("parts of %s after the migration: %d parts, want %d", tt.id, len(si.Parts), len(tt.want))
		}
	}
	var types string
	if err := db.read.QueryRow(`SELECT group_concat(typeof(key), ',') FROM (SELECT key FROM instance_parts ORDER BY instance_seq, kind, ord)`).Scan(&types); err != nil {
		t.Fatal(err)
	}
	if want := "text,text,text,integer,text,blob"; !sameMultiset(types, want) {
		t.Errorf("key types = %s, want %s (in some order)", types, want)
	}
	var ddl string
	if err := db.read.QueryRow(`SELECT sql FROM sqlite_schema WHERE name = 'instance_parts'`).Scan(&ddl); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ddl, "WITHOUT ROWID") {
		t.Errorf("instance_parts is still WITHOUT ROWID: %s", ddl)
	}
	// The key stays unique: a step's upsert still replaces by it.
	if _, err := db.write.Exec(`INSERT INTO instance_parts (instance_seq, kind, key, ord, data)
		SELECT instance_seq, kind, key, ord, data FROM instance_parts WHERE instance_seq = 1 AND key = 's1'`); err == nil {
		t.Error("a duplicate part key was accepted")
	}
}

// versionOf is the version of the shipped migration whose name ends with
// suffix (so the test holds when migrations are renumbered).
func versionOf(tb testing.TB, suffix string) int {
	tb.Helper()
	ms, err := loadMigrations(migrations.FS)
	if err != nil {
		tb.Fatal(err)
	}
	for _, m := range ms {
		if strings.HasSuffix(m.Name, suffix) {
			return m.Version
		}
	}
	tb.Fatalf("no migration *%s", suffix)
	return 0
}

// sameMultiset says whether the comma-separated lists a and b hold the same
// items, counted.
func sameMultiset(a, b string) bool {
	count := map[string]int{}
	for _, s := range strings.Split(a, ",") {
		count[s]++
	}
	for _, s := range strings.Split(b, ",") {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestPartStatementsSeekTheKeyIndex checks that the statements a step runs
// on parts find them through instance_parts_key (a seek of small cells),
// never by a scan. SQLite-only (not in storetest): it reads SQLite's
// EXPLAIN QUERY PLAN.
func TestPartStatementsSeekTheKeyIndex(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	keys := make([]any, removePartsBatch)
	for i := range keys {
		keys[i] = int64(i)
	}
	tests := []struct {
		name  string
		query string
		args  []any
	}{
		{name: "delete one", query: deletePartSQL, args: []any{1, 1, "k"}},
		{name: "delete a batch", query: deletePartsInSQL, args: append([]any{1, 1}, keys...)},
		{name: "update data", query: updatePartDataSQL, args: []any{[]byte("x"), 1, 1, "k", 1}},
		{name: "page a kind", query: selectPartsSQL, args: []any{1, 1, 0, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := db.read.Query(`EXPLAIN QUERY PLAN `+tt.query, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if p := strings.Join(plan, "; "); !strings.Contains(p, "instance_parts_key") || strings.Contains(p, "SCAN instance_parts") {
				t.Errorf("plan = %s", p)
			}
		})
	}
}
