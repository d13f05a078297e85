package juel

import (
	"fmt"
	"sort"
	"strings"
)

// parser is a recursive-descent parser for one eval expression, with EL
// 2.2's precedence from loosest to tightest:
//
//	?:   ||/or   &&/and   ==/!=/eq/ne   </>/<=/>=/lt/gt/le/ge
//	+/-   * / div % mod   unary - ! not empty   . [] ()
//
// Errors are raised as panics of *Error and recovered in parseEval.
type parser struct {
	lx   lexer
	tok  token
	nest int
}

// parseEval parses the eval expression starting at byte off (just after
// ${ or #{) and returns its tree and the offset after the closing brace.
func parseEval(src string, off int) (n node, end int, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			n, end, err = nil, 0, e
		}
	}()
	p := &parser{lx: lexer{src: src, pos: off}}
	p.advance()
	if p.tok.kind == tEnd {
		p.failAt(off-2, ErrSyntax, "empty expression")
	}
	n = p.expr()
	if p.tok.kind != tEnd {
		p.unexpected()
	}
	return n, p.tok.pos + 1, nil
}

func (p *parser) advance() {
	t, err := p.lx.next()
	if err != nil {
		panic(err)
	}
	p.tok = t
}

// peek returns the token k places after the current one without
// consuming anything; a lexical error reads as end of text.
func (p *parser) peek(k int) token {
	lx := p.lx
	var t token
	for range k {
		var err error
		if t, err = lx.next(); err != nil {
			return token{kind: tEOF, pos: lx.pos}
		}
	}
	return t
}

func (p *parser) failAt(off int, kind error, format string, args ...any) {
	panic(errorAt(off, kind, format, args...))
}

// unexpected fails at the current token, naming the EL 3.0 construct it
// starts when it starts one.
func (p *parser) unexpected() {
	t := p.tok
	switch t.kind {
	case tAssign:
		p.failAt(t.pos, ErrUnsupported, "assignment '=' is not supported (EL 3.0; compare with '==')")
	case tSemi:
		p.failAt(t.pos, ErrUnsupported, "';' is not supported (EL 3.0 statement separator)")
	case tArrow:
		p.failAt(t.pos, ErrUnsupported, "lambda expressions '->' are not supported (EL 3.0)")
	case tConcat:
		p.failAt(t.pos, ErrUnsupported, "string concatenation '+=' is not supported (EL 3.0)")
	case tLBrace:
		p.failAt(t.pos, ErrUnsupported, "set and map literals '{…}' are not supported (EL 3.0)")
	case tInstanceof:
		p.failAt(t.pos, ErrSyntax, "'instanceof' is a reserved word, not an operator")
	}
	p.failAt(t.pos, ErrSyntax, "unexpected %s", t.describe())
}

func (p *parser) expect(k kind) token {
	if p.tok.kind != k {
		p.unexpected()
	}
	t := p.tok
	p.advance()
	return t
}

// enter counts one level of parser recursion against MaxDepth.
func (p *parser) enter() {
	p.nest++
	if p.nest > MaxDepth {
		p.failAt(p.tok.pos, ErrUnsupported, "expression nests deeper than %d levels", MaxDepth)
	}
}

func (p *parser) leave() { p.nest-- }

// mk finishes a node: its depth is one more than its deepest child's, and
// a tree deeper than MaxDepth is refused.
func (p *parser) mk(n node, children ...node) node {
	d := 0
	for _, c := range children {
		if c != nil && c.info().depth > d {
			d = c.info().depth
		}
	}
	n.info().depth = d + 1
	if d+1 > MaxDepth {
		p.failAt(n.info().pos, ErrUnsupported, "expression nests deeper than %d levels", MaxDepth)
	}
	return n
}

// expr parses Expression ::= Or ('?' Expression ':' Expression)?.
func (p *parser) expr() node {
	p.enter()
	defer p.leave()
	c := p.or()
	if p.tok.kind != tQuestion {
		return c
	}
	pos := p.tok.pos
	p.advance()
	a := p.expr()
	p.expect(tColon)
	b := p.expr()
	return p.mk(&condNode{at: at{pos: pos}, cond: c, yes: a, no: b}, c, a, b)
}

func (p *parser) or() node {
	l := p.and()
	for p.tok.kind == tOr {
		pos := p.tok.pos
		p.advance()
		r := p.and()
		l = p.mk(&logicNode{at: at{pos: pos}, and: false, l: l, r: r}, l, r)
	}
	return l
}

func (p *parser) and() node {
	l := p.equality()
	for p.tok.kind == tAnd {
		pos := p.tok.pos
		p.advance()
		r := p.equality()
		l = p.mk(&logicNode{at: at{pos: pos}, and: true, l: l, r: r}, l, r)
	}
	return l
}

func (p *parser) equality() node {
	l := p.relational()
	for p.tok.kind == tEq || p.tok.kind == tNe {
		op := p.tok
		p.advance()
		r := p.relational()
		l = p.mk(&binaryNode{at: at{pos: op.pos}, op: op.kind, text: op.text, l: l, r: r}, l, r)
	}
	return l
}

