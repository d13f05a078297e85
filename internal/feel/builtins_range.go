package feel

import "strings"

// Range functions (DMN 1.5 §10.3.4.13): before, after, meets, met by,
// overlaps, overlaps before, overlaps after, finishes, finished by,
// includes, during, starts, started by, coincides, and range(from). Each
// takes points (numbers, strings, temporal values) or ranges; endpoints
// that cannot be compared make the result null.

func init() {
	pp := "point1, point2|point, range|range, point|range1, range2"
	register("before", pp, 2, 2, rangeFn(before))
	register("after", pp, 2, 2, rangeFn(func(c *rcmp, a, b *Range) bool { return before(c, b, a) }))
	register("meets", "range1, range2", 2, 2, rangesOnly(func(c *rcmp, a, b *Range) bool {
		return a.hiClosed && b.loClosed && c.eq(a.hi, b.lo)
	}))
	register("met by", "range1, range2", 2, 2, rangesOnly(func(c *rcmp, a, b *Range) bool {
		return a.loClosed && b.hiClosed && c.eq(a.lo, b.hi)
	}))
	register("overlaps", "range1, range2", 2, 2, rangesOnly(func(c *rcmp, a, b *Range) bool {
		return (c.gt(a.hi, b.lo) || (c.eq(a.hi, b.lo) && a.hiClosed && b.loClosed)) &&
			(c.lt(a.lo, b.hi) || (c.eq(a.lo, b.hi) && a.loClosed && b.hiClosed))
	}))
	register("overlaps before", "range1, range2", 2, 2, rangesOnly(overlapsBefore))
	register("overlaps after", "range1, range2", 2, 2, rangesOnly(func(c *rcmp, a, b *Range) bool { return overlapsBefore(c, b, a) }))
	register("finishes", "point, range|range1, range2", 2, 2, rangeFn(finishes))
	register("finished by", "range, point|range1, range2", 2, 2, rangeFn(func(c *rcmp, a, b *Range) bool { return finishes(c, b, a) }))
	register("includes", "range, point|range1, range2", 2, 2, rangeFn(includes))
	register("during", "point, range|range1, range2", 2, 2, rangeFn(func(c *rcmp, a, b *Range) bool { return includes(c, b, a) }))
	register("starts", "point, range|range1, range2", 2, 2, rangeFn(starts))
	register("started by", "range, point|range1, range2", 2, 2, rangeFn(func(c *rcmp, a, b *Range) bool { return starts(c, b, a) }))
	register("coincides", pp, 2, 2, rangeFn(func(c *rcmp, a, b *Range) bool {
		return c.eq(a.lo, b.lo) && c.eq(a.hi, b.hi) && a.loClosed == b.loClosed && a.hiClosed == b.hiClosed
	}))
	register("range", "from", 1, 1, fnRange)
}

// rcmp compares endpoints and remembers a failed comparison.
type rcmp struct{ bad bool }

func (c *rcmp) cmp(a, b any) int {
	if a == nil || b == nil {
		c.bad = true
		return 0
	}
	r, ok := compare(a, b)
	if !ok {
		c.bad = true
	}
	return r
}

func (c *rcmp) lt(a, b any) bool { return c.cmp(a, b) < 0 }
func (c *rcmp) gt(a, b any) bool { return c.cmp(a, b) > 0 }
func (c *rcmp) eq(a, b any) bool { return c.cmp(a, b) == 0 }

// asRange makes a point the degenerate range [p..p].
func asRange(v any) (*Range, bool) {
	switch x := v.(type) {
	case nil:
		return nil, false
	case *Range:
		return x, true
	case []any, map[string]any, bool, Function:
		return nil, false
	}
	return &Range{lo: v, hi: v, loClosed: true, hiClosed: true}, true
}

func rangeFn(f func(c *rcmp, a, b *Range) bool) func(*evaluator, []any) any {
	return func(_ *evaluator, args []any) any {
		a, ok1 := asRange(args[0])
		b, ok2 := asRange(args[1])
		if !ok1 || !ok2 {
			return nil
		}
		c := &rcmp{}
		r := f(c, a, b)
		if c.bad {
			return nil
		}
		return r
	}
}

