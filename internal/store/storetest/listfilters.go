package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
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
		a = runtime.InstanceID("01900000-0000-7000-8000-0000000000f1")
		b = runtime.InstanceID("01900000-0000-7000-8000-0000000000f2")
		c = runtime.InstanceID("text-id-f3")
		d = runtime.InstanceID("01900000-0000-7000-8000-0000000000f4")
	)
	tok := func(track, node string) runtime.TokenRow { return runtime.TokenRow{TrackID: track, NodeID: node} }
	step := func(id runtime.InstanceID, created time.Time, tokens ...runtime.TokenRow) runtime.StepRecord {
		s := NewStep(id, "ship", 1)
		s.Instance.CreatedAt, s.Instance.UpdatedAt = created, created
		s.Tokens = tokens
		return s
	}
	sa := step(a, t0, tok("t1", "pack"), tok("t2", "join"))
	sb := step(b, t0.Add(time.Hour), tok("t1", "label"))
	sb.Instance.Status = runtime.StatusFailed
	sb.Incidents = []runtime.IncidentRow{
		{ID: "inc-f1", InstanceID: b, NodeID: "print", Kind: "job-failed", Message: "printer offline: tray 2", CreatedAt: t0},
		{ID: "inc-f2", InstanceID: b, NodeID: "label", Kind: "job-failed", Message: "gone", CreatedAt: t0},
	}
	sc := step(c, t0.Add(2*time.Hour), tok("t1", "pack"))
	sd := step(d, t0.Add(3*time.Hour), tok("t1", "pack"))
	sd.Incidents = []runtime.IncidentRow{{ID: "inc-f3", InstanceID: d, NodeID: "pack", Kind: "job-failed", Message: "printer jammed", CreatedAt: t0}}
	MustCommit(t, db, sa, sb, sc, sd)
	// c completes (its tokens are dropped); b's "gone" incident is resolved.
	sc2 := NextStep(sc, runtime.StatusCompleted)
	sb2 := NextStep(sb, runtime.StatusFailed)
	resolved := sb.Incidents[1]
	resolved.ResolvedAt = t0.Add(time.Minute)
	sb2.Incidents = []runtime.IncidentRow{resolved}
	MustCommit(t, db, sc2, sb2)
	endedC := sc2.Instance.EndedAt

	for _, tt := range []struct {
		name string
		f    runtime.InstanceFilter
		want []runtime.InstanceID
	}{
		{"waiting at pack", runtime.InstanceFilter{Element: "pack"}, []runtime.InstanceID{d, a}},
		{"waiting at pack, keyed", runtime.InstanceFilter{ProcessKey: "ship", ProcessVersion: 1, Element: "pack"}, []runtime.InstanceID{d, a}},
		{"failed at print", runtime.InstanceFilter{Element: "print"}, []runtime.InstanceID{b}},
		{"waiting at label", runtime.InstanceFilter{Element: "label"}, []runtime.InstanceID{b}},
		{"no such element", runtime.InstanceFilter{Element: "nowhere"}, nil},
		{"element and status", runtime.InstanceFilter{Element: "pack", Status: runtime.StatusRunning}, []runtime.InstanceID{d, a}},
		{"message exact", runtime.InstanceFilter{IncidentMessage: "printer jammed"}, []runtime.InstanceID{d}},
		{"message exact misses a prefix", runtime.InstanceFilter{IncidentMessage: "printer"}, nil},
		{"message prefix", runtime.InstanceFilter{IncidentMessage: "printer", IncidentMessagePrefix: true}, []runtime.InstanceID{d, b}},
		{"message prefix, keyed", runtime.InstanceFilter{ProcessKey: "ship", IncidentMessage: "printer o", IncidentMessagePrefix: true}, []runtime.InstanceID{b}},
		{"resolved message", runtime.InstanceFilter{IncidentMessage: "gone"}, nil},
		{"created after", runtime.InstanceFilter{CreatedAfter: t0.Add(time.Hour)}, []runtime.InstanceID{d, c, b}},
		{"created before", runtime.InstanceFilter{CreatedBefore: t0.Add(time.Hour)}, []runtime.InstanceID{a}},
		{"created range", runtime.InstanceFilter{ProcessKey: "ship", CreatedAfter: t0.Add(time.Hour), CreatedBefore: t0.Add(3 * time.Hour)}, []runtime.InstanceID{c, b}},
		{"ended after", runtime.InstanceFilter{EndedAfter: endedC}, []runtime.InstanceID{c}},
		{"ended before", runtime.InstanceFilter{EndedBefore: endedC}, nil},
		{"ended range", runtime.InstanceFilter{EndedAfter: endedC.Add(-time.Second), EndedBefore: endedC.Add(time.Second)}, []runtime.InstanceID{c}},
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
	var got []runtime.InstanceID
	f := runtime.InstanceFilter{Element: "pack", Limit: 1}
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
	if !equalIDs(got, []runtime.InstanceID{d, a}) {
		t.Errorf("keyset pages under an element filter = %v, want [%s %s]", got, d, a)
	}
}