func (p *parser) relational() node {
	l := p.additive()
	for p.tok.kind == tLt || p.tok.kind == tGt || p.tok.kind == tLe || p.tok.kind == tGe {
		op := p.tok
		p.advance()
		r := p.additive()
		l = p.mk(&binaryNode{at: at{pos: op.pos}, op: op.kind, text: op.text, l: l, r: r}, l, r)
	}
	return l
}

func (p *parser) additive() node {
	l := p.multiplicative()
	for p.tok.kind == tPlus || p.tok.kind == tMinus {
		op := p.tok
		p.advance()
		r := p.multiplicative()
		l = p.mk(&binaryNode{at: at{pos: op.pos}, op: op.kind, text: op.text, l: l, r: r}, l, r)
	}
	return l
}

func (p *parser) multiplicative() node {
	l := p.unary()
	for p.tok.kind == tMul || p.tok.kind == tDiv || p.tok.kind == tMod {
		op := p.tok
		p.advance()
		r := p.unary()
		l = p.mk(&binaryNode{at: at{pos: op.pos}, op: op.kind, text: op.text, l: l, r: r}, l, r)
	}
	return l
}

func (p *parser) unary() node {
	switch p.tok.kind {
	case tMinus, tNot, tEmpty:
		p.enter()
		defer p.leave()
		op := p.tok
		p.advance()
		x := p.unary()
		return p.mk(&unaryNode{at: at{pos: op.pos}, op: op.kind, text: op.text, x: x}, x)
	}
	return p.value()
}

// value parses a primary expression and its suffixes: .name, [expr] and
// method calls .name(args) and ['name'](args).
func (p *parser) value() node {
	n := p.primary()
	for {
		switch p.tok.kind {
		case tDot:
			p.advance()
			if p.tok.kind != tIdent {
				p.failAt(p.tok.pos, ErrSyntax, "expected a property or method name after '.', found %s", p.tok.describe())
			}
			name := p.tok
			p.advance()
			if p.tok.kind == tLParen {
				n = p.method(n, name.text, name.pos)
				continue
			}
			n = p.mk(&dotNode{at: at{pos: name.pos}, base: n, name: name.text}, n)
		case tLBrack:
			pos := p.tok.pos
			p.advance()
			idx := p.expr()
			p.expect(tRBrack)
			if p.tok.kind == tLParen {
				lit, ok := idx.(*litNode)
				name, isStr := "", false
				if ok {
					name, isStr = lit.val.(string)
				}
				if !isStr {
					p.failAt(pos, ErrUnsupported, "a method name computed at run time is not supported")
				}
				n = p.method(n, name, pos)
				continue
			}
			n = p.mk(&indexNode{at: at{pos: pos}, base: n, index: idx}, n, idx)
		default:
			return n
		}
	}
}

// primary parses a literal, a parenthesised expression, an identifier or
// the execution built-in.
func (p *parser) primary() node {
	t := p.tok
	switch t.kind {
	case tInt, tFloat:
		p.advance()
		num, err := parseDecimal(t.text)
		if err != nil {
			p.failAt(t.pos, ErrUnsupported, "number %s is out of range", t.text)
		}
		return p.mk(&litNode{at: at{pos: t.pos}, val: num})
	case tString:
		p.advance()
		return p.mk(&litNode{at: at{pos: t.pos}, val: t.val})
	case tTrue, tFalse:
		p.advance()
		return p.mk(&litNode{at: at{pos: t.pos}, val: t.kind == tTrue})
	case tNull:
		p.advance()
		return p.mk(&litNode{at: at{pos: t.pos}, val: nil})
	case tLParen:
		p.advance()
		n := p.expr()
		if p.tok.kind == tComma {
			p.failAt(p.tok.pos, ErrUnsupported, "lambda parameter lists are not supported (EL 3.0)")
		}
		p.expect(tRParen)
		return n
	case tLBrack:
		p.failAt(t.pos, ErrUnsupported, "list literals '[…]' are not supported (EL 3.0)")
	case tIdent:
		if next := p.peek(1); next.kind == tLParen {
			p.refuseFunction(t, t.text)
		} else if next.kind == tColon && p.peek(2).kind == tIdent && p.peek(3).kind == tLParen {
			p.refuseFunction(t, t.text+":"+p.peek(2).text)
		}
		p.advance()
		if t.text == "execution" {
			return p.execution(t)
		}
		return p.mk(&identNode{at: at{pos: t.pos}, name: t.text})
	}
	p.unexpected()
	return nil
}

// camundaFunctions are the EL functions Camunda 7 registers, named in the
// refusal so that the author knows why a working Camunda model fails.
var camundaFunctions = map[string]string{
	"now":               "Camunda's now()",
	"dateTime":          "Camunda's dateTime()",
	"currentUser":       "Camunda's currentUser()",
	"currentUserGroups": "Camunda's currentUserGroups()",
	"S":                 "Camunda Spin's S()",
	"JSON":              "Camunda Spin's JSON()",
	"XML":               "Camunda Spin's XML()",
}

