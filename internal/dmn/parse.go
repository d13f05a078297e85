package dmn

import (
	"fmt"
	"sort"
	"strings"

	"github.com/beevik/etree"
	"github.com/gobpm/gobpm/internal/feel"
)

// The DMN model namespaces Parse accepts, DMN 1.1 to 1.5. Elements are
// matched by local name within these, whatever their prefix.
const (
	NamespaceDMN11 = "http://www.omg.org/spec/DMN/20151101/dmn.xsd"
	NamespaceDMN12 = "http://www.omg.org/spec/DMN/20180521/MODEL/"
	NamespaceDMN13 = "https://www.omg.org/spec/DMN/20191111/MODEL/"
	NamespaceDMN14 = "https://www.omg.org/spec/DMN/20211108/MODEL/"
	NamespaceDMN15 = "https://www.omg.org/spec/DMN/20230324/MODEL/"
)

// dmnNamespaces holds the accepted namespaces without their scheme, so
// http:// and https:// spellings of the same URI both match.
var dmnNamespaces = map[string]bool{}

func init() {
	for _, ns := range []string{NamespaceDMN11, NamespaceDMN12, NamespaceDMN13, NamespaceDMN14, NamespaceDMN15} {
		dmnNamespaces[stripScheme(ns)] = true
	}
}

func stripScheme(ns string) string {
	ns = strings.TrimPrefix(ns, "https://")
	return strings.TrimPrefix(ns, "http://")
}

// isDMN reports whether e is in one of the DMN model namespaces.
func isDMN(e *etree.Element) bool { return dmnNamespaces[stripScheme(e.NamespaceURI())] }

// expressionKinds are the local names of the boxed expressions a decision,
// context entry, binding, list, row or function body may hold.
var expressionKinds = map[string]bool{
	"literalExpression": true, "decisionTable": true, "context": true, "invocation": true,
	"list": true, "relation": true, "functionDefinition": true,
	// DMN 1.4/1.5 boxed expressions, refused as unsupported:
	"conditional": true, "filter": true, "for": true, "every": true, "some": true,
}

// Parse reads a DMN 1.1–1.5 definitions document and returns the validated
// model, every FEEL expression compiled.
//
// Any problem with the document — malformed XML, a refused DOCTYPE, a limit
// exceeded, an unsupported element, a broken reference, an expression that
// does not compile, a malformed decision table or a cycle in the
// requirement graph — makes Parse return a *ValidationError holding every
// problem it found and no model.
func Parse(data []byte) (*Definitions, error) {
	d, ps := load(data)
	if ps != nil {
		return nil, ps.err()
	}
	p := &parser{
		lines:     d.lines,
		ids:       make(map[string]bool),
		items:     make(map[string]*ItemDefinition),
		inputs:    make(map[string]*InputData),
		decisions: make(map[string]*Decision),
		bkms:      make(map[string]*BKM),
		drgNames:  make(map[string]string),
		nameSet:   make(map[string]bool),
	}
	defs := p.definitions(d.doc.Root())
	if len(p.problems) > 0 {
		return nil, p.problems.err()
	}
	return defs, nil
}

// Document is one DMN document of a set that ParseAll reads together.
type Document struct {
	// Name names the document in problems (a file name).
	Name string
	Data []byte
}

// ParseAll reads several DMN documents that may import one another (one
// deployment). It returns one model and one error per document, in the
// order given: a document that does not load has a nil model and a
// *ValidationError.
func ParseAll(docs ...Document) ([]*Definitions, []error) {
	defs := make([]*Definitions, len(docs))
	errs := make([]error, len(docs))
	for i, doc := range docs {
		defs[i], errs[i] = Parse(doc.Data)
	}
	return defs, errs
}

// parser holds the state of one Parse call.
type parser struct {
	lines    map[*etree.Element]int
	problems problems
	defs     *Definitions
	exprLang string // the document's expressionLanguage

	ids       map[string]bool
	items     map[string]*ItemDefinition // top-level item definitions by name
	inputs    map[string]*InputData      // by id
	decisions map[string]*Decision       // by id
	bkms      map[string]*BKM            // by id
	drgNames  map[string]string          // DRG element name → id
	nameSet   map[string]bool            // every name FEEL must know (may contain spaces)
	names     []string                   // nameSet, sorted

	decisionEls map[*Decision]*etree.Element
	bkmEls      map[*BKM]*etree.Element
}

