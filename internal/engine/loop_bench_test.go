package engine

import (
	"fmt"
	"testing"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

// benchItems is the input collection 1..n.
func benchItems(n int) []any {
	items := make([]any, n)
	for i := range items {
		items[i] = number(i + 1)
	}
	return items
}

// BenchmarkMultiInstance1000 starts and completes a parallel multi-instance
// body over 1,000 items through the engine (no store): one op is one whole
// instance.
//
//   - immediate: the iterations are script tasks (out = item * 2) that
//     complete inside the start step, so the op is a single Step;
//   - userTasks: the iterations are user tasks (mi_prop.bpmn), completed one
//     by one in input order, each with its own output value: 1 + 1,000
//     steps through Apply, as the runtime runs them.
//
// Each op checks the output collection and that the instance ended.
func BenchmarkMultiInstance1000(b *testing.B) {
	const n = 1000
	items := benchItems(n)
	b.Run("immediate", func(b *testing.B) {
		p := mustProcess(b, "mi_bench.bpmn")
		b.ReportAllocs()
		for b.Loop() {
			st, _, err := Apply(p, NewState("i1", p.ID, 1), Start{Variables: map[string]any{"items": items}}, t0, Options{})
			if err != nil {
				b.Fatal(err)
			}
			checkBenchEnd(b, st, n)
		}
	})
	b.Run("userTasks", func(b *testing.B) {
		p := mustProcess(b, "mi_prop.bpmn")
		b.ReportAllocs()
		for b.Loop() {
			st := runUserTaskBody(b, p, items)
			checkBenchEnd(b, st, n)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(n+1)), "ns/step")
	})
}

// runUserTaskBody starts p over items and completes the iteration tasks in
// input order.
func runUserTaskBody(b *testing.B, p *bpmn.Process, items []any) *State {
	st, _, err := Apply(p, NewState("i1", p.ID, 1), Start{Variables: map[string]any{"items": items}}, t0, Options{})
	if err != nil {
		b.Fatal(err)
	}
	// Task ids in iteration order, taken once: completing one task leaves
	// the others' ids unchanged.
	ids := make([]string, 0, len(items))
	for _, w := range st.Waits {
		if w.Kind == WaitTask {
			ids = append(ids, w.ID)
		}
	}
	if len(ids) != len(items) {
		b.Fatalf("%d tasks open, want %d", len(ids), len(items))
	}
	for i, id := range ids {
		if st, _, err = Apply(p, st, TaskCompleted{TaskID: id, User: "u", Variables: map[string]any{"out": number(i)}}, t0, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	return st
}

func checkBenchEnd(b *testing.B, st *State, n int) {
	b.Helper()
	outs, _ := st.Scopes.Get(scope.RootID).Vars["outs"].([]any)
	if !st.Ended() || len(outs) != n || len(st.Waits) != 0 || len(st.Tracks) != 0 {
		b.Fatalf("status %s, %d outputs, %d waits, %d tracks", st.Status, len(outs), len(st.Waits), len(st.Tracks))
	}
}

// BenchmarkStartManyIterations starts a parallel multi-instance body over n
// user tasks in one step (n tracks and n waits). Compare the sizes: the cost
// per item must stay flat (a step used to be quadratic in its tracks).
func BenchmarkStartManyIterations(b *testing.B) {
	p := mustProcess(b, "mi_prop.bpmn")
	for _, n := range []int{5000, 20000} {
		items := benchItems(n)
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			for b.Loop() {
				st, _, err := Apply(p, NewState("i1", p.ID, 1), Start{Variables: map[string]any{"items": items}}, t0, Options{})
				if err != nil || len(st.Waits) != n {
					b.Fatalf("%v, %d waits", err, len(st.Waits))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/item")
		})
	}
}

// BenchmarkCompleteOneOfMany completes one user task of a parallel
// multi-instance body of n open iterations, as the runtime does it: Apply on
// the instance's own state, then the header and the parts the step changed
// encoded for the store. One op is one step; its cost must not grow with n
// (a step costs what it changes, not what the instance holds).
func BenchmarkCompleteOneOfMany(b *testing.B) {
	p := mustProcess(b, "mi_prop.bpmn")
	for _, n := range []int{10, 10_000, 100_000} {
		items := benchItems(n)
		b.Run(fmt.Sprintf("iterations=%d", n), func(b *testing.B) {
			var (
				st  *State
				ids []string
			)
			fresh := func() {
				b.StopTimer()
				var err error
				if st, _, err = Apply(p, NewState("i1", p.ID, 1), Start{Variables: map[string]any{"items": items}}, t0, Options{}); err != nil {
					b.Fatal(err)
				}
				ids = ids[:0]
				for _, w := range st.Waits {
					ids = append(ids, w.ID)
				}
				b.StartTimer()
			}
			fresh()
			b.ReportAllocs()
			for b.Loop() {
				if len(ids) < 2 { // keep the body open: at least one iteration left
					fresh()
				}
				id := ids[len(ids)/2]
				ids = append(ids[:len(ids)/2], ids[len(ids)/2+1:]...)
				next, fx, err := Apply(p, st, TaskCompleted{TaskID: id, User: "u", Variables: map[string]any{"out": number(1)}}, t0, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := next.EncodeHeader(); err != nil {
					b.Fatal(err)
				}
				if _, _, err := next.Delta(fx.Changed); err != nil {
					b.Fatal(err)
				}
				st = next
			}
		})
	}
}
