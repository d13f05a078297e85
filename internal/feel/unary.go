package feel

import (
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// UnaryTests is a compiled list of FEEL unary tests, the language of DMN
// decision-table input entries. It is immutable and safe for concurrent
// use.
//
// Forms: "-" (anything matches); a comma list of positive tests, any of
// which must match; "not(tests)" negating such a list. A positive test is
// a comparison with the input ("< 10", ">= x", "= 5", "!= 5"), an interval
// ("[1..10]", "(1..10]", "]1..10["), or an expression: one that uses `?`
// (the input) must be true ("? > 3 and ? < 9", "contains(?, "x")");
// otherwise its value is matched — a range by containment, a list by
// membership, a boolean as the test's verdict when the input is not a
// boolean, anything else (including null) by equality.
type UnaryTests struct {
	src      string
	any      bool
	negate   bool
	tests    []unaryTest
	now      func() time.Time
	fast     bool // every test is constant: Match needs no evaluator
	deferred []string
}

type unaryTest struct {
	n     node
	usesQ bool
	// A constant test, precomputed: op is a comparison ("<", "=", …) with
	// val, or "in" a range (rng); "" when the test needs evaluating.
	op  string
	val any
	rng *Range
}

// Problems lists the problems lenient compilation deferred to evaluation
// (see Options.Lenient); nil otherwise.
func (u *UnaryTests) Problems() []string { return u.deferred }

// precompute fills a constant test's op and value: a comparison with a
// literal, a range literal with literal endpoints, or a literal value
// other than a boolean (matched by equality).
func (t *unaryTest) precompute() bool {
	if t.usesQ {
		return false
	}
	switch n := t.n.(type) {
	case testCmpNode:
		if lit, ok := n.x.(litNode); ok && lit.v != nil {
			t.op, t.val = n.op, lit.v
			return true
		}
	case rangeNode:
		_, ok1 := n.lo.(litNode)
		_, ok2 := n.hi.(litNode)
		if ok1 && ok2 {
			ev := newEvaluator(nil, Limits{}, true)
			if r, ok := ev.rangeLit(n, nil).(*Range); ok {
				t.op, t.rng = "in", r
				return true
			}
		}
	case litNode:
		switch n.v.(type) {
		case string, *apd.Decimal, Date, Time, DateTime, Duration, YearsMonths:
			t.op, t.val = "=", n.v
			return true
		}
	}
	return false
}

// CompileUnaryTests parses DMN unary tests. An empty text, like "-",
// matches every input.
func CompileUnaryTests(src string, opts Options) (*UnaryTests, error) {
	u := &UnaryTests{src: src, now: opts.Now}
	s := strings.TrimSpace(src)
	if s == "" || s == "-" {
		u.any = true
		return u, nil
	}
	p, err := newParserFor(src, opts)
	if err != nil {
		return nil, err
	}
	p.push("?")
	if p.peek().isWord("not") && p.peekAt(1).isPunct("(") && p.closingParenIsLast(1) {
		p.next()
		p.next()
		u.negate = true
	}
	for {
		p.sawQ = false
		n, err := p.unaryTest(true)
		if err != nil {
			return nil, err
		}
		u.tests = append(u.tests, unaryTest{n: n, usesQ: p.sawQ})
		if !p.peek().isPunct(",") {
			break
		}
		p.next()
	}
	if u.negate {
		if err := p.expect(")"); err != nil {
			return nil, err
		}
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.unexpected(t)
	}
	u.deferred = p.deferred
	u.fast = true
	for i := range u.tests {
		if !u.tests[i].precompute() {
			u.fast = false
		}
	}
	return u, nil
}

// closingParenIsLast reports whether the '(' at offset k is closed by the
// last token before the end.
func (p *parser) closingParenIsLast(k int) bool {
	depth := 0
	for j := p.i + k; j < len(p.toks); j++ {
		t := p.toks[j]
		if t.kind != tokPunct {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return t.text == ")" && j == len(p.toks)-2
			}
		}
	}
	return false
}

// Source returns the text the tests were compiled from.
func (u *UnaryTests) Source() string { return u.src }

// Match reports whether input passes the tests, evaluated against scope
// (which may be nil). A test that yields null does not match. The error
// is a resource limit or a failing Function from the scope.
func (u *UnaryTests) Match(input any, scope Scope) (bool, error) {
	if u.fast {
		return u.matchFast(norm(input)), nil
	}
	ok, _, err := u.match(input, scope, true)
	return ok, err
}

// matchFast matches constant tests without an evaluator.
func (u *UnaryTests) matchFast(x any) bool {
	var ev *evaluator // constants against one input: nothing to meter
	var res any = false
	for _, t := range u.tests {
		var m any
		if t.op == "in" {
			m = ev.inRangeOf(x, t.rng)
		} else {
			m = ev.cmpOp(t.op, x, t.val)
		}
		res = or3(res, m)
		if res == true {
			break
		}
	}
	if u.negate {
		return res == false
	}
	return res == true
}

// MatchErrors is Match that also returns the runtime errors of the
// tests (a comparison of the input with a value of another type, null
// against a range; see Program.EvalErrors). A DMN decision table matches
// with Match: an input that fails a test's comparison simply does not
// match that rule.
func (u *UnaryTests) MatchErrors(input any, scope Scope) (bool, []RuntimeError, error) {
	return u.match(input, scope, false)
}

func (u *UnaryTests) match(input any, scope Scope, quiet bool) (bool, []RuntimeError, error) {
	if u.any {
		return true, nil, nil
	}
	ev := newEvaluator(clockOf(scope, u.now), limitsOf(scope), quiet)
	x := norm(input)
	e := (&env{root: scope}).with("?", x)
	var res any = false
	for _, t := range u.tests {
		var m any
		if _, isCmp := t.n.(testCmpNode); isCmp {
			m = ev.test(x, t.n, e)
		} else {
			v := ev.eval(t.n, e)
			_, inputBool := x.(bool)
			switch b, isBool := v.(bool); {
			case isBool && (t.usesQ || !inputBool):
				m = b
			default:
				m = ev.matches(x, v)
			}
		}
		if ev.err != nil {
			return false, ev.runtimeErrors(), ev.err
		}
		res = or3(res, m)
		if res == true {
			break
		}
	}
	if u.negate {
		if res == nil {
			return false, ev.runtimeErrors(), nil
		}
		return res == false, ev.runtimeErrors(), nil
	}
	return res == true, ev.runtimeErrors(), nil
}
