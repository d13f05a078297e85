package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// testListFilters: ListInstances keeps the instances waiting at an element
// (a token there) or failed there (an open incident there), those with an
// open incident of a message (exact or prefix), and those created or ended
// in a time range; resolved incidents, ended instances' dropped tokens and
// other elements do not match, and a keyset page under a filter neither
// skips nor repeats.
func testListFilters(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	const (
		a = store.InstanceID("01900000-0000-7000-8000-0000000000f1")
		b = store.InstanceID("01900000-0000-7000-8000-0000000000f2")
		c = store.InstanceID("text-id-f3")
		d = store.InstanceID("01900000-0000-7000-8000-0000000000f4")
	)
	tok := func(track, node string) store.TokenRow { return store.TokenRow{TrackID: track, NodeID: node} }
	step := func(id store.InstanceID, created time.Time, tokens ...store.TokenRow) store.StepRecord {
		s := NewStep(id, "ship", 1)
		s.Instance.CreatedAt, s.Instance.UpdatedAt = created, created
		s.Tokens = tokens
		return s
	}
	sa := step(a, t0, tok("t1", "pack"), tok("t2", "join"))
	sb := step(b, t0.Add(time.Hour), tok("t1", "label"))
	sb.Instance.Status = store.StatusFailed
	sb.Incidents = []store.IncidentRow{
		{ID: "inc-f1", InstanceID: b, NodeID: "print", Kind: "job-failed", Message: "printer offline: tray 2", CreatedAt: t0},
		{ID: "inc-f2", InstanceID: b, NodeID: "label", Kind: "job-failed", Message: "gone", CreatedAt: t0},
	}
	sc := step(c, t0.Add(2*time.Hour), tok("t1", "pack"))
	sd := step(d, t0.Add(3*time.Hour), tok("t1", "pack"))
	sd.Incidents = []store.IncidentRow{{ID: "inc-f3", InstanceID: d, NodeID: "pack", Kind: "job-failed", Message: "printer jammed", CreatedAt: t0}}
	MustCommit(t, db, sa, sb, sc, sd)
	// c completes (its tokens are dropped); b's "gone" incident is resolved.
	sc2 := NextStep(sc, store.StatusCompleted)
	sb2 := NextStep(sb, store.StatusFailed)
	resolved := sb.Incidents[1]
	resolved.ResolvedAt = t0.Add(time.Minute)
	sb2.Incidents = []store.IncidentRow{resolved}
	MustCommit(t, db, sc2, sb2)
	endedC := sc2.Instance.EndedAt

	for _, tt := range []struct {
		name string
		f    store.InstanceFilter
		want []store.InstanceID
	}{
		{"waiting at pack", store.InstanceFilter{Element: "pack"}, []store.InstanceID{d, a}},
		{"waiting at pack, keyed", store.InstanceFilter{ProcessKey: "ship", ProcessVersion: 1, Element: "pack"}, []store.InstanceID{d, a}},
		{"failed at print", store.InstanceFilter{Element: "print"}, []store.InstanceID{b}},
		{"waiting at label", store.InstanceFilter{Element: "label"}, []store.InstanceID{b}},
		{"no such element", store.InstanceFilter{Element: "nowhere"}, nil},
		{"element and status", store.InstanceFilter{Element: "pack", Status: store.StatusRunning}, []store.InstanceID{d, a}},
		{"message exact", store.InstanceFilter{IncidentMessage: "printer jammed"}, []store.InstanceID{d}},
		{"message exact misses a prefix", store.InstanceFilter{IncidentMessage: "printer"}, nil},
		{"message prefix", store.InstanceFilter{IncidentMessage: "printer", IncidentMessagePrefix: true}, []store.InstanceID{d, b}},
		{"message prefix, keyed", store.InstanceFilter{ProcessKey: "ship", IncidentMessage: "printer o", IncidentMessagePrefix: true}, []store.InstanceID{b}},
		{"resolved message", store.InstanceFilter{IncidentMessage: "gone"}, nil},
		{"created after", store.InstanceFilter{CreatedAfter: t0.Add(time.Hour)}, []store.InstanceID{d, c, b}},
		{"created before", store.InstanceFilter{CreatedBefore: t0.Add(time.Hour)}, []store.InstanceID{a}},
		{"created range", store.InstanceFilter{ProcessKey: "ship", CreatedAfter: t0.Add(time.Hour), CreatedBefore: t0.Add(3 * time.Hour)}, []store.InstanceID{c, b}},
		{"ended after", store.InstanceFilter{EndedAfter: endedC}, []store.InstanceID{c}},
		{"ended before", store.InstanceFilter{EndedBefore: endedC}, nil},
		{"ended range", store.InstanceFilter{EndedAfter: endedC.Add(-time.Second), EndedBefore: endedC.Add(time.Second)}, []store.InstanceID{c}},
	} {
		rows, total, err := db.ListInstances(ctx, tt.f)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := ids(rows); !equalIDs(got, tt.want) || total != len(tt.want) {
			t.Errorf("%s: got %v (total %d), want %v", tt.name, got, total, tt.want)
		}
	}

	// Keyset paging under the element filter: one row a page, no gaps.
	var got []store.InstanceID
	f := store.InstanceFilter{Element: "pack", Limit: 1}
	for range 3 {
		rows, _, err := db.ListInstances(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			break
		}
		got = append(got, rows[0].ID)
		f.After = rows[0].ID
	}
	if !equalIDs(got, []store.InstanceID{d, a}) {
		t.Errorf("keyset pages under an element filter = %v, want [%s %s]", got, d, a)
	}
}

