package feel

import "strings"

// Range functions (DMN 1.5 §10.3.4.13): before, after, meets, met by,
// overlaps, overlaps before, overlaps after, finishes, finished by,
// includes, during, starts, started by, coincides, and range(from). Each
// takes points (numbers, strings, temporal values) or ranges; endpoints
// that cannot be compared make the result null.

func init() {
	pp := "point1:any, point2:any|point:any, range:range|range:range, point:any|range1:range, range2:range"
	register("before", pp, rangeFn("before", before))
	register("after", pp, rangeFn("after", func(c *rcmp, a, b *Range) bool { return before(c, b, a) }))
	rr := "range1:range, range2:range"
	register("meets", rr, rangeFn("meets", func(c *rcmp, a, b *Range) bool {
		return a.hiClosed && b.loClosed && c.eq(a.hi, b.lo)
	}))
	register("met by", rr, rangeFn("met by", func(c *rcmp, a, b *Range) bool {
		return a.loClosed && b.hiClosed && c.eq(a.lo, b.hi)
	}))
	register("overlaps", rr, rangeFn("overlaps", func(c *rcmp, a, b *Range) bool {
		return (c.gt(a.hi, b.lo) || (c.eq(a.hi, b.lo) && a.hiClosed && b.loClosed)) &&
			(c.lt(a.lo, b.hi) || (c.eq(a.lo, b.hi) && a.loClosed && b.hiClosed))
	}))
	register("overlaps before", rr, rangeFn("overlaps before", overlapsBefore))
	register("overlaps after", rr, rangeFn("overlaps after", func(c *rcmp, a, b *Range) bool { return overlapsBefore(c, b, a) }))
	pr := "point:any, range:range|range1:range, range2:range"
	rp := "range:range, point:any|range1:range, range2:range"
	register("finishes", pr, rangeFn("finishes", finishes))
	register("finished by", rp, rangeFn("finished by", func(c *rcmp, a, b *Range) bool { return finishes(c, b, a) }))
	register("includes", rp, rangeFn("includes", includes))
	register("during", pr, rangeFn("during", func(c *rcmp, a, b *Range) bool { return includes(c, b, a) }))
	register("starts", pr, rangeFn("starts", starts))
	register("started by", rp, rangeFn("started by", func(c *rcmp, a, b *Range) bool { return starts(c, b, a) }))
	register("coincides", pp, rangeFn("coincides", func(c *rcmp, a, b *Range) bool {
		return c.eq(a.lo, b.lo) && c.eq(a.hi, b.hi) && a.loClosed == b.loClosed && a.hiClosed == b.hiClosed
	}))
	register("range", "from:string", fnRange)
}

// rcmp compares endpoints and remembers a failed comparison; ev pays for
// comparing strings.
type rcmp struct {
	ev  *evaluator
	bad bool
}

func (c *rcmp) cmp(a, b any) int {
	if a == nil || b == nil {
		c.bad = true
		return 0
	}
	r, ok := c.ev.compare(a, b)
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

func rangeFn(name string, f func(c *rcmp, a, b *Range) bool) func(*evaluator, []any) any {
	return func(ev *evaluator, args []any) any {
		a, ok1 := asRange(args[0])
		b, ok2 := asRange(args[1])
		if !ok1 || !ok2 || a.op == "!=" || b.op == "!=" {
			return ev.errorf("%s: the arguments must be ranges or points, not a %s and a %s", name, typeName(args[0]), typeName(args[1]))
		}
		c := &rcmp{ev: ev}
		r := f(c, a, b)
		if ev.err != nil {
			return nil
		}
		if c.bad {
			return ev.errorf("%s: cannot compare the endpoints of a %s and a %s", name, typeName(args[0]), typeName(args[1]))
		}
		return r
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

// fnRange parses a range literal such as "[1..10]", "(1..10)" or
// "]1..10[" from a string. Its endpoints must be literals: numbers,
// strings, @"…" temporal literals, or date, time, date and time and
// duration of a string literal; they must be of one type and in order.
func fnRange(ev *evaluator, a []any) any {
	s := strings.TrimSpace(a[0].(string))
	bad := func() any { return ev.errorf("range: %q is not a range literal", a[0]) }
	if s == "" || len(s) > 1024 {
		return bad()
	}
	p, err := newParserFor(s, Options{})
	if err != nil {
		return bad()
	}
	n, err := p.primary()
	if err != nil || p.peek().kind != tokEOF {
		return bad()
	}
	r, ok := n.(rangeNode)
	if !ok || !rangeEndpoint(r.lo) || !rangeEndpoint(r.hi) {
		return bad()
	}
	sub := ev.sub(true)
	v := sub.eval(r, nil)
	if v == nil {
		return bad()
	}
	return v
}

// rangeEndpoint accepts the endpoint forms range() allows.
func rangeEndpoint(n node) bool {
	switch x := n.(type) {
	case litNode:
		return true
	case callNode:
		switch x.fn.name {
		case "date", "time", "date and time", "duration":
			if len(x.args) == 1 {
				_, ok := x.args[0].(litNode)
				return ok
			}
		}
	}
	return false
}