// ids returns the IDs of rows in order.
func ids(rows []runtime.InstanceRow) []runtime.InstanceID {
	var out []runtime.InstanceID
	for _, r := range rows {
		out = append(out, r.ID)
	}
	return out
}

// equalIDs reports whether two ID lists are equal, nil equal to empty.
func equalIDs(a, b []runtime.InstanceID) bool {
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
		a = runtime.InstanceID("01900000-0000-7000-8000-0000000000e1")
		b = runtime.InstanceID("01900000-0000-7000-8000-0000000000e2")
		c = runtime.InstanceID("text-id-e3")
		d = runtime.InstanceID("01900000-0000-7000-8000-0000000000e4")
	)
	step := func(id runtime.InstanceID, key string, created time.Time) runtime.StepRecord {
		s := NewStep(id, key, 1)
		s.Instance.CreatedAt, s.Instance.UpdatedAt = created, created
		return s
	}
	// Created a, b, c, d (the store numbers them per key): a zeta #1
	// running; b alpha #1 completed last; c alpha #2 completed first; d
	// zeta #2 failed.
	sa, sb := step(a, "zeta", t0), step(b, "alpha", t0.Add(time.Hour))
	sc, sd := step(c, "alpha", t0.Add(2*time.Hour)), step(d, "zeta", t0.Add(3*time.Hour))
	sd.Instance.Status = runtime.StatusFailed
	MustCommit(t, db, sa, sb, sc, sd)
	sc2 := NextStep(sc, runtime.StatusCompleted)
	MustCommit(t, db, sc2)
	sb2 := NextStep(sb, runtime.StatusCompleted)
	sb2.Instance.UpdatedAt = sc2.Instance.UpdatedAt.Add(time.Hour)
	sb2.Instance.EndedAt = sb2.Instance.UpdatedAt
	MustCommit(t, db, sb2)

	for _, tt := range []struct {
		sortBy    string
		ascending bool
		want      []runtime.InstanceID
	}{
		{"", false, []runtime.InstanceID{d, c, b, a}},
		{runtime.SortCreated, true, []runtime.InstanceID{a, b, c, d}},
		{runtime.SortNumber, false, []runtime.InstanceID{d, c, b, a}},
		{runtime.SortNumber, true, []runtime.InstanceID{a, b, c, d}},
		{runtime.SortProcess, true, []runtime.InstanceID{b, c, a, d}},
		{runtime.SortProcess, false, []runtime.InstanceID{d, a, c, b}},
		{runtime.SortStatus, true, []runtime.InstanceID{b, c, d, a}},
		{runtime.SortEnded, false, []runtime.InstanceID{b, c, d, a}},
		{runtime.SortEnded, true, []runtime.InstanceID{a, d, c, b}},
	} {
		f := runtime.InstanceFilter{SortBy: tt.sortBy, Ascending: tt.ascending}
		rows, total, err := db.ListInstances(ctx, f)
		if err != nil {
			t.Fatalf("sort %q ascending %v: %v", tt.sortBy, tt.ascending, err)
		}
		if got := ids(rows); !equalIDs(got, tt.want) || total != 4 {
			t.Errorf("sort %q ascending %v: got %v (total %d), want %v", tt.sortBy, tt.ascending, got, total, tt.want)
		}
		var paged []runtime.InstanceID
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
	var rerr *runtime.Error
	if _, _, err := db.ListInstances(ctx, runtime.InstanceFilter{SortBy: "color"}); !errors.As(err, &rerr) || rerr.Code != runtime.EINVALID {
		t.Errorf("an unknown sort: %v, want %s", err, runtime.EINVALID)
	}
}
