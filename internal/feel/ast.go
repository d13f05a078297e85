package feel

// node is an AST node. The AST is built once by Compile and never
// modified afterwards, which is what makes a Program safe to share.
type node interface{ isNode() }

type (
	// litNode is a constant: nil, bool, string, *apd.Decimal or a temporal value.
	litNode struct{ v any }
	// nameNode reads a variable.
	nameNode struct{ name string }
	// pathNode reads x.name: a context entry, or a property of a date,
	// time, duration or range; over a list it maps over the elements.
	pathNode struct {
		x    node
		name string
	}
	// filterNode is x[f]: an index when f is a number, else a boolean filter.
	filterNode struct{ x, f node }
	// negNode is arithmetic negation.
	negNode struct{ x node }
	// arithNode is one of + - * / **.
	arithNode struct {
		op   string
		l, r node
	}
	// cmpNode is one of = != < <= > >=.
	cmpNode struct {
		op   string
		l, r node
	}
	// logicNode is `and` or `or`.
	logicNode struct {
		and  bool
		l, r node
	}
	// ifNode is if c then a else b.
	ifNode struct{ c, a, b node }
	// betweenNode is x between lo and hi.
	betweenNode struct{ x, lo, hi node }
	// inNode is x in tests: true when any test matches.
	inNode struct {
		x     node
		tests []node
	}
	// testCmpNode is a unary comparison test such as `>= 5`; it only
	// appears among unary tests (of an inNode or of UnaryTests).
	testCmpNode struct {
		op string
		x  node
	}
	// listNode is a list literal.
	listNode struct{ elems []node }
	// ctxNode is a context literal; later entries may use earlier keys.
	ctxNode struct {
		keys []string
		vals []node
	}
	// rangeNode is a range literal such as [1..10) or ]a..b[.
	rangeNode struct {
		lo, hi             node
		loClosed, hiClosed bool
	}
	// callNode calls a built-in function with positional arguments
	// (named ones are put in order at compile time; gaps are null).
	callNode struct {
		fn   *builtin
		args []node
		sig  int // the signature named arguments chose; -1: by count
	}
	// dynCallNode calls a function value: a user-defined function, a
	// business knowledge model from the scope, any Function.
	dynCallNode struct {
		fn    node
		args  []node
		names []string // parameter names of named arguments, or nil
	}
	// funcNode is a function definition.
	funcNode struct {
		params []string
		types  []*feelType // parameter types; nil entries are untyped
		body   node
	}
	// forNode is for v1 in d1, v2 in d2 … return body.
	forNode struct {
		iters   []iterator
		body    node
		partial bool // the body reads partial (the results so far)
	}
	// quantNode is some/every v in d … satisfies cond.
	quantNode struct {
		every bool
		iters []iterator
		cond  node
	}
	// instNode is x instance of t.
	instNode struct {
		x node
		t *feelType
	}
	// errNode stands for a part of the expression that cannot be
	// evaluated (a call of an unknown function, with a wrong argument
	// count): it yields null and the error msg (lenient compilation).
	errNode struct{ msg string }
)

// iterator is one `name in domain` of a for or quantified expression; hi
// is set for an integer range `lo..hi`.
type iterator struct {
	name   string
	domain node
	hi     node
}

// feelType is a type in `instance of`.
type feelType struct {
	kind   string      // number, string, …, list, context, range, function, Any, Null, or "named"
	name   string      // the type's name when kind is "named" (resolved by Options.Types)
	elem   *feelType   // list<T>, range<T>
	keys   []string    // context<k: T, …>
	fields []*feelType // context field types, function parameter types
	ret    *feelType   // function result type
	check  TypeFunc    // the named type's test (Options.Types); nil when unknown
}

// unresolved returns the first named type within t that Options.Types
// did not resolve, or "".
func (t *feelType) unresolved() string {
	if t == nil {
		return ""
	}
	if t.kind == "named" && t.check == nil {
		return t.name
	}
	for _, s := range append([]*feelType{t.elem, t.ret}, t.fields...) {
		if n := s.unresolved(); n != "" {
			return n
		}
	}
	return ""
}

func (litNode) isNode()     {}
func (nameNode) isNode()    {}
func (pathNode) isNode()    {}
func (filterNode) isNode()  {}
func (negNode) isNode()     {}
func (arithNode) isNode()   {}
func (cmpNode) isNode()     {}
func (logicNode) isNode()   {}
func (ifNode) isNode()      {}
func (betweenNode) isNode() {}
func (inNode) isNode()      {}
func (testCmpNode) isNode() {}
func (listNode) isNode()    {}
func (ctxNode) isNode()     {}
func (rangeNode) isNode()   {}
func (callNode) isNode()    {}
func (dynCallNode) isNode() {}
func (funcNode) isNode()    {}
func (forNode) isNode()     {}
func (quantNode) isNode()   {}
func (instNode) isNode()    {}
func (errNode) isNode()     {}
