package feel

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// Evaluation limits. They bound the work and memory of one Eval call, so
// that no expression (however nested its loops or recursive its
// functions) can run away.
const (
	// maxSteps bounds loop iterations, filter elements, function calls
	// and list-function element visits in one evaluation.
	maxSteps = 1 << 20
	// maxCallDepth bounds nested calls of user-defined functions.
	maxCallDepth = 256
)

var (
	errStringTooLong = fmt.Errorf("feel: string longer than %d bytes", maxStringLen)
	errTooManySteps  = fmt.Errorf("feel: evaluation exceeded %d steps", maxSteps)
	errCallsTooDeep  = fmt.Errorf("feel: function calls nested deeper than %d", maxCallDepth)
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

func (e *env) lookup(name string) any {
	for ; e != nil; e = e.parent {
		switch {
		case e.vars != nil:
			if v, ok := e.vars[name]; ok {
				return norm(v)
			}
		case e.name != "":
			if e.name == name {
				return e.val
			}
		case e.root != nil:
			if v, ok := e.root.Lookup(name); ok {
				return norm(v)
			}
		}
	}
	return nil
}

func (e *env) with(name string, v any) *env { return &env{name: name, val: v, parent: e} }

// evaluator holds the state of one Eval call. FEEL reports most problems
// as null; err records the few that abort evaluation (resource limits,
// errors of external functions).
type evaluator struct {
	err   error
	now   func() time.Time
	steps int
	calls int
}

func (ev *evaluator) fail(err error) any {
	if ev.err == nil {
		ev.err = err
	}
	return nil
}

// tick spends n steps of the budget; false means the budget is gone.
func (ev *evaluator) tick(n int) bool {
	ev.steps += n
	if ev.steps > maxSteps {
		ev.fail(errTooManySteps)
		return false
	}
	return ev.err == nil
}

func (ev *evaluator) clock() time.Time {
	if ev.now != nil {
		return ev.now()
	}
	return time.Now()
}

// argCost is the step cost of calling a built-in with args: one step,
// plus one per 256 bytes of string and per 16 list elements, so that
// loops over big values spend their budget in proportion to the work.
func argCost(args []any) int {
	c := 1
	for _, a := range args {
		switch x := a.(type) {
		case string:
			c += len(x) >> 8
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
		return e.lookup(n.name)
	case pathNode:
		return path(ev.eval(n.x, e), n.name)
	case filterNode:
		return ev.filter(n, e)
	case negNode:
		switch x := ev.eval(n.x, e).(type) {
		case *apd.Decimal:
			return new(apd.Decimal).Neg(x)
		case Duration, YearsMonths:
			return negTemporal(x)
		}
		return nil
	case arithNode:
		return ev.arith(n.op, ev.eval(n.l, e), ev.eval(n.r, e))
	case cmpNode:
		return cmpOp(n.op, ev.eval(n.l, e), ev.eval(n.r, e))
	case logicNode:
		return ev.logic(n, e)
	case ifNode:
		if ev.eval(n.c, e) == true {
			return ev.eval(n.a, e)
		}
		return ev.eval(n.b, e)
	case betweenNode:
		x := ev.eval(n.x, e)
		return and3(cmpOp(">=", x, ev.eval(n.lo, e)), cmpOp("<=", x, ev.eval(n.hi, e)))
	case inNode:
		return ev.anyTest(ev.eval(n.x, e), n.tests, e)
	case testCmpNode:
		// Only meaningful as a unary test; a bare one is null.
		return nil
	case listNode:
		out := make([]any, len(n.elems))
		for i, el := range n.elems {
			out[i] = ev.eval(el, e)
		}
		return out
	case ctxNode:
		m := make(map[string]any, len(n.keys))
		inner := &env{vars: m, parent: e}
		for i, k := range n.keys {
			m[k] = ev.eval(n.vals[i], inner)
		}
		return m
	case rangeNode:
		lo, hi := ev.eval(n.lo, e), ev.eval(n.hi, e)
		// Both endpoints must be of one ordered type.
		if _, ok := compare(lo, hi); !ok {
			return nil
		}
		return &Range{lo: lo, hi: hi, loClosed: n.loClosed, hiClosed: n.hiClosed}
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
		return n.fn.fn(ev, args)
	case dynCallNode:
		f := ev.eval(n.fn, e)
		args := make([]any, len(n.args))
		for i, a := range n.args {
			args[i] = ev.eval(a, e)
		}
		return ev.call(f, args, n.names)
	case funcNode:
		return &lambda{params: n.params, body: n.body, env: e, now: ev.now}
	case forNode:
		return ev.forLoop(n, e)
	case quantNode:
		return ev.quantified(n, e)
	case instNode:
		return instanceOf(ev.eval(n.x, e), n.t)
	}
	return ev.fail(fmt.Errorf("feel: internal error: unknown node %T", n))
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
		return cmpOp(t.op, x, ev.eval(t.x, e))
	case rangeNode:
		r := ev.eval(t, e)
		if r == nil {
			return nil // endpoints of mismatched types
		}
		return matches(x, r)
	}
	return matches(x, ev.eval(t, e))
}

// matches applies a test value: a range by containment, a list by
// membership (or equality, when x is itself a list), anything else by
// equality.
func matches(x, tv any) any {
	switch t := tv.(type) {
	case *Range:
		return inRange(x, t)
	case []any:
		if _, isList := x.([]any); isList {
			if equal(x, t, 0) == true {
				return true
			}
		}
		var res any = false
		for _, el := range t {
			el = norm(el)
			var m any
			if r, ok := el.(*Range); ok {
				m = inRange(x, r)
			} else {
				m = equal(x, el, 0)
			}
			res = or3(res, m)
			if res == true {
				return true
			}
		}
		return res
	}
	return equal(x, tv, 0)
}

// path reads name from a context, or a property of a temporal value or a
// range; over a list it maps the path over the elements. Anything else
// gives null.
func path(v any, name string) any {
	switch x := v.(type) {
	case map[string]any:
		return norm(x[name])
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = path(norm(el), name)
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
		r, _ := temporalProp(x, name)
		return r
	}
	return nil
}

// filter evaluates x[f]. A number indexes (1-based, negative from the
// end); otherwise f is evaluated per element with `item` and the
// element's context entries in scope, keeping elements where it is true.
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
	if idx, ok := ev.eval(n.f, e).(*apd.Decimal); ok {
		return index(list, idx)
	}
	out := []any{}
	for _, el := range list {
		if !ev.tick(1) {
			return nil
		}
		el = norm(el)
		inner := e
		if m, ok := el.(map[string]any); ok {
			inner = &env{vars: m, parent: e}
		}
		if ev.eval(n.f, inner.with("item", el)) == true {
			out = append(out, el)
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

func (ev *evaluator) arith(op string, a, b any) any {
	if op == "+" {
		if x, ok := a.(string); ok {
			y, ok := b.(string)
			if !ok {
				return nil
			}
			if len(x)+len(y) > maxStringLen {
				return ev.fail(errStringTooLong)
			}
			if !ev.tick((len(x) + len(y)) >> 8) {
				return nil
			}
			return x + y
		}
	}
	x, ok1 := a.(*apd.Decimal)
	y, ok2 := b.(*apd.Decimal)
	if !ok1 || !ok2 {
		if a == nil || b == nil {
			return nil
		}
		return temporalArith(op, a, b)
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
			return nil
		}
		cond, err = decCtx.Quo(z, x, y)
	case "**":
		cond, err = pow(z, x, y)
	default:
		return nil
	}
	return decResult(z, cond, err)
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
