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
	"conditional": true, "filter": true, "for": true, "every": true, "some": true,
}

// Parse reads a DMN 1.1–1.5 definitions document and returns the model,
// every FEEL expression compiled. It is ParseAll of the one document: an
// import of another model stays unresolved (a warning).
//
// A problem with the document as a whole — malformed XML, a refused
// DOCTYPE, a limit exceeded, a root that is not DMN, a broken href, two
// elements with one id or one name, a cycle in the requirement graph or
// among item definitions — makes Parse return a *ValidationError holding
// every such problem (and the warnings below), and no model. A problem
// confined to one element —
// an expression that does not compile or calls an unknown function, an
// unsupported boxed expression or function kind, a malformed decision
// table, a decision without logic or without an id — is a warning
// (Definitions.Warnings): the model loads, and that element evaluates to
// null with an error, as DMN wants.
func Parse(data []byte) (*Definitions, error) {
	defs, errs := ParseAll(Document{Data: data})
	return defs[0], errs[0]
}

// Document is one DMN document of a set that ParseAll reads together.
type Document struct {
	// Name names the document in problems (a file name).
	Name string
	Data []byte
}

// ParseAll reads several DMN documents that may import one another (one
// deployment): an <import> names another document of the set by its
// namespace, and the imported model's elements and item definitions are
// then visible under the import's name. It returns one model and one
// error per document, in the order given: a document that does not load
// (see Parse), or that imports one that does not, has a nil model and a
// *ValidationError.
func ParseAll(docs ...Document) ([]*Definitions, []error) {
	defs := make([]*Definitions, len(docs))
	errs := make([]error, len(docs))
	type loaded struct {
		doc     *document
		root    *etree.Element
		ns      string
		imports []string // namespaces of imported DMN models
		done    bool
		busy    bool
	}
	ls := make([]*loaded, len(docs))
	byNS := map[string]int{}
	for i, doc := range docs {
		d, ps := load(doc.Data)
		if ps != nil {
			errs[i] = ps.err()
			continue
		}
		root := d.doc.Root()
		l := &loaded{doc: d, root: root, ns: root.SelectAttrValue("namespace", "")}
		for _, im := range children(root, "import") {
			if isDMNImport(im) {
				l.imports = append(l.imports, strings.TrimSpace(im.SelectAttrValue("namespace", "")))
			}
		}
		ls[i] = l
		if _, dup := byNS[l.ns]; !dup && l.ns != "" {
			byNS[l.ns] = i
		}
	}
	var visit func(i int)
	visit = func(i int) {
		l := ls[i]
		if l == nil || l.done {
			return
		}
		l.busy = true
		imported := map[string]*Definitions{}
		var ps problems
		for _, ns := range l.imports {
			j, ok := byNS[ns]
			if !ok || j == i {
				continue
			}
			if ls[j] != nil && ls[j].busy {
				ps.add("", RuleCycle, "imports form a cycle through namespace %q", ns)
				continue
			}
			visit(j)
			if defs[j] == nil {
				ps.add("", RuleMissingReference, "the imported model %q does not load", ns)
				continue
			}
			imported[ns] = defs[j]
		}
		l.busy, l.done = false, true
		if len(ps) > 0 {
			errs[i] = ps.err()
			return
		}
		defs[i], errs[i] = parseDocument(l.doc, imported)
	}
	for i := range ls {
		visit(i)
	}
	return defs, errs
}

// isDMNImport reports whether an <import> imports a DMN model (its
// importType is a DMN namespace, or absent).
func isDMNImport(im *etree.Element) bool {
	t := strings.TrimSpace(im.SelectAttrValue("importType", ""))
	return t == "" || dmnNamespaces[stripScheme(t)]
}

// parseDocument reads one loaded document; imported holds the models it
// may import, by namespace.
func parseDocument(d *document, imported map[string]*Definitions) (*Definitions, error) {
	p := &parser{
		lines:     d.lines,
		ids:       make(map[string]bool),
		items:     make(map[string]*ItemDefinition),
		inputs:    make(map[string]*InputData),
		decisions: make(map[string]*Decision),
		bkms:      make(map[string]*BKM),
		services:  make(map[string]*DecisionService),
		drgNames:  make(map[string]string),
		nameSet:   make(map[string]bool),
		available: imported,
	}
	defs := p.definitions(d.doc.Root())
	if len(p.problems) > 0 {
		// The warnings go along: the author fixes everything at once.
		return nil, append(p.problems, p.warnings...).err()
	}
	defs.Warnings = p.warnings
	return defs, nil
}

