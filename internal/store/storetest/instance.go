package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
)

// NewStep builds the creating step of a running instance with a header of
// realistic size, two scope parts, a track part and three facts.
func NewStep(id store.InstanceID, key string, version int) store.StepRecord {
	return store.StepRecord{
		Instance: store.InstanceRow{
			ID: id, ProcessKey: key, ProcessVersion: version, Status: store.StatusRunning,
			CreatedAt: t0, UpdatedAt: t0, Revision: 1,
		},
		Header: fmt.Appendf(make([]byte, 0, 256), "%s-%0150d", id, 1),
		Parts: []store.Part{
			{Kind: "scope", Key: "s0", Ord: 0, Data: []byte(`{"path":"/"}`)},
			{Kind: "scope", Key: "s1", Ord: 1, Data: []byte(`{"path":"/sub"}`)},
			{Kind: "track", Key: "t1", Ord: 1, Data: []byte(`{"node":"task"}`)},
		},
		Facts: []store.FactRow{
			{Seq: 1, At: t0, Kind: "instance_started", NodeID: "start", ScopePath: "/"},
			{Seq: 2, At: t0, Kind: "node_entered", NodeID: "sub", ScopePath: "/", Detail: json.RawMessage(`{"k":"v"}`)},
			{Seq: 3, At: t0, Kind: "node_waiting", NodeID: "task", ScopePath: "/sub"},
		},
	}
}

// NextStep builds the step after s: revision+1, a minute later, one more
// fact, a new header, scope s1 removed and track t1 replaced.
func NextStep(s store.StepRecord, status string) store.StepRecord {
	in := s.Instance
	in.Status = status
	in.UpdatedAt = in.UpdatedAt.Add(time.Minute)
	if status == store.StatusCompleted || status == store.StatusTerminated {
		in.EndedAt = in.UpdatedAt
	}
	in.Revision = s.Instance.Revision + 1
	last := s.Facts[len(s.Facts)-1].Seq
	return store.StepRecord{
		Instance:     in,
		PrevRevision: s.Instance.Revision,
		Header:       []byte(fmt.Sprintf("%s-rev%d", in.ID, in.Revision)),
		Parts:        []store.Part{{Kind: "track", Key: "t1", Ord: 1, Data: fmt.Appendf(nil, `{"rev":%d}`, in.Revision)}},
		RemovedParts: []store.PartRef{{Kind: "scope", Key: "s1"}},
		Facts:        []store.FactRow{{Seq: last + 1, At: in.UpdatedAt, Kind: "node_left", NodeID: "task", ScopePath: "/sub"}},
	}
}

// AssertInstance fails unless got equals want field by field.
//
// A want with Number 0 (a row the test built before the store numbered
// it) accepts any positive number; the numbers have tests of their own.
func AssertInstance(tb testing.TB, got, want store.InstanceRow) {
	tb.Helper()
	if want.Number == 0 && got.Number > 0 {
		want.Number = got.Number
	}
	if !reflect.DeepEqual(got, want) {
		tb.Errorf("instance\n got %+v\nwant %+v", got, want)
	}
}

// MustCommit commits steps or fails the test.
func MustCommit(tb testing.TB, db Store, steps ...store.StepRecord) {
	tb.Helper()
	if err := db.CommitSteps(context.Background(), steps); err != nil {
		tb.Fatal(err)
	}
}

