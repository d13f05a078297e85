package feel

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// Evaluation limits. They bound the work and memory of one Eval call, so
// that no expression (however nested its loops or recursive its
// functions) can run away.
const (
	// maxCallDepth bounds nested calls of user-defined functions.
	maxCallDepth = 256
	// maxErrors bounds the runtime errors one evaluation records; later
	// ones are counted but not kept.
	maxErrors = 32
)

// env is a chain of name bindings: context-literal entries, iteration
// variables, parameters and filter items on top of the caller's Scope. A
// link holds either one binding (name, val) or a map of them.
type env struct {
	name   string
	val    any
	vars   map[string]any
	parent *env
	root   Scope
}

// find looks name up; ok is false when nothing binds it.
func (e *env) find(name string) (any, bool) {
	for ; e != nil; e = e.parent {
		switch {
		case e.vars != nil:
			if v, ok := e.vars[name]; ok {
				return norm(v), true
			}
		case e.name != "":
			if e.name == name {
				return e.val, true
			}
		case e.root != nil:
			if v, ok := e.root.Lookup(name); ok {
				return norm(v), true
			}
		}
	}
	return nil, false
}

func (e *env) with(name string, v any) *env { return &env{name: name, val: v, parent: e} }

// evaluator holds the state of one Eval call. FEEL reports most problems
// as null with a message: errs collects those messages (the runtime
// errors of EvalErrors). err records the few problems that abort
// evaluation (resource limits, errors of external functions).
type evaluator struct {
	err     error
	errs    []RuntimeError
	dropped int  // runtime errors beyond maxErrors
	quiet   bool // record no runtime errors (Eval, EvalValue, Match)
	now     func() time.Time
	meter   *meter // the budget, shared with the evaluators of nested parts
	own     meter  // the budget meter points to, for the top evaluator
	calls   int
}

// newEvaluator readies the evaluator of one evaluation.
func newEvaluator(now func() time.Time, l Limits, quiet bool) *evaluator {
	ev := &evaluator{now: now, quiet: quiet, own: makeMeter(l)}
	ev.meter = &ev.own // one allocation for both
	return ev
}

// sub returns an evaluator for a nested part (range()'s text) that spends
// from the same budget.
func (ev *evaluator) sub(quiet bool) *evaluator {
	return &evaluator{now: ev.now, meter: ev.meter, quiet: quiet}
}

func (ev *evaluator) fail(err error) any {
	if ev.err == nil {
		ev.err = err
	}
	return nil
}

// errorf records a runtime error and returns null: the operation it
// describes had operands FEEL does not define it for.
func (ev *evaluator) errorf(format string, args ...any) any {
	if ev.quiet {
		return nil
	}
	if len(ev.errs) >= maxErrors {
		ev.dropped++
		return nil
	}
	ev.errs = append(ev.errs, RuntimeError{Msg: fmt.Sprintf(format, args...)})
	return nil
}

// errors returns the recorded runtime errors, with a last one counting
// those that were not kept.
func (ev *evaluator) runtimeErrors() []RuntimeError {
	if ev.dropped > 0 {
		return append(ev.errs, RuntimeError{Msg: fmt.Sprintf("and %d more errors", ev.dropped)})
	}
	return ev.errs
}

func (ev *evaluator) clock() time.Time {
	if ev.now != nil {
		return ev.now()
	}
	return time.Now()
}

// argCost is the step cost of calling a built-in with args: one step,
// plus one per 16 bytes of string (the string functions read them
// character by character) and per 16 list elements, so that loops over
// big values spend their budget in proportion to the work. Built-ins
// that do more than look at their arguments charge the rest themselves.
func argCost(args []any) int {
	c := 1
	for _, a := range args {
		switch x := a.(type) {
		case string:
			c += textCost(len(x))
		case []any:
			c += len(x) >> 4
		}
	}
	return c
}

