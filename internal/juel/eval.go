package juel

import (
	"errors"
)

// node is a node of the syntax tree of one eval expression.
type node interface {
	info() *at
	// eval returns the node's value: a scope value as it is, or a literal
	// or computed value (*number for numbers).
	eval(ev *env) (any, error)
}

// at is what every node carries: its 0-based byte offset in the source
// (for errors) and its depth in the tree (for MaxDepth).
type at struct {
	pos   int
	depth int
}

func (a *at) info() *at { return a }

// env is the state of one evaluation.
type env struct {
	scope Scope
	src   string
}

// fail turns err into an *Error at n's position, unless it already is one.
func (ev *env) fail(n node, err error) error {
	var je *Error
	if errors.As(err, &je) {
		return err
	}
	return &Error{Src: ev.src, Pos: n.info().pos + 1, Msg: err.Error()}
}

type litNode struct {
	at
	val any // nil, bool, string or *number
}

func (n *litNode) eval(*env) (any, error) { return n.val, nil }

type identNode struct {
	at
	name string
}

func (n *identNode) eval(ev *env) (any, error) {
	if ev.scope != nil {
		if v, ok := ev.scope.Lookup(n.name); ok {
			return v, nil
		}
	}
	return nil, &Error{Src: ev.src, Pos: n.pos + 1, Msg: "cannot resolve identifier '" + n.name + "'", Err: ErrUnknownIdentifier}
}

// dotNode is base.name, the same as base['name'].
type dotNode struct {
	at
	base node
	name string
}

func (n *dotNode) eval(ev *env) (any, error) {
	b, err := n.base.eval(ev)
	if err != nil || b == nil {
		return nil, err
	}
	v, err := property(b, n.name)
	if err != nil {
		return nil, ev.fail(n, err)
	}
	return v, nil
}

// indexNode is base[index].
type indexNode struct {
	at
	base, index node
}

func (n *indexNode) eval(ev *env) (any, error) {
	b, err := n.base.eval(ev)
	if err != nil || b == nil {
		return nil, err
	}
	i, err := n.index.eval(ev)
	if err != nil || i == nil {
		return nil, err
	}
	v, err := property(b, i)
	if err != nil {
		return nil, ev.fail(n, err)
	}
	return v, nil
}

// property resolves base[prop] for a non-null base and property, as
// Camunda's resolvers do: a map yields the entry under a string key or
// null (Java's Map.get is type-strict, so a number finds no string key);
// a list coerces the property to an int index (a number's intValue, a
// string by Integer.valueOf, a boolean as 1 or 0) and yields null out of
// range; any other base has no properties gobpm can read.
func property(base, prop any) (any, error) {
	switch b := base.(type) {
	case map[string]any:
		k, ok := prop.(string)
		if !ok {
			return nil, nil
		}
		return b[k], nil
	case []any:
		i, err := listIndex(prop)
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(b)) {
			return nil, nil
		}
		return b[i], nil
	}
	name, err := coerceString(prop)
	if err != nil {
		return nil, err
	}
	return nil, failf("property %s not found on %s", quote(name), describe(base))
}

// listIndex is ListELResolver's coercion of a property to an index.
func listIndex(prop any) (int64, error) {
	switch x := prop.(type) {
	case string:
		i, err := parseJavaInt(x)
		if err != nil {
			return 0, failf("cannot parse list index %s", quote(x))
		}
		return i, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	num, ok, err := toNumber(prop)
	if err != nil {
		return 0, failf("%v", err)
	}
	if !ok {
		return 0, failf("cannot coerce %s to a list index", describe(prop))
	}
	return num.intValue(), nil
}

// methodNode is base.name(args).
type methodNode struct {
	at
	base node
	name string
	args []node
}

func (n *methodNode) eval(ev *env) (any, error) {
	b, err := n.base.eval(ev)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, ev.fail(n, failf("cannot call %s() on null", n.name))
	}
	args := make([]any, len(n.args))
	for i, a := range n.args {
		if args[i], err = a.eval(ev); err != nil {
			return nil, err
		}
	}
	v, err := call(n.name, b, args)
	if err != nil {
		return nil, ev.fail(n, err)
	}
	return v, nil
}

// execPropNode is execution.processInstanceId or
// execution.processBusinessKey (or their getters).
type execPropNode struct {
	at
	businessKey bool
}

