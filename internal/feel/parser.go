package feel

import (
	"fmt"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// node is an AST node. The AST is built once by Compile and never
// modified afterwards, which is what makes a Program safe to share.
type node interface{ isNode() }

type (
	// litNode is a constant: nil, bool, string or *apd.Decimal.
	litNode struct{ v any }
	// nameNode reads a variable.
	nameNode struct{ name string }
	// pathNode reads x.name.
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
	// appears among the tests of an inNode.
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
	// callNode calls a built-in function.
	callNode struct {
		fn   *builtin
		args []node
	}
)

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

// parser is a recursive-descent parser over a token slice. Precedence,
// lowest first: if; or; and; comparison (= != < <= > >=, between, in);
// + -; * /; **; unary -; postfix (.name, [filter]); primary.
type parser struct {
	toks  []token
	i     int
	depth int
}

// parse builds the AST of a whole expression.
func parse(toks []token) (node, error) {
	p := &parser{toks: toks}
	if p.peek().kind == tokEOF {
		return nil, errorAt(0, "empty expression")
	}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.unexpected(t)
	}
	return n, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

// peekAt returns the token k places ahead, or the final EOF token.
func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) unexpected(t token) error { return errorAt(t.pos, "unexpected "+t.describe()) }

// expect consumes the punctuation s or fails.
func (p *parser) expect(s string) error {
	t := p.peek()
	if !t.isPunct(s) {
		return errorAt(t.pos, fmt.Sprintf("expected %q, found %s", s, t.describe()))
	}
	p.i++
	return nil
}

// expectWord consumes the keyword w or fails.
func (p *parser) expectWord(w string) error {
	t := p.peek()
	if !t.isWord(w) {
		return errorAt(t.pos, fmt.Sprintf("expected %q, found %s", w, t.describe()))
	}
	p.i++
	return nil
}

// enter counts one level of nesting; every enter is paired with leave.
func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return errorAt(p.peek().pos, fmt.Sprintf("expression nested too deeply (limit %d)", MaxDepth))
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// expr parses a full expression.
func (p *parser) expr() (node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if p.peek().isWord("if") {
		return p.ifExpr()
	}
	return p.disjunction()
}

func (p *parser) ifExpr() (node, error) {
	p.next() // if
	c, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expectWord("then"); err != nil {
		return nil, err
	}
	a, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expectWord("else"); err != nil {
		return nil, err
	}
	b, err := p.expr()
	if err != nil {
		return nil, err
	}
	return ifNode{c, a, b}, nil
}

func (p *parser) disjunction() (node, error) {
	l, err := p.conjunction()
	if err != nil {
		return nil, err
	}
	for p.peek().isWord("or") {
		p.next()
		r, err := p.conjunction()
		if err != nil {
			return nil, err
		}
		l = logicNode{and: false, l: l, r: r}
	}
	return l, nil
}

func (p *parser) conjunction() (node, error) {
	l, err := p.comparison()
	if err != nil {
		return nil, err
	}
	for p.peek().isWord("and") {
		p.next()
		r, err := p.comparison()
		if err != nil {
			return nil, err
		}
		l = logicNode{and: true, l: l, r: r}
	}
	return l, nil
}

