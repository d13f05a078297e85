package dmn

import (
	"fmt"
	"strings"

	"github.com/beevik/etree"
	"github.com/gobpm/gobpm/internal/feel"
)

// expression is a compiled boxed expression.
type expression interface {
	// eval evaluates the expression in sc; errors are recorded on r under
	// owner (the decision or BKM id) and yield nil.
	eval(r *run, sc feel.Scope, owner string) any
}

// expression compiles the boxed expression e. It never returns nil: a
// problem is a warning, and the expression then evaluates to null with
// that problem as its error. A typeRef on the element coerces its value.
func (p *parser) expression(e *etree.Element, el string) expression {
	if id := e.SelectAttrValue("id", ""); id != "" {
		p.noteID(e, id)
	}
	var x expression
	switch e.Tag {
	case "literalExpression":
		x = p.literal(e, el)
	case "decisionTable":
		x = p.decisionTable(e, el)
	case "context":
		x = p.context(e, el)
	case "invocation":
		x = p.invocation(e, el)
	case "list":
		l := &listExpr{}
		for _, c := range e.ChildElements() {
			if isDMN(c) && expressionKinds[c.Tag] {
				l.items = append(l.items, p.expression(c, el))
			}
		}
		x = l
	case "relation":
		x = p.relation(e, el)
	case "functionDefinition":
		x = p.functionDefinition(e, el)
	case "conditional":
		x = &conditionalExpr{
			cond: p.part(e, "if", el),
			then: p.part(e, "then", el),
			els:  p.part(e, "else", el),
		}
	case "filter":
		x = &filterExpr{in: p.part(e, "in", el), match: p.part(e, "match", el)}
	case "for":
		x = &forExpr{v: p.iterator(e, el), in: p.part(e, "in", el), ret: p.part(e, "return", el)}
	case "some", "every":
		x = &quantExpr{every: e.Tag == "every", v: p.iterator(e, el), in: p.part(e, "in", el), cond: p.part(e, "satisfies", el)}
	default:
		p.warn(el, RuleUnsupported, "boxed expression <%s> is not supported", e.Tag)
		return &errExpr{msg: fmt.Sprintf("boxed expression <%s> is not supported", e.Tag)}
	}
	if ref := strings.TrimSpace(e.SelectAttrValue("typeRef", "")); ref != "" && e.Tag != "decisionTable" {
		if t := p.resolveType(ref, el); t != nil {
			return &typedExpr{x: x, typ: t}
		}
	}
	return x
}

// part compiles the boxed expression inside e's child named local (the
// if, then and else of a conditional, the in of an iteration…).
func (p *parser) part(e *etree.Element, local, el string) expression {
	c := child(e, local)
	if c == nil {
		p.warn(el, RuleInvalidExpression, "<%s> has no <%s>", e.Tag, local)
		return &errExpr{msg: fmt.Sprintf("<%s> has no <%s>", e.Tag, local)}
	}
	x := p.logicElement(c, el)
	if x == nil {
		return &errExpr{msg: fmt.Sprintf("<%s> holds no expression", local)}
	}
	return p.expression(x, el)
}

func (p *parser) iterator(e *etree.Element, el string) string {
	v := strings.TrimSpace(e.SelectAttrValue("iteratorVariable", ""))
	if v == "" {
		p.warn(el, RuleMissingName, "<%s> has no iteratorVariable", e.Tag)
	}
	return v
}

// errExpr stands for an expression that could not be compiled: it is
// null with msg as its error.
type errExpr struct{ msg string }

func (e *errExpr) eval(r *run, _ feel.Scope, owner string) any {
	r.fail(owner, "%s", e.msg)
	return nil
}

// typedExpr coerces the value of x to typ.
type typedExpr struct {
	x   expression
	typ *dmnType
}

func (e *typedExpr) eval(r *run, sc feel.Scope, owner string) any {
	v, why := conform(e.x.eval(r, sc, owner), e.typ)
	if why != "" {
		r.fail(owner, "value does not conform to %s: %s", e.typ.name, why)
	}
	return v
}

func (p *parser) literal(e *etree.Element, el string) expression {
	if lang := e.SelectAttrValue("expressionLanguage", ""); !isFEEL(lang) {
		p.warn(el, RuleUnsupported, "expressionLanguage %q is not supported; only FEEL is", lang)
		return &errExpr{msg: fmt.Sprintf("expressionLanguage %q is not supported", lang)}
	}
	if iv := child(e, "importedValues"); iv != nil {
		p.warn(el, RuleUnsupported, "importedValues are not supported")
		return &errExpr{msg: "importedValues are not supported"}
	}
	return p.compile(textOf(e), el, "literal expression")
}

