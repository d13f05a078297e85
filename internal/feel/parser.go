package feel

import (
	"fmt"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// parser is a recursive-descent parser over a token slice. Precedence,
// lowest first: if, for, some/every, function definitions; or; and;
// comparison (= != < <= > >=, between, in, instance of); + -; * /; **;
// unary -; postfix (.name, [filter], (arguments)); primary.
//
// Names: a run of adjacent words is one name. The parser prefers, longest
// first, a built-in function name followed by "(", then a name it knows
// (Options.Names, context keys, parameters, iteration variables), and
// otherwise joins the words up to the next keyword — two names side by
// side are never valid FEEL, so this reading is unambiguous.
type parser struct {
	src    string
	toks   []token
	i      int
	depth  int
	names  map[string]bool   // Options.Names, normalised
	scopes []map[string]bool // names bound by enclosing contexts, functions and iterators
	sawQ   bool              // a `?` was read (unary tests)
	// sawPartial: the name partial was read (in a for body).
	sawPartial bool
	types      func(name string) TypeFunc
	// lenient turns problems DMN reports at evaluation (a call of an
	// unknown function or with wrong arguments, an invalid temporal
	// literal, a duplicate context key, an unknown type) into errNodes,
	// noted in deferred.
	lenient  bool
	deferred []string
}

func newParser(src string, toks []token, names map[string]bool) *parser {
	return &parser{src: src, toks: toks, names: names}
}

// soft reports a problem that lenient compilation defers to evaluation:
// it returns an errNode (and records msg) when lenient, else the error.
func (p *parser) soft(pos int, msg string) (node, error) {
	if p.lenient {
		p.deferred = append(p.deferred, fmt.Sprintf("at %d: %s", pos+1, msg))
		return errNode{msg: msg}, nil
	}
	return nil, errorAt(pos, msg)
}

// parse builds the AST of a whole expression.
func (p *parser) parseAll() (node, error) {
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
	if !t.isWord(w) || t.known {
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

func (p *parser) push(names ...string) {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	p.scopes = append(p.scopes, m)
}

func (p *parser) pop() { p.scopes = p.scopes[:len(p.scopes)-1] }

// bind adds name to the innermost lexical scope.
func (p *parser) bind(name string) {
	if len(p.scopes) > 0 {
		p.scopes[len(p.scopes)-1][name] = true
	}
}

// lexical reports whether name is bound by an enclosing construct.
func (p *parser) lexical(name string) bool {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if p.scopes[i][name] {
			return true
		}
	}
	return false
}

func (p *parser) known(name string) bool { return p.names[name] || p.lexical(name) }

// expr parses a full expression.
func (p *parser) expr() (node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.peek()
	switch {
	case t.isWord("if") && !t.known:
		return p.ifExpr()
	case (t.isWord("for") || t.isWord("some") || t.isWord("every")) && !t.known && p.iterAhead():
		return p.iteration()
	case t.isWord("function") && !t.known && p.peekAt(1).isPunct("("):
		return p.funcDef()
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

// iterAhead reports whether the words after for/some/every end in `in`.
func (p *parser) iterAhead() bool {
	k := 1
	for p.peekAt(k).kind == tokName && !p.peekAt(k).isKeyword() {
		k++
	}
	return k > 1 && p.peekAt(k).isWord("in")
}

// iteration parses for … return, some … satisfies and every … satisfies.
func (p *parser) iteration() (node, error) {
	kw := p.next().text
	p.push()
	defer p.pop()
	var iters []iterator
	for {
		start := p.peek()
		var words []string
		for p.peek().kind == tokName && !p.peek().isKeyword() {
			words = append(words, p.next().text)
		}
		if len(words) == 0 {
			return nil, errorAt(start.pos, "expected an iteration variable, found "+start.describe())
		}
		if err := p.expectWord("in"); err != nil {
			return nil, err
		}
		dom, err := p.expr()
		if err != nil {
			return nil, err
		}
		it := iterator{name: strings.Join(words, " "), domain: dom}
		if p.peek().isPunct("..") {
			p.next()
			if it.hi, err = p.expr(); err != nil {
				return nil, err
			}
		}
		iters = append(iters, it)
		p.bind(it.name)
		if !p.peek().isPunct(",") {
			break
		}
		p.next()
	}
	if kw == "for" {
		if err := p.expectWord("return"); err != nil {
			return nil, err
		}
		p.push("partial")
		saved := p.sawPartial
		p.sawPartial = false
		body, err := p.expr()
		used := p.sawPartial
		p.sawPartial = saved
		p.pop()
		if err != nil {
			return nil, err
		}
		return forNode{iters: iters, body: body, partial: used}, nil
	}
	if err := p.expectWord("satisfies"); err != nil {
		return nil, err
	}
	cond, err := p.expr()
	if err != nil {
		return nil, err
	}
	return quantNode{every: kw == "every", iters: iters, cond: cond}, nil
}

// funcDef parses function(a, b: number) body.
func (p *parser) funcDef() (node, error) {
	p.next() // function
	p.next() // (
	var params []string
	var types []*feelType
	seen := map[string]bool{}
	if !p.peek().isPunct(")") {
		for {
			t := p.peek()
			var words []string
			for p.peek().kind == tokName && !p.peek().isKeyword() {
				words = append(words, p.next().text)
			}
			if len(words) == 0 {
				return nil, errorAt(t.pos, "expected a parameter name, found "+t.describe())
			}
			name := strings.Join(words, " ")
			if seen[name] {
				return nil, errorAt(t.pos, fmt.Sprintf("duplicate parameter %q", name))
			}
			seen[name] = true
			params = append(params, name)
			var typ *feelType
			if p.peek().isPunct(":") {
				p.next()
				var err error
				if typ, err = p.parseType(); err != nil {
					return nil, err
				}
			}
			types = append(types, typ)
			if !p.peek().isPunct(",") {
				break
			}
			p.next()
		}
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	if t := p.peek(); t.isWord("external") {
		p.next()
		// The body is the context naming a Java method (or PMML model):
		// parsed, then refused when the function is defined.
		if _, err := p.expr(); err != nil {
			return nil, err
		}
		return p.soft(t.pos, "external functions (Java, PMML) are not supported")
	}
	p.push(params...)
	body, err := p.expr()
	p.pop()
	if err != nil {
		return nil, err
	}
	for _, t := range types {
		if t != nil {
			return funcNode{params: params, types: types, body: body}, nil
		}
	}
	return funcNode{params: params, body: body}, nil
}

func (p *parser) disjunction() (node, error) {
	l, err := p.conjunction()
	if err != nil {
		return nil, err
	}
	for p.peek().isWord("or") && !p.peek().known {
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
	for p.peek().isWord("and") && !p.peek().known {
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

// instanceOfAhead reports whether `instance of` starts at offset k.
func (p *parser) instanceOfAhead(k int) bool {
	a, b := p.peekAt(k), p.peekAt(k+1)
	return a.isWord("instance") && !a.known && b.isWord("of") && !b.known
}

// comparison parses one (non-associative) comparison, between, in or
// instance of.
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
	case t.isWord("between") && !t.known:
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
	case t.isWord("in") && !t.known:
		p.next()
		tests, err := p.inTests()
		if err != nil {
			return nil, err
		}
		return inNode{x: l, tests: tests}, nil
	case p.instanceOfAhead(0):
		p.next()
		p.next()
		pos := p.peek().pos
		typ, err := p.parseType()
		if err != nil {
			return nil, err
		}
		if bad := typ.unresolved(); bad != "" {
			return p.soft(pos, fmt.Sprintf("unknown type %q", bad))
		}
		return instNode{x: l, t: typ}, nil
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

// unaryTest parses `< e`, `<= e`, `> e`, `>= e`, `= e`, `!= e` or an
// expression (whose value is then matched: a range or list by
// containment, else by equality). With full the expression may be a whole
// one; otherwise it stops before `and`/`or` so that `x in [1,2] and y`
// groups as expected.
func (p *parser) unaryTest(full bool) (node, error) {
	t := p.peek()
	if isCmpOp(t) {
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

// pathName reads the (possibly multi-word) name after a ".".
func (p *parser) pathName() (string, error) {
	n := p.peek()
	if n.kind != tokName || n.isKeyword() {
		return "", errorAt(n.pos, "expected a name after \".\", found "+n.describe())
	}
	words := []string{p.next().text}
	for t := p.peek(); t.kind == tokName && !t.isKeyword() && !t.known && !n.known && !p.instanceOfAhead(0); t = p.peek() {
		words = append(words, p.next().text)
	}
	return strings.Join(words, " "), nil
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
			name, err := p.pathName()
			if err != nil {
				return nil, err
			}
			x = pathNode{x: x, name: name}
		case t.isPunct("[") && startsExpr(p.peekAt(1)):
			if err := p.enter(); err != nil {
				return nil, err
			}
			p.next()
			p.push("item")
			f, err := p.expr()
			p.pop()
			p.leave()
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			x = filterNode{x: x, f: f}
		case t.isPunct("("):
			args, names, err := p.arguments()
			if err != nil {
				return nil, err
			}
			x = dynCallNode{fn: x, args: args, names: names}
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
	case tokNumber, tokString, tokAt:
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
	case tokAt:
		p.next()
		v := parseTemporal(t.text)
		if v == nil {
			return p.soft(t.pos, "invalid temporal literal @"+fmt.Sprintf("%q", t.text))
		}
		return litNode{v: v}, nil
	case tokName:
		if !t.known {
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
	if t := p.peek(); isCmpOp(t) {
		// (< 10), (= x), (!= x): a unary comparison as a range value.
		n, err := p.unaryTest(false)
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		return n, nil
	}
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
// literal or one or more words. Each key is visible to the values of the
// entries that follow it (and to its own, for recursive functions).
func (p *parser) context() (node, error) {
	p.next() // {
	var c ctxNode
	if p.peek().isPunct("}") {
		p.next()
		return c, nil
	}
	p.push()
	defer p.pop()
	seen := map[string]bool{}
	dup := ""
	dupPos := 0
	for {
		t := p.peek()
		var key string
		switch {
		case t.kind == tokString && p.peekAt(1).isPunct(":"):
			p.next()
			key = t.text
		case t.kind == tokName:
			// A name key runs to the ':' and may hold the characters
			// FEEL allows in names (foo+bar, a.b, x-y).
			start, end := t.pos, t.end
			for p.next(); !p.peek().isPunct(":"); p.next() {
				if k := p.peek().kind; k == tokEOF || (k == tokPunct && strings.Contains("(){}[],", p.peek().text)) {
					return nil, errorAt(p.peek().pos, "expected \":\" after the context key, found "+p.peek().describe())
				}
				end = p.peek().end
			}
			key = strings.Join(strings.Fields(p.src[start:end]), " ")
		default:
			return nil, errorAt(t.pos, "expected a context key, found "+t.describe())
		}
		if seen[key] && dup == "" {
			dup, dupPos = key, t.pos
		}
		seen[key] = true
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		p.bind(key)
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
		if dup != "" {
			return p.soft(dupPos, fmt.Sprintf("duplicate context key %q", dup))
		}
		return c, nil
	}
}

// wordRun counts the name tokens from the current one (at most 12).
func (p *parser) wordRun() int {
	k := 0
	for k < 12 && p.peekAt(k).kind == tokName {
		k++
	}
	return k
}

func (p *parser) joinWords(n int) string {
	if n == 1 {
		return p.peek().text
	}
	words := make([]string, n)
	for k := 0; k < n; k++ {
		words[k] = p.peekAt(k).text
	}
	return strings.Join(words, " ")
}

// nameOrCall parses a name, a call of a built-in function or a call of a
// named function value.
func (p *parser) nameOrCall() (node, error) {
	t := p.peek()
	run := p.wordRun()
	// A built-in function name followed by '(', longest first, unless a
	// binding in scope shadows it.
	for n := run; n >= 1; n-- {
		name := p.joinWords(n)
		if fn := builtins[name]; fn != nil && p.peekAt(n).isPunct("(") && !p.lexical(name) {
			p.i += n
			return p.call(t, fn)
		}
	}
	// A known name, longest first.
	name, n := "", 0
	for k := run; k >= 1; k-- {
		if cand := p.joinWords(k); p.known(cand) {
			name, n = cand, k
			break
		}
	}
	if n == 0 {
		if t.isKeyword() {
			return nil, p.unexpected(t)
		}
		n = 1
		for n < run && !p.peekAt(n).isKeyword() && !p.peekAt(n).known && !p.instanceOfAhead(n) &&
			!(p.peekAt(n).isWord("function") && p.peekAt(n+1).isPunct("(")) {
			n++
		}
		name = p.joinWords(n)
		if t.known {
			n, name = 1, t.text
		}
	}
	if p.peekAt(n).isPunct("(") && !p.known(name) {
		msg := fmt.Sprintf("unknown function %q (neither built in nor a known name)", name)
		if !p.lenient {
			return nil, errorAt(t.pos, msg)
		}
		p.i += n
		if _, _, err := p.arguments(); err != nil {
			return nil, err
		}
		return p.soft(t.pos, msg)
	}
	p.i += n
	if name == "?" {
		p.sawQ = true
	}
	if name == "partial" {
		p.sawPartial = true
	}
	return nameNode{name: name}, nil
}

// arguments parses a parenthesised argument list, positional or named
// (`f(a: 1, b: 2)`); the '(' is next. names is nil for positional calls.
func (p *parser) arguments() (args []node, names []string, err error) {
	if err := p.enter(); err != nil {
		return nil, nil, err
	}
	defer p.leave()
	p.next() // (
	if p.peek().isPunct(")") {
		p.next()
		return nil, nil, nil
	}
	named := p.namedArgAhead()
	for {
		if named {
			t := p.peek()
			if !p.namedArgAhead() {
				return nil, nil, errorAt(t.pos, "expected a parameter name: all arguments must be named or none")
			}
			var words []string
			for !p.peek().isPunct(":") {
				words = append(words, p.next().text)
			}
			p.next() // :
			names = append(names, strings.Join(words, " "))
		}
		a, err := p.expr()
		if err != nil {
			return nil, nil, err
		}
		args = append(args, a)
		if !p.peek().isPunct(",") {
			break
		}
		p.next()
	}
	if err := p.expect(")"); err != nil {
		return nil, nil, err
	}
	return args, names, nil
}

// namedArgAhead reports whether words and a ':' come next.
func (p *parser) namedArgAhead() bool {
	k := 0
	for p.peekAt(k).kind == tokName {
		k++
	}
	return k > 0 && p.peekAt(k).isPunct(":")
}

// call parses the arguments of built-in fn; the '(' is next. Named
// arguments are put in order of the signature that has all their names.
func (p *parser) call(nameTok token, fn *builtin) (node, error) {
	args, names, err := p.arguments()
	if err != nil {
		return nil, err
	}
	sig := -1
	if names != nil {
		if args, sig, err = fn.order(args, names); err != nil {
			return p.soft(nameTok.pos, err.Error())
		}
	}
	if len(args) < fn.min || (fn.max >= 0 && len(args) > fn.max) {
		return p.soft(nameTok.pos, fmt.Sprintf("function %q takes %s, got %d", fn.name, fn.arity(), len(args)))
	}
	return callNode{fn: fn, args: args, sig: sig}, nil
}

// typeNames are the built-in type names, longest first.
var typeNames = []string{
	"days and time duration", "years and months duration", "date and time",
	"number", "string", "boolean", "date", "time", "duration", "list", "context", "range", "function", "Any", "Null",
}

// parseType parses a type for `instance of` and typed parameters.
func (p *parser) parseType() (*feelType, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.peek()
	if t.kind != tokName {
		return nil, errorAt(t.pos, "expected a type, found "+t.describe())
	}
	kind, n := "", 0
	for _, tn := range typeNames {
		words := strings.Fields(tn)
		ok := true
		for k, w := range words {
			if !p.peekAt(k).isWord(w) {
				ok = false
				break
			}
		}
		if ok {
			kind, n = tn, len(words)
			break
		}
	}
	if n == 0 {
		// A type of the model (a DMN item definition), possibly
		// qualified by an import name: words joined by '.'.
		words := []string{p.next().text}
		for p.peek().isPunct(".") && p.peekAt(1).kind == tokName {
			p.next()
			words = append(words, p.next().text)
		}
		for p.peek().kind == tokName && !p.peek().isKeyword() && !p.peek().isWord("instance") {
			words[len(words)-1] += " " + p.next().text
		}
		name := strings.Join(words, ".")
		typ := &feelType{kind: "named", name: name}
		if p.types != nil {
			typ.check = p.types(name)
		}
		return typ, nil
	}
	p.i += n
	typ := &feelType{kind: kind}
	if kind == "duration" {
		typ.kind = "days and time duration"
	}
	if !p.peek().isPunct("<") {
		return typ, nil
	}
	p.next()
	switch kind {
	case "list", "range":
		elem, err := p.parseType()
		if err != nil {
			return nil, err
		}
		typ.elem = elem
	case "context":
		for {
			kt := p.peek()
			var words []string
			for p.peek().kind == tokName {
				words = append(words, p.next().text)
			}
			if len(words) == 0 {
				return nil, errorAt(kt.pos, "expected a context key, found "+kt.describe())
			}
			if err := p.expect(":"); err != nil {
				return nil, err
			}
			ft, err := p.parseType()
			if err != nil {
				return nil, err
			}
			typ.keys = append(typ.keys, strings.Join(words, " "))
			typ.fields = append(typ.fields, ft)
			if !p.peek().isPunct(",") {
				break
			}
			p.next()
		}
	case "function":
		if !p.peek().isPunct(">") {
			for {
				ft, err := p.parseType()
				if err != nil {
					return nil, err
				}
				typ.fields = append(typ.fields, ft)
				if !p.peek().isPunct(",") {
					break
				}
				p.next()
			}
		}
	default:
		return nil, errorAt(t.pos, fmt.Sprintf("type %q takes no parameters", kind))
	}
	if err := p.expect(">"); err != nil {
		return nil, err
	}
	if kind == "function" && p.peek().isPunct("->") {
		p.next()
		rt, err := p.parseType()
		if err != nil {
			return nil, err
		}
		typ.ret = rt
	}
	return typ, nil
}