// eval evaluates n in e and returns an internal value.
func (ev *evaluator) eval(n node, e *env) any {
	if ev.err != nil {
		return nil
	}
	switch n := n.(type) {
	case litNode:
		return n.v
	case nameNode:
		v, ok := e.find(n.name)
		if !ok {
			if b := builtins[n.name]; b != nil {
				return &builtinFn{b: b, now: ev.now, limits: ev.meter.limits} // a built-in as a value: abs, sum
			}
			if strings.Contains(n.name, ".") {
				return ev.dottedName(n.name, e)
			}
		}
		return v
	case pathNode:
		return ev.path(ev.eval(n.x, e), n.name)
	case filterNode:
		return ev.filter(n, e)
	case negNode:
		switch x := ev.eval(n.x, e).(type) {
		case *apd.Decimal:
			return new(apd.Decimal).Neg(x)
		case Duration, YearsMonths:
			return negTemporal(x)
		case nil:
			return ev.errorf("cannot negate null")
		default:
			return ev.errorf("cannot negate a %s", typeName(x))
		}
	case arithNode:
		return ev.arith(n.op, ev.eval(n.l, e), ev.eval(n.r, e))
	case cmpNode:
		return ev.cmp(n.op, ev.eval(n.l, e), ev.eval(n.r, e))
	case logicNode:
		return ev.logic(n, e)
	case ifNode:
		if ev.eval(n.c, e) == true {
			return ev.eval(n.a, e)
		}
		return ev.eval(n.b, e)
	case betweenNode:
		x := ev.eval(n.x, e)
		lo, hi := ev.eval(n.lo, e), ev.eval(n.hi, e)
		return and3(ev.cmp(">=", x, lo), ev.cmp("<=", x, hi))
	case inNode:
		return ev.anyTest(ev.eval(n.x, e), n.tests, e)
	case testCmpNode:
		// A unary comparison read as a value is a range: (< 10) is (null..10).
		return ev.cmpRange(n.op, ev.eval(n.x, e))
	case listNode:
		out := make([]any, len(n.elems))
		for i, el := range n.elems {
			out[i] = ev.eval(el, e)
		}
		return out
	case ctxNode:
		c := newCtx(len(n.keys))
		inner := &env{vars: c.vals, parent: e}
		for i, k := range n.keys {
			c.set(k, ev.eval(n.vals[i], inner))
		}
		return c
	case rangeNode:
		return ev.rangeLit(n, e)
	case callNode:
		args := make([]any, len(n.args))
		for i, a := range n.args {
			if a != nil {
				args[i] = ev.eval(a, e)
			}
		}
		if !ev.tick(argCost(args)) {
			return nil
		}
		return ev.callBuiltin(n.fn, args, n.sig)
	case dynCallNode:
		f := ev.eval(n.fn, e)
		args := make([]any, len(n.args))
		for i, a := range n.args {
			args[i] = ev.eval(a, e)
		}
		return ev.call(f, args, n.names)
	case funcNode:
		return &lambda{params: n.params, types: n.types, body: n.body, env: e, now: ev.now, limits: ev.meter.limits}
	case forNode:
		return ev.forLoop(n, e)
	case quantNode:
		return ev.quantified(n, e)
	case instNode:
		return ev.instanceOf(ev.eval(n.x, e), n.t)
	case errNode:
		return ev.errorf("%s", n.msg)
	}
	return ev.fail(fmt.Errorf("feel: internal error: unknown node %T", n))
}

// dottedName reads a known name with dots that nothing binds (a
// parameter "Person.Age" read where only Person is bound) as the path it
// spells: the longest bound prefix, then its entries.
func (ev *evaluator) dottedName(name string, e *env) any {
	parts := strings.Split(name, ".")
	for k := len(parts) - 1; k >= 1; k-- {
		v, ok := e.find(strings.Join(parts[:k], "."))
		if !ok {
			continue
		}
		for _, p := range parts[k:] {
			v = ev.path(v, strings.TrimSpace(p))
		}
		return v
	}
	return nil
}

// rangeLit evaluates a range literal. A null endpoint is allowed (no
// value is then in the range: the test is null); endpoints of different
// or unordered types, or out of order, are an error.
func (ev *evaluator) rangeLit(n rangeNode, e *env) any {
	lo, hi := ev.eval(n.lo, e), ev.eval(n.hi, e)
	if lo == nil && hi == nil {
		return ev.errorf("a range needs at least one endpoint")
	}
	for _, v := range []any{lo, hi} {
		if v != nil && !orderable(v) {
			return ev.errorf("a range cannot have a %s endpoint", typeName(v))
		}
	}
	if lo != nil && hi != nil {
		c, ok := ev.compare(lo, hi)
		if !ok {
			return ev.errorf("a range cannot go from a %s to a %s", typeName(lo), typeName(hi))
		}
		if c > 0 {
			return ev.errorf("a range cannot start after its end")
		}
	}
	return &Range{lo: lo, hi: hi, loClosed: n.loClosed, hiClosed: n.hiClosed}
}

// orderable reports whether v belongs to a type with an order: numbers,
// strings and the temporal types.
func orderable(v any) bool {
	switch v.(type) {
	case *apd.Decimal, string, Date, Time, DateTime, Duration, YearsMonths:
		return true
	}
	return false
}

