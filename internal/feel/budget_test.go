package feel

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Values a burning expression builds for almost nothing: a list holding
// the same list many times (a DAG, not a tree) and long strings made by
// doubling. `c` is 110 × 110 × 110 numbers built in 330 steps.
const (
	dagC   = `a: for i in 1..110 return i, b: for i in 1..110 return a, c: for i in 1..110 return b`
	longS  = `s0: "aaaaaaaaaaaaaaaa", s1: s0+s0, s2: s1+s1, s3: s2+s2, s4: s3+s3, s5: s4+s4, s6: s5+s5, s7: s6+s6, s8: s7+s7`
	halfMB = longS + `, s9: s8+s8, s10: s9+s9, s11: s10+s10, s12: s11+s11, s13: s12+s12, s14: s13+s13, s15: s14+s14` // s15: 512 KiB
	kib4   = longS                                                                                                   // s8: 4 KiB
)

// burning lists, one row per built-in or operator that can burn, an
// expression that does far more work than its arguments' sizes. Each
// must fail with the budget error once it has spent its budget: before
// the work was charged, each returned a value after seconds of work (or
// ran for minutes).
var burning = []struct {
	name, src string
}{
	{"= of nested lists", `{` + dagC + `, r: c = c}.r`},
	{"!= of nested contexts", `{` + dagC + `, r: {x: c} != {x: c}}.r`},
	{"in with a list", `{` + dagC + `, r: c in [c]}.r`},
	{"list contains", `{` + dagC + `, r: list contains([1, c], c)}.r`},
	{"index of", `{` + dagC + `, r: index of([c, c], c)}.r`},
	{"distinct values", `{` + dagC + `, r: distinct values([c, c, c])}.r`},
	{"union", `{` + dagC + `, r: union([c], [c])}.r`},
	{"is", `{` + dagC + `, r: is(c, c)}.r`},
	{"instance of", `{` + dagC + `, r: c instance of list<list<list<number>>>}.r`},
	{"the result (export)", `{` + dagC + `, r: c}.r`},
	{"projection a.b over a list", `{l: for i in 1..10000 return {x: i}, r: for i in 1..1000 return count(l.x)}.r`},
	{"string()", `{` + kib4 + `, l: for i in 1..200 return s8, r: for i in 1..250 return string length(string(l))}.r`},
	{"string join", `{` + kib4 + `, l: for i in 1..200 return s8, r: for i in 1..250 return string length(string join(l, ""))}.r`},
	{"= of long strings", `{` + halfMB + `, t: s14+s14, r: for i in 1..5000 return s15 = t}.r`},
	{"sort", `{` + halfMB + `, t: s14+s14, l: for i in 1..500 return if modulo(i, 2) = 0 then s15 else t, r: count(sort(l))}.r`},
	{"max", `{` + halfMB + `, t: s14+s14, l: for i in 1..1000 return if modulo(i, 2) = 0 then s15 else t, r: for i in 1..20 return string length(max(l))}.r`},
	{"sum", `{l: for i in 1..100000 return i, r: for i in 1..100 return sum(l)}.r`},
	{"mean", `{l: for i in 1..100000 return i, r: for i in 1..100 return mean(l)}.r`},
	{"all", `{l: for i in 1..100000 return true, r: for i in 1..100 return all(l)}.r`},
	{"median", `{l: for i in 1..100000 return i, r: for i in 1..100 return median(l)}.r`},
	{"matches with a back-reference", `matches(s, "^(a*)*\1b$")`},
	{"replace with a back-reference", `replace(s, "(a*)*\1b|a", "x")`},
	{"replace (each search scans to the end)", `replace(s, "a*b|a", "x")`},
	{"split (each search scans to the end)", `split(s, "a*b|a")`},
}

// burnScope holds 10,000 a's for the regular expressions.
var burnScope = mapScope{"s": strings.Repeat("a", 10000)}

