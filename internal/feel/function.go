package feel

import (
	"fmt"
	"slices"
	"strings"
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

// OptionalParams is a Function whose trailing parameters may be left
// out of a positional call, as Camunda's connector functions allow
// (bpmnError(code, message) and bpmnError(code, message, variables)): such
// a call passes from MinArgs to len(Params()) arguments, and Call receives
// null for each one left out. Any other count is an evaluation error, as
// for every Function.
type OptionalParams interface {
	Function
	MinArgs() int
}

// arity describes the argument counts fn takes, for an error.
func arity(fn Function) string {
	n := len(fn.Params())
	if opt, ok := fn.(OptionalParams); ok && opt.MinArgs() < n {
		return fmt.Sprintf("%d to %d arguments", opt.MinArgs(), n)
	}
	return plural(n)
}

// lambda is a function defined in FEEL: function(a, b) a + b. It closes
// over the bindings in force where it was defined.
type lambda struct {
	params []string
	types  []*feelType // parameter types (nil: untyped)
	body   node
	env    *env
	now    func() time.Time
	limits Limits // those of the evaluation that made it, for calls from Go
}

// Params returns the parameter names.
func (l *lambda) Params() []string { return slices.Clone(l.params) }

// Call evaluates the function body with args bound to the parameters.
// It lets a function returned by EvalValue be called from Go.
func (l *lambda) Call(args []any) (any, error) {
	v, _, err := l.CallErrors(args)
	return v, err
}

// CallErrors calls the function like Call and also returns the runtime
// errors of the call (see Program.EvalErrors).
func (l *lambda) CallErrors(args []any) (any, []RuntimeError, error) {
	ev := newEvaluator(l.now, l.limits, false)
	in := make([]any, len(args))
	for i, a := range args {
		in[i] = norm(a)
	}
	v := ev.callLambda(l, in)
	if ev.err != nil {
		return nil, ev.runtimeErrors(), ev.err
	}
	out, err := ev.exportNative(v, 0)
	return out, ev.runtimeErrors(), err
}

// builtinFn is a built-in function used as a value (passed to a
// function, bound in a context): abs, sum.
type builtinFn struct {
	b      *builtin
	now    func() time.Time
	limits Limits // those of the evaluation that made it, for calls from Go
}

// Params returns the parameter names of the built-in's first signature.
func (f *builtinFn) Params() []string {
	out := make([]string, len(f.b.sigs[0]))
	for i, p := range f.b.sigs[0] {
		out[i] = p.name
	}
	return out
}

// Call calls the built-in.
func (f *builtinFn) Call(args []any) (any, error) {
	v, _, err := f.CallErrors(args)
	return v, err
}

// CallErrors calls the built-in and returns its runtime errors.
func (f *builtinFn) CallErrors(args []any) (any, []RuntimeError, error) {
	ev := newEvaluator(f.now, f.limits, false)
	v := ev.call(f, normList(args), nil)
	if ev.err != nil {
		return nil, ev.runtimeErrors(), ev.err
	}
	out, err := ev.exportNative(v, 0)
	return out, ev.runtimeErrors(), err
}

// ErrorsFunction is implemented by the functions FEEL defines (function
// definitions returned by EvalValue): CallErrors is Call that also
// returns the runtime errors of the call.
type ErrorsFunction interface {
	Function
	CallErrors(args []any) (any, []RuntimeError, error)
}

// callLambda binds args (internal values) and evaluates the body. A
// wrong number of arguments, or an argument that is not an instance of
// its parameter's type, gives null and an error.
func (ev *evaluator) callLambda(l *lambda, args []any) any {
	if len(args) != len(l.params) {
		return ev.errorf("the function takes %s, got %d", plural(len(l.params)), len(args))
	}
	for i, t := range l.types {
		if t != nil && args[i] != nil && ev.instanceOf(args[i], t) != true {
			return ev.errorf("argument %q is not a %s", l.params[i], t)
		}
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
		if f == nil {
			return ev.errorf("cannot call null: not a function")
		}
		return ev.errorf("cannot call a %s: not a function", typeName(f))
	}
	if names != nil {
		params := fn.Params()
		pos := make([]any, len(params))
		for i, n := range names {
			j := slices.Index(params, n)
			if j < 0 {
				return ev.errorf("the function has no parameter %q", n)
			}
			pos[j] = args[i]
		}
		args = pos
	}
	if l, ok := fn.(*lambda); ok {
		return ev.callLambda(l, args)
	}
	if bf, ok := fn.(*builtinFn); ok {
		if names == nil && (len(args) < bf.b.min || (bf.b.max >= 0 && len(args) > bf.b.max)) {
			return ev.errorf("function %q takes %s, got %d", bf.b.name, bf.b.arity(), len(args))
		}
		return ev.callBuiltin(bf.b, args, -1)
	}
	if !ev.tick(1) {
		return nil
	}
	if n := len(fn.Params()); names == nil && len(args) != n {
		opt, ok := fn.(OptionalParams)
		if !ok || len(args) < opt.MinArgs() || len(args) > n {
			return ev.errorf("the function takes %s, got %d", arity(fn), len(args))
		}
		args = append(slices.Clone(args), make([]any, n-len(args))...) // the left-out trailing ones are null
	}
	ext := make([]any, len(args))
	for i, a := range args {
		v, err := ev.exportNative(a, 0)
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
		seq, ok := ev.seq(lo, hi, true, true)
		if !ok {
			return false
		}
		items = seq
	} else {
		switch d := ev.eval(it.domain, e).(type) {
		case []any:
			items = d
		case *Range:
			if d.lo == nil || d.hi == nil || d.op != "" {
				ev.errorf("cannot iterate over an unbounded range")
				return false
			}
			seq, ok := ev.seq(d.lo, d.hi, d.loClosed, d.hiClosed)
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

// seq lists the integers, or the dates (day by day), from lo to hi
// (descending when hi < lo); other endpoints are an error.
func (ev *evaluator) seq(lo, hi any, loClosed, hiClosed bool) ([]any, bool) {
	if a, ok := lo.(Date); ok {
		b, ok := hi.(Date)
		if !ok {
			ev.errorf("cannot iterate from a date to a %s", typeName(hi))
			return nil, false
		}
		days, ok, tooMany := intSeq(intDec64(a.epochDays()), intDec64(b.epochDays()), loClosed, hiClosed, ev.left())
		if tooMany {
			ev.fail(ev.rangeTooLarge()) // a limit, never a null to branch on
			return nil, false
		}
		if !ok {
			ev.errorf("too many days to iterate over")
			return nil, false
		}
		for i, d := range days {
			n, _ := d.(*apd.Decimal).Int64()
			days[i], _ = dateFromDays(n)
		}
		return days, true
	}
	s, ok, tooMany := intSeq(lo, hi, loClosed, hiClosed, ev.left())
	if tooMany {
		ev.fail(ev.rangeTooLarge()) // a limit, never a null to branch on
		return nil, false
	}
	if !ok {
		ev.errorf("cannot iterate from a %s to a %s: only integers and dates can be iterated", typeName(lo), typeName(hi))
	}
	return s, ok
}

// intSeq lists the integers from lo to hi (descending when hi < lo).
// tooMany reports a sequence longer than the steps left of the
// evaluation's budget (each element costs one to iterate over), so that
// no sequence is built that could not be gone through.
func intSeq(lo, hi any, loClosed, hiClosed bool, left int) (out []any, ok, tooMany bool) {
	a, ok1 := intArg(lo)
	b, ok2 := intArg(hi)
	if !ok1 || !ok2 {
		return nil, false, false
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
		return []any{}, true, false
	}
	if n > left {
		return nil, false, true
	}
	out = make([]any, 0, n)
	for i := a; ; i += step {
		out = append(out, intDec(i))
		if i == b {
			break
		}
	}
	return out, true, false
}

func (ev *evaluator) forLoop(n forNode, e *env) any {
	out := []any{}
	ok := ev.iterate(n.iters, e, func(inner *env) bool {
		if n.partial {
			inner = inner.with("partial", out[:len(out):len(out)])
		}
		out = append(out, ev.eval(n.body, inner))
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

// instanceOf implements `v instance of t`: the type of v, with no
// conversion (1 is not an instance of list<number>, [1] not of number).
// null is an instance of Null only.
// It spends a step per value it looks at (the elements of a list<T>).
func (ev *evaluator) instanceOf(v any, t *feelType) any {
	if !ev.tick(1) {
		return nil
	}
	v = norm(v)
	if t.kind == "Null" {
		return v == nil
	}
	if v == nil {
		return false
	}
	switch t.kind {
	case "Any":
		return true
	case "named":
		if t.check == nil {
			return false
		}
		x, err := ev.exportNative(v, 0)
		return err == nil && t.check(x)
	case "list":
		l, ok := v.([]any)
		if !ok {
			return false
		}
		if t.elem != nil {
			for _, el := range l {
				if el = norm(el); el != nil && ev.instanceOf(el, t.elem) != true {
					return false
				}
			}
		}
		return true
	case "context":
		m, ok := v.(*ctxVal)
		if !ok {
			return false
		}
		for i, k := range t.keys {
			fv, ok := m.get(k)
			if !ok {
				return false
			}
			if fv != nil && ev.instanceOf(fv, t.fields[i]) != true {
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
				if ep != nil && ev.instanceOf(ep, t.elem) != true {
					return false
				}
			}
		}
		return true
	case "function":
		f, ok := v.(Function)
		if !ok {
			return false
		}
		if t.fields != nil && len(f.Params()) != len(t.fields) {
			return false
		}
		return true
	case "number":
		_, ok := v.(*apd.Decimal)
		return ok
	}
	return typeName(v) == t.kind
}

// String writes the type as FEEL spells it.
func (t *feelType) String() string {
	switch t.kind {
	case "named":
		return t.name
	case "list", "range":
		if t.elem != nil {
			return t.kind + "<" + t.elem.String() + ">"
		}
	case "context":
		if len(t.keys) > 0 {
			parts := make([]string, len(t.keys))
			for i, k := range t.keys {
				parts[i] = k + ": " + t.fields[i].String()
			}
			return "context<" + strings.Join(parts, ", ") + ">"
		}
	case "function":
		parts := make([]string, len(t.fields))
		for i, f := range t.fields {
			parts[i] = f.String()
		}
		s := "function<" + strings.Join(parts, ", ") + ">"
		if t.ret != nil {
			s += "->" + t.ret.String()
		}
		return s
	}
	return t.kind
}
