package feel

import (
	"errors"
	"fmt"
	"sort"

	"github.com/cockroachdb/apd/v3"
)

// env is a chain of name bindings: context-literal entries and filter
// items on top of the caller's Scope.
type env struct {
	vars   map[string]any
	parent *env
	root   Scope
}

func (e *env) lookup(name string) any {
	for ; e != nil; e = e.parent {
		if e.vars != nil {
			if v, ok := e.vars[name]; ok {
				return v
			}
			continue
		}
		if e.root != nil {
			if v, ok := e.root.Lookup(name); ok {
				return norm(v)
			}
		}
	}
	return nil
}

// evaluator holds the state of one Eval call. FEEL reports most problems
// as null; err records the few that abort evaluation (resource limits).
type evaluator struct {
	err error
}

var errStringTooLong = fmt.Errorf("feel: string longer than %d bytes", maxStringLen)

func (ev *evaluator) fail(err error) any {
	if ev.err == nil {
		ev.err = err
	}
	return nil
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
		d, ok := ev.eval(n.x, e).(*apd.Decimal)
		if !ok {
			return nil
		}
		return new(apd.Decimal).Neg(d)
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
		x := ev.eval(n.x, e)
		var res any = false
		for _, t := range n.tests {
			res = or3(res, ev.test(x, t, e))
			if res == true {
				return true
			}
		}
		return res
	case testCmpNode:
		// Only reachable inside inNode, which calls test; a bare one is null.
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
		return &rangeVal{lo: lo, hi: hi, loClosed: n.loClosed, hiClosed: n.hiClosed}
	case callNode:
		args := make([]any, len(n.args))
		for i, a := range n.args {
			args[i] = ev.eval(a, e)
		}
		return n.fn.fn(ev, args)
	}
	return ev.fail(fmt.Errorf("feel: internal error: unknown node %T", n))
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
// membership, anything else by equality.
func matches(x, tv any) any {
	switch t := tv.(type) {
	case *rangeVal:
		return inRange(x, t)
	case []any:
		var res any = false
		for _, el := range t {
			el = norm(el)
			var m any
			if r, ok := el.(*rangeVal); ok {
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

// path reads name from a context; over a list it maps the path over the
// elements. Anything else gives null.
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
		el = norm(el)
		vars := map[string]any{"item": el}
		if m, ok := el.(map[string]any); ok {
			for k, v := range m {
				if k != "item" {
					vars[k] = v
				}
			}
		}
		if ev.eval(n.f, &env{vars: vars, parent: e}) == true {
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
			return x + y
		}
	}
	x, ok1 := a.(*apd.Decimal)
	y, ok2 := b.(*apd.Decimal)
	if !ok1 || !ok2 {
		return nil
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