func (p *parser) add(element string, rule Rule, format string, args ...any) {
	p.problems.add(element, rule, format, args...)
}

// label names e in a problem: its id, else its tag, name and line.
func (p *parser) label(e *etree.Element) string {
	if id := e.SelectAttrValue("id", ""); id != "" {
		return id
	}
	s := e.Tag
	if n := e.SelectAttrValue("name", ""); n != "" {
		s += " " + n
	}
	if l, ok := p.lines[e]; ok {
		s += fmt.Sprintf(" (line %d)", l)
	}
	return s
}

// children returns e's child elements in the DMN namespace named local.
func children(e *etree.Element, local string) []*etree.Element {
	var out []*etree.Element
	for _, c := range e.ChildElements() {
		if c.Tag == local && isDMN(c) {
			out = append(out, c)
		}
	}
	return out
}

// child returns e's first child element in the DMN namespace named local.
func child(e *etree.Element, local string) *etree.Element {
	for _, c := range e.ChildElements() {
		if c.Tag == local && isDMN(c) {
			return c
		}
	}
	return nil
}

// fullText returns all character data directly inside e (text and CDATA
// sections), trimmed.
func fullText(e *etree.Element) string {
	if e == nil {
		return ""
	}
	var b strings.Builder
	for _, t := range e.Child {
		if cd, ok := t.(*etree.CharData); ok {
			b.WriteString(cd.Data)
		}
	}
	return strings.TrimSpace(b.String())
}

// textOf returns the trimmed text of e's <text> child.
func textOf(e *etree.Element) string {
	if e == nil {
		return ""
	}
	return fullText(child(e, "text"))
}

func (p *parser) noteName(n string) {
	if n != "" && !p.nameSet[n] {
		p.nameSet[n] = true
	}
}

func (p *parser) noteID(e *etree.Element, id string) {
	if id == "" {
		return
	}
	if p.ids[id] {
		p.add(id, RuleDuplicateID, "id %q is used by more than one element", id)
		return
	}
	p.ids[id] = true
}

// isFEEL reports whether an expressionLanguage URI names FEEL ("" inherits
// the document's, which defaults to FEEL).
func isFEEL(lang string) bool {
	return lang == "" || strings.Contains(strings.ToUpper(lang), "FEEL")
}

func (p *parser) definitions(root *etree.Element) *Definitions {
	if root.Tag != "definitions" || !isDMN(root) {
		p.add(p.label(root), RuleNotDMN, "root element is <%s> in namespace %q; want <definitions> in a DMN 1.1–1.5 namespace", root.Tag, root.NamespaceURI())
		return nil
	}
	defs := &Definitions{
		ID:        root.SelectAttrValue("id", ""),
		Name:      root.SelectAttrValue("name", ""),
		Namespace: root.SelectAttrValue("namespace", ""),
		decisions: make(map[string]*Decision),
		byName:    make(map[string]*Decision),
	}
	p.defs = defs
	p.decisionEls = make(map[*Decision]*etree.Element)
	p.bkmEls = make(map[*BKM]*etree.Element)
	p.exprLang = root.SelectAttrValue("expressionLanguage", "")
	if !isFEEL(p.exprLang) {
		p.add(p.label(root), RuleUnsupported, "expressionLanguage %q is not supported; only FEEL is", p.exprLang)
	}

	// Pass 1: declarations — names, ids, item definitions.
	for _, e := range root.ChildElements() {
		if !isDMN(e) {
			continue // DMNDI and vendor extensions
		}
		switch e.Tag {
		case "itemDefinition":
			it := p.itemDefinition(e, true)
			if it == nil {
				continue
			}
			if _, dup := p.items[it.Name]; dup {
				p.add(p.label(e), RuleDuplicateName, "item definition %q is defined more than once", it.Name)
				continue
			}
			p.items[it.Name] = it
			defs.ItemDefinitions = append(defs.ItemDefinitions, it)
		case "inputData":
			id, name := p.drgElement(e)
			in := &InputData{ID: id, Name: name}
			if v := child(e, "variable"); v != nil {
				in.TypeRef = strings.TrimSpace(v.SelectAttrValue("typeRef", ""))
			}
			defs.InputData = append(defs.InputData, in)
			if id != "" {
				p.inputs[id] = in
			}
		case "decision":
			id, name := p.drgElement(e)
			d := &Decision{ID: id, Name: name}
			if v := child(e, "variable"); v != nil {
				d.TypeRef = strings.TrimSpace(v.SelectAttrValue("typeRef", ""))
			}
			defs.Decisions = append(defs.Decisions, d)
			p.decisionEls[d] = e
			if id != "" {
				p.decisions[id] = d
				defs.decisions[id] = d
			}
			if name != "" {
				defs.byName[name] = d
			}
		case "businessKnowledgeModel":
			id, name := p.drgElement(e)
			b := &BKM{ID: id, Name: name}
			defs.BusinessKnowledgeModels = append(defs.BusinessKnowledgeModels, b)
			p.bkmEls[b] = e
			if id != "" {
				p.bkms[id] = b
			}
		case "decisionService":
			p.add(p.label(e), RuleUnsupported, "decision services are not supported")
		case "import":
			p.add(p.label(e), RuleUnsupported, "imports are not supported; put every decision of a model in one document")
		case "knowledgeSource", "textAnnotation", "association", "group", "elementCollection",
			"performanceIndicator", "organizationUnit", "businessContextElement", "extensionElements",
			"description", "artifact":
			// Documentation only: no effect on evaluation.
		default:
			p.add(p.label(e), RuleUnsupported, "element <%s> is not supported", e.Tag)
		}
	}
	p.collectNames()

	// Pass 2: types, requirements and logic.
	for _, it := range defs.ItemDefinitions {
		p.resolveItem(it, it.Name)
	}
	for _, in := range defs.InputData {
		in.typ = p.resolveType(in.TypeRef, elementOr(in.ID, "inputData "+in.Name))
	}
	for _, b := range defs.BusinessKnowledgeModels {
		p.bkm(b, p.bkmEls[b])
	}
	for _, d := range defs.Decisions {
		p.decision(d, p.decisionEls[d])
	}
	p.checkCycles()
	return defs
}

