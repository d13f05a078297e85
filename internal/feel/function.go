package feel

import (
	"slices"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// Function is a FEEL function value: a user-defined function, or one the
// caller puts in the Scope (a DMN business knowledge model, say). FEEL
// calls it positionally, or with named arguments mapped to positions
// through Params (missing ones are null).
//
// Call receives arguments in the form EvalValue returns (numbers as
// json.Number, temporal values, ranges, functions, []any,
// map[string]any) and may return anything a Scope may hold. An error
// aborts the evaluation that made the call.
type Function interface {
	Params() []string
	Call(args []any) (any, error)
}

// lambda is a function defined in FEEL: function(a, b) a + b. It closes
// over the bindings in force where it was defined.
type lambda struct {
	params []string
	body   node
	env    *env
	now    func() time.Time
}

// Params returns the parameter names.
func (l *lambda) Params() []string { return slices.Clone(l.params) }

// Call evaluates the function body with args bound to the parameters.
// It lets a function returned by EvalValue be called from Go.
func (l *lambda) Call(args []any) (any, error) {
	ev := &evaluator{now: l.now}
	in := make([]any, len(args))
	for i, a := range args {
		in[i] = norm(a)
	}
	v := ev.callLambda(l, in)
	if ev.err != nil {
		return nil, ev.err
	}
	return exportNative(v, 0)
}

// callLambda binds args (internal values) and evaluates the body. A
// wrong number of arguments gives null.
func (ev *evaluator) callLambda(l *lambda, args []any) any {
	if len(args) != len(l.params) {
		return nil
	}
	if !ev.tick(1) {
		return nil
	}
	if ev.calls >= maxCallDepth {
		return ev.fail(errCallsTooDeep)
	}
	ev.calls++
	defer func() { ev.calls-- }()
	vars := make(map[string]any, len(args))
	for i, p := range l.params {
		vars[p] = args[i]
	}
	return ev.eval(l.body, &env{vars: vars, parent: l.env})
}

// call invokes a function value f. names, when not nil, names each
// argument; they are mapped to positions through the parameters.
func (ev *evaluator) call(f any, args []any, names []string) any {
	if ev.err != nil {
		return nil
	}
	fn, ok := f.(Function)
	if !ok {
		return nil
	}
	if names != nil {
		params := fn.Params()
		pos := make([]any, len(params))
		for i, n := range names {
			j := slices.Index(params, n)
			if j < 0 {
				return nil
			}
			pos[j] = args[i]
		}
		args = pos
	}
	if l, ok := fn.(*lambda); ok {
		return ev.callLambda(l, args)
	}
	if !ev.tick(1) || (names == nil && len(args) != len(fn.Params())) {
		return nil
	}
	ext := make([]any, len(args))
	for i, a := range args {
		v, err := exportNative(a, 0)
		if err != nil {
			return ev.fail(err)
		}
		ext[i] = v
	}
	r, err := fn.Call(ext)
	if err != nil {
		return ev.fail(err)
	}
	return norm(r)
}

// iterate runs body once per combination of the iterators' values (the
// first iterator outermost), with the variables bound. It returns false
// when a domain is not iterable or the step budget is gone.
func (ev *evaluator) iterate(iters []iterator, e *env, body func(*env) bool) bool {
	if len(iters) == 0 {
		return body(e)
	}
	it := iters[0]
	var items []any
	if it.hi != nil {
		lo, hi := ev.eval(it.domain, e), ev.eval(it.hi, e)
		seq, ok := intSeq(lo, hi, true, true)
		if !ok {
			return false
		}
		items = seq
	} else {
		switch d := ev.eval(it.domain, e).(type) {
		case []any:
			items = d
		case *Range:
			seq, ok := intSeq(d.lo, d.hi, d.loClosed, d.hiClosed)
			if !ok {
				return false
			}
			items = seq
		case nil:
			return false
		default:
			items = []any{d}
		}
	}
	for _, v := range items {
		if !ev.tick(1) {
			return false
		}
		if !ev.iterate(iters[1:], e.with(it.name, norm(v)), body) {
			return false
		}
	}
	return true
}

// intSeq lists the integers from lo to hi (descending when hi < lo).
func intSeq(lo, hi any, loClosed, hiClosed bool) ([]any, bool) {
	a, ok1 := intArg(lo)
	b, ok2 := intArg(hi)
	if !ok1 || !ok2 {
		return nil, false
	}
	step := 1
	if b < a {
		step = -1
	}
	if !loClosed {
		a += step
	}
	if !hiClosed {
		b -= step
	}
	n := (b-a)*step + 1
	if n <= 0 {
		return []any{}, true
	}
	if n > maxSteps {
		return nil, false
	}
	out := make([]any, 0, n)
	for i := a; ; i += step {
		out = append(out, intDec(i))
		if i == b {
			break
		}
	}
	return out, true
}

func (ev *evaluator) forLoop(n forNode, e *env) any {
	out := []any{}
	ok := ev.iterate(n.iters, e, func(inner *env) bool {
		out = append(out, ev.eval(n.body, inner.with("partial", out[:len(out):len(out)])))
		return ev.err == nil
	})
	if !ok {
		return nil
	}
	return out
}

func (ev *evaluator) quantified(n quantNode, e *env) any {
	found := false
	ok := ev.iterate(n.iters, e, func(inner *env) bool {
		c := ev.eval(n.cond, inner) == true
		if c != n.every {
			found = true
			return false
		}
		return true
	})
	if found {
		return !n.every
	}
	if !ok {
		return nil
	}
	return n.every
}

// instanceOf implements `v instance of t`.
func instanceOf(v any, t *feelType) any {
	if t.kind == "Null" {
		return v == nil
	}
	if v == nil {
		return false
	}
	switch t.kind {
	case "Any":
		return true
	case "list":
		l, ok := v.([]any)
		if !ok {
			return false
		}
		if t.elem != nil {
			for _, el := range l {
				if el = norm(el); el != nil && instanceOf(el, t.elem) != true {
					return false
				}
			}
		}
		return true
	case "context":
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for i, k := range t.keys {
			fv, ok := m[k]
			if !ok {
				return false
			}
			if fv = norm(fv); fv != nil && instanceOf(fv, t.fields[i]) != true {
				return false
			}
		}
		return true
	case "range":
		r, ok := v.(*Range)
		if !ok {
			return false
		}
		if t.elem != nil {
			for _, ep := range []any{r.lo, r.hi} {
				if ep != nil && instanceOf(ep, t.elem) != true {
					return false
				}
			}
		}
		return true
	case "function":
		_, ok := v.(Function)
		return ok
	case "number":
		_, ok := v.(*apd.Decimal)
		return ok
	}
	return typeName(v) == t.kind
}