// TestBurningExpressionsHitTheBudget: every burning expression fails with
// the budget error (ErrBudget) because the step meter ran out (the work
// is bounded by the steps, never by a clock), and none returns a value a
// condition could branch on.
func TestBurningExpressionsHitTheBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range burning {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := mustCompile(t, tc.src)
			done := make(chan struct{})
			var v any
			var err error
			var spent int
			go func() {
				defer close(done)
				spent, v, err = evalMetered(p, burnScope, Limits{})
			}()
			select {
			case <-done:
			case <-time.After(2 * time.Minute): // a guard against a hang, not a timing
				t.Fatalf("%s still running after 2 minutes", tc.src)
			}
			if !errors.Is(err, ErrBudget) {
				t.Fatalf("= %v, %v; want the budget error", abbreviate(v), err)
			}
			if !strings.Contains(err.Error(), "exceeded") {
				t.Errorf("error %q does not name the step budget", err)
			}
			if spent <= DefaultMaxSteps {
				t.Errorf("charged %d steps, want more than the budget of %d: the step meter stopped it", spent, DefaultMaxSteps)
			}
			// The public entry points fail the same way.
			if v, err := p.Eval(burnScope); !errors.Is(err, ErrBudget) {
				t.Errorf("Eval = %v, %v; want the budget error", abbreviate(v), err)
			}
		})
	}
}

// evalMetered evaluates p as EvalValue does and reports the steps it
// charged.
func evalMetered(p *Program, scope Scope, l Limits) (int, any, error) {
	ev := newEvaluator(nil, l, true)
	v := ev.eval(p.root, &env{root: scope})
	if ev.err != nil {
		return ev.spent(), nil, ev.err
	}
	out, err := ev.exportNative(v, 0)
	return ev.spent(), out, err
}

func mustCompile(tb testing.TB, src string) *Program {
	tb.Helper()
	p, err := Compile(src)
	if err != nil {
		tb.Fatalf("Compile(%q): %v", src, err)
	}
	return p
}

// abbreviate keeps a failure message short when a burning expression
// returned a huge value.
func abbreviate(v any) string {
	s, _ := toString(norm(v), 1)
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// limitedScope is a scope that sets its evaluations' limits.
type limitedScope struct {
	mapScope
	limits Limits
}

func (s limitedScope) EvalLimits() Limits { return s.limits }

// TestLimitsStopAnEvaluation: the step budget, the wall-clock deadline
// and the cancellation channel each stop an endless-looking evaluation
// with the budget error naming what stopped it; the scope's limits apply
// to Eval, EvalValue, EvalErrors and unary tests alike.
func TestLimitsStopAnEvaluation(t *testing.T) {
	t.Parallel()
	cancelled := make(chan struct{})
	close(cancelled)
	huge := 1 << 40
	for _, tc := range []struct {
		name   string
		limits Limits
		want   string
	}{
		{"steps", Limits{MaxSteps: 5000}, "exceeded the step limit of 5000"},
		{"deadline", Limits{MaxSteps: huge, Timeout: time.Millisecond}, "wall-clock deadline"},
		{"cancelled", Limits{MaxSteps: huge, Done: cancelled}, "cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			scope := limitedScope{mapScope: mapScope{}, limits: tc.limits}
			p := mustCompile(t, `count(for i in 1..100000, j in 1..100000 return 0)`)
			_, errEval := p.Eval(scope)
			_, errValue := p.EvalValue(scope)
			_, _, errErrors := p.EvalErrors(scope)
			u, err := CompileUnaryTests(`count(for i in 1..100000, j in 1..100000 return 0) > ?`, Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, errMatch := u.Match(1, scope)
			for name, err := range map[string]error{"Eval": errEval, "EvalValue": errValue, "EvalErrors": errErrors, "Match": errMatch} {
				if !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: %v, want the budget error naming %q", name, err, tc.want)
				}
			}
		})
	}
}
