package storetest

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// mustAppendAudit appends entries and returns them with their Seq.
func mustAppendAudit(tb testing.TB, db *Harness, entries ...access.AuditEntry) []access.AuditEntry {
	tb.Helper()
	if err := db.AppendAudit(context.Background(), entries); err != nil {
		tb.Fatal(err)
	}
	return entries
}

// auditSeqs returns the Seq of each entry.
func auditSeqs(entries []access.AuditEntry) []int64 {
	out := make([]int64, len(entries))
	for i, e := range entries {
		out[i] = e.Seq
	}
	return out
}

func testAppendAudit(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	if err := db.AppendAudit(ctx, nil); err != nil {
		t.Fatalf("AppendAudit of nothing: %v", err)
	}
	full := access.AuditEntry{
		At: t0, Actor: "ann", OnBehalfOf: "bob", Via: "token:abcdefghijklmnop",
		Action: "POST /api/v1/instances/{id}/cancel", Resource: "instance 0197aa00-0000-7000-8000-000000000001",
		Outcome: "ok", Status: 204, RequestID: "req-1", Addr: "192.0.2.7",
	}
	failed := access.AuditEntry{At: t0.Add(time.Second), Action: "login-failed", Resource: "user mallory", Outcome: "failed", Addr: "[2001:db8::1]:4711"}
	entries := mustAppendAudit(t, db, full, failed)
	if entries[0].Seq <= 0 || entries[1].Seq != entries[0].Seq+1 {
		t.Fatalf("seqs %v, want increasing from 1", auditSeqs(entries))
	}
	got, err := db.Audit(ctx, access.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []access.AuditEntry{entries[1], entries[0]}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Audit = %+v, want %+v", got, want)
	}

	// One bad entry appends nothing and assigns no Seq.
	for _, tt := range []struct {
		name  string
		entry access.AuditEntry
	}{
		{name: "no time", entry: access.AuditEntry{Action: "login", Outcome: "ok"}},
		{name: "no action", entry: access.AuditEntry{At: t0, Outcome: "ok"}},
		{name: "unknown outcome", entry: access.AuditEntry{At: t0, Action: "login", Outcome: "maybe"}},
		{name: "no outcome", entry: access.AuditEntry{At: t0, Action: "login"}},
	} {
		batch := []access.AuditEntry{{At: t0, Action: "logout", Outcome: "ok"}, tt.entry}
		if err := db.AppendAudit(ctx, batch); err == nil {
			t.Errorf("AppendAudit(%s) succeeded", tt.name)
		}
		if batch[0].Seq != 0 {
			t.Errorf("AppendAudit(%s) failed but set a Seq", tt.name)
		}
	}
	if got, err := db.Audit(ctx, access.AuditFilter{}); err != nil || len(got) != 2 {
		t.Errorf("after refused batches Audit has %d entries, %v", len(got), err)
	}

	// A seq is never reused, even when the newest entries are pruned.
	if err := db.Exec(`DELETE FROM audit WHERE seq = ?`, entries[1].Seq); err != nil {
		t.Fatal(err)
	}
	next := mustAppendAudit(t, db, access.AuditEntry{At: t0, Action: "logout", Outcome: "ok"})
	if next[0].Seq <= entries[1].Seq {
		t.Errorf("seq %d reused after pruning %d", next[0].Seq, entries[1].Seq)
	}
}

// auditFixture appends twelve entries, one a minute from t0, and returns
// them with their Seq.
func auditFixture(tb testing.TB, db *Harness) []access.AuditEntry {
	tb.Helper()
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	return mustAppendAudit(tb, db,
		access.AuditEntry{At: at(0), Actor: "ann", Via: "session", Action: "login", Resource: "user ann", Outcome: "ok"},
		access.AuditEntry{At: at(1), Action: "login-failed", Resource: "user bob", Outcome: "failed", Status: 401},
		access.AuditEntry{At: at(2), Actor: "ann", Action: "POST /api/v1/deployments", Resource: "process order", Outcome: "ok", Status: 201},
		access.AuditEntry{At: at(3), Actor: "bob", Action: "POST /api/v1/deployments", Resource: "process order-eu", Outcome: "denied", Status: 403},
		access.AuditEntry{At: at(4), Actor: "ann", Action: "POST /api/v1/instances", Resource: "instance 0197-a", Outcome: "ok", Status: 201},
		access.AuditEntry{At: at(5), Actor: "ann", Action: "POST /api/v1/instances/{id}/cancel", Resource: "instance 0197-a", Outcome: "ok", Status: 204},
		access.AuditEntry{At: at(6), Actor: "bob", Action: "POST /api/v1/instances/{id}/cancel", Resource: "instance 0198-b", Outcome: "error", Status: 500},
		access.AuditEntry{At: at(7), Actor: "w1", OnBehalfOf: "ann", Via: "token:x", Action: "POST /api/v1/jobs/{key}/complete", Resource: "job-type invoice", Outcome: "ok", Status: 204},
		access.AuditEntry{At: at(8), Actor: "ann", Action: "logout", Outcome: "ok"},
		// Resources that share a multi-byte prefix: "ÿ" is C3 BF, "Ā" C4 80.
		access.AuditEntry{At: at(9), Actor: "cy", Action: "PUT /api/v1/users/{id}", Resource: "user ÿann", Outcome: "ok"},
		access.AuditEntry{At: at(10), Actor: "cy", Action: "PUT /api/v1/users/{id}", Resource: "user Āda", Outcome: "ok"},
		access.AuditEntry{At: at(11), Actor: "cy", Action: "PUT /api/v1/users/{id}", Resource: "user 100%_off", Outcome: "failed", Status: 400},
	)
}