// ids returns the IDs of rows in order.
func ids(rows []store.InstanceRow) []store.InstanceID {
	var out []store.InstanceID
	for _, r := range rows {
		out = append(out, r.ID)
	}
	return out
}

// equalIDs reports whether two ID lists are equal, nil equal to empty.
func equalIDs(a, b []store.InstanceID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// testListSort: ListInstances sorts by number, process, status, end time
// and creation time, both ways, ties falling back to the creation order,
// and keyset pages of one row join up to the whole sorted list; an unknown
// sort is refused.
func testListSort(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	const (
		a = store.InstanceID("01900000-0000-7000-8000-0000000000e1")
		b = store.InstanceID("01900000-0000-7000-8000-0000000000e2")
		c = store.InstanceID("text-id-e3")
		d = store.InstanceID("01900000-0000-7000-8000-0000000000e4")
	)
	step := func(id store.InstanceID, key string, created time.Time) store.StepRecord {
		s := NewStep(id, key, 1)
		s.Instance.CreatedAt, s.Instance.UpdatedAt = created, created
		return s
	}
	// Created a, b, c, d (the store numbers them per key): a zeta #1
	// running; b alpha #1 completed last; c alpha #2 completed first; d
	// zeta #2 failed.
	sa, sb := step(a, "zeta", t0), step(b, "alpha", t0.Add(time.Hour))
	sc, sd := step(c, "alpha", t0.Add(2*time.Hour)), step(d, "zeta", t0.Add(3*time.Hour))
	sd.Instance.Status = store.StatusFailed
	MustCommit(t, db, sa, sb, sc, sd)
	sc2 := NextStep(sc, store.StatusCompleted)
	MustCommit(t, db, sc2)
	sb2 := NextStep(sb, store.StatusCompleted)
	sb2.Instance.UpdatedAt = sc2.Instance.UpdatedAt.Add(time.Hour)
	sb2.Instance.EndedAt = sb2.Instance.UpdatedAt
	MustCommit(t, db, sb2)

	for _, tt := range []struct {
		sortBy    string
		ascending bool
		want      []store.InstanceID
	}{
		{"", false, []store.InstanceID{d, c, b, a}},
		{store.SortCreated, true, []store.InstanceID{a, b, c, d}},
		{store.SortNumber, false, []store.InstanceID{d, c, b, a}},
		{store.SortNumber, true, []store.InstanceID{a, b, c, d}},
		{store.SortProcess, true, []store.InstanceID{b, c, a, d}},
		{store.SortProcess, false, []store.InstanceID{d, a, c, b}},
		{store.SortStatus, true, []store.InstanceID{b, c, d, a}},
		{store.SortEnded, false, []store.InstanceID{b, c, d, a}},
		{store.SortEnded, true, []store.InstanceID{a, d, c, b}},
	} {
		f := store.InstanceFilter{SortBy: tt.sortBy, Ascending: tt.ascending}
		rows, total, err := db.ListInstances(ctx, f)
		if err != nil {
			t.Fatalf("sort %q ascending %v: %v", tt.sortBy, tt.ascending, err)
		}
		if got := ids(rows); !equalIDs(got, tt.want) || total != 4 {
			t.Errorf("sort %q ascending %v: got %v (total %d), want %v", tt.sortBy, tt.ascending, got, total, tt.want)
		}
		var paged []store.InstanceID
		f.Limit = 1
		for range 5 {
			rows, _, err := db.ListInstances(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) == 0 {
				break
			}
			paged = append(paged, rows[0].ID)
			f.After = rows[0].ID
		}
		if !equalIDs(paged, tt.want) {
			t.Errorf("sort %q ascending %v: keyset pages %v, want %v", tt.sortBy, tt.ascending, paged, tt.want)
		}
		f.After, f.Limit, f.Offset = "", 2, 2
		if rows, _, err := db.ListInstances(ctx, f); err != nil || !equalIDs(ids(rows), tt.want[2:]) {
			t.Errorf("sort %q ascending %v: offset page %v, %v; want %v", tt.sortBy, tt.ascending, ids(rows), err, tt.want[2:])
		}
	}
	var rerr *store.Error
	if _, _, err := db.ListInstances(ctx, store.InstanceFilter{SortBy: "color"}); !errors.As(err, &rerr) || rerr.Code != store.EINVALID {
		t.Errorf("an unknown sort: %v, want %s", err, store.EINVALID)
	}
}