// cmpRange turns the unary comparison `op x` into the range it denotes:
// < x is (null..x), <= x is (null..x], > x is (x..null), >= x is
// [x..null), = x is [x..x] and != x the set of everything else.
func (ev *evaluator) cmpRange(op string, x any) any {
	if x == nil {
		return ev.errorf("a range cannot compare with null")
	}
	if op != "=" && op != "!=" && !orderable(x) {
		return ev.errorf("a range cannot have a %s endpoint", typeName(x))
	}
	switch op {
	case "<", "<=":
		return &Range{hi: x, hiClosed: op == "<=", op: op}
	case ">", ">=":
		return &Range{lo: x, loClosed: op == ">=", op: op}
	case "=":
		return &Range{lo: x, hi: x, loClosed: true, hiClosed: true, op: op}
	case "!=":
		return &Range{lo: x, hi: x, op: op}
	}
	return nil
}

// anyTest reports whether x passes any of tests (three-valued).
func (ev *evaluator) anyTest(x any, tests []node, e *env) any {
	var res any = false
	for _, t := range tests {
		res = or3(res, ev.test(x, t, e))
		if res == true {
			return true
		}
	}
	return res
}

// test matches x against one positive unary test.
func (ev *evaluator) test(x any, t node, e *env) any {
	switch t := t.(type) {
	case testCmpNode:
		return ev.cmp(t.op, x, ev.eval(t.x, e))
	case rangeNode:
		r := ev.eval(t, e)
		if r == nil {
			return nil // an invalid range, already reported
		}
		return ev.matches(x, r)
	}
	return ev.matches(x, ev.eval(t, e))
}

// matches applies a test value: a range by containment, a list by
// membership (or equality, when x is itself a list), anything else by
// equality. An element of another type than x is not x (so
// true in [false, 2] is false).
func (ev *evaluator) matches(x, tv any) any {
	switch t := tv.(type) {
	case *Range:
		return ev.inRange(x, t)
	case []any:
		if _, isList := x.([]any); isList {
			if ev.equal(x, t, 0) == true {
				return true
			}
		}
		var res any = false
		for _, el := range t {
			el = norm(el)
			var m any
			if r, ok := el.(*Range); ok {
				if !ev.tick(1) {
					return nil
				}
				m = ev.inRange(x, r)
			} else {
				m = ev.equal(x, el, 0)
				if m == nil {
					m = false
				}
			}
			res = or3(res, m)
			if res == true {
				return true
			}
		}
		return res
	}
	m := ev.equal(x, tv, 0)
	if m == nil {
		return ev.errorf("cannot compare a %s with a %s", typeName(x), typeName(tv))
	}
	return m
}

// inRange reports whether x lies in r, recording an error when x cannot
// be compared with an endpoint.
func (ev *evaluator) inRange(x any, r *Range) any {
	if x == nil {
		return ev.errorf("null is in no range")
	}
	res := ev.inRangeOf(x, r)
	if res == nil {
		if r.op == "" && (r.lo == nil || r.hi == nil) {
			return ev.errorf("%s has a null endpoint", r.String())
		}
		return ev.errorf("cannot compare a %s with the endpoints of %s", typeName(x), r.String())
	}
	return res
}

// path reads name from a context, or a property of a temporal value or a
// range; over a list it maps the path over the elements. A context
// without the entry, null and any other value give null and an error.
func (ev *evaluator) path(v any, name string) any {
	switch x := v.(type) {
	case *ctxVal:
		r, ok := x.get(name)
		if !ok {
			return ev.errorf("the context has no entry %q", name)
		}
		return r
	case []any:
		// A projection: an element without the entry gives null, quietly
		// (lists of contexts of different shapes are normal).
		if !ev.tick(len(x)) {
			return nil
		}
		out := make([]any, len(x))
		for i, el := range x {
			el = norm(el)
			if c, ok := el.(*ctxVal); ok {
				out[i], _ = c.get(name)
				continue
			}
			out[i] = ev.path(el, name)
		}
		return out
	case *Range:
		switch name {
		case "start":
			return x.lo
		case "end":
			return x.hi
		case "start included":
			return x.loClosed
		case "end included":
			return x.hiClosed
		}
	case Date, Time, DateTime, Duration, YearsMonths:
		if r, ok := temporalProp(x, name); ok {
			return r
		}
	case nil:
		return ev.errorf("cannot read %q of null", name)
	}
	return ev.errorf("a %s has no property %q", typeName(v), name)
}

