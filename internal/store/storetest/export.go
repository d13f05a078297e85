package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// The history export (store.ExportStore): every fact once, in commit
// order, by pages that resume exactly after their last fact, filtered by
// period and process key, with cursors that survive retention deletes.

// exportKey names a fact of the export: its instance and seq.
type exportKey struct {
	id  store.InstanceID
	seq int64
}

func (k exportKey) String() string { return fmt.Sprintf("%s#%d", k.id, k.seq) }

// exportKeys returns the instance and seq of each fact.
func exportKeys(facts []store.ExportedFact) []exportKey {
	out := make([]exportKey, len(facts))
	for i, f := range facts {
		out[i] = exportKey{f.InstanceID, f.Fact.Seq}
	}
	return out
}

// exportAll reads the whole export matching f in pages of f.Limit. A store
// may hold back the facts of transactions that could still be overtaken
// (PostgreSQL, while another test's transaction on the same server runs),
// so it reads again for a while until it has at least want facts.
func exportAll(tb testing.TB, db Store, f store.ExportFilter, want int) []store.ExportedFact {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var all []store.ExportedFact
		g := f
		for {
			page, err := db.HistoryExport(context.Background(), g)
			if err != nil {
				tb.Fatal(err)
			}
			if len(page) > g.Limit {
				tb.Fatalf("page of %d facts, limit %d", len(page), g.Limit)
			}
			all = append(all, page...)
			if len(page) < g.Limit {
				break
			}
			g.After = page[len(page)-1].Position
		}
		if len(all) >= want || time.Now().After(deadline) {
			return all
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func testHistoryExport(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	db := open(t)

	// Commit order: a's start, b's start (created earlier), a's next step,
	// c's start, b's next step (ending it), a's third step dated before
	// its second: the export follows the commits, not the facts' times.
	const a, b, c = store.InstanceID("01900000-0000-7000-8000-0000000000e1"), store.InstanceID("01900000-0000-7000-8000-0000000000e2"), store.InstanceID("legacy-export")
	sa := NewStep(a, "order", 1)
	sb := NewStep(b, "order", 2)
	sb.Instance.CreatedAt, sb.Instance.UpdatedAt = t0.Add(-time.Hour), t0.Add(-time.Hour)
	for i := range sb.Facts {
		sb.Facts[i].At = sb.Instance.CreatedAt
	}
	sc := NewStep(c, "ship", 1)
	sc.Instance.CreatedAt, sc.Instance.UpdatedAt = t0.Add(2*time.Hour), t0.Add(2*time.Hour)
	for i := range sc.Facts {
		sc.Facts[i].At = sc.Instance.CreatedAt
	}
	MustCommit(t, db, sa)
	MustCommit(t, db, sb)
	a2 := NextStep(sa, store.StatusRunning)
	MustCommit(t, db, a2)
	MustCommit(t, db, sc)
	b2 := NextStep(sb, store.StatusCompleted)
	MustCommit(t, db, b2)
	a3 := NextStep(a2, store.StatusRunning)
	a3.Instance.UpdatedAt = t0.Add(30 * time.Second)
	a3.Facts[0].At = a3.Instance.UpdatedAt
	MustCommit(t, db, a3)

	var want []exportKey
	for _, s := range []store.StepRecord{sa, sb, a2, sc, b2, a3} {
		for _, f := range s.Facts {
			want = append(want, exportKey{s.Instance.ID, f.Seq})
		}
	}

	t.Run("all in commit order", func(t *testing.T) {
		got := exportAll(t, db, store.ExportFilter{Limit: 100}, len(want))
		if !slices.Equal(exportKeys(got), want) {
			t.Fatalf("export = %v, want %v", exportKeys(got), want)
		}
		for i, f := range got {
			if i > 0 && f.Position == got[i-1].Position {
				t.Errorf("facts %d and %d share position %v", i-1, i, f.Position)
			}
			if f.Position.IsZero() {
				t.Errorf("fact %d has the zero position", i)
			}
		}
		first := got[0]
		if first.ProcessKey != "order" || first.ProcessVersion != 1 || first.Fact.Kind != "instance_started" ||
			first.Fact.NodeID != "start" || first.Fact.ScopePath != "/" || !first.Fact.At.Equal(t0) || first.Fact.Detail != nil {
			t.Errorf("first fact = %+v", first)
		}
		if d := got[1].Fact.Detail; string(d) != `{"k":"v"}` {
			t.Errorf("second fact's detail = %s", d)
		}
		if got[3].ProcessVersion != 2 || got[9].ProcessKey != "ship" {
			t.Errorf("b's version %d, c's key %q", got[3].ProcessVersion, got[9].ProcessKey)
		}
	})

	t.Run("pages of every size", func(t *testing.T) {
		for _, limit := range []int{1, 2, 3, 5} {
			got := exportAll(t, db, store.ExportFilter{Limit: limit}, len(want))
			if !slices.Equal(exportKeys(got), want) {
				t.Errorf("limit %d: export = %v, want %v", limit, exportKeys(got), want)
			}
		}
	})

	t.Run("process keys and patterns", func(t *testing.T) {
		var orders []exportKey
		for _, k := range want {
			if k.id != c {
				orders = append(orders, k)
			}
		}
		for name, f := range map[string]store.ExportFilter{
			"keys":     {ProcessKeys: []string{"order"}, Limit: 4},
			"patterns": {ProcessKeyPatterns: [][]string{{"ord*", "nothing"}}, Limit: 4},
		} {
			if got := exportAll(t, db, f, len(orders)); !slices.Equal(exportKeys(got), orders) {
				t.Errorf("%s: export = %v, want %v", name, exportKeys(got), orders)
			}
		}
		for name, f := range map[string]store.ExportFilter{
			"no keys":      {ProcessKeys: []string{}, Limit: 10},
			"empty clause": {ProcessKeyPatterns: [][]string{{}}, Limit: 10},
			"unknown key":  {ProcessKeys: []string{"nothing"}, Limit: 10},
		} {
			if got := exportAll(t, db, f, 0); len(got) != 0 {
				t.Errorf("%s: export = %v, want none", name, exportKeys(got))
			}
		}
	})

	t.Run("period", func(t *testing.T) {
		// [t0, t0+1m): a's start and third step; b's steps are before,
		// a's second step is at t0+1m, c's at t0+2h.
		f := store.ExportFilter{From: t0, To: t0.Add(time.Minute), Limit: 2}
		wantIn := []exportKey{{a, 1}, {a, 2}, {a, 3}, {a, 5}}
		if got := exportAll(t, db, f, len(wantIn)); !slices.Equal(exportKeys(got), wantIn) {
			t.Errorf("export [t0, t0+1m) = %v, want %v", exportKeys(got), wantIn)
		}
		f = store.ExportFilter{From: t0.Add(time.Hour), Limit: 10}
		wantLate := []exportKey{{c, 1}, {c, 2}, {c, 3}}
		if got := exportAll(t, db, f, len(wantLate)); !slices.Equal(exportKeys(got), wantLate) {
			t.Errorf("export from t0+1h = %v, want %v", exportKeys(got), wantLate)
		}
	})

	t.Run("cursor survives retention and sees later commits", func(t *testing.T) {
		db := open(t)
		MustCommit(t, db, sa)
		MustCommit(t, db, sb)
		MustCommit(t, db, b2) // b ended
		page := exportAll(t, db, store.ExportFilter{Limit: 7}, 7)
		if len(page) != 7 {
			t.Fatalf("first page has %d facts", len(page))
		}
		cursor := page[6].Position // b's last fact, b2's
		if err := db.DeleteInstance(ctx, b); err != nil {
			t.Fatal(err)
		}
		MustCommit(t, db, a2)
		got := exportAll(t, db, store.ExportFilter{After: cursor, Limit: 10}, 1)
		if want := []exportKey{{a, 4}}; !slices.Equal(exportKeys(got), want) {
			t.Errorf("after the delete = %v, want %v", exportKeys(got), want)
		}
		got = exportAll(t, db, store.ExportFilter{After: page[1].Position, Limit: 10}, 2)
		if want := []exportKey{{a, 3}, {a, 4}}; !slices.Equal(exportKeys(got), want) {
			t.Errorf("after a#2 = %v, want %v (b's facts deleted)", exportKeys(got), want)
		}
	})

	t.Run("limit out of range", func(t *testing.T) {
		for _, limit := range []int{0, -1, store.MaxExportPage + 1} {
			_, err := db.HistoryExport(ctx, store.ExportFilter{Limit: limit})
			if store.ErrorCode(err) != store.EINVALID {
				t.Errorf("limit %d: err = %v, want EINVALID", limit, err)
			}
		}
	})
}
