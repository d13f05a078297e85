package feel

import (
	"strings"
	"testing"
)

// FuzzCompile compiles arbitrary text and evaluates whatever compiles
// against a small scope, also as unary tests. No step may panic, and Eval
// must return either a JSON-shaped value or an error.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		`a + 1`,
		`0.1 + 0.2 = 0.3`,
		`if x > 1 then "a" else null`,
		`xs[-1] in [1..10)`,
		`date("2026-01-31") + duration("P1M") - @"2026-01-01"`,
		`date and time("2026-07-01T12:00:00@Europe/Paris").time offset`,
		`(time("10:00:00Z") - @"09:30:00+01:00").hours`,
		`years and months duration(date(2020, 2, 29), today()) / 12`,
		`for i in 1..3, j in [i..3] return i * j + partial[-1]`,
		`some x in xs satisfies every y in xs satisfies x >= y`,
		`{f: function(n) if n < 2 then n else f(n-1) + f(n-2), r: f(10)}.r`,
		`sort(people, function(a, b) a.age < b.age)[1].name`,
		`[1, 2] instance of list<number> and {a: 1} instance of context<a: number>`,
		`replace(string join(["a", "b"], "-"), "(a)-(b)", "$2$1", "i")`,
		`before([1..5), range("[5..10]")) and Monthly Salary > 1 and 1.5e3 > (< 10).end`,
		`substring(string: "foobar", start position: 2)`,
		`get value(context put({}, ["a", "b"], 1), ["a", "b"])`,
		`matches("aA", "(a)\1", "i") and matches("x", "[A-Z-[OI]]", "i") and split("a1b", "\p{Nd}") = ["a", "b"]`,
		`{🐎: (< 10), b: [1..null), c: 1.5e-3 instance of number, d: get entries({z: 1, a: 2})}`,
		`abs(1, 2) + nope(3) + @"foo" + {a: 1, a: 2}.a`,
		`for d in @"2020-01-01"..@"2020-01-05" return sort([d, today()], function(x, y) x < y)`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := CompileWith(src, Options{Names: []string{"Monthly Salary", "f"}, Now: fixedNow})
		if err != nil {
			if p != nil {
				t.Fatalf("Compile(%q) returned a program and an error", src)
			}
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Compile(%q) error %T is not *Error", src, err)
			}
			return
		}
		v, err := p.Eval(testScope)
		if err == nil {
			checkJSONShape(t, v, 0)
		}
		if _, err := p.EvalValue(testScope); err != nil && !strings.HasPrefix(err.Error(), "feel: ") {
			t.Fatalf("EvalValue(%q) error %q", src, err)
		}
		if _, errs, err := p.EvalErrors(testScope); (err != nil && !strings.HasPrefix(err.Error(), "feel: ")) || len(errs) > maxErrors+1 {
			t.Fatalf("EvalErrors(%q): %d errors, %v", src, len(errs), err)
		}
		if lp, err := CompileWith(src, Options{Lenient: true, Types: func(string) TypeFunc { return func(any) bool { return true } }}); err == nil {
			if _, _, err := lp.EvalErrors(testScope); err != nil && !strings.HasPrefix(err.Error(), "feel: ") {
				t.Fatalf("lenient EvalErrors(%q) error %q", src, err)
			}
		}
		if u, err := CompileUnaryTests(src, Options{}); err == nil {
			fast, err := u.Match(n("5"), testScope)
			if err != nil && !strings.HasPrefix(err.Error(), "feel: ") {
				t.Fatalf("Match(%q) error %q", src, err)
			}
			slow, _, err2 := u.MatchErrors(n("5"), testScope)
			if err == nil && err2 == nil && fast != slow {
				t.Fatalf("Match(%q) = %v, MatchErrors = %v", src, fast, slow)
			}
		}
	})
}

func checkJSONShape(t *testing.T, v any, depth int) {
	t.Helper()
	switch x := v.(type) {
	case nil, bool, string, n:
	case []any:
		for _, e := range x {
			checkJSONShape(t, e, depth+1)
		}
	case map[string]any:
		for _, e := range x {
			checkJSONShape(t, e, depth+1)
		}
	default:
		t.Fatalf("Eval returned %T, not a JSON shape", v)
	}
}