func testCommitSteps(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()

	t.Run("insert then update", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		s1 := NewStep("i1", "order", 1)
		s1.Instance.BusinessKey = "B-1"
		s1.Instance.ParentID, s1.Instance.ParentNodeID = "p1", "call"
		MustCommit(t, db, s1)
		got, err := db.Instance(ctx, "i1")
		if err != nil {
			t.Fatal(err)
		}
		AssertInstance(t, got.InstanceRow, s1.Instance)
		if string(got.Header) != string(s1.Header) || !reflect.DeepEqual(got.Parts, s1.Parts) {
			t.Errorf("state = %q %+v, want %q %+v", got.Header, got.Parts, s1.Header, s1.Parts)
		}

		s2 := NextStep(s1, store.StatusCompleted)
		MustCommit(t, db, s2)
		got, err = db.Instance(ctx, "i1")
		if err != nil {
			t.Fatal(err)
		}
		AssertInstance(t, got.InstanceRow, s2.Instance)
		if string(got.Header) != string(s2.Header) {
			t.Errorf("header = %q, want %q", got.Header, s2.Header)
		}
		if got.EndedAt.IsZero() || !got.EndedAt.Equal(s2.Instance.EndedAt) {
			t.Errorf("EndedAt = %v, want %v", got.EndedAt, s2.Instance.EndedAt)
		}
		wantParts := []store.Part{s1.Parts[0], s2.Parts[0]}
		if !reflect.DeepEqual(got.Parts, wantParts) {
			t.Errorf("parts after update = %+v, want %+v", got.Parts, wantParts)
		}
		facts, err := db.History(ctx, "i1", 0, 0)
		if err != nil || len(facts) != 4 {
			t.Fatalf("History = %d facts, %v; want 4", len(facts), err)
		}
		if !reflect.DeepEqual(facts[:3], s1.Facts) || !reflect.DeepEqual(facts[3], s2.Facts[0]) {
			t.Errorf("History = %+v", facts)
		}
	})

	t.Run("conflicts roll back the whole batch", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name string
			// bad is the culprit step, built from the committed step of i1.
			bad func(committed store.StepRecord) store.StepRecord
		}{
			{name: "stale revision", bad: func(c store.StepRecord) store.StepRecord {
				s := NextStep(c, store.StatusRunning)
				s.PrevRevision, s.Instance.Revision = 7, 8
				return s
			}},
			{name: "duplicate insert", bad: func(c store.StepRecord) store.StepRecord {
				return NewStep(c.Instance.ID, "order", 1)
			}},
			{name: "update of a missing instance", bad: func(c store.StepRecord) store.StepRecord {
				s := NextStep(c, store.StatusRunning)
				s.Instance.ID = "ghost"
				return s
			}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				db := open(t)
				s1 := NewStep("i1", "order", 1)
				MustCommit(t, db, s1)
				good := NewStep("i2", "order", 1)
				err := db.CommitSteps(ctx, []store.StepRecord{good, tt.bad(s1)})
				if !errors.Is(err, store.ErrConflict) {
					t.Fatalf("CommitSteps = %v, want ErrConflict", err)
				}
				if _, err := db.Instance(ctx, "i2"); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("the good step of the failed batch landed: %v", err)
				}
				got, err := db.Instance(ctx, "i1")
				if err != nil {
					t.Fatal(err)
				}
				AssertInstance(t, got.InstanceRow, s1.Instance)
				if facts, _ := db.History(ctx, "i1", 0, 0); len(facts) != len(s1.Facts) {
					t.Errorf("history of i1 has %d facts, want %d", len(facts), len(s1.Facts))
				}
			})
		}
	})

	t.Run("batch of many instances", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		var steps []store.StepRecord
		for i := range 16 {
			steps = append(steps, NewStep(store.InstanceID(fmt.Sprintf("i%02d", i)), "order", 1))
		}
		MustCommit(t, db, steps...)
		var next []store.StepRecord
		for _, s := range steps {
			next = append(next, NextStep(s, store.StatusRunning))
		}
		MustCommit(t, db, next...)
		_, total, err := db.ListInstances(ctx, store.InstanceFilter{})
		if err != nil || total != 16 {
			t.Fatalf("total = %d, %v; want 16", total, err)
		}
	})

	t.Run("unknown instance reads are not found", func(t *testing.T) {
		t.Parallel()
		db := open(t)
		if _, err := db.Instance(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Instance = %v", err)
		}
		if _, err := db.InstanceRow(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("InstanceRow = %v", err)
		}
		if _, err := db.Parts(ctx, "nope", "scope", 0, 0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Parts = %v", err)
		}
		if _, err := db.PartCounts(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("PartCounts = %v", err)
		}
		if _, err := db.History(ctx, "nope", 0, 0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("History = %v", err)
		}
		if _, err := db.Incidents(ctx, "nope", false); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Incidents = %v", err)
		}
		if err := db.CommitSteps(ctx, nil); err != nil {
			t.Errorf("empty batch = %v", err)
		}
	})
}

