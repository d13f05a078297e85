package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/store"
)

// bulkVariables inserts the variable index rows of n bulk instances
// (bulkInstances' seqs 1..n) straight into instance_variables in one
// transaction: amount (a number, i mod 10 000), orderId (a unique text),
// region (one of five texts) and due (an RFC 3339 time, one minute apart).
func bulkVariables(tb testing.TB, db *DB, n int) {
	tb.Helper()
	tx, err := db.write.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	stmt, err := tx.Prepare(`INSERT INTO instance_variables (instance_seq, name, value, value_num, value_text, value_time)
		VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		tb.Fatal(err)
	}
	regions := []string{"eu", "us", "apac", "latam", "mea"}
	for i := range n {
		seq := int64(i + 1)
		amount := float64(i % 10_000)
		orderID := fmt.Sprintf("O-%07d", i)
		region := regions[i%len(regions)]
		due := t0.Add(time.Duration(i) * time.Minute).UTC()
		dueText := due.Format(time.RFC3339)
		for _, r := range [][]any{
			{"amount", fmt.Sprint(i % 10_000), amount, nil, nil},
			{"due", `"` + dueText + `"`, nil, dueText, encodeTime(due)},
			{"orderId", `"` + orderID + `"`, nil, orderID, nil},
			{"region", `"` + region + `"`, nil, region, nil},
		} {
			if _, err := stmt.Exec(append([]any{seq}, r...)...); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkListByVariable1M measures the first page of an instance list
// per shape of variable filter over GOBPM_VAR_N bulk-loaded instances
// (default 1 000 000), each with four indexed variables; "total" is the
// match count the list reports (capped at MaxListTotal+1). Run it once:
// -run '^$' -bench BenchmarkListByVariable1M -benchtime=1x.
func BenchmarkListByVariable1M(b *testing.B) {
	n := envInt(b, "GOBPM_VAR_N")
	if n == 0 {
		n = 1_000_000
	}
	ctx := context.Background()
	db := MustOpenPath(b, filepath.Join(b.TempDir(), "vars.db"), Options{Synchronous: "NORMAL"})
	start := time.Now()
	statuses := []string{store.StatusRunning, store.StatusCompleted, store.StatusCompleted, store.StatusFailed}
	bulkInstances(b, db, n, func(i int) listRow {
		return listRow{key: fmt.Sprintf("proc%d", i%10), version: 1, status: statuses[(i/3)%len(statuses)]}
	})
	bulkVariables(b, db, n)
	b.Logf("loaded %d instances and %d variable rows in %s", n, 4*n, time.Since(start).Round(time.Second))

	num := func(name, op string, v float64) store.VariableFilter {
		return store.VariableFilter{Name: name, Op: op, Type: store.VarTypeNumber, Num: v}
	}
	text := func(name, op, s string) store.VariableFilter {
		return store.VariableFilter{Name: name, Op: op, Type: store.VarTypeText, Text: s}
	}
	at := func(name, op string, tm time.Time) store.VariableFilter {
		return store.VariableFilter{Name: name, Op: op, Type: store.VarTypeTime, Time: tm}
	}
	vars := func(fs ...store.VariableFilter) store.InstanceFilter { return store.InstanceFilter{Variables: fs} }
	mid := t0.Add(time.Duration(n/2) * time.Minute)
	for _, tt := range []struct {
		name string
		f    store.InstanceFilter
	}{
		{"eq rare (one)", vars(store.VariableFilter{Name: "orderId", Value: fmt.Sprintf(`"O-%07d"`, n/2)})},
		{"eq common (1 in 5)", vars(store.VariableFilter{Name: "region", Value: `"eu"`})},
		{"neq (4 in 5)", vars(store.VariableFilter{Name: "region", Op: store.VarNeq, Value: `"eu"`})},
		{"number eq (1 in 10000)", vars(store.VariableFilter{Name: "amount", Value: "4242"})},
		{"number range narrow", vars(num("amount", store.VarGte, 100), num("amount", store.VarLt, 102))},
		{"number range near the limit", vars(num("amount", store.VarLt, 50))},
		{"number range broad (half)", vars(num("amount", store.VarGt, 5000))},
		{"prefix rare", vars(text("orderId", store.VarLike, fmt.Sprintf("O-%06d", n/20)))},
		{"prefix broad (all)", vars(text("orderId", store.VarLike, "O-"))},
		{"text range", vars(text("region", store.VarLt, "b"))},
		{"time range narrow (an hour)", vars(at("due", store.VarGte, mid), at("due", store.VarLt, mid.Add(time.Hour)))},
		{"time range broad (half)", vars(at("due", store.VarGte, mid))},
		{"eq common + process + status", store.InstanceFilter{ProcessKey: "proc5", Status: store.StatusFailed,
			Variables: []store.VariableFilter{{Name: "region", Value: `"eu"`}}}},
		{"number range + created range", store.InstanceFilter{CreatedAfter: t0.Add(time.Duration(n/4) * time.Millisecond),
			Variables: []store.VariableFilter{num("amount", store.VarLt, 10)}}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			// A first call prepares the shape's statements: the loop
			// measures a first page as every later list of the shape
			// pays it.
			_, total, err := db.ListInstances(ctx, tt.f)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				var err error
				if _, total, err = db.ListInstances(ctx, tt.f); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(total), "total")
		})
	}
}