// literalExpr is a <literalExpression>.
type literalExpr struct {
	prog *feel.Program
}

func (e *literalExpr) eval(r *run, sc feel.Scope, owner string) any {
	v, errs, err := e.prog.EvalErrors(sc)
	r.feelErrors(owner, e.prog.Source(), errs)
	if err != nil {
		r.fail(owner, "evaluating %q: %v", abbreviate(e.prog.Source()), err)
		return nil
	}
	return v
}

func (p *parser) context(e *etree.Element, el string) expression {
	c := &contextExpr{}
	seen := map[string]bool{}
	entries := children(e, "contextEntry")
	for i, ce := range entries {
		var ent contextEntry
		if v := child(ce, "variable"); v != nil {
			ent.name = strings.TrimSpace(v.SelectAttrValue("name", ""))
			if ent.name == "" {
				p.warn(el, RuleMissingName, "context entry %d has a variable without a name", i+1)
			}
			if seen[ent.name] {
				p.warn(el, RuleDuplicateName, "context entry %q is defined more than once", ent.name)
				c.dup = ent.name
			}
			seen[ent.name] = true
			ent.typ = p.resolveType(strings.TrimSpace(v.SelectAttrValue("typeRef", "")), el)
		} else if i != len(entries)-1 {
			p.warn(el, RuleMissingName, "context entry %d has no variable; only the last entry (the result) may omit it", i+1)
		}
		if x := p.logicElement(ce, el); x != nil {
			ent.expr = p.expression(x, el)
		} else {
			ent.expr = &errExpr{msg: fmt.Sprintf("context entry %q has no expression", ent.name)}
		}
		if ent.name == "" && i == len(entries)-1 {
			c.result = &ent
		} else {
			c.entries = append(c.entries, ent)
		}
	}
	return c
}

// contextExpr is a boxed <context>.
type contextExpr struct {
	entries []contextEntry
	result  *contextEntry // the final entry without a variable, if any
	dup     string        // a key given twice: the context is an error
}

type contextEntry struct {
	name string
	typ  *dmnType
	expr expression
}

func (e *contextExpr) eval(r *run, sc feel.Scope, owner string) any {
	if e.dup != "" {
		r.fail(owner, "context entry %q is defined more than once", e.dup)
		return nil
	}
	local := &mapScope{vars: make(map[string]any, len(e.entries)), parent: sc, now: r.now}
	out := make(map[string]any, len(e.entries))
	for _, ent := range e.entries {
		v := ent.expr.eval(r, local, owner)
		v, why := conform(v, ent.typ)
		if why != "" {
			r.fail(owner, "context entry %q does not conform to %s: %s", ent.name, ent.typ.name, why)
		}
		out[ent.name] = v
		local.vars[ent.name] = v
	}
	if e.result != nil {
		return e.result.expr.eval(r, local, owner)
	}
	return out
}

func (p *parser) invocation(e *etree.Element, el string) expression {
	inv := &invocationExpr{}
	for _, c := range e.ChildElements() {
		if isDMN(c) && expressionKinds[c.Tag] {
			inv.callee = p.expression(c, el)
			break
		}
	}
	if inv.callee == nil {
		p.warn(el, RuleInvalidExpression, "invocation names no function")
		return &errExpr{msg: "the invocation names no function"}
	}
	for _, b := range children(e, "binding") {
		var bd binding
		if par := child(b, "parameter"); par != nil {
			bd.name = strings.TrimSpace(par.SelectAttrValue("name", ""))
		}
		if bd.name == "" {
			p.warn(el, RuleMissingName, "invocation binding has no parameter name")
			continue
		}
		for _, c := range b.ChildElements() {
			if isDMN(c) && expressionKinds[c.Tag] {
				bd.expr = p.expression(c, el)
				break
			}
		}
		inv.bindings = append(inv.bindings, bd)
	}
	return inv
}

// invocationExpr is a boxed <invocation>.
type invocationExpr struct {
	callee   expression
	bindings []binding
}

type binding struct {
	name string
	expr expression // nil: null
}