func (p *parser) refuseFunction(t token, name string) {
	if what, ok := camundaFunctions[name]; ok {
		p.failAt(t.pos, ErrUnsupported, "function %s is not supported", what)
	}
	p.failAt(t.pos, ErrUnsupported, "function %s() is not supported (gobpm has no EL functions or beans)", name)
}

// methodArity lists the methods juel implements (on strings, lists, maps
// and, for equals, every value) with their argument counts.
var methodArity = map[string][2]int{
	"size":             {0, 0},
	"isEmpty":          {0, 0},
	"contains":         {1, 1},
	"containsKey":      {1, 1},
	"get":              {1, 1},
	"indexOf":          {1, 1},
	"equals":           {1, 1},
	"length":           {0, 0},
	"startsWith":       {1, 1},
	"endsWith":         {1, 1},
	"toUpperCase":      {0, 0},
	"toLowerCase":      {0, 0},
	"trim":             {0, 0},
	"substring":        {1, 2},
	"equalsIgnoreCase": {1, 1},
}

// knownMethods is the sorted list of methodArity's names, for messages.
var knownMethods = func() string {
	names := make([]string, 0, len(methodArity))
	for n := range methodArity {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}()

// args parses '(' (Expression (',' Expression)*)? ')'.
func (p *parser) args() []node {
	p.expect(tLParen)
	var list []node
	if p.tok.kind == tRParen {
		p.advance()
		return list
	}
	for {
		list = append(list, p.expr())
		if p.tok.kind == tComma {
			p.advance()
			continue
		}
		p.expect(tRParen)
		return list
	}
}

// method parses the argument list of a call of name on base and checks
// that juel implements the method with that many arguments.
func (p *parser) method(base node, name string, pos int) node {
	ar, ok := methodArity[name]
	if !ok {
		p.failAt(pos, ErrUnsupported, "method %s() is not supported: gobpm calls no beans, only these methods of strings, lists and maps: %s", name, knownMethods)
	}
	args := p.args()
	if len(args) < ar[0] || len(args) > ar[1] {
		p.failAt(pos, ErrUnsupported, "method %s() with %d argument%s is not supported (it takes %s)", name, len(args), plural(len(args)), arity(ar))
	}
	return p.mk(&methodNode{at: at{pos: pos}, base: base, name: name, args: args}, append([]node{base}, args...)...)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func arity(ar [2]int) string {
	switch {
	case ar[0] == ar[1] && ar[0] == 0:
		return "no arguments"
	case ar[0] == ar[1]:
		return fmt.Sprintf("%d argument%s", ar[0], plural(ar[0]))
	}
	return fmt.Sprintf("%d or %d arguments", ar[0], ar[1])
}

// executionSetters are the DelegateExecution methods that write
// variables; gobpm refuses them with a pointer to where variables are set.
var executionSetters = map[string]bool{
	"setVariable": true, "setVariableLocal": true, "setVariables": true, "setVariablesLocal": true,
	"removeVariable": true, "removeVariableLocal": true, "removeVariables": true, "removeVariablesLocal": true,
	"setVariableScope": true,
}

const executionSupported = "execution.getVariable(name), execution.hasVariable(name), execution.processInstanceId, execution.processBusinessKey, execution.getProcessInstanceId() and execution.getProcessBusinessKey()"

// execution parses the member access that must follow the built-in
// `execution`.
func (p *parser) execution(t token) node {
	if p.tok.kind != tDot {
		p.failAt(t.pos, ErrUnsupported, "'execution' is only supported as %s", executionSupported)
	}
	p.advance()
	if p.tok.kind != tIdent {
		p.failAt(p.tok.pos, ErrSyntax, "expected a property or method name after '.', found %s", p.tok.describe())
	}
	name := p.tok
	p.advance()
	call := p.tok.kind == tLParen
	var args []node
	if call {
		if executionSetters[name.text] {
			p.failAt(name.pos, ErrUnsupported, "execution.%s() is not supported: an expression only reads; gobpm sets variables through output mappings and job completion", name.text)
		}
		args = p.args()
	}
	switch {
	case !call && name.text == "processInstanceId", call && name.text == "getProcessInstanceId" && len(args) == 0:
		return p.mk(&execPropNode{at: at{pos: t.pos}, businessKey: false})
	case !call && name.text == "processBusinessKey", call && name.text == "getProcessBusinessKey" && len(args) == 0:
		return p.mk(&execPropNode{at: at{pos: t.pos}, businessKey: true})
	case call && (name.text == "getVariable" || name.text == "hasVariable") && len(args) == 1:
		return p.mk(&execVarNode{at: at{pos: t.pos}, has: name.text == "hasVariable", name: args[0]}, args[0])
	}
	what := "execution." + name.text
	if call {
		what += fmt.Sprintf("() with %d argument%s", len(args), plural(len(args)))
	}
	p.failAt(name.pos, ErrUnsupported, "%s is not supported; gobpm supports %s", what, executionSupported)
	return nil
}