func elementOr(id, fallback string) string {
	if id != "" {
		return id
	}
	return fallback
}

// drgElement reads and checks the id and name of a decision, input data or
// business knowledge model.
func (p *parser) drgElement(e *etree.Element) (id, name string) {
	id = e.SelectAttrValue("id", "")
	name = strings.TrimSpace(e.SelectAttrValue("name", ""))
	if id == "" {
		p.add(p.label(e), RuleMissingID, "<%s> has no id", e.Tag)
	}
	p.noteID(e, id)
	if name == "" {
		p.add(p.label(e), RuleMissingName, "<%s> has no name", e.Tag)
		return id, name
	}
	if other, dup := p.drgNames[name]; dup {
		p.add(p.label(e), RuleDuplicateName, "name %q is also used by %s", name, other)
	} else {
		p.drgNames[name] = elementOr(id, e.Tag)
	}
	p.noteName(name)
	return id, name
}

// collectNames notes every name an expression may mention besides the DRG
// element names: item component names (for paths), formal parameters,
// context entries and relation columns. It then freezes the sorted list
// FEEL compiles with: FEEL needs names with spaces to lex them and the
// names of functions (business knowledge models) to accept calls of them.
func (p *parser) collectNames() {
	var walkItem func(it *ItemDefinition)
	walkItem = func(it *ItemDefinition) {
		p.noteName(it.Name)
		for _, c := range it.Components {
			walkItem(c)
		}
	}
	for _, it := range p.defs.ItemDefinitions {
		for _, c := range it.Components {
			walkItem(c)
		}
	}
	var walk func(e *etree.Element)
	walk = func(e *etree.Element) {
		for _, c := range e.ChildElements() {
			if !isDMN(c) {
				continue
			}
			switch c.Tag {
			case "formalParameter", "column", "parameter":
				p.noteName(strings.TrimSpace(c.SelectAttrValue("name", "")))
			case "contextEntry":
				if v := child(c, "variable"); v != nil {
					p.noteName(strings.TrimSpace(v.SelectAttrValue("name", "")))
				}
			}
			walk(c)
		}
	}
	for _, e := range p.decisionEls {
		walk(e)
	}
	for _, e := range p.bkmEls {
		walk(e)
	}
	p.names = make([]string, 0, len(p.nameSet))
	for n := range p.nameSet {
		p.names = append(p.names, n)
	}
	sort.Strings(p.names)
}