func (e *invocationExpr) eval(r *run, sc feel.Scope, owner string) any {
	fv := e.callee.eval(r, sc, owner)
	fn, ok := fv.(feel.Function)
	if !ok {
		r.fail(owner, "invocation: %s is not a function", describe(fv))
		return nil
	}
	params := fn.Params()
	args := make([]any, len(params))
	for _, b := range e.bindings {
		i := indexOf(params, b.name)
		if i < 0 {
			r.fail(owner, "invocation: the function has no parameter %q (parameters: %s)", b.name, strings.Join(params, ", "))
			return nil
		}
		if b.expr != nil {
			args[i] = b.expr.eval(r, sc, owner)
		}
	}
	return r.call(fn, args, owner)
}

// call invokes a function value, recording the runtime errors of a
// function FEEL defined.
func (r *run) call(fn feel.Function, args []any, owner string) any {
	if ef, ok := fn.(feel.ErrorsFunction); ok {
		v, errs, err := ef.CallErrors(args)
		for _, e := range errs {
			r.fail(owner, "%s", e.Msg)
		}
		if err != nil {
			r.fail(owner, "invocation: %v", err)
			return nil
		}
		return v
	}
	v, err := fn.Call(args)
	if err != nil {
		r.fail(owner, "invocation: %v", err)
		return nil
	}
	return normalize(v)
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// listExpr is a boxed <list>.
type listExpr struct{ items []expression }

func (e *listExpr) eval(r *run, sc feel.Scope, owner string) any {
	out := make([]any, len(e.items))
	for i, x := range e.items {
		out[i] = x.eval(r, sc, owner)
	}
	return out
}

func (p *parser) relation(e *etree.Element, el string) expression {
	r := &relationExpr{}
	for _, c := range children(e, "column") {
		name := strings.TrimSpace(c.SelectAttrValue("name", ""))
		if name == "" {
			p.warn(el, RuleMissingName, "relation column has no name")
		}
		r.columns = append(r.columns, name)
	}
	for i, row := range children(e, "row") {
		var cells []expression
		for _, c := range row.ChildElements() {
			if isDMN(c) && expressionKinds[c.Tag] {
				cells = append(cells, p.expression(c, el))
			}
		}
		if len(cells) != len(r.columns) {
			p.warn(el, RuleInvalidAttribute, "relation row %d has %d cells for %d columns", i+1, len(cells), len(r.columns))
		}
		r.rows = append(r.rows, cells)
	}
	return r
}

// relationExpr is a boxed <relation>: a list of contexts.
type relationExpr struct {
	columns []string
	rows    [][]expression
}

func (e *relationExpr) eval(r *run, sc feel.Scope, owner string) any {
	out := make([]any, len(e.rows))
	for i, row := range e.rows {
		m := make(map[string]any, len(e.columns))
		for j, col := range e.columns {
			if j < len(row) {
				m[col] = row[j].eval(r, sc, owner)
			} else {
				m[col] = nil
			}
		}
		out[i] = m
	}
	return out
}

// functionDefinition reads a <functionDefinition> or <encapsulatedLogic>.
// Kinds other than FEEL (Java, PMML) are warnings: the function is
// defined, and calling it is an error.
func (p *parser) functionDefinition(e *etree.Element, el string) *funcDef {
	fd := &funcDef{}
	for _, fp := range children(e, "formalParameter") {
		par := Parameter{Name: strings.TrimSpace(fp.SelectAttrValue("name", "")), TypeRef: strings.TrimSpace(fp.SelectAttrValue("typeRef", ""))}
		if par.Name == "" {
			p.warn(el, RuleMissingName, "formal parameter %d has no name", len(fd.params)+1)
		}
		par.typ = p.resolveType(par.TypeRef, el)
		fd.params = append(fd.params, par)
	}
	if kind := strings.TrimSpace(e.SelectAttrValue("kind", "FEEL")); kind != "FEEL" && kind != "" {
		p.warn(el, RuleUnsupported, "function kind %q is not supported; only FEEL is", kind)
		fd.body = &errExpr{msg: fmt.Sprintf("functions of kind %q (external functions) are not supported", kind)}
		return fd
	}
	body := p.logicElement(e, el)
	if body == nil {
		fd.body = &errExpr{msg: "the function has no body"}
		return fd
	}
	fd.body = p.expression(body, el)
	return fd
}

// funcDef is a <functionDefinition> or a BKM's <encapsulatedLogic>.
type funcDef struct {
	params []Parameter
	body   expression
}

// eval makes a closure over the current scope.
func (f *funcDef) eval(r *run, sc feel.Scope, owner string) any {
	return &closure{r: r, fd: f, sc: sc, owner: owner}
}

// call binds args to the parameters and evaluates the body over sc. An
// argument that does not conform to its parameter's type is an error:
// the function is not invoked, its value is null.
func (f *funcDef) call(r *run, sc feel.Scope, owner string, args []any) any {
	if !r.enter(owner) {
		return nil
	}
	defer r.leave()
	vars := make(map[string]any, len(f.params))
	for i, p := range f.params {
		var a any
		if i < len(args) {
			a = normalize(args[i])
		}
		a, why := conform(a, p.typ)
		if why != "" {
			r.fail(owner, "argument %q does not conform to %s: %s", p.Name, p.TypeRef, why)
			return nil
		}
		vars[p.Name] = a
	}
	return f.body.eval(r, &mapScope{vars: vars, parent: sc, now: r.now}, owner)
}

func paramNames(ps []Parameter) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// closure is a FEEL function defined by a boxed functionDefinition.
type closure struct {
	r     *run
	fd    *funcDef
	sc    feel.Scope
	owner string
}

// Params returns the formal parameter names.
func (c *closure) Params() []string { return paramNames(c.fd.params) }

// Call evaluates the body with args bound.
func (c *closure) Call(args []any) (any, error) { return c.fd.call(c.r, c.sc, c.owner, args), nil }

// conditionalExpr is a boxed <conditional> (DMN 1.5): then when if is
// true, else when it is false; any other condition is an error.
type conditionalExpr struct{ cond, then, els expression }

func (e *conditionalExpr) eval(r *run, sc feel.Scope, owner string) any {
	switch c := e.cond.eval(r, sc, owner); c {
	case true:
		return e.then.eval(r, sc, owner)
	case false, nil:
		return e.els.eval(r, sc, owner)
	default:
		r.fail(owner, "conditional: the condition is %s, not a boolean", describe(c))
		return nil
	}
}

// iterate evaluates the domain of a boxed for, some or every: a list, or
// a single value as the singleton list.
func iterate(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	}
	return []any{v}
}