func testListInstances(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	// i00..i09: created a second apart; even ones are "order" v1, odd "ship" v2;
	// i00..i02 completed; i05 has a business key; i06, i07 are children of i00.
	// i10 shares i09's creation time so id breaks the tie.
	for i := range 11 {
		key, version := "order", 1
		if i%2 == 1 {
			key, version = "ship", 2
		}
		s := NewStep(store.InstanceID(fmt.Sprintf("i%02d", i)), key, version)
		s.Instance.CreatedAt = t0.Add(time.Duration(min(i, 9)) * time.Second)
		if i == 5 {
			s.Instance.BusinessKey = "BK-5"
		}
		if i == 6 || i == 7 {
			s.Instance.ParentID = "i00"
		}
		MustCommit(t, db, s)
		if i <= 2 {
			MustCommit(t, db, NextStep(s, store.StatusCompleted))
		}
	}
	ids := func(rows []store.InstanceRow) []string {
		var out []string
		for _, r := range rows {
			out = append(out, string(r.ID))
		}
		return out
	}
	tests := []struct {
		name      string
		filter    store.InstanceFilter
		wantIDs   []string
		wantTotal int
	}{
		{name: "all newest first", filter: store.InstanceFilter{},
			wantIDs:   []string{"i10", "i09", "i08", "i07", "i06", "i05", "i04", "i03", "i02", "i01", "i00"},
			wantTotal: 11},
		{name: "page", filter: store.InstanceFilter{Limit: 3, Offset: 2},
			wantIDs: []string{"i08", "i07", "i06"}, wantTotal: 11},
		{name: "past the end", filter: store.InstanceFilter{Offset: 20}, wantTotal: 11},
		{name: "process key", filter: store.InstanceFilter{ProcessKey: "ship"},
			wantIDs: []string{"i09", "i07", "i05", "i03", "i01"}, wantTotal: 5},
		{name: "process version", filter: store.InstanceFilter{ProcessKey: "order", ProcessVersion: 1, Limit: 2},
			wantIDs: []string{"i10", "i08"}, wantTotal: 6},
		{name: "status", filter: store.InstanceFilter{Status: store.StatusCompleted},
			wantIDs: []string{"i02", "i01", "i00"}, wantTotal: 3},
		{name: "business key", filter: store.InstanceFilter{BusinessKey: "BK-5"},
			wantIDs: []string{"i05"}, wantTotal: 1},
		{name: "parent", filter: store.InstanceFilter{ParentID: "i00"},
			wantIDs: []string{"i07", "i06"}, wantTotal: 2},
		{name: "combined no match", filter: store.InstanceFilter{ParentID: "i00", Status: store.StatusCompleted}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rows, total, err := db.ListInstances(ctx, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(rows); !reflect.DeepEqual(got, tt.wantIDs) || total != tt.wantTotal {
				t.Errorf("ListInstances = %v (total %d), want %v (total %d)", got, total, tt.wantIDs, tt.wantTotal)
			}
		})
	}
	t.Run("cursor pages equal offset pages", func(t *testing.T) {
		t.Parallel()
		filters := []store.InstanceFilter{
			{}, {ProcessKey: "ship"}, {ProcessKey: "order", ProcessVersion: 1}, {Status: store.StatusRunning},
			{ParentID: "i00"}, {ProcessKey: "order", Status: store.StatusCompleted},
		}
		for _, f := range filters {
			f.Limit = 1000
			all, total, err := db.ListInstances(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var paged []store.InstanceRow
			f.Limit = 2
			for {
				page, pageTotal, err := db.ListInstances(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if pageTotal != total {
					t.Errorf("%+v: total %d on a cursor page, %d on the first", f, pageTotal, total)
				}
				paged = append(paged, page...)
				if len(page) < f.Limit {
					break
				}
				f.After = page[len(page)-1].ID
			}
			if !reflect.DeepEqual(ids(paged), ids(all)) {
				t.Errorf("%+v: cursor pages %v, want %v", f, ids(paged), ids(all))
			}
		}
		// Offset applies after the cursor.
		rows, _, err := db.ListInstances(ctx, store.InstanceFilter{After: "i08", Offset: 1, Limit: 2})
		if err != nil || !reflect.DeepEqual(ids(rows), []string{"i06", "i05"}) {
			t.Errorf("after i08 offset 1 = %v, %v", ids(rows), err)
		}
		if _, _, err := db.ListInstances(ctx, store.InstanceFilter{After: "ghost"}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown cursor = %v, want ErrNotFound", err)
		}
	})
	t.Run("limit is capped", func(t *testing.T) {
		t.Parallel()
		var steps []store.StepRecord
		for i := range sqlquery.MaxListLimit + 10 {
			steps = append(steps, NewStep(store.InstanceID(fmt.Sprintf("bulk%04d", i)), "bulk", 1))
		}
		// A second store: the cap test must not disturb the shared fixture.
		bulk := open(t)
		MustCommit(t, bulk, steps...)
		rows, total, err := bulk.ListInstances(ctx, store.InstanceFilter{Limit: 10000})
		if err != nil || len(rows) != sqlquery.MaxListLimit || total != sqlquery.MaxListLimit+10 {
			t.Errorf("len %d total %d err %v", len(rows), total, err)
		}
		rows, _, err = bulk.ListInstances(ctx, store.InstanceFilter{})
		if err != nil || len(rows) != sqlquery.DefaultListLimit {
			t.Errorf("default page len %d err %v", len(rows), err)
		}
	})
}

func testListInstancesTotalIsCapped(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	steps := make([]store.StepRecord, 0, 1000)
	for i := range store.MaxListTotal + 5 {
		at := t0.Add(time.Duration(i) * time.Millisecond)
		steps = append(steps, store.StepRecord{Instance: store.InstanceRow{
			ID: store.InstanceID(fmt.Sprintf("%08x-0000-7000-8000-000000000000", i)), ProcessKey: "p", ProcessVersion: 1,
			Status: store.StatusRunning, CreatedAt: at, UpdatedAt: at, Revision: 1}})
		if len(steps) == cap(steps) || i == store.MaxListTotal+4 {
			MustCommit(t, db, steps...)
			steps = steps[:0]
		}
	}
	tests := []struct {
		name   string
		filter store.InstanceFilter
		want   int
	}{
		{name: "all", want: store.MaxListTotal + 1},
		{name: "key and status", filter: store.InstanceFilter{ProcessKey: "p", Status: store.StatusRunning}, want: store.MaxListTotal + 1},
		{name: "few", filter: store.InstanceFilter{Status: store.StatusFailed}, want: 0},
	}
	for _, tt := range tests {
		_, total, err := db.ListInstances(ctx, tt.filter)
		if err != nil || total != tt.want {
			t.Errorf("%s: total %d, %v; want %d", tt.name, total, err, tt.want)
		}
	}
}

func testHistory(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	s := NewStep("i1", "order", 1)
	MustCommit(t, db, s)
	for range 3 {
		s = NextStep(s, store.StatusRunning)
		MustCommit(t, db, s)
	}
	// Seqs 1..6 are stored.
	tests := []struct {
		name     string
		afterSeq int64
		limit    int
		want     []int64
	}{
		{name: "all", want: []int64{1, 2, 3, 4, 5, 6}},
		{name: "after", afterSeq: 4, want: []int64{5, 6}},
		{name: "limit", limit: 2, want: []int64{1, 2}},
		{name: "after and limit", afterSeq: 2, limit: 3, want: []int64{3, 4, 5}},
		{name: "after the end", afterSeq: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			facts, err := db.History(ctx, "i1", tt.afterSeq, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, f := range facts {
				got = append(got, f.Seq)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("seqs = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("round trip", func(t *testing.T) {
		t.Parallel()
		facts, err := db.History(ctx, "i1", 1, 1)
		if err != nil || len(facts) != 1 {
			t.Fatalf("History = %v, %v", facts, err)
		}
		want := NewStep("i1", "order", 1).Facts[1]
		if !reflect.DeepEqual(facts[0], want) {
			t.Errorf("fact = %+v, want %+v", facts[0], want)
		}
	})
}

func testIncidents(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	a := NewStep("a", "order", 1)
	a.Incidents = []store.IncidentRow{
		{ID: "inc-a1", InstanceID: "a", NodeID: "task", ScopeID: "s1", Kind: "job_failed", Message: "boom", CreatedAt: t0},
		{ID: "inc-a2", NodeID: "gw", ScopeID: "s0", Kind: "expression", Message: "bad", CreatedAt: t0.Add(time.Second)},
	}
	b := NewStep("b", "invoice", 1)
	b.Incidents = []store.IncidentRow{{ID: "inc-b1", InstanceID: "b", Kind: "job_failed", CreatedAt: t0.Add(2 * time.Second)}}
	c := NewStep("c", "order", 1)
	MustCommit(t, db, a, b, c) // a is order #1, b invoice #1, c order #2
	// Resolve inc-a1 in a later step of a.
	a2 := NextStep(a, store.StatusRunning)
	resolved := a.Incidents[0]
	resolved.ResolvedAt = t0.Add(time.Hour)
	a2.Incidents = []store.IncidentRow{resolved}
	MustCommit(t, db, a2)

	ids := func(incs []store.IncidentRow) []string {
		var out []string
		for _, i := range incs {
			out = append(out, i.ID)
		}
		return out
	}
	tests := []struct {
		name     string
		id       store.InstanceID
		openOnly bool
		want     []string
	}{
		{name: "all of a", id: "a", want: []string{"inc-a1", "inc-a2"}},
		{name: "open of a", id: "a", openOnly: true, want: []string{"inc-a2"}},
		{name: "none of c", id: "c"},
		{name: "open of every instance", want: []string{"inc-a2", "inc-b1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := db.Incidents(ctx, tt.id, tt.openOnly)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ids(got), tt.want) {
				t.Errorf("Incidents = %v, want %v", ids(got), tt.want)
			}
		})
	}
	t.Run("round trip", func(t *testing.T) {
		t.Parallel()
		got, err := db.Incidents(ctx, "a", false)
		if err != nil || len(got) != 2 {
			t.Fatalf("Incidents = %v, %v", got, err)
		}
		resolved := resolved
		resolved.ProcessKey, resolved.InstanceNumber = "order", 1
		if !reflect.DeepEqual(got[0], resolved) {
			t.Errorf("resolved incident = %+v, want %+v", got[0], resolved)
		}
		want := a.Incidents[1]
		want.InstanceID = "a"
		want.ProcessKey, want.InstanceNumber = "order", 1
		if !reflect.DeepEqual(got[1], want) {
			t.Errorf("open incident = %+v, want %+v", got[1], want)
		}
	})
	t.Run("each incident names its instance's key and number", func(t *testing.T) {
		t.Parallel()
		type named struct {
			ID, Key string
			Number  int64
		}
		want := []named{{"inc-a2", "order", 1}, {"inc-b1", "invoice", 1}}
		var got []named
		f := store.IncidentFilter{OpenOnly: true, Limit: 1}
		for range 3 { // a page at a time: the keyset query reads them too
			page, err := db.IncidentsPage(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			for _, in := range page {
				got = append(got, named{in.ID, in.ProcessKey, in.InstanceNumber})
			}
			f.After, f.AfterAt = page[0].ID, page[0].CreatedAt
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("IncidentsPage = %+v, want %+v", got, want)
		}
		all, err := db.Incidents(ctx, "", true)
		if err != nil || len(all) != 2 || all[1].ProcessKey != "invoice" || all[1].InstanceNumber != 1 {
			t.Errorf("Incidents = %+v, %v, want inc-b1 of invoice #1 last", all, err)
		}
	})
	t.Run("an incident id of another instance conflicts", func(t *testing.T) {
		t.Parallel()
		other := open(t)
		x, y := NewStep("x", "order", 1), NewStep("y", "order", 1)
		x.Incidents = []store.IncidentRow{{ID: "inc", Kind: "k", CreatedAt: t0}}
		MustCommit(t, other, x, y)
		y2 := NextStep(y, store.StatusRunning)
		y2.Incidents = []store.IncidentRow{{ID: "inc", Kind: "k", CreatedAt: t0}}
		if err := other.CommitSteps(ctx, []store.StepRecord{y2}); !errors.Is(err, store.ErrConflict) {
			t.Errorf("CommitSteps = %v, want ErrConflict", err)
		}
	})
}

func testRunningInstances(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)
	statuses := []string{store.StatusRunning, store.StatusCompleted, store.StatusTerminated, store.StatusFailed, store.StatusRunning}
	for i, st := range statuses {
		s := NewStep(store.InstanceID(fmt.Sprintf("i%d", i)), "order", 1)
		s.Instance.CreatedAt = t0.Add(time.Duration(i) * time.Second)
		MustCommit(t, db, s)
		if st != store.StatusRunning {
			MustCommit(t, db, NextStep(s, st))
		}
	}
	got, err := db.RunningInstances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, si := range got {
		ids = append(ids, string(si.ID))
	}
	if want := []string{"i0", "i3", "i4"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("RunningInstances = %v, want %v", ids, want)
	}
}