func (n *execPropNode) eval(ev *env) (any, error) {
	x, ok := ev.scope.(Execution)
	if !ok {
		return nil, ev.fail(n, failf("execution is not available: the expression is not evaluated for a process instance"))
	}
	id, key := x.Execution()
	if !n.businessKey {
		return id, nil
	}
	if key == "" {
		return nil, nil
	}
	return key, nil
}

// execVarNode is execution.getVariable(name), null for a missing variable
// as in Camunda, or execution.hasVariable(name).
type execVarNode struct {
	at
	has  bool
	name node
}

func (n *execVarNode) eval(ev *env) (any, error) {
	v, err := n.name.eval(ev)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, ev.fail(n, failf("the variable name passed to execution.%s is null", n.method()))
	}
	name, err := coerceString(v)
	if err != nil {
		return nil, ev.fail(n, err)
	}
	var val any
	found := false
	if ev.scope != nil {
		val, found = ev.scope.Lookup(name)
	}
	if n.has {
		return found, nil
	}
	return val, nil
}

func (n *execVarNode) method() string {
	if n.has {
		return "hasVariable"
	}
	return "getVariable"
}

type unaryNode struct {
	at
	op   kind
	text string
	x    node
}

func (n *unaryNode) eval(ev *env) (any, error) {
	v, err := n.x.eval(ev)
	if err != nil {
		return nil, err
	}
	var r any
	switch n.op {
	case tEmpty:
		return isEmpty(v), nil
	case tNot:
		var b bool
		b, err = coerceBool(v)
		r = !b
	case tMinus:
		r, err = negate(v)
	}
	if err != nil {
		return nil, ev.fail(n, err)
	}
	return r, nil
}

// negate is EL's unary minus (1.7.5): null is 0, a number keeps its type,
// a string is read as a Double when it contains '.', 'e' or 'E' and as a
// Long otherwise.
func negate(v any) (any, error) {
	if v == nil {
		return newInt(0), nil
	}
	if s, ok := v.(string); ok {
		var num *number
		var err error
		if hasDotEe(s) {
			num, err = coerceDouble(s)
		} else {
			num, err = coerceLong(s)
		}
		if err != nil {
			return nil, err
		}
		return num.neg(), nil
	}
	num, ok, err := toNumber(v)
	if err != nil {
		return nil, failf("%v", err)
	}
	if !ok {
		return nil, failf("cannot negate %s", describe(v))
	}
	return num.neg(), nil
}

// logicNode is && / and (and true) or || / or (and false), which coerce
// each operand to Boolean and evaluate the right one only when needed.
type logicNode struct {
	at
	and  bool
	l, r node
}

func (n *logicNode) eval(ev *env) (any, error) {
	for _, side := range []node{n.l, n.r} {
		v, err := side.eval(ev)
		if err != nil {
			return nil, err
		}
		b, err := coerceBool(v)
		if err != nil {
			return nil, ev.fail(n, err)
		}
		if b != n.and {
			return b, nil
		}
	}
	return n.and, nil
}

// condNode is cond ? yes : no.
type condNode struct {
	at
	cond, yes, no node
}

func (n *condNode) eval(ev *env) (any, error) {
	v, err := n.cond.eval(ev)
	if err != nil {
		return nil, err
	}
	b, err := coerceBool(v)
	if err != nil {
		return nil, ev.fail(n, err)
	}
	if b {
		return n.yes.eval(ev)
	}
	return n.no.eval(ev)
}

// binaryNode is an arithmetic, relational or equality operator.
type binaryNode struct {
	at
	op   kind
	text string
	l, r node
}

func (n *binaryNode) eval(ev *env) (any, error) {
	a, err := n.l.eval(ev)
	if err != nil {
		return nil, err
	}
	b, err := n.r.eval(ev)
	if err != nil {
		return nil, err
	}
	var r any
	switch n.op {
	case tPlus, tMinus, tMul, tDiv, tMod:
		r, err = arithmetic(n.op, a, b)
	case tEq:
		r, err = equal(a, b)
	case tNe:
		var eq bool
		eq, err = equal(a, b)
		r = !eq
	default:
		r, err = relate(n.op, a, b)
	}
	if err != nil {
		return nil, ev.fail(n, failf("operator '%s': %v", n.text, err))
	}
	return r, nil
}