// parser holds the state of one document's parse.
type parser struct {
	lines    map[*etree.Element]int
	problems problems // refuse the document
	warnings problems // do not
	defs     *Definitions
	exprLang string // the document's expressionLanguage

	ids       map[string]bool
	items     map[string]*ItemDefinition // top-level item definitions by name
	inputs    map[string]*InputData      // by id
	decisions map[string]*Decision       // by id
	bkms      map[string]*BKM            // by id
	services  map[string]*DecisionService
	drgNames  map[string]string // DRG element name → id
	nameSet   map[string]bool   // every name FEEL must know (may contain spaces)
	names     []string          // nameSet, sorted
	available map[string]*Definitions
	imports   map[string]*Definitions // by import name

	decisionEls map[*Decision]*etree.Element
	bkmEls      map[*BKM]*etree.Element
	serviceEls  map[*DecisionService]*etree.Element
}

// add records a problem that refuses the document.
func (p *parser) add(element string, rule Rule, format string, args ...any) {
	p.problems.add(element, rule, format, args...)
}

// warn records a problem the model loads with.
func (p *parser) warn(element string, rule Rule, format string, args ...any) {
	p.warnings.add(element, rule, format, args...)
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
		services:  make(map[string]*DecisionService),
	}
	p.defs = defs
	p.decisionEls = make(map[*Decision]*etree.Element)
	p.bkmEls = make(map[*BKM]*etree.Element)
	p.serviceEls = make(map[*DecisionService]*etree.Element)
	p.imports = make(map[string]*Definitions)
	p.exprLang = root.SelectAttrValue("expressionLanguage", "")
	if !isFEEL(p.exprLang) {
		p.warn(p.label(root), RuleUnsupported, "expressionLanguage %q is not supported; only FEEL is", p.exprLang)
	}

	// Pass 1: declarations — imports, names, ids, item definitions.
	for _, e := range root.ChildElements() {
		if !isDMN(e) {
			continue // DMNDI and vendor extensions
		}
		switch e.Tag {
		case "import":
			p.importElement(e)
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
			in := &InputData{ID: id, Name: name, model: defs}
			if v := child(e, "variable"); v != nil {
				in.TypeRef = strings.TrimSpace(v.SelectAttrValue("typeRef", ""))
			}
			defs.InputData = append(defs.InputData, in)
			if id != "" {
				p.inputs[id] = in
			}
		case "decision":
			id, name := p.drgElement(e)
			d := &Decision{ID: id, Name: name, model: defs}
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
			b := &BKM{ID: id, Name: name, model: defs}
			defs.BusinessKnowledgeModels = append(defs.BusinessKnowledgeModels, b)
			p.bkmEls[b] = e
			if id != "" {
				p.bkms[id] = b
			}
		case "decisionService":
			id, name := p.drgElement(e)
			s := &DecisionService{ID: id, Name: name, model: defs}
			if v := child(e, "variable"); v != nil {
				s.TypeRef = strings.TrimSpace(v.SelectAttrValue("typeRef", ""))
			}
			defs.DecisionServices = append(defs.DecisionServices, s)
			p.serviceEls[s] = e
			if id != "" {
				p.services[id] = s
				defs.services[id] = s
			}
			if name != "" {
				if _, taken := defs.services[name]; !taken {
					defs.services[name] = s
				}
			}
		case "knowledgeSource", "textAnnotation", "association", "group", "elementCollection",
			"performanceIndicator", "organizationUnit", "businessContextElement", "extensionElements",
			"description", "artifact":
			// Documentation only: no effect on evaluation.
		default:
			p.warn(p.label(e), RuleUnsupported, "element <%s> is not supported", e.Tag)
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
	for _, s := range defs.DecisionServices {
		p.decisionService(s, p.serviceEls[s])
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

// importElement reads an <import>: a DMN model of the set by namespace.
func (p *parser) importElement(e *etree.Element) {
	im := &Import{
		Name:       strings.TrimSpace(e.SelectAttrValue("name", "")),
		Namespace:  strings.TrimSpace(e.SelectAttrValue("namespace", "")),
		ImportType: strings.TrimSpace(e.SelectAttrValue("importType", "")),
	}
	p.defs.Imports = append(p.defs.Imports, im)
	if !isDMNImport(e) {
		p.warn(p.label(e), RuleUnsupported, "import %q of type %q is not supported; only DMN models can be imported", im.Name, im.ImportType)
		return
	}
	im.Model = p.available[im.Namespace]
	if im.Model == nil {
		p.warn(p.label(e), RuleMissingReference, "import %q: no model of namespace %q was deployed with this one", im.Name, im.Namespace)
		return
	}
	p.imports[im.Name] = im.Model
	p.noteName(im.Name)
}

func elementOr(id, fallback string) string {
	if id != "" {
		return id
	}
	return fallback
}

// drgElement reads and checks the id and name of a decision, input data,
// business knowledge model or decision service.
func (p *parser) drgElement(e *etree.Element) (id, name string) {
	id = e.SelectAttrValue("id", "")
	name = strings.TrimSpace(e.SelectAttrValue("name", ""))
	if id == "" {
		p.warn(p.label(e), RuleMissingID, "<%s> has no id: it can be evaluated by name only", e.Tag)
	}
	p.noteID(e, id)
	if name == "" {
		p.warn(p.label(e), RuleMissingName, "<%s> has no name", e.Tag)
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
// context entries, relation columns, iterator variables, and the names
// of imported models' elements. It then freezes the sorted list FEEL
// compiles with: FEEL needs names with spaces to lex them and the names of
// functions (business knowledge models) to accept calls of them.
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
			case "for", "some", "every":
				p.noteName(strings.TrimSpace(c.SelectAttrValue("iteratorVariable", "")))
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
	for _, m := range p.imports {
		for _, n := range m.exportedNames() {
			p.noteName(n)
		}
	}
	p.names = make([]string, 0, len(p.nameSet))
	for n := range p.nameSet {
		p.names = append(p.names, n)
	}
	sort.Strings(p.names)
}

// exportedNames lists the names an importing model may use after the
// import's name: this model's DRG elements and item components.
func (d *Definitions) exportedNames() []string {
	var out []string
	for _, x := range d.Decisions {
		out = append(out, x.Name)
	}
	for _, x := range d.InputData {
		out = append(out, x.Name)
	}
	for _, x := range d.BusinessKnowledgeModels {
		out = append(out, x.Name)
		for _, par := range x.Parameters {
			out = append(out, par.Name)
		}
	}
	for _, x := range d.DecisionServices {
		out = append(out, x.Name)
	}
	var walk func(it *ItemDefinition)
	walk = func(it *ItemDefinition) {
		out = append(out, it.Name)
		for _, c := range it.Components {
			walk(c)
		}
	}
	for _, it := range d.ItemDefinitions {
		walk(it)
	}
	for _, im := range d.Imports {
		out = append(out, im.Name)
	}
	return out
}

// feelOptions are the options every expression of the model compiles
// with: its names, its types for `instance of`, and lenient compilation
// (problems DMN reports at evaluation stay there).
func (p *parser) feelOptions() feel.Options {
	return feel.Options{Names: p.names, Types: p.typeFunc, Lenient: true}
}

// typeFunc resolves a type name of `instance of` (an item definition,
// possibly of an imported model) to its test.
func (p *parser) typeFunc(name string) feel.TypeFunc {
	t := p.lookupType(name)
	if t == nil {
		return nil
	}
	return func(v any) bool { return isInstance(v, t) }
}

// compile compiles a FEEL expression, naming element in any problem. An
// expression that does not compile is a warning and evaluates to null
// with the compile error.
func (p *parser) compile(src, element, what string) expression {
	if src == "" {
		p.warn(element, RuleInvalidExpression, "%s is empty", what)
		return &errExpr{msg: what + " is empty"}
	}
	prog, err := feel.CompileWith(src, p.feelOptions())
	if err != nil {
		msg := fmt.Sprintf("%s %q: %v", what, abbreviate(src), err)
		p.warn(element, RuleInvalidExpression, "%s", msg)
		return &errExpr{msg: msg}
	}
	for _, pr := range prog.Problems() {
		p.warn(element, RuleInvalidExpression, "%s %q: %s", what, abbreviate(src), pr)
	}
	return &literalExpr{prog: prog}
}

// compileProgram compiles a FEEL expression that must compile to be
// useful (a table's input expression, output entry or default); nil
// after a warning.
func (p *parser) compileProgram(src, element, what string) (*feel.Program, string) {
	prog, err := feel.CompileWith(src, p.feelOptions())
	if err != nil {
		msg := fmt.Sprintf("%s %q: %v", what, abbreviate(src), err)
		p.warn(element, RuleInvalidExpression, "%s", msg)
		return nil, msg
	}
	for _, pr := range prog.Problems() {
		p.warn(element, RuleInvalidExpression, "%s %q: %s", what, abbreviate(src), pr)
	}
	return prog, ""
}

// compileTests compiles FEEL unary tests, naming element in any problem
// (a warning); nil when they do not compile.
func (p *parser) compileTests(src, element, what string) (*feel.UnaryTests, string) {
	if src == "" {
		p.warn(element, RuleInvalidExpression, "%s is empty", what)
		return nil, what + " is empty"
	}
	ut, err := feel.CompileUnaryTests(src, p.feelOptions())
	if err != nil {
		msg := fmt.Sprintf("%s %q: %v", what, abbreviate(src), err)
		p.warn(element, RuleInvalidExpression, "%s", msg)
		return nil, msg
	}
	return ut, ""
}

func abbreviate(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// href resolves a requirement's href ("#id", or "namespace#id" with this
// document's namespace or an imported model's) to the model and id.
func (p *parser) href(e *etree.Element, owner string) (*Definitions, string, bool) {
	h := strings.TrimSpace(e.SelectAttrValue("href", ""))
	i := strings.LastIndexByte(h, '#')
	if i < 0 || i == len(h)-1 {
		p.add(owner, RuleMissingReference, "<%s> href %q is not of the form \"#id\"", e.Tag, h)
		return nil, "", false
	}
	ns := h[:i]
	if ns == "" || ns == p.defs.Namespace {
		return p.defs, h[i+1:], true
	}
	if m := p.available[ns]; m != nil {
		return m, h[i+1:], true
	}
	p.add(owner, RuleMissingReference, "<%s> href %q refers to a model that was not imported", e.Tag, h)
	return nil, "", false
}

// decisionRef resolves an href to a decision.
func (p *parser) decisionRef(e *etree.Element, el, what string) *Decision {
	m, id, ok := p.href(e, el)
	if !ok {
		return nil
	}
	var d *Decision
	if m == p.defs {
		d = p.decisions[id]
	} else {
		d = m.decisions[id]
	}
	if d == nil {
		p.add(el, RuleMissingReference, "%s %q names no decision", what, id)
	}
	return d
}

// inputRef resolves an href to an input data.
func (p *parser) inputRef(e *etree.Element, el, what string) *InputData {
	m, id, ok := p.href(e, el)
	if !ok {
		return nil
	}
	var in *InputData
	if m == p.defs {
		in = p.inputs[id]
	} else {
		for _, x := range m.InputData {
			if x.ID == id {
				in = x
			}
		}
	}
	if in == nil {
		p.add(el, RuleMissingReference, "%s %q names no input data", what, id)
	}
	return in
}

func (p *parser) decision(d *Decision, e *etree.Element) {
	el := elementOr(d.ID, p.label(e))
	d.typ = p.resolveType(d.TypeRef, el)
	for _, ir := range children(e, "informationRequirement") {
		if r := child(ir, "requiredDecision"); r != nil {
			if rd := p.decisionRef(r, el, "requiredDecision"); rd != nil {
				d.RequiredDecisions = append(d.RequiredDecisions, rd)
			}
		}
		if r := child(ir, "requiredInput"); r != nil {
			if in := p.inputRef(r, el, "requiredInput"); in != nil {
				d.RequiredInputs = append(d.RequiredInputs, in)
			}
		}
	}
	d.RequiredKnowledge, d.RequiredServices = p.knowledge(e, el)
	logic := p.logicElement(e, el)
	if logic == nil {
		d.logic = &errExpr{msg: "the decision has no decision logic"}
		return
	}
	d.Kind = logic.Tag
	d.logic = p.expression(logic, el)
	if t, ok := d.logic.(*DecisionTable); ok {
		d.Table = t
		t.owner = d.ID
	}
}

// decisionService reads a <decisionService>'s output, encapsulated and
// input decisions and input data.
func (p *parser) decisionService(s *DecisionService, e *etree.Element) {
	el := elementOr(s.ID, p.label(e))
	s.typ = p.resolveType(s.TypeRef, el)
	if s.typ != nil && s.typ.item != nil && s.typ.item.TypeRef == tFunction {
		// The service's type is a function type: its value (the
		// function's result) has the function's output type.
		s.typ = s.typ.item.output
	}
	for _, r := range children(e, "outputDecision") {
		if d := p.decisionRef(r, el, "outputDecision"); d != nil {
			s.OutputDecisions = append(s.OutputDecisions, d)
		}
	}
	for _, r := range children(e, "encapsulatedDecision") {
		if d := p.decisionRef(r, el, "encapsulatedDecision"); d != nil {
			s.EncapsulatedDecisions = append(s.EncapsulatedDecisions, d)
		}
	}
	for _, r := range children(e, "inputDecision") {
		if d := p.decisionRef(r, el, "inputDecision"); d != nil {
			s.InputDecisions = append(s.InputDecisions, d)
		}
	}
	for _, r := range children(e, "inputData") {
		if in := p.inputRef(r, el, "inputData"); in != nil {
			s.InputData = append(s.InputData, in)
		}
	}
	if len(s.OutputDecisions) == 0 {
		p.warn(el, RuleMissingLogic, "decision service has no output decision")
	}
}

// knowledge resolves e's knowledge requirements: business knowledge
// models and decision services.
func (p *parser) knowledge(e *etree.Element, el string) ([]*BKM, []*DecisionService) {
	var bkms []*BKM
	var services []*DecisionService
	for _, kr := range children(e, "knowledgeRequirement") {
		r := child(kr, "requiredKnowledge")
		if r == nil {
			p.add(el, RuleMissingReference, "knowledgeRequirement has no requiredKnowledge")
			continue
		}
		m, id, ok := p.href(r, el)
		if !ok {
			continue
		}
		var b *BKM
		var s *DecisionService
		if m == p.defs {
			b, s = p.bkms[id], p.services[id]
		} else {
			for _, x := range m.BusinessKnowledgeModels {
				if x.ID == id {
					b = x
				}
			}
			for _, x := range m.DecisionServices {
				if x.ID == id {
					s = x
				}
			}
		}
		switch {
		case b != nil:
			bkms = append(bkms, b)
		case s != nil:
			services = append(services, s)
		default:
			p.add(el, RuleMissingReference, "requiredKnowledge %q names no business knowledge model or decision service", id)
		}
	}
	return bkms, services
}

// logicElement returns the one boxed expression among e's children (nil,
// with a warning, when there is none).
func (p *parser) logicElement(e *etree.Element, el string) *etree.Element {
	var found *etree.Element
	for _, c := range e.ChildElements() {
		if !isDMN(c) || !expressionKinds[c.Tag] {
			continue
		}
		if found != nil {
			p.warn(el, RuleInvalidAttribute, "<%s> holds more than one expression (<%s> and <%s>)", e.Tag, found.Tag, c.Tag)
			return nil
		}
		found = c
	}
	if found == nil {
		p.warn(el, RuleMissingLogic, "<%s> has no decision logic", e.Tag)
	}
	return found
}

func (p *parser) bkm(b *BKM, e *etree.Element) {
	el := elementOr(b.ID, p.label(e))
	b.RequiredKnowledge, b.RequiredServices = p.knowledge(e, el)
	for _, ir := range children(e, "informationRequirement") {
		p.warn(el, RuleInvalidAttribute, "a business knowledge model cannot have information requirements (%s)", p.label(ir))
	}
	logic := child(e, "encapsulatedLogic")
	if logic == nil {
		p.warn(el, RuleMissingLogic, "business knowledge model has no encapsulatedLogic")
		b.fn = &funcDef{body: &errExpr{msg: "the business knowledge model has no encapsulatedLogic"}}
		return
	}
	b.fn = p.functionDefinition(logic, el)
	b.Parameters = b.fn.params
	if t, ok := b.fn.body.(*DecisionTable); ok {
		b.Table = t
		t.owner = b.ID
	}
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