// filter evaluates x[f]. A number indexes (1-based, negative from the
// end); otherwise f is evaluated per element with `item` and the
// element's context entries in scope (an entry named item hides the
// element), keeping elements where it is true.
func (ev *evaluator) filter(n filterNode, e *env) any {
	x := ev.eval(n.x, e)
	if x == nil {
		return nil
	}
	list, ok := x.([]any)
	if !ok {
		list = []any{x}
	}
	if lit, ok := n.f.(litNode); ok {
		if _, isNum := lit.v.(*apd.Decimal); isNum {
			return index(list, lit.v)
		}
	}
	out := []any{}
	for i, el := range list {
		if !ev.tick(1) {
			return nil
		}
		el = norm(el)
		inner := e.with("item", el)
		if c, ok := el.(*ctxVal); ok {
			inner = &env{vars: c.vals, parent: inner}
		}
		mark := len(ev.errs)
		r := ev.eval(n.f, inner)
		if i == 0 {
			if idx, ok := r.(*apd.Decimal); ok {
				return index(list, idx)
			}
		}
		if r == true {
			out = append(out, el)
		} else if r == nil {
			// The element is left out; why its test was null (a missing
			// entry, a null compared) is no error of the filter.
			ev.errs = ev.errs[:mark]
		}
	}
	return out
}

func index(list []any, v any) any {
	d, ok := v.(*apd.Decimal)
	if !ok {
		return nil
	}
	i, err := d.Int64()
	if err != nil {
		return nil
	}
	switch {
	case i > 0 && i <= int64(len(list)):
		return norm(list[i-1])
	case i < 0 && -i <= int64(len(list)):
		return norm(list[int64(len(list))+i])
	}
	return nil
}

var opNames = map[string]string{"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "**": "raise"}

// arith applies + - * / **; operands FEEL does not define the operator
// for (null included) give null and an error.
func (ev *evaluator) arith(op string, a, b any) any {
	if op == "+" {
		if x, ok := a.(string); ok {
			y, ok := b.(string)
			if !ok {
				return ev.opError(op, a, b)
			}
			if len(x)+len(y) > maxStringLen {
				return ev.fail(errStringTooLong)
			}
			if !ev.tick(cmpCost(len(x) + len(y))) {
				return nil
			}
			return x + y
		}
	}
	x, ok1 := a.(*apd.Decimal)
	y, ok2 := b.(*apd.Decimal)
	if !ok1 || !ok2 {
		if a == nil || b == nil {
			return ev.opError(op, a, b)
		}
		r := temporalArith(op, a, b)
		if r == nil {
			return ev.opError(op, a, b)
		}
		return r
	}
	z := new(apd.Decimal)
	var cond apd.Condition
	var err error
	switch op {
	case "+":
		cond, err = decCtx.Add(z, x, y)
	case "-":
		cond, err = decCtx.Sub(z, x, y)
	case "*":
		cond, err = decCtx.Mul(z, x, y)
	case "/":
		if y.IsZero() {
			return ev.errorf("division by zero")
		}
		cond, err = decCtx.Quo(z, x, y)
	case "**":
		cond, err = pow(z, x, y)
	default:
		return nil
	}
	if r := decResult(z, cond, err); r != nil {
		return r
	}
	return ev.errorf("%s %s %s is out of range", numText(x), op, numText(y))
}

func (ev *evaluator) opError(op string, a, b any) any {
	return ev.errorf("cannot %s a %s and a %s", opNames[op], typeName(a), typeName(b))
}

// cmp applies a comparison operator. = and != compare anything with null
// (null = null); other mismatched types give null and an error. The
// order comparisons < <= > >= need two values of one ordered type.
func (ev *evaluator) cmp(op string, a, b any) any {
	r := ev.cmpOp(op, a, b)
	if r == nil {
		switch {
		case op != "=" && op != "!=" && (a == nil || b == nil):
			return ev.errorf("cannot order null (%s %s %s)", typeName(a), op, typeName(b))
		default:
			return ev.errorf("cannot compare a %s with a %s", typeName(a), typeName(b))
		}
	}
	return r
}

// pow computes x ** y. Huge exponents are refused (null) rather than
// computed: apd works through the exponent's bits, and any |x| != 1 with
// such an exponent overflows or underflows anyway.
func pow(z, x, y *apd.Decimal) (apd.Condition, error) {
	if y.IsZero() {
		z.SetInt64(1)
		return 0, nil
	}
	if x.IsZero() && y.Negative {
		return apd.DivisionByZero, nil
	}
	if y.NumDigits()+int64(y.Exponent) > 12 {
		return apd.InvalidOperation, errors.New("exponent too large")
	}
	return decCtx.Pow(z, x, y)
}

// logic implements FEEL three-valued and/or. Operands that are not
// booleans count as null.
func (ev *evaluator) logic(n logicNode, e *env) any {
	l := ev.eval(n.l, e)
	if n.and {
		if l == false {
			return false
		}
		return and3(l, ev.eval(n.r, e))
	}
	if l == true {
		return true
	}
	return or3(l, ev.eval(n.r, e))
}

func and3(a, b any) any {
	if a == false || b == false {
		return false
	}
	if a == true && b == true {
		return true
	}
	return nil
}

func or3(a, b any) any {
	if a == true || b == true {
		return true
	}
	if a == false && b == false {
		return false
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