// compile compiles a FEEL expression, naming element in any problem.
func (p *parser) compile(src, element, what string) *feel.Program {
	if src == "" {
		p.add(element, RuleInvalidExpression, "%s is empty", what)
		return nil
	}
	prog, err := feel.CompileWith(src, feel.Options{Names: p.names})
	if err != nil {
		p.add(element, RuleInvalidExpression, "%s %q: %v", what, abbreviate(src), err)
		return nil
	}
	return prog
}

// compileTests compiles FEEL unary tests, naming element in any problem.
func (p *parser) compileTests(src, element, what string) *feel.UnaryTests {
	if src == "" {
		p.add(element, RuleInvalidExpression, "%s is empty", what)
		return nil
	}
	ut, err := feel.CompileUnaryTests(src, feel.Options{Names: p.names})
	if err != nil {
		p.add(element, RuleInvalidExpression, "%s %q: %v", what, abbreviate(src), err)
		return nil
	}
	return ut
}

func abbreviate(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// href resolves a requirement's href ("#id", or "namespace#id" with this
// document's namespace) to an id.
func (p *parser) href(e *etree.Element, owner string) (string, bool) {
	h := strings.TrimSpace(e.SelectAttrValue("href", ""))
	i := strings.IndexByte(h, '#')
	if i < 0 || i == len(h)-1 {
		p.add(owner, RuleMissingReference, "<%s> href %q is not of the form \"#id\"", e.Tag, h)
		return "", false
	}
	if ns := h[:i]; ns != "" && ns != p.defs.Namespace {
		p.add(owner, RuleUnsupported, "<%s> href %q refers to another model; imports are not supported", e.Tag, h)
		return "", false
	}
	return h[i+1:], true
}

func (p *parser) decision(d *Decision, e *etree.Element) {
	el := elementOr(d.ID, p.label(e))
	d.typ = p.resolveType(d.TypeRef, el)
	for _, ir := range children(e, "informationRequirement") {
		if r := child(ir, "requiredDecision"); r != nil {
			if id, ok := p.href(r, el); ok {
				if rd := p.decisions[id]; rd != nil {
					d.RequiredDecisions = append(d.RequiredDecisions, rd)
				} else {
					p.add(el, RuleMissingReference, "requiredDecision %q names no decision", id)
				}
			}
		}
		if r := child(ir, "requiredInput"); r != nil {
			if id, ok := p.href(r, el); ok {
				if in := p.inputs[id]; in != nil {
					d.RequiredInputs = append(d.RequiredInputs, in)
				} else {
					p.add(el, RuleMissingReference, "requiredInput %q names no input data", id)
				}
			}
		}
	}
	d.RequiredKnowledge = p.knowledge(e, el)
	logic := p.logicElement(e, el)
	if logic == nil {
		return
	}
	d.Kind = logic.Tag
	d.logic = p.expression(logic, el)
	if t, ok := d.logic.(*DecisionTable); ok {
		d.Table = t
		t.owner = d.ID
	}
}

func (p *parser) knowledge(e *etree.Element, el string) []*BKM {
	var out []*BKM
	for _, kr := range children(e, "knowledgeRequirement") {
		r := child(kr, "requiredKnowledge")
		if r == nil {
			p.add(el, RuleMissingReference, "knowledgeRequirement has no requiredKnowledge")
			continue
		}
		if id, ok := p.href(r, el); ok {
			if b := p.bkms[id]; b != nil {
				out = append(out, b)
			} else {
				p.add(el, RuleMissingReference, "requiredKnowledge %q names no business knowledge model (decision services are not supported)", id)
			}
		}
	}
	return out
}

// logicElement returns the one boxed expression among e's children.
func (p *parser) logicElement(e *etree.Element, el string) *etree.Element {
	var found *etree.Element
	for _, c := range e.ChildElements() {
		if !isDMN(c) || !expressionKinds[c.Tag] {
			continue
		}
		if found != nil {
			p.add(el, RuleInvalidAttribute, "<%s> holds more than one expression (<%s> and <%s>)", e.Tag, found.Tag, c.Tag)
			return nil
		}
		found = c
	}
	if found == nil {
		p.add(el, RuleMissingLogic, "<%s> has no decision logic", e.Tag)
	}
	return found
}

func (p *parser) bkm(b *BKM, e *etree.Element) {
	el := elementOr(b.ID, p.label(e))
	b.RequiredKnowledge = p.knowledge(e, el)
	for _, ir := range children(e, "informationRequirement") {
		p.add(el, RuleInvalidAttribute, "a business knowledge model cannot have information requirements (%s)", p.label(ir))
	}
	logic := child(e, "encapsulatedLogic")
	if logic == nil {
		p.add(el, RuleMissingLogic, "business knowledge model has no encapsulatedLogic")
		return
	}
	b.fn = p.functionDefinition(logic, el)
	if b.fn != nil {
		b.Parameters = b.fn.params
		if t, ok := b.fn.body.(*DecisionTable); ok {
			b.Table = t
			t.owner = b.ID
		}
	}
}

// expression compiles the boxed expression e. It returns nil after
// recording a problem.
func (p *parser) expression(e *etree.Element, el string) expression {
	if id := e.SelectAttrValue("id", ""); id != "" {
		p.noteID(e, id)
	}
	switch e.Tag {
	case "literalExpression":
		return p.literal(e, el)
	case "decisionTable":
		return p.decisionTable(e, el)
	case "context":
		return p.context(e, el)
	case "invocation":
		return p.invocation(e, el)
	case "list":
		l := &listExpr{}
		for _, c := range e.ChildElements() {
			if isDMN(c) && expressionKinds[c.Tag] {
				l.items = append(l.items, p.expression(c, el))
			}
		}
		return l
	case "relation":
		return p.relation(e, el)
	case "functionDefinition":
		if fd := p.functionDefinition(e, el); fd != nil {
			return fd
		}
		return nil
	default:
		p.add(el, RuleUnsupported, "boxed expression <%s> is not supported", e.Tag)
		return nil
	}
}

func (p *parser) literal(e *etree.Element, el string) expression {
	if lang := e.SelectAttrValue("expressionLanguage", ""); !isFEEL(lang) {
		p.add(el, RuleUnsupported, "expressionLanguage %q is not supported; only FEEL is", lang)
		return nil
	}
	if iv := child(e, "importedValues"); iv != nil {
		p.add(el, RuleUnsupported, "importedValues are not supported")
		return nil
	}
	src := textOf(e)
	prog := p.compile(src, el, "literal expression")
	if prog == nil {
		return nil
	}
	return &literalExpr{prog: prog, typ: p.resolveType(strings.TrimSpace(e.SelectAttrValue("typeRef", "")), el)}
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
				p.add(el, RuleMissingName, "context entry %d has a variable without a name", i+1)
			}
			if seen[ent.name] {
				p.add(el, RuleDuplicateName, "context entry %q is defined more than once", ent.name)
			}
			seen[ent.name] = true
			ent.typ = p.resolveType(strings.TrimSpace(v.SelectAttrValue("typeRef", "")), el)
		} else if i != len(entries)-1 {
			p.add(el, RuleMissingName, "context entry %d has no variable; only the last entry (the result) may omit it", i+1)
		}
		x := p.logicElement(ce, el)
		if x != nil {
			ent.expr = p.expression(x, el)
		}
		if ent.name == "" {
			c.result = &ent
		} else {
			c.entries = append(c.entries, ent)
		}
	}
	return c
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
		p.add(el, RuleInvalidExpression, "invocation names no function")
	}
	for _, b := range children(e, "binding") {
		var bd binding
		if par := child(b, "parameter"); par != nil {
			bd.name = strings.TrimSpace(par.SelectAttrValue("name", ""))
		}
		if bd.name == "" {
			p.add(el, RuleMissingName, "invocation binding has no parameter name")
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

func (p *parser) relation(e *etree.Element, el string) expression {
	r := &relationExpr{}
	for _, c := range children(e, "column") {
		name := strings.TrimSpace(c.SelectAttrValue("name", ""))
		if name == "" {
			p.add(el, RuleMissingName, "relation column has no name")
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
			p.add(el, RuleInvalidAttribute, "relation row %d has %d cells for %d columns", i+1, len(cells), len(r.columns))
		}
		r.rows = append(r.rows, cells)
	}
	return r
}

// functionDefinition reads a <functionDefinition> or <encapsulatedLogic>.
func (p *parser) functionDefinition(e *etree.Element, el string) *funcDef {
	if kind := e.SelectAttrValue("kind", "FEEL"); kind != "FEEL" {
		p.add(el, RuleUnsupported, "function kind %q is not supported; only FEEL is", kind)
		return nil
	}
	fd := &funcDef{}
	for _, fp := range children(e, "formalParameter") {
		par := Parameter{Name: strings.TrimSpace(fp.SelectAttrValue("name", "")), TypeRef: strings.TrimSpace(fp.SelectAttrValue("typeRef", ""))}
		if par.Name == "" {
			p.add(el, RuleMissingName, "formal parameter %d has no name", len(fd.params)+1)
		}
		par.typ = p.resolveType(par.TypeRef, el)
		fd.params = append(fd.params, par)
	}
	body := p.logicElement(e, el)
	if body == nil {
		return nil
	}
	fd.body = p.expression(body, el)
	if fd.body == nil {
		return nil
	}
	return fd
}

// checkCycles refuses cycles among decisions (requiredDecision) and among
// business knowledge models (requiredKnowledge).
func (p *parser) checkCycles() {
	const (
		white = iota
		grey
		black
	)
	dstate := map[*Decision]int{}
	var visitD func(d *Decision, path []string) bool
	visitD = func(d *Decision, path []string) bool {
		switch dstate[d] {
		case grey:
			p.add(d.ID, RuleCycle, "decision requirements form a cycle: %s", strings.Join(append(path, d.ID), " → "))
			return true
		case black:
			return false
		}
		dstate[d] = grey
		for _, r := range d.RequiredDecisions {
			if visitD(r, append(path, d.ID)) {
				dstate[d] = black
				return true
			}
		}
		dstate[d] = black
		return false
	}
	for _, d := range p.defs.Decisions {
		visitD(d, nil)
	}
	bstate := map[*BKM]int{}
	var visitB func(b *BKM, path []string) bool
	visitB = func(b *BKM, path []string) bool {
		switch bstate[b] {
		case grey:
			p.add(b.ID, RuleCycle, "knowledge requirements form a cycle: %s", strings.Join(append(path, b.ID), " → "))
			return true
		case black:
			return false
		}
		bstate[b] = grey
		for _, r := range b.RequiredKnowledge {
			if visitB(r, append(path, b.ID)) {
				bstate[b] = black
				return true
			}
		}
		bstate[b] = black
		return false
	}
	for _, b := range p.defs.BusinessKnowledgeModels {
		visitB(b, nil)
	}
}

// NamespaceCamundaDMN is the Camunda 7 DMN extension namespace.
const NamespaceCamundaDMN = "http://camunda.org/schema/1.0/dmn"

// defaultCellVariable is the name Camunda 7 binds to a decision table
// input's value inside its input entries when camunda:inputVariable is
// absent.
const defaultCellVariable = "cellInput"

// cellVariable returns the name Camunda 7 gives the value of the table
// input ie inside its input entries: camunda:inputVariable, else
// "cellInput". gobpm binds no such name (a FEEL unary test reads the input
// as "?"), so checkCellVariable refuses entries that use it.
func (p *parser) cellVariable(ie *etree.Element) string {
	for _, a := range ie.Attr {
		if a.Key == "inputVariable" && a.NamespaceURI() == NamespaceCamundaDMN {
			return strings.TrimSpace(a.Value)
		}
	}
	return defaultCellVariable
}

// checkCellVariable reports an input entry src that names the Camunda cell
// variable v, unless v is a name of the model: gobpm would read it as an
// unknown name (null) and the rule would silently never match.
func (p *parser) checkCellVariable(src, v, el, what string) {
	if v == "" || p.nameSet[v] || !mentions(src, v) {
		return
	}
	p.add(el, RuleUnsupported, "%s %q uses %q, Camunda's name for the input value, which gobpm does not bind; write the test with \"?\" for the input value (e.g. \"? > 5\")", what, abbreviate(src), v)
}

// mentions reports whether src contains name as a whole identifier outside
// string literals.
func mentions(src, name string) bool {
	inString := false
	isIdent := func(r byte) bool {
		return r == '_' || r == '?' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80
	}
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '"':
			inString = !inString
		case src[i] == '\\' && inString:
			i++
		case !inString && strings.HasPrefix(src[i:], name) &&
			(i == 0 || !isIdent(src[i-1])) &&
			(i+len(name) == len(src) || !isIdent(src[i+len(name)])):
			return true
		}
	}
	return false
}
