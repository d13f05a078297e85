package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
	"github.com/gobpm/gobpm/internal/store/sqlquery"
	"github.com/gobpm/gobpm/internal/store/storetest"
)

// TestVariableFilterPlans checks, for every shape of variable filter (a
// value key, a number, a text, a time, a prefix; eq, ranges, neq), that
// each query of the list reads an index and scans no table: the probe
// counting a filter's matches reads a range of the index of its column;
// a driving filter's page and count read those matches and the instances
// by rowid; a common filter's page probes each instance's row by the
// primary key while the list's own index yields the rows in order, and
// its count reads the filter's range joined with the instances by rowid.
// SQLite-only (not in storetest): it reads SQLite's EXPLAIN QUERY PLAN.
func TestVariableFilterPlans(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	at := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name  string
		f     store.VariableFilter
		index string
	}{
		{"value eq", store.VariableFilter{Name: "orderId", Value: `"A-17"`}, "instance_variables_value (name=? AND value=?)"},
		{"value neq", store.VariableFilter{Name: "ok", Op: store.VarNeq, Value: "true"}, "instance_variables_value (name=?)"},
		{"number gt", store.VariableFilter{Name: "amount", Op: store.VarGt, Type: store.VarTypeNumber, Num: 100}, "instance_variables_num (name=? AND value_num>?)"},
		{"number lte", store.VariableFilter{Name: "amount", Op: store.VarLte, Type: store.VarTypeNumber, Num: 100}, "instance_variables_num (name=? AND value_num<?)"},
		{"text gte", store.VariableFilter{Name: "orderId", Op: store.VarGte, Type: store.VarTypeText, Text: "B"}, "instance_variables_text (name=? AND value_text>?)"},
		{"prefix", store.VariableFilter{Name: "orderId", Op: store.VarLike, Type: store.VarTypeText, Text: "A-"}, "instance_variables_text (name=? AND value_text>? AND value_text<?)"},
		{"time lt", store.VariableFilter{Name: "due", Op: store.VarLt, Type: store.VarTypeTime, Time: at}, "instance_variables_time (name=? AND value_time<?)"},
		{"time eq", store.VariableFilter{Name: "due", Op: store.VarEq, Type: store.VarTypeTime, Time: at}, "instance_variables_time (name=? AND value_time=?)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			probe, _ := variableProbe([]store.VariableFilter{tt.f}, 0)
			for _, shape := range []struct {
				name   string
				f      store.InstanceFilter
				plan   varPlan
				sorted bool
			}{
				{"drives", store.InstanceFilter{Variables: []store.VariableFilter{tt.f}}, varPlan{drive: true}, false},
				{"drives a process's list", store.InstanceFilter{ProcessKey: "ship", Status: store.StatusRunning, Variables: []store.VariableFilter{tt.f}}, varPlan{drive: true}, false},
				{"drives a sorted list", store.InstanceFilter{SortBy: store.SortEnded, Variables: []store.VariableFilter{tt.f}}, varPlan{drive: true}, true},
				{"counts", store.InstanceFilter{Variables: []store.VariableFilter{tt.f}}, varPlan{count: true}, false},
				{"counts beside a created range", store.InstanceFilter{CreatedAfter: at, CreatedBefore: at.Add(time.Hour), Variables: []store.VariableFilter{tt.f}}, varPlan{count: true}, false},
			} {
				q := buildListPlan(shape.f, shape.plan, 20, 0, true, 1, 1)
				queries := map[string]string{"probe": probe, "count": q.count, "page": q.page}
				if shape.sorted {
					key, _ := sqlquery.SortKey(shape.f.SortBy)
					queries["page"], _ = sortedPage(shape.f, shape.plan, key, 20, 0, false, nil)
				}
				for what, query := range queries {
					plan := accessPlan(t, db, query)
					want := []string{tt.index}
					switch {
					case what == "page" && !shape.plan.drive:
						want = []string{"instances_status", "USING PRIMARY KEY (instance_seq=? AND name=?)"}
					case what != "probe":
						want = append(want, "USING INTEGER PRIMARY KEY (rowid=?)")
					}
					for _, w := range want {
						if !strings.Contains(plan, w) {
							t.Errorf("%s, %s: plan does not use %s:\n%s", shape.name, what, w, plan)
						}
					}
					for _, line := range strings.Split(plan, "\n") {
						if strings.HasPrefix(line, "SCAN ") && !strings.Contains(line, "INDEX") && !strings.HasPrefix(line, "SCAN (subquery") {
							t.Errorf("%s, %s: full scan:\n%s", shape.name, what, plan)
						}
					}
				}
			}
		})
	}
}

// TestVariableRangePlan checks that two bounds of one variable read one
// range of its column's index.
func TestVariableRangePlan(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	fs := []store.VariableFilter{
		{Name: "amount", Op: store.VarGte, Type: store.VarTypeNumber, Num: 100},
		{Name: "orderId", Value: `"A"`},
		{Name: "amount", Op: store.VarLt, Type: store.VarTypeNumber, Num: 102},
	}
	probe, _ := variableProbe(fs, 2)
	if plan := accessPlan(t, db, probe); !strings.Contains(plan, "instance_variables_num (name=? AND value_num>? AND value_num<?)") {
		t.Errorf("probe does not read one range:\n%s", plan)
	}
}