// filterExpr is a boxed <filter> (DMN 1.5): the elements of in for which
// match, with item (and the element's entries) in scope, is true.
type filterExpr struct{ in, match expression }

func (e *filterExpr) eval(r *run, sc feel.Scope, owner string) any {
	dom := e.in.eval(r, sc, owner)
	if dom == nil {
		return nil
	}
	out := []any{}
	for _, el := range iterate(dom) {
		vars := map[string]any{"item": el}
		if m, ok := el.(map[string]any); ok {
			for k, v := range m {
				vars[k] = v
			}
		}
		switch m := e.match.eval(r, &mapScope{vars: vars, parent: sc, now: r.now}, owner); m {
		case true:
			out = append(out, el)
		case false, nil:
		default:
			r.fail(owner, "filter: the match is %s, not a boolean", describe(m))
			return nil
		}
	}
	return out
}

// forExpr is a boxed <for> (DMN 1.5): ret for each element of in bound
// to the iterator variable.
type forExpr struct {
	v       string
	in, ret expression
}

func (e *forExpr) eval(r *run, sc feel.Scope, owner string) any {
	dom := e.in.eval(r, sc, owner)
	if dom == nil {
		return nil
	}
	out := []any{}
	for _, el := range iterate(dom) {
		vars := map[string]any{e.v: el, "partial": append([]any(nil), out...)}
		out = append(out, e.ret.eval(r, &mapScope{vars: vars, parent: sc, now: r.now}, owner))
	}
	return out
}

// quantExpr is a boxed <some> or <every> (DMN 1.5).
type quantExpr struct {
	every    bool
	v        string
	in, cond expression
}

func (e *quantExpr) eval(r *run, sc feel.Scope, owner string) any {
	dom := e.in.eval(r, sc, owner)
	if dom == nil {
		return nil
	}
	res := e.every
	for _, el := range iterate(dom) {
		switch c := e.cond.eval(r, &mapScope{vars: map[string]any{e.v: el}, parent: sc, now: r.now}, owner); c {
		case true:
			if !e.every {
				res = true
			}
		case false:
			if e.every {
				res = false
			}
		default:
			r.fail(owner, "%s: the condition is %s, not a boolean", map[bool]string{true: "every", false: "some"}[e.every], describe(c))
			return nil
		}
	}
	return res
}
