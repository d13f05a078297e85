package feel

import "testing"

func benchEval(b *testing.B, src string) {
	p, err := Compile(src)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Eval(testScope); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEval measures typical expressions: a gateway condition, a
// for-loop with a filter and sum, and a date computation.
func BenchmarkEval(b *testing.B) {
	b.Run("condition", func(b *testing.B) {
		benchEval(b, `order.amount > 1000 and order.customer.tier = "gold" or a in [1..10]`)
	})
	b.Run("for-loop", func(b *testing.B) {
		benchEval(b, `sum(for i in 1..100 return if modulo(i, 2) = 0 then i * a else 0)`)
	})
	b.Run("filter", func(b *testing.B) {
		benchEval(b, `count(people[age >= 18 and starts with(name, "a")])`)
	})
	b.Run("temporal", func(b *testing.B) {
		benchEval(b, `(date("2026-03-15") + duration("P1M") - date("2026-01-01")).days > 30`)
	})
}

// BenchmarkUnaryTests measures a decision-table input entry.
func BenchmarkUnaryTests(b *testing.B) {
	u, err := CompileUnaryTests(`< 10, [20..30], "x", > 100`, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := u.Match(n("25"), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompile measures compiling a mid-sized expression.
func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(`{total: sum(for x in xs return x * 1.2), ok: some p in people satisfies p.age > 18}`); err != nil {
			b.Fatal(err)
		}
	}
}

// bigScope holds 10,000 numbers and 10,000 contexts.
var bigScope = func() mapScope {
	nums := make([]any, 10000)
	people := make([]any, 10000)
	for i := range nums {
		nums[i] = i
		people[i] = map[string]any{"name": "p" + itoa(i), "age": i % 90}
	}
	return mapScope{"nums": nums, "people": people}
}()

// BenchmarkLargeLists measures for and filter over 10,000 items.
func BenchmarkLargeLists(b *testing.B) {
	for _, tc := range []struct{ name, src string }{
		{"for-10000", `for x in nums return x * 2`},
		{"filter-10000", `nums[item > 5000]`},
		{"filter-contexts-10000", `count(people[age >= 18 and age < 65])`},
		{"sum-for-range-10000", `sum(for i in 1..10000 return i)`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p, err := Compile(tc.src)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.EvalValue(bigScope); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
