package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// testVariableSearch: typed variable filters compare numbers, texts and
// times with eq, neq, ranges and a text prefix; a variable without the
// compared form never matches; the plan a selective filter gets (its
// matches drive the page) and a common one's (the list's index drives)
// answer the same rows and totals; the typed forms are rebuilt by the
// backfill at open; a malformed filter is EINVALID.
func testVariableSearch(t *testing.T, open Opener) {
	t.Parallel()
	ctx := context.Background()
	h := open(t)
	const (
		a = store.InstanceID("01900000-0000-7000-8000-0000000000f1")
		b = store.InstanceID("01900000-0000-7000-8000-0000000000f2")
		c = store.InstanceID("01900000-0000-7000-8000-0000000000f3")
		d = store.InstanceID("01900000-0000-7000-8000-0000000000f4")
	)
	vars := map[store.InstanceID]string{
		a: `{"amount":120,"orderId":"A-17","due":"2025-03-01T10:00:00Z","ok":true}`,
		b: `{"amount":99.5,"orderId":"A-2","due":"2025-03-02","ok":false}`,
		c: `{"amount":"500","orderId":"B-1","due":"soon"}`,
		d: `{"amount":-3,"orderId":"b-1","due":"2025-02-28T23:00:00-02:00"}`,
	}
	var steps []store.StepRecord
	for i, id := range []store.InstanceID{a, b, c, d} {
		s := NewStep(id, "order", 1)
		s.Instance.CreatedAt = t0.Add(time.Duration(i) * time.Second)
		s.Instance.UpdatedAt = s.Instance.CreatedAt
		s.Parts = append(s.Parts, rootScope(vars[id]))
		s.Waits = []store.WaitRow{Task(string(id)+"-w000001", 10+i, "", nil, nil)}
		steps = append(steps, s)
	}
	MustCommit(t, h, steps...)

	num := func(name, op string, n float64) store.VariableFilter {
		return store.VariableFilter{Name: name, Op: op, Type: store.VarTypeNumber, Num: n}
	}
	text := func(name, op, s string) store.VariableFilter {
		return store.VariableFilter{Name: name, Op: op, Type: store.VarTypeText, Text: s}
	}
	at := func(name, op string, tm time.Time) store.VariableFilter {
		return store.VariableFilter{Name: name, Op: op, Type: store.VarTypeTime, Time: tm}
	}
	march1 := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		f    []store.VariableFilter
		want []store.InstanceID // newest first
	}{
		{"number gt", []store.VariableFilter{num("amount", store.VarGt, 99.5)}, []store.InstanceID{a}},
		{"number gte", []store.VariableFilter{num("amount", store.VarGte, 99.5)}, []store.InstanceID{b, a}},
		{"number lt (a text is no number)", []store.VariableFilter{num("amount", store.VarLt, 1000)}, []store.InstanceID{d, b, a}},
		{"number eq", []store.VariableFilter{num("amount", store.VarEq, -3)}, []store.InstanceID{d}},
		{"number neq", []store.VariableFilter{num("amount", store.VarNeq, -3)}, []store.InstanceID{b, a}},
		{"text range, byte order", []store.VariableFilter{text("orderId", store.VarGte, "B")}, []store.InstanceID{d, c}},
		{"text lt", []store.VariableFilter{text("orderId", store.VarLt, "A-2")}, []store.InstanceID{a}},
		{"prefix", []store.VariableFilter{text("orderId", store.VarLike, "A-")}, []store.InstanceID{b, a}},
		{"prefix is case-sensitive", []store.VariableFilter{text("orderId", store.VarLike, "b")}, []store.InstanceID{d}},
		{"empty prefix: every text", []store.VariableFilter{text("amount", store.VarLike, "")}, []store.InstanceID{c}},
		{"time gte", []store.VariableFilter{at("due", store.VarGte, march1)}, []store.InstanceID{d, b, a}},
		{"time lt", []store.VariableFilter{at("due", store.VarLt, march1.Add(2*time.Hour))}, []store.InstanceID{d}},
		{"time eq across offsets", []store.VariableFilter{at("due", store.VarEq, march1.Add(time.Hour))}, []store.InstanceID{d}},
		{"value neq", []store.VariableFilter{{Name: "ok", Op: store.VarNeq, Value: "true"}}, []store.InstanceID{b}},
		{"value eq, old syntax", []store.VariableFilter{{Name: "ok", Value: "true"}}, []store.InstanceID{a}},
		{"a range of one variable", []store.VariableFilter{num("amount", store.VarGte, 99), num("amount", store.VarLt, 120)}, []store.InstanceID{b}},
		{"two filters", []store.VariableFilter{text("orderId", store.VarLike, "A"), num("amount", store.VarLt, 100)}, []store.InstanceID{b}},
	}
	check := func(h Store, when string) {
		t.Helper()
		for _, tt := range cases {
			rows, total, err := h.ListInstances(ctx, store.InstanceFilter{Variables: tt.f})
			if err != nil {
				t.Fatalf("%s %s: %v", when, tt.name, err)
			}
			got := make([]store.InstanceID, len(rows))
			for i, r := range rows {
				got[i] = r.ID
			}
			if !slices.Equal(got, tt.want) || total != len(tt.want) {
				t.Errorf("%s %s: %v (total %d), want %v", when, tt.name, got, total, tt.want)
			}
			// A page of one after the first row, sorted the other way.
			if len(tt.want) > 1 {
				rows, _, err := h.ListInstances(ctx, store.InstanceFilter{Variables: tt.f, Limit: 1, After: tt.want[0]})
				if err != nil || len(rows) != 1 || rows[0].ID != tt.want[1] {
					t.Errorf("%s %s: page after %s = %v, %v; want %s", when, tt.name, tt.want[0], rows, err, tt.want[1])
				}
				rows, _, err = h.ListInstances(ctx, store.InstanceFilter{Variables: tt.f, SortBy: store.SortCreated, Ascending: true, Limit: 1})
				if err != nil || len(rows) != 1 || rows[0].ID != tt.want[len(tt.want)-1] {
					t.Errorf("%s %s: oldest = %v, %v; want %s", when, tt.name, rows, err, tt.want[len(tt.want)-1])
				}
			}
		}
	}
	check(h, "indexed")

	// The task list takes the same filters, on each task's instance, and
	// a creation range of the task.
	for _, tt := range cases {
		tasks, total, err := h.Tasks(ctx, store.TaskFilter{Variables: tt.f, Order: store.TaskOrderNewest})
		if err != nil {
			t.Fatalf("tasks %s: %v", tt.name, err)
		}
		got := make([]store.InstanceID, len(tasks))
		for i, w := range tasks {
			got[i] = w.InstanceID
		}
		if !slices.Equal(got, tt.want) || total != len(tt.want) {
			t.Errorf("tasks %s: instances %v (total %d), want %v", tt.name, got, total, tt.want)
		}
	}
	tasks, total, err := h.Tasks(ctx, store.TaskFilter{CreatedAfter: Sec(11), CreatedBefore: Sec(13),
		Variables: []store.VariableFilter{num("amount", store.VarLt, 1000)}})
	if err != nil || total != 1 || len(tasks) != 1 || tasks[0].InstanceID != b {
		t.Errorf("tasks created in [11s, 13s) with amount < 1000: %v (total %d), %v; want %s's", tasks, total, err, b)
	}
	if _, _, err := h.Tasks(ctx, store.TaskFilter{Variables: []store.VariableFilter{{Name: "x", Op: store.VarGt}}}); store.ErrorCode(err) != store.EINVALID {
		t.Errorf("tasks with a range of value keys: %v, want EINVALID", err)
	}

	for _, bad := range []store.VariableFilter{
		{Name: "amount", Op: store.VarGt, Value: "1"},
		{Name: "amount", Op: store.VarLike, Type: store.VarTypeNumber},
		{Name: "amount", Op: "between", Type: store.VarTypeNumber},
		{Op: store.VarEq, Value: "1"},
	} {
		_, _, err := h.ListInstances(ctx, store.InstanceFilter{Variables: []store.VariableFilter{bad}})
		if store.ErrorCode(err) != store.EINVALID {
			t.Errorf("%+v: %v, want EINVALID", bad, err)
		}
	}

	// Rows indexed before the typed forms existed: the backfill at open
	// (the migration marks them pending) fills them in.
	for _, q := range []string{`UPDATE instance_variables SET value_num = NULL, value_text = NULL, value_time = NULL`,
		`INSERT INTO instance_variables_pending (instance_seq) SELECT seq FROM instances`} {
		if err := h.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	check(h.Reopen(t), "after the backfill")
}