func rangesOnly(f func(c *rcmp, a, b *Range) bool) func(*evaluator, []any) any {
	g := rangeFn(f)
	return func(ev *evaluator, args []any) any {
		_, ok1 := args[0].(*Range)
		_, ok2 := args[1].(*Range)
		if !ok1 || !ok2 {
			return nil
		}
		return g(ev, args)
	}
}

func before(c *rcmp, a, b *Range) bool {
	return c.lt(a.hi, b.lo) || (c.eq(a.hi, b.lo) && (!a.hiClosed || !b.loClosed))
}

func overlapsBefore(c *rcmp, a, b *Range) bool {
	return (c.lt(a.lo, b.lo) || (c.eq(a.lo, b.lo) && a.loClosed && !b.loClosed)) &&
		(c.gt(a.hi, b.lo) || (c.eq(a.hi, b.lo) && a.hiClosed && b.loClosed)) &&
		(c.lt(a.hi, b.hi) || (c.eq(a.hi, b.hi) && (!a.hiClosed || b.hiClosed)))
}

// finishes: a ends b (a point is the range [p..p]).
func finishes(c *rcmp, a, b *Range) bool {
	if a.lo == a.hi && a.loClosed && a.hiClosed { // a point
		return b.hiClosed && c.eq(b.hi, a.hi)
	}
	return a.hiClosed == b.hiClosed && c.eq(a.hi, b.hi) &&
		(c.gt(a.lo, b.lo) || (c.eq(a.lo, b.lo) && (!a.loClosed || b.loClosed)))
}

// includes: b lies within a.
func includes(c *rcmp, a, b *Range) bool {
	if b.lo == b.hi && b.loClosed && b.hiClosed { // a point
		return (c.lt(a.lo, b.lo) && c.gt(a.hi, b.lo)) || (c.eq(a.lo, b.lo) && a.loClosed) || (c.eq(a.hi, b.lo) && a.hiClosed)
	}
	return (c.lt(a.lo, b.lo) || (c.eq(a.lo, b.lo) && (a.loClosed || !b.loClosed))) &&
		(c.gt(a.hi, b.hi) || (c.eq(a.hi, b.hi) && (a.hiClosed || !b.hiClosed)))
}

// starts: a starts b.
func starts(c *rcmp, a, b *Range) bool {
	if a.lo == a.hi && a.loClosed && a.hiClosed { // a point
		return b.loClosed && c.eq(b.lo, a.lo)
	}
	return a.loClosed == b.loClosed && c.eq(a.lo, b.lo) &&
		(c.lt(a.hi, b.hi) || (c.eq(a.hi, b.hi) && (!a.hiClosed || b.hiClosed)))
}

// fnRange parses a range literal such as "[1..10)" or a comparison such
// as ">= 5" (a half-open range) from a string.
func fnRange(ev *evaluator, a []any) any {
	s, ok := a[0].(string)
	if !ok || len(s) > 1024 {
		return nil
	}
	s = strings.TrimSpace(s)
	p, err := newParserFor(s, Options{})
	if err != nil {
		return nil
	}
	var n node
	if t := p.peek(); isCmpOp(t) && t.text != "!=" {
		n, err = p.unaryTest(false)
	} else {
		n, err = p.primary()
	}
	if err != nil || p.peek().kind != tokEOF {
		return nil
	}
	sub := &evaluator{now: ev.now}
	switch x := n.(type) {
	case rangeNode:
		return sub.eval(x, nil)
	case testCmpNode:
		v := sub.eval(x.x, nil)
		if v == nil {
			return nil
		}
		switch x.op {
		case "<", "<=":
			return &Range{hi: v, hiClosed: x.op == "<="}
		case ">", ">=":
			return &Range{lo: v, loClosed: x.op == ">="}
		case "=":
			return &Range{lo: v, hi: v, loClosed: true, hiClosed: true}
		}
	}
	return nil
}