func isCmpOp(t token) bool {
	if t.kind != tokPunct {
		return false
	}
	switch t.text {
	case "=", "!=", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// comparison parses one (non-associative) comparison, between or in.
func (p *parser) comparison() (node, error) {
	l, err := p.additive()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	switch {
	case isCmpOp(t):
		p.next()
		r, err := p.additive()
		if err != nil {
			return nil, err
		}
		return cmpNode{op: t.text, l: l, r: r}, nil
	case t.isWord("between"):
		p.next()
		lo, err := p.additive()
		if err != nil {
			return nil, err
		}
		if err := p.expectWord("and"); err != nil {
			return nil, err
		}
		hi, err := p.additive()
		if err != nil {
			return nil, err
		}
		return betweenNode{x: l, lo: lo, hi: hi}, nil
	case t.isWord("in"):
		p.next()
		tests, err := p.inTests()
		if err != nil {
			return nil, err
		}
		return inNode{x: l, tests: tests}, nil
	}
	return l, nil
}

// inTests parses the right side of `in`: one positive unary test, or a
// parenthesised comma list of them. A '(' may also open a range such as
// (1..10], which is recognised by the '..' after its first endpoint.
func (p *parser) inTests() ([]node, error) {
	if !p.peek().isPunct("(") {
		n, err := p.unaryTest(false)
		if err != nil {
			return nil, err
		}
		return []node{n}, nil
	}
	p.next() // (
	first, err := p.unaryTest(true)
	if err != nil {
		return nil, err
	}
	if _, isTest := first.(testCmpNode); !isTest && p.peek().isPunct("..") {
		r, err := p.rangeRest(first, false)
		if err != nil {
			return nil, err
		}
		return []node{r}, nil
	}
	tests := []node{first}
	for p.peek().isPunct(",") {
		p.next()
		n, err := p.unaryTest(true)
		if err != nil {
			return nil, err
		}
		tests = append(tests, n)
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	return tests, nil
}

// unaryTest parses `< e`, `<= e`, `> e`, `>= e` or an expression (whose
// value is then matched: a range or list by containment, else by equality).
// Inside parentheses the expression may be a full one; outside, it stops
// before `and`/`or` so that `x in [1,2] and y` groups as expected.
func (p *parser) unaryTest(full bool) (node, error) {
	t := p.peek()
	if t.kind == tokPunct && (t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">=") {
		p.next()
		x, err := p.additive()
		if err != nil {
			return nil, err
		}
		return testCmpNode{op: t.text, x: x}, nil
	}
	if full {
		return p.expr()
	}
	return p.additive()
}

func (p *parser) additive() (node, error) {
	l, err := p.multiplicative()
	if err != nil {
		return nil, err
	}
	for t := p.peek(); t.isPunct("+") || t.isPunct("-"); t = p.peek() {
		p.next()
		r, err := p.multiplicative()
		if err != nil {
			return nil, err
		}
		l = arithNode{op: t.text, l: l, r: r}
	}
	return l, nil
}

func (p *parser) multiplicative() (node, error) {
	l, err := p.power()
	if err != nil {
		return nil, err
	}
	for t := p.peek(); t.isPunct("*") || t.isPunct("/"); t = p.peek() {
		p.next()
		r, err := p.power()
		if err != nil {
			return nil, err
		}
		l = arithNode{op: t.text, l: l, r: r}
	}
	return l, nil
}

func (p *parser) power() (node, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.peek().isPunct("**") {
		p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = arithNode{op: "**", l: l, r: r}
	}
	return l, nil
}

// unary parses arithmetic negation. It binds tighter than ** because FEEL
// numeric literals carry their sign: -2 ** 2 is (-2) ** 2.
func (p *parser) unary() (node, error) {
	if !p.peek().isPunct("-") {
		return p.postfix()
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	p.next()
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	if lit, ok := x.(litNode); ok {
		if d, ok := lit.v.(*apd.Decimal); ok {
			return litNode{v: new(apd.Decimal).Neg(d)}, nil
		}
	}
	return negNode{x: x}, nil
}

func (p *parser) postfix() (node, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		switch {
		case t.isPunct("."):
			p.next()
			n := p.peek()
			if n.kind != tokName {
				return nil, errorAt(n.pos, "expected a name after \".\", found "+n.describe())
			}
			p.next()
			x = pathNode{x: x, name: n.text}
		case t.isPunct("[") && startsExpr(p.peekAt(1)):
			p.next()
			f, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			x = filterNode{x: x, f: f}
		case t.isPunct("("):
			return nil, errorAt(t.pos, "unexpected \"(\": only built-in functions can be called")
		default:
			return x, nil
		}
	}
}

// startsExpr reports whether t can begin an expression. A '[' after an
// operand opens a filter only when an expression follows; otherwise it is
// the closing bracket of a range such as ]1..10[ or [1..10[.
func startsExpr(t token) bool {
	switch t.kind {
	case tokNumber, tokString:
		return true
	case tokName:
		return !t.isKeyword() || t.text == "true" || t.text == "false" || t.text == "null" || t.text == "if"
	case tokPunct:
		switch t.text {
		case "(", "[", "{", "-", "<", "<=", ">", ">=":
			return true
		}
	}
	return false
}

func (p *parser) primary() (node, error) {
	t := p.peek()
	switch t.kind {
	case tokNumber:
		p.next()
		d, _, err := apd.NewFromString(t.text)
		if err != nil {
			return nil, errorAt(t.pos, "invalid number "+t.text)
		}
		r := new(apd.Decimal)
		if _, err := decCtx.Round(r, d); err != nil {
			return nil, errorAt(t.pos, "number out of range: "+t.text)
		}
		return litNode{v: r}, nil
	case tokString:
		p.next()
		return litNode{v: t.text}, nil
	case tokName:
		switch t.text {
		case "true":
			p.next()
			return litNode{v: true}, nil
		case "false":
			p.next()
			return litNode{v: false}, nil
		case "null":
			p.next()
			return litNode{v: nil}, nil
		}
		return p.nameOrCall()
	case tokPunct:
		switch t.text {
		case "(":
			return p.parenOrRange()
		case "[":
			return p.listOrRange()
		case "]":
			p.next()
			lo, err := p.expr()
			if err != nil {
				return nil, err
			}
			return p.rangeRest(lo, false)
		case "{":
			return p.context()
		}
	}
	return nil, p.unexpected(t)
}

// rangeRest parses `.. hi` and the closing bracket of a range whose start
// (lo, open or closed) has been read.
func (p *parser) rangeRest(lo node, loClosed bool) (node, error) {
	if err := p.expect(".."); err != nil {
		return nil, err
	}
	hi, err := p.expr()
	if err != nil {
		return nil, err
	}
	t := p.next()
	switch {
	case t.isPunct("]"):
		return rangeNode{lo: lo, hi: hi, loClosed: loClosed, hiClosed: true}, nil
	case t.isPunct("["), t.isPunct(")"):
		return rangeNode{lo: lo, hi: hi, loClosed: loClosed, hiClosed: false}, nil
	}
	return nil, errorAt(t.pos, "expected \"]\", \"[\" or \")\" to close the range, found "+t.describe())
}

func (p *parser) parenOrRange() (node, error) {
	p.next() // (
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.peek().isPunct("..") {
		return p.rangeRest(e, false)
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	return e, nil
}

func (p *parser) listOrRange() (node, error) {
	p.next() // [
	if p.peek().isPunct("]") {
		p.next()
		return listNode{}, nil
	}
	first, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.peek().isPunct("..") {
		return p.rangeRest(first, true)
	}
	elems := []node{first}
	for p.peek().isPunct(",") {
		p.next()
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
	}
	if err := p.expect("]"); err != nil {
		return nil, err
	}
	return listNode{elems: elems}, nil
}

// context parses {key: value, "other key": value}. A key is a string
// literal or one or more words.
func (p *parser) context() (node, error) {
	p.next() // {
	var c ctxNode
	if p.peek().isPunct("}") {
		p.next()
		return c, nil
	}
	seen := map[string]bool{}
	for {
		t := p.peek()
		var key string
		switch t.kind {
		case tokString:
			p.next()
			key = t.text
		case tokName:
			words := []string{p.next().text}
			for p.peek().kind == tokName {
				words = append(words, p.next().text)
			}
			key = strings.Join(words, " ")
		default:
			return nil, errorAt(t.pos, "expected a context key, found "+t.describe())
		}
		if seen[key] {
			return nil, errorAt(t.pos, fmt.Sprintf("duplicate context key %q", key))
		}
		seen[key] = true
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		c.keys = append(c.keys, key)
		c.vals = append(c.vals, v)
		if p.peek().isPunct(",") {
			p.next()
			continue
		}
		if err := p.expect("}"); err != nil {
			return nil, err
		}
		return c, nil
	}
}

// nameOrCall parses a variable name or a call of a built-in function. A
// function name may span several words ("string length"): the longest run
// of words that names a built-in and is followed by '(' wins.
func (p *parser) nameOrCall() (node, error) {
	t := p.peek()
	// Longest built-in name followed by '('.
	best := -1
	name := t.text
	for k := 0; ; k++ {
		if k > 0 {
			name += " " + p.peekAt(k).text
		}
		if builtins[name] != nil && p.peekAt(k+1).isPunct("(") {
			best = k
		}
		if !builtinPrefixes[name] || p.peekAt(k+1).kind != tokName {
			break
		}
	}
	if best >= 0 {
		words := make([]string, 0, best+1)
		for k := 0; k <= best; k++ {
			words = append(words, p.peekAt(k).text)
		}
		p.i += best + 1
		return p.call(t, builtins[strings.Join(words, " ")])
	}
	if t.isKeyword() {
		return nil, p.unexpected(t)
	}
	// Words followed by '(' that name no built-in: an unknown function.
	k := 0
	for p.peekAt(k+1).kind == tokName && !p.peekAt(k+1).isKeyword() {
		k++
	}
	if p.peekAt(k + 1).isPunct("(") {
		words := make([]string, 0, k+1)
		for j := 0; j <= k; j++ {
			words = append(words, p.peekAt(j).text)
		}
		return nil, errorAt(t.pos, fmt.Sprintf("unknown function %q", strings.Join(words, " ")))
	}
	p.next()
	return nameNode{name: t.text}, nil
}

// call parses the argument list of fn; the '(' is next.
func (p *parser) call(nameTok token, fn *builtin) (node, error) {
	p.next() // (
	var args []node
	if !p.peek().isPunct(")") {
		for {
			a, err := p.expr()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if !p.peek().isPunct(",") {
				break
			}
			p.next()
		}
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	if len(args) < fn.min || (fn.max >= 0 && len(args) > fn.max) {
		return nil, errorAt(nameTok.pos, fmt.Sprintf("function %q takes %s, got %d", fn.name, fn.arity(), len(args)))
	}
	return callNode{fn: fn, args: args}, nil
}
