package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// TestAccessTouchesLeaveTheWriterDurable checks that the writes that skip
// their own fsync (touches, audit appends) hand the writer back at
// synchronous=FULL, and that a revocation is a durable write.
// SQLite-only (not in storetest): it checks the writer connection's synchronous pragma.
func TestAccessTouchesLeaveTheWriterDurable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	storetest.MustAddUser(t, db, "ann")
	_, tok := storetest.MustMintToken(t, db, 1, "ann", t0, nil)
	_, s := storetest.MustNewSession(t, db, 2, "ann", t0)
	for _, tt := range []struct {
		name  string
		write func() error
		fails bool
	}{
		{name: "touch token", write: func() error { return db.TouchToken(ctx, tok.ID, t0.Add(time.Second)) }},
		{name: "touch session", write: func() error { return db.TouchSession(ctx, s.IDHash, t0.Add(time.Second)) }},
		{name: "touch missing", write: func() error { return db.TouchToken(ctx, "missing", t0) }, fails: true},
		{name: "append audit", write: func() error {
			return db.AppendAudit(ctx, []access.AuditEntry{{At: t0, Action: "login", Outcome: "ok"}})
		}},
		{name: "failing append", write: func() error {
			return db.AppendAudit(ctx, []access.AuditEntry{{At: t0, Action: "login", Outcome: "maybe"}})
		}, fails: true},
	} {
		if err := tt.write(); (err != nil) != tt.fails {
			t.Errorf("%s: %v", tt.name, err)
		}
		if got := writerSync(t, db); got != 2 {
			t.Errorf("after %s the writer is at synchronous=%d, want 2 (FULL)", tt.name, got)
		}
	}
}

// TestMigrateToAccess migrates a database at version 5 with data in it to
// the current schema: 0006 applies, the result equals a fresh database's
// schema, and the access tables work.
// SQLite-only (not in storetest): it upgrades a SQLite file from the migrations before 0006.
func TestMigrateToAccess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v5.db")
	raw, err := sql.Open(driverName, dsn(path, "FULL", false))
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1)
	if err := migrateFS(ctx, raw, migrationsUpTo(t, 5)); err != nil {
		t.Fatal(err)
	}
	var version int
	if err := raw.QueryRow(`SELECT MAX(version) FROM schema_migrations`).Scan(&version); err != nil || version != 5 {
		t.Fatalf("frozen at version %d, %v", version, err)
	}
	raw.Close()
	db := MustOpenPath(t, path, Options{})
	storetest.MustCommit(t, db, storetest.NewStep("i1", "order", 1)) // data of version 5 and before

	if got, want := schemaDump(t, db.read), schemaDump(t, MustOpen(t).read); got != want {
		t.Errorf("migrated schema differs from a fresh one:\n%s", got)
	}
	if err := db.read.QueryRow(`SELECT MAX(version) FROM schema_migrations`).Scan(&version); err != nil || version < 6 {
		t.Errorf("migrated to version %d, %v; want 6 or later", version, err)
	}
	storetest.MustAddUser(t, db, "ann")
	storetest.MustAddGroup(t, db, "ops", "ann")
	storetest.MustGrant(t, db, access.SubjectGroup, "ops", "operator")
	if got, err := db.GrantsFor(ctx, "ann", []auth.GroupID{"ops"}); err != nil || len(got) != 1 {
		t.Errorf("GrantsFor after migrating = %v, %v", got, err)
	}
	if _, err := db.Instance(ctx, "i1"); err != nil {
		t.Errorf("instance after migrating: %v", err)
	}
}

// accessPlan returns the EXPLAIN QUERY PLAN of query, one line per step,
// with every argument bound to "x".
func accessPlan(tb testing.TB, db *DB, query string) string {
	tb.Helper()
	n := strings.Count(query, "?")
	if strings.Contains(query, "?2") { // numbered parameters: ?1 and ?2
		n = 2
	}
	args := make([]any, n)
	for i := range args {
		args[i] = "x"
	}
	rows, err := db.read.Query(`EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			tb.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// TestAccessQueryPlans checks that every lookup of the access statements
// is served by an index: no full scan where a key is given, and no sort
// where the index gives the order.
// SQLite-only (not in storetest): it reads SQLite's EXPLAIN QUERY PLAN.
func TestAccessQueryPlans(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	tests := []struct {
		name      string
		query     string
		index     string
		allowSort bool
	}{
		{name: "user", query: selectUserSQL, index: "users USING PRIMARY KEY (id=?)"},
		{name: "users page", query: usersSQL, index: "users USING PRIMARY KEY (id>?)"},
		{name: "update user", query: updateUserSQL, index: "PRIMARY KEY (id=?)"},
		{name: "groups of", query: groupsOfSQL, index: "m USING COVERING INDEX memberships_user (user_id=?)"},
		{name: "members", query: membersSQL, index: "m USING PRIMARY KEY (group_id=?)"},
		{name: "remove member", query: removeMemberSQL, index: "PRIMARY KEY (group_id=? AND user_id=?)"},
		{name: "find grant", query: findGrantSQL, index: "grants_subject (subject_kind=? AND subject_id=? AND role=? AND permission=? AND resource_kind=? AND pattern=?)"},
		{name: "grants of subject", query: subjectGrantsSQL, index: "grants_subject (subject_kind=? AND subject_id=?)", allowSort: true},
		{name: "delete subject grants", query: deleteSubjectGrantSQL, index: "grants_subject (subject_kind=? AND subject_id=?)"},
		// A user's and their groups' grants are two ranges of the index;
		// only the few rows found are sorted by id.
		{name: "grants for", query: grantsForSQL, index: "MULTI-INDEX OR", allowSort: true},
		{name: "token", query: selectTokenSQL, index: "tokens USING PRIMARY KEY (id=?)"},
		{name: "tokens of owner", query: ownerTokensSQL, index: "tokens_owner (owner=?)"},
		{name: "all tokens", query: allTokensSQL, index: "tokens_created"},
		{name: "touch token", query: touchTokenSQL, index: "PRIMARY KEY (id=?)"},
		{name: "session", query: selectSessionSQL, index: "sessions USING PRIMARY KEY (id_hash=?)"},
		{name: "user's sessions", query: deleteUserSessionsSQL, index: "sessions_user (user_id=?)"},
		{name: "expired sessions", query: deleteExpiredSessionsSQL, index: "sessions_expires (expires_at<?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan := accessPlan(t, db, tt.query)
			if !strings.Contains(plan, tt.index) {
				t.Errorf("plan does not use %s:\n%s", tt.index, plan)
			}
			for _, line := range strings.Split(plan, "\n") {
				if strings.HasPrefix(line, "SCAN ") && !strings.Contains(line, "INDEX") && !strings.Contains(line, "json_each") {
					t.Errorf("full scan:\n%s", plan)
				}
			}
			if !tt.allowSort && strings.Contains(plan, "TEMP B-TREE") {
				t.Errorf("plan sorts:\n%s", plan)
			}
		})
	}
}
