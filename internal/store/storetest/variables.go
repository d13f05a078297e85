package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/store"
)

// rootScope is the root scope's part holding vars (a JSON object).
func rootScope(vars string) store.Part {
	return store.Part{Kind: store.RootScopeKind, Key: store.RootScopeKey, Ord: 0,
		Data: []byte(`{"id":"root","path":"/","vars":` + vars + `,"seq":0}`)}
}

// varFilter is the filter on a top-level variable's JSON value.
func varFilter(tb testing.TB, name, value string) store.VariableFilter {
	tb.Helper()
	key, err := store.VariableValueKey([]byte(value))
	if err != nil {
		tb.Fatal(err)
	}
	return store.VariableFilter{Name: name, Value: key}
}

// listByVars lists the ids of the instances whose variables match every
// name=value pair, sorted.
func listByVars(tb testing.TB, db Store, pairs ...string) []store.InstanceID {
	tb.Helper()
	var f store.InstanceFilter
	for i := 0; i < len(pairs); i += 2 {
		f.Variables = append(f.Variables, varFilter(tb, pairs[i], pairs[i+1]))
	}
	rows, total, err := db.ListInstances(context.Background(), f)
	if err != nil {
		tb.Fatal(err)
	}
	if total != len(rows) {
		tb.Errorf("ListInstances%v: total %d for %d rows", pairs, total, len(rows))
	}
	ids := make([]store.InstanceID, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	slices.Sort(ids)
	return ids
}

// testVariableIndex: the list's variable filter matches a top-level
// variable's value exactly (numbers by value, objects by canonical JSON,
// a value over store.MaxIndexedValue by its hash), follows every step
// that rewrites the root scope (changed and removed variables), ignores
// steps that leave it alone and variables of other scopes, keeps an
// ended instance's variables until the instance is deleted, and is
// rebuilt from the stored states for instances marked pending (as the
// migration adding the index marks every instance) when a store opens.
func testVariableIndex(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	h := open(t)
	const (
		a = store.InstanceID("01900000-0000-7000-8000-0000000000e1")
		b = store.InstanceID("text-id-e2")
		c = store.InstanceID("01900000-0000-7000-8000-0000000000e3")
		d = store.InstanceID("01900000-0000-7000-8000-0000000000e4")
	)
	big := `"` + strings.Repeat("x", store.MaxIndexedValue+10) + `"`
	sa := NewStep(a, "order", 1)
	sa.Parts = append(sa.Parts, rootScope(`{"orderId":"A-17","amount":120,"customer":{"name":"Ada","tags":[1,2]}}`))
	sb := NewStep(b, "order", 1)
	sb.Parts = append(sb.Parts, rootScope(`{"orderId":"B-2","amount":120.0,"note":`+big+`}`))
	sc := NewStep(c, "order", 1) // its sub-scope holds orderId: not top-level
	sc.Parts = append(sc.Parts, rootScope(`{}`), store.Part{Kind: "scope", Key: "s7", Ord: 7, Data: []byte(`{"vars":{"orderId":"A-17"}}`)})
	sd := NewStep(d, "order", 1) // no root scope part at all
	MustCommit(t, h, sa, sb, sc, sd)

	check := func(name string, want []store.InstanceID, pairs ...string) {
		t.Helper()
		if got := listByVars(t, h, pairs...); !slices.Equal(got, want) {
			t.Errorf("%s: ListInstances%v = %v, want %v", name, pairs, got, want)
		}
	}
	check("string", []store.InstanceID{a}, "orderId", `"A-17"`)
	check("number by value", []store.InstanceID{a, b}, "amount", `1.2e2`)
	check("object, keys in another order", []store.InstanceID{a}, "customer", `{ "tags": [1, 2.0], "name": "Ada" }`)
	check("object differs", nil, "customer", `{"name":"Ada"}`)
	check("large value by hash", []store.InstanceID{b}, "note", big)
	check("two variables", []store.InstanceID{b}, "amount", "120", "orderId", `"B-2"`)
	check("type matters", nil, "amount", `"120"`)
	check("unknown name", nil, "nope", "1")

	// a changes amount and drops customer; b's step leaves its root scope
	// alone; c ends.
	sa2 := NextStep(sa, store.StatusRunning)
	sa2.Parts = append(sa2.Parts, rootScope(`{"orderId":"A-17","amount":7}`))
	sb2 := NextStep(sb, store.StatusRunning)
	sc2 := NextStep(sc, store.StatusCompleted)
	sc2.Parts = append(sc2.Parts, rootScope(`{"orderId":"C-3"}`))
	MustCommit(t, h, sa2, sb2, sc2)
	check("changed", []store.InstanceID{a}, "amount", "7")
	check("old value gone", []store.InstanceID{b}, "amount", "120")
	check("removed variable", nil, "customer", `{"name":"Ada","tags":[1,2]}`)
	check("untouched by a step without the root scope", []store.InstanceID{b}, "orderId", `"B-2"`)
	check("ended instance", []store.InstanceID{c}, "orderId", `"C-3"`)

	// A step that removes the root scope (no top-level variables left).
	sd2 := NextStep(sd, store.StatusRunning)
	sd2.Parts = append(sd2.Parts, rootScope(`{"gone":1}`))
	MustCommit(t, h, sd2)
	check("written", []store.InstanceID{d}, "gone", "1")
	sd3 := NextStep(sd2, store.StatusRunning)
	sd3.RemovedParts = append(sd3.RemovedParts, store.PartRef{Kind: store.RootScopeKind, Key: store.RootScopeKey})
	MustCommit(t, h, sd3)
	check("root scope removed", nil, "gone", "1")

	// A pending mark (the migration's) and a lost index: the next open
	// rebuilds the rows from the stored root scopes.
	for _, q := range []string{`DELETE FROM instance_variables`, `INSERT INTO instance_variables_pending (instance_seq) SELECT seq FROM instances`} {
		if err := h.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if got := listByVars(t, h, "orderId", `"A-17"`); len(got) != 0 {
		t.Fatalf("index emptied, yet the filter found %v", got)
	}
	h2 := h.Reopen(t)
	for name, want := range map[string][]store.InstanceID{"orderId=" + `"A-17"`: {a}, "amount=7": {a}, "note=big": {b}, "orderId=" + `"C-3"`: {c}} {
		n, v, _ := strings.Cut(name, "=")
		if v == "big" {
			v = big
		}
		if got := listByVars(t, h2, n, v); !slices.Equal(got, want) {
			t.Errorf("after the backfill at open: %s matches %v, want %v", name, got, want)
		}
	}
	if rows, err := h2.Query(`SELECT COUNT(*) FROM instance_variables_pending`); err != nil || fmt.Sprint(rows) != "[[0]]" {
		t.Errorf("pending after open = %v, %v; want [[0]]", rows, err)
	}

	// Deleting the ended instance deletes its rows.
	if err := h2.DeleteInstance(ctx, c); err != nil {
		t.Fatal(err)
	}
	rows, err := h2.Query(`SELECT COUNT(*) FROM instance_variables`)
	if err != nil {
		t.Fatal(err)
	}
	// a's orderId and amount, b's orderId, amount and note: c's is gone.
	if fmt.Sprint(rows) != "[[5]]" {
		t.Errorf("indexed variables after deleting %s = %v, want [[5]]", c, rows)
	}
}
