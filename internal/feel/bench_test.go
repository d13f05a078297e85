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