func testAuditFilters(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	all := auditFixture(t, db)
	seq := func(i int) int64 { return all[i].Seq }
	// newest lists entries by fixture index, newest first.
	newest := func(idx ...int) []int64 {
		out := make([]int64, len(idx))
		for i, ix := range idx {
			out[i] = seq(ix)
		}
		return out
	}
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

	tests := []struct {
		name string
		f    access.AuditFilter
		want []int64
	}{
		{name: "everything", f: access.AuditFilter{}, want: newest(11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)},
		{name: "actor", f: access.AuditFilter{Actor: "ann"}, want: newest(8, 5, 4, 2, 0)},
		{name: "actor not acting for others", f: access.AuditFilter{Actor: "w1"}, want: newest(7)},
		{name: "unknown actor", f: access.AuditFilter{Actor: "zed"}, want: nil},
		{name: "action", f: access.AuditFilter{Action: "POST /api/v1/deployments"}, want: newest(3, 2)},
		{name: "action is exact", f: access.AuditFilter{Action: "POST /api/v1/instances"}, want: newest(4)},
		{name: "action event", f: access.AuditFilter{Action: "login-failed"}, want: newest(1)},
		{name: "resource exact", f: access.AuditFilter{Resource: "instance 0197-a"}, want: newest(5, 4)},
		{name: "resource prefix", f: access.AuditFilter{Resource: "instance "}, want: newest(6, 5, 4)},
		{name: "resource kind prefix", f: access.AuditFilter{Resource: "process order"}, want: newest(3, 2)},
		{name: "resource longer than any", f: access.AuditFilter{Resource: "process order-eu-x"}, want: nil},
		{name: "resource prefix, multi-byte", f: access.AuditFilter{Resource: "user ÿ"}, want: newest(9)},
		{name: "resource prefix, next multi-byte", f: access.AuditFilter{Resource: "user Ā"}, want: newest(10)},
		{name: "resource wildcards are text", f: access.AuditFilter{Resource: "user 100%"}, want: newest(11)},
		{name: "resource LIKE wildcard is text", f: access.AuditFilter{Resource: "user _"}, want: nil},
		{name: "resource prefix of users", f: access.AuditFilter{Resource: "user "}, want: newest(11, 10, 9, 1, 0)},
		{name: "outcome ok", f: access.AuditFilter{Outcome: "ok"}, want: newest(10, 9, 8, 7, 5, 4, 2, 0)},
		{name: "outcome denied", f: access.AuditFilter{Outcome: "denied"}, want: newest(3)},
		{name: "outcome failed", f: access.AuditFilter{Outcome: "failed"}, want: newest(11, 1)},
		{name: "outcome error", f: access.AuditFilter{Outcome: "error"}, want: newest(6)},
		{name: "unknown outcome", f: access.AuditFilter{Outcome: "maybe"}, want: nil},
		{name: "from", f: access.AuditFilter{From: at(9)}, want: newest(11, 10, 9)},
		{name: "to", f: access.AuditFilter{To: at(2)}, want: newest(1, 0)},
		{name: "from and to", f: access.AuditFilter{From: at(4), To: at(6)}, want: newest(5, 4)},
		{name: "from between entries", f: access.AuditFilter{From: at(10).Add(-time.Nanosecond)}, want: newest(11, 10)},
		{name: "to before from", f: access.AuditFilter{From: at(6), To: at(4)}, want: nil},
		{name: "far-off bounds", f: access.AuditFilter{From: time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}, want: newest(11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)},
		{name: "bounds in another zone", f: access.AuditFilter{From: at(11).In(time.FixedZone("X", 5*3600))}, want: newest(11)},
		{name: "before", f: access.AuditFilter{Before: seq(3)}, want: newest(2, 1, 0)},
		{name: "before the first", f: access.AuditFilter{Before: seq(0)}, want: nil},
		{name: "limit", f: access.AuditFilter{Limit: 2}, want: newest(11, 10)},
		{name: "actor and outcome", f: access.AuditFilter{Actor: "bob", Outcome: "error"}, want: newest(6)},
		{name: "actor and resource", f: access.AuditFilter{Actor: "ann", Resource: "instance"}, want: newest(5, 4)},
		{name: "action and time", f: access.AuditFilter{Action: "PUT /api/v1/users/{id}", To: at(11)}, want: newest(10, 9)},
		{name: "everything at once", f: access.AuditFilter{Actor: "ann", Action: "POST /api/v1/instances/{id}/cancel",
			Resource: "instance 0197", Outcome: "ok", From: at(5), To: at(6), Before: seq(6), Limit: 10}, want: newest(5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := db.Audit(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if gotSeqs := auditSeqs(got); !slices.Equal(gotSeqs, tt.want) && !(len(gotSeqs) == 0 && len(tt.want) == 0) {
				t.Errorf("Audit(%+v) = %v, want %v", tt.f, gotSeqs, tt.want)
			}
		})
	}
	// Entries read back whole.
	got, err := db.Audit(ctx, access.AuditFilter{Actor: "w1"})
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], all[7]) {
		t.Errorf("Audit(w1) = %+v, %v; want %+v", got, err, all[7])
	}
}

