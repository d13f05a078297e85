package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
)

// SQLite-only (not in storetest): prefixEnd builds the SQLite range query (PostgreSQL uses starts_with).
func TestPrefixEnd(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p, want string
		ok      bool
	}{
		{p: "", ok: false},
		{p: "a", want: "b", ok: true},
		{p: "instance 0197", want: "instance 0198", ok: true},
		{p: "user ÿ", want: "user \xc3\xc0", ok: true},
		{p: "a\xff\xff", want: "b", ok: true},
		{p: "\xff", ok: false},
	} {
		got, ok := prefixEnd(tt.p)
		if got != tt.want || ok != tt.ok {
			t.Errorf("prefixEnd(%q) = %q, %t; want %q, %t", tt.p, got, ok, tt.want, tt.ok)
		}
		if !ok {
			continue
		}
		// Every string that starts with p sorts below the bound, and the
		// bound does not start with p.
		for _, s := range []string{tt.p, tt.p + "\x00", tt.p + "zzz", tt.p + "\U0010ffff\U0010ffff"} {
			if s >= got {
				t.Errorf("prefixEnd(%q) = %q is not above %q", tt.p, got, s)
			}
		}
		if strings.HasPrefix(got, tt.p) {
			t.Errorf("prefixEnd(%q) = %q starts with the prefix", tt.p, got)
		}
	}
}

// TestAuditQueryPlans checks the plan of each shape of audit filter: an
// equality filter reads its index newest first (no sort), a prefix or a
// time range reads its index range, and nothing scans the table.
// SQLite-only (not in storetest): it reads SQLite's EXPLAIN QUERY PLAN.
func TestAuditQueryPlans(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	tests := []struct {
		name      string
		f         access.AuditFilter
		index     string
		allowSort bool
	}{
		{name: "everything", f: access.AuditFilter{}, index: "SCAN audit"},
		{name: "before", f: access.AuditFilter{Before: 10}, index: "audit USING INTEGER PRIMARY KEY (rowid<?)"},
		{name: "actor", f: access.AuditFilter{Actor: "ann", Before: 10}, index: "audit_actor (actor=? AND rowid<?)"},
		{name: "action", f: access.AuditFilter{Action: "login", Before: 10}, index: "audit_action (action=? AND rowid<?)"},
		{name: "outcome", f: access.AuditFilter{Outcome: "denied", Before: 10}, index: "audit_outcome (outcome=? AND rowid<?)"},
		{name: "resource", f: access.AuditFilter{Resource: "instance 0197"}, index: "audit_resource (resource>? AND resource<?)", allowSort: true},
		{name: "time", f: access.AuditFilter{From: t0, To: t0.Add(time.Hour)}, index: "audit_at (at>? AND at<?)", allowSort: true},
		{name: "actor and time", f: access.AuditFilter{Actor: "ann", From: t0}, index: "audit_actor (actor=?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			query, _ := auditQuery(tt.f, 10)
			plan := accessPlan(t, db, query)
			if !strings.Contains(plan, tt.index) {
				t.Errorf("plan does not use %s:\n%s", tt.index, plan)
			}
			if tt.f != (access.AuditFilter{}) && strings.Contains(plan, "SCAN audit") {
				t.Errorf("full scan:\n%s", plan)
			}
			if !tt.allowSort && strings.Contains(plan, "TEMP B-TREE") {
				t.Errorf("plan sorts:\n%s", plan)
			}
		})
	}
}

// BenchmarkAppendAudit measures appending one entry, as a request does.
func BenchmarkAppendAudit(b *testing.B) {
	ctx := context.Background()
	db := MustOpen(b)
	n := 0
	for b.Loop() {
		n++
		e := []access.AuditEntry{{At: t0.Add(time.Duration(n)), Actor: "ann", Action: "POST /api/v1/instances",
			Resource: fmt.Sprintf("instance %08d", n), Outcome: "ok", Status: 201}}
		if err := db.AppendAudit(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
}