// planVariables drives by the filter with the fewest matches when it has
// fewer than sqlquery.DriveVariableLimit, else counts through it unless
// the list's index has a prefix of its own.
func TestPlanVariables(t *testing.T) {
	t.Parallel()
	n := sqlquery.DriveVariableLimit
	for _, tt := range []struct {
		counts   []int
		narrowed bool
		want     varPlan
	}{
		{nil, false, varPlan{}},
		{[]int{3}, false, varPlan{drive: true}},
		{[]int{n, 7, 2}, true, varPlan{drive: true, index: 2}},
		{[]int{n, n + 1}, false, varPlan{count: true}},
		{[]int{n, n + 1}, true, varPlan{}},
	} {
		if got := planVariables(tt.counts, tt.narrowed); got != tt.want {
			t.Errorf("planVariables(%v) = %+v, want %+v", tt.counts, got, tt.want)
		}
	}
}

// TestTaskVariablePlan checks that a task list's variable filter finds
// each task's instance by id and its variable by the primary key.
func TestTaskVariablePlan(t *testing.T) {
	t.Parallel()
	db := MustOpen(t)
	cond, _ := tasksQuery(store.TaskFilter{Variables: []store.VariableFilter{
		{Name: "amount", Op: store.VarGt, Type: store.VarTypeNumber, Num: 1}, {Name: "ok", Value: "true"}}})
	plan := accessPlan(t, db, `SELECT id FROM waits`+cond+` ORDER BY created_at LIMIT 20`)
	for _, want := range []string{"waits_tasks", "sqlite_autoindex_instances_1 (id=?)", "SEARCH v USING PRIMARY KEY (instance_seq=? AND name=?)"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan does not use %s:\n%s", want, plan)
		}
	}
	for _, line := range strings.Split(plan, "\n") {
		if strings.HasPrefix(line, "SCAN ") && !strings.Contains(line, "INDEX") {
			t.Errorf("full scan:\n%s", plan)
		}
	}
}

// TestVariablePlansAgree runs each filter under every plan (the list's
// index driving with each instance probed, a filter driving, a filter
// counting) and expects the same page and total: the plans differ in
// cost only. The conformance suite's stores are too small to reach the
// counting plan on their own.
func TestVariablePlansAgree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := MustOpen(t)
	var steps []store.StepRecord
	for i := range 30 {
		s := storetest.NewStep(store.InstanceID(fmt.Sprintf("01900000-0000-7000-8000-%012x", i+1)), fmt.Sprint("p", i%3), 1)
		s.Instance.CreatedAt = t0.Add(time.Duration(i%7) * time.Second) // ties on created_at
		s.Instance.UpdatedAt = s.Instance.CreatedAt
		if i%4 == 0 {
			s.Instance.Status = store.StatusCompleted
		}
		s.Parts = append(s.Parts, store.Part{Kind: store.RootScopeKind, Key: store.RootScopeKey,
			Data: []byte(fmt.Sprintf(`{"id":"root","path":"/","vars":{"n":%d,"s":"k%02d","ok":%t},"seq":0}`, i, i%10, i%2 == 0))})
		steps = append(steps, s)
	}
	storetest.MustCommit(t, db, steps...)
	num := func(op string, n float64) store.VariableFilter {
		return store.VariableFilter{Name: "n", Op: op, Type: store.VarTypeNumber, Num: n}
	}
	for _, tt := range []struct {
		name string
		f    store.InstanceFilter
	}{
		{"range", store.InstanceFilter{Variables: []store.VariableFilter{num(store.VarGte, 5), num(store.VarLt, 25)}}},
		{"prefix and value", store.InstanceFilter{Variables: []store.VariableFilter{
			{Name: "s", Op: store.VarLike, Type: store.VarTypeText, Text: "k0"}, {Name: "ok", Value: "true"}}}},
		{"with a process and status", store.InstanceFilter{ProcessKey: "p1", Status: store.StatusRunning, Variables: []store.VariableFilter{num(store.VarGt, 3)}}},
		{"paged", store.InstanceFilter{Limit: 4, Offset: 3, Variables: []store.VariableFilter{num(store.VarNeq, 7), {Name: "ok", Value: "false"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var want string
			plans := []varPlan{{}}
			for i := range tt.f.Variables {
				plans = append(plans, varPlan{drive: true, index: i}, varPlan{count: true, index: i})
			}
			for _, p := range plans {
				q := buildListPlan(tt.f, p, max(tt.f.Limit, 50), tt.f.Offset, false, 0, 0)
				var total int
				if err := db.read.QueryRowContext(ctx, q.count, q.countArgs...).Scan(&total); err != nil {
					t.Fatal(err)
				}
				rows, err := queryInstances(db.readOne(ctx), q.page, q.pageArgs...)
				if err != nil {
					t.Fatal(err)
				}
				got := fmt.Sprint(total, " ")
				for _, r := range rows {
					got += string(r.ID[len(r.ID)-2:]) + ","
				}
				if want == "" {
					want = got
					if len(rows) == 0 {
						t.Fatalf("no rows: a test of nothing")
					}
				} else if got != want {
					t.Errorf("plan %+v: %s, want %s", p, got, want)
				}
			}
		})
	}
}
