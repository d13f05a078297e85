package feel

import (
	"testing"
	"time"
)

// fixedNow is the clock of the tests: 2026-03-15T10:30:00+01:00.
var fixedNow = func() time.Time { return time.Date(2026, 3, 15, 10, 30, 0, 0, time.FixedZone("", 3600)) }

// same reports whether two internal values are the same FEEL value:
// equal, and of one type (so 1 is not "1" and null is only null).
func same(a, b any) bool {
	a, b = norm(a), norm(b)
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if typeName(a) != typeName(b) {
		return false
	}
	if la, ok := a.([]any); ok {
		lb := b.([]any)
		if len(la) != len(lb) {
			return false
		}
		for i := range la {
			if !same(la[i], lb[i]) {
				return false
			}
		}
		return true
	}
	if ma, ok := a.(*ctxVal); ok {
		mb := b.(*ctxVal)
		if ma.len() != mb.len() {
			return false
		}
		for k, v := range ma.vals {
			w, ok := mb.vals[k]
			if !ok || !same(v, w) {
				return false
			}
		}
		return true
	}
	return equal(a, b, 0) == true
}

// feelCase pairs an expression with an expression for its expected value.
type feelCase struct{ src, want string }

// evalInternal compiles src with the test options and evaluates it.
func evalInternal(tb testing.TB, src string) any {
	tb.Helper()
	p, err := CompileWith(src, Options{Now: fixedNow, Names: []string{"Monthly Salary", "Applicant Age", "Loan-to-value", "Date of Birth", "PMT"}})
	if err != nil {
		tb.Fatalf("Compile(%q): %v", src, err)
	}
	_, v, err := p.run(testScope)
	if err != nil {
		tb.Fatalf("Eval(%q): %v", src, err)
	}
	return v
}

// runFeelTable checks that each src evaluates to the same value as its want.
func runFeelTable(t *testing.T, cases []feelCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			t.Parallel()
			got := evalInternal(t, tc.src)
			want := evalInternal(t, tc.want)
			if !same(got, want) {
				gs, _ := toString(got, 1)
				ws, _ := toString(want, 1)
				t.Errorf("%s = %s (%s), want %s (%s)", tc.src, gs, typeName(got), ws, typeName(want))
			}
		})
	}
}