func testAuditPaging(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	entries := make([]access.AuditEntry, 25)
	for i := range entries {
		var actor auth.UserID = "ann"
		if i%2 == 1 {
			actor = "bob"
		}
		entries[i] = access.AuditEntry{At: t0.Add(time.Duration(i) * time.Second), Actor: actor, Action: "login", Outcome: "ok"}
	}
	mustAppendAudit(t, db, entries...)

	for _, tt := range []struct {
		name  string
		f     access.AuditFilter
		sizes []int
	}{
		{name: "all", f: access.AuditFilter{Limit: 10}, sizes: []int{10, 10, 5}},
		{name: "of ann", f: access.AuditFilter{Actor: "ann", Limit: 5}, sizes: []int{5, 5, 3}},
		{name: "exact pages", f: access.AuditFilter{Actor: "bob", Limit: 4}, sizes: []int{4, 4, 4}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var seen []int64
			f := tt.f
			for page := 0; ; page++ {
				got, err := db.Audit(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if page == len(tt.sizes) {
					if len(got) != 0 {
						t.Fatalf("page %d after the last has %d entries", page, len(got))
					}
					break
				}
				if len(got) != tt.sizes[page] {
					t.Fatalf("page %d has %d entries, want %d", page, len(got), tt.sizes[page])
				}
				for _, e := range got {
					if f.Actor != "" && e.Actor != f.Actor {
						t.Errorf("entry %d of %s on a page of %s", e.Seq, e.Actor, f.Actor)
					}
				}
				seen = append(seen, auditSeqs(got)...)
				f.Before = got[len(got)-1].Seq
			}
			if !slices.IsSortedFunc(seen, func(a, b int64) int { return int(b - a) }) || len(slices.Compact(slices.Clone(seen))) != len(seen) {
				t.Errorf("pages are not strictly newest first: %v", seen)
			}
		})
	}
}

func testAuditLimits(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	entries := make([]access.AuditEntry, sqlquery.MaxAuditLimit+50)
	for i := range entries {
		entries[i] = access.AuditEntry{At: t0.Add(time.Duration(i)), Action: "login", Outcome: "ok"}
	}
	mustAppendAudit(t, db, entries...)
	for _, tt := range []struct {
		f       access.AuditFilter
		want    int
		wantErr bool
	}{
		{f: access.AuditFilter{}, want: sqlquery.DefaultAuditLimit},
		{f: access.AuditFilter{Limit: 1}, want: 1},
		{f: access.AuditFilter{Limit: sqlquery.MaxAuditLimit}, want: sqlquery.MaxAuditLimit},
		{f: access.AuditFilter{Limit: sqlquery.MaxAuditLimit + 1}, want: sqlquery.MaxAuditLimit},
		{f: access.AuditFilter{Limit: -1}, wantErr: true},
		{f: access.AuditFilter{Before: -1}, wantErr: true},
	} {
		got, err := db.Audit(ctx, tt.f)
		if tt.wantErr {
			if err == nil {
				t.Errorf("Audit(%+v) succeeded", tt.f)
			}
			continue
		}
		if err != nil || len(got) != tt.want {
			t.Errorf("Audit(%+v) = %d entries, %v; want %d", tt.f, len(got), err, tt.want)
		}
	}
}
