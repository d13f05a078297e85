package bpmn

import (
	"strconv"
	"strings"

	"github.com/beevik/etree"

	"github.com/gobpm/gobpm/internal/expr"
)

// loopRef is a loopDataInputRef or loopDataOutputRef, resolved by
// resolveLoopRefs once every data declaration of the document is known.
type loopRef struct {
	label string
	loop  *Loop
	ref   string
	// output marks a loopDataOutputRef (the output collection).
	output bool
}

// loop reads the loop characteristics lc of activity e
// (docs/scopes.md#loops-and-multi-instance):
// multiInstanceLoopCharacteristics or standardLoopCharacteristics.
func (p *parser) loop(e, lc *etree.Element) *Loop {
	label := p.label(e)
	if lc.Tag == "standardLoopCharacteristics" {
		return p.standardLoop(label, lc)
	}
	return p.multiInstance(label, lc)
}

// standardLoop reads standardLoopCharacteristics: loopCondition (optional;
// without it and without loopMaximum the activity runs once), testBefore
// (default false) and loopMaximum (an integer >= 0; 0 is no maximum).
func (p *parser) standardLoop(label string, lc *etree.Element) *Loop {
	l := &Loop{Standard: true, TestBefore: p.boolAttr(lc, "testBefore", false)}
	if v := strings.TrimSpace(attr(lc, "loopMaximum")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			p.problems.add(label, RuleInvalidAttribute, "standardLoopCharacteristics loopMaximum=%q: want an integer >= 0", v)
		} else {
			l.LoopMaximum = n
		}
	}
	var conds []*etree.Element
	for _, c := range lc.ChildElements() {
		if !isBPMN(c) {
			p.foreign(c)
			continue
		}
		switch c.Tag {
		case "documentation", "extensionElements":
		case "loopCondition":
			conds = append(conds, c)
		default:
			p.unsupported(c, c.Tag+" in standardLoopCharacteristics")
		}
	}
	switch len(conds) {
	case 0:
	case 1:
		l.LoopCondition = p.formalExpression(label, "loopCondition", conds[0])
	default:
		p.problems.add(label, RuleInvalidExpression, "standardLoopCharacteristics has %d loopConditions; want at most one", len(conds))
	}
	return l
}

// miChildren are the child elements of a multiInstanceLoopCharacteristics,
// by tag.
type miChildren map[string][]*etree.Element

// oneChild returns the only child with tag, reporting a problem when there are
// several.
func (p *parser) oneChild(label string, ch miChildren, tag string) *etree.Element {
	els := ch[tag]
	if len(els) > 1 {
		p.problems.add(label, RuleInvalidAttribute, "multiInstanceLoopCharacteristics has %d %s elements; want at most one", len(els), tag)
	}
	if len(els) == 0 {
		return nil
	}
	return els[0]
}

// multiInstance reads multiInstanceLoopCharacteristics. Each setting comes
// from the gobpm attribute, else Camunda 8's zeebe:loopCharacteristics,
// else Camunda 7's attribute, else the standard element:
//
//	Cardinality       loopCardinality (an expression)
//	Collection        gobpm:collection, zeebe inputCollection, camunda:collection
//	                  (expressions), loopDataInputRef (a variable)
//	ElementVariable   gobpm:elementVariable, zeebe inputElement,
//	                  camunda:elementVariable, inputDataItem (its name, else id)
//	OutputCollection  gobpm:outputCollection, zeebe outputCollection, loopDataOutputRef
//	OutputElement     gobpm:outputElement, zeebe outputElement ("=name"),
//	                  outputDataItem (its name, else id)
//
// Exactly one of cardinality and collection is required; an element
// variable needs a collection; an output element and an output collection
// go together. Only the default behavior "All" is supported.
func (p *parser) multiInstance(label string, lc *etree.Element) *Loop {
	l := &Loop{Sequential: p.boolAttr(lc, "isSequential", false)}
	if b := strings.TrimSpace(attr(lc, "behavior")); b != "" && b != "All" {
		p.problems.add(label, RuleUnsupported,
			"multiInstanceLoopCharacteristics behavior=%q is not supported yet; only the default \"All\" (no events thrown per instance)", b)
	}
	ch := miChildren{}
	for _, c := range lc.ChildElements() {
		if !isBPMN(c) {
			p.foreign(c)
			continue
		}
		switch c.Tag {
		case "documentation", "extensionElements":
		case "loopCardinality", "completionCondition", "loopDataInputRef", "loopDataOutputRef":
			ch[c.Tag] = append(ch[c.Tag], c)
		case "inputDataItem", "outputDataItem":
			p.common(c, "dataState")
			ch[c.Tag] = append(ch[c.Tag], c)
		case "complexBehaviorDefinition":
			p.problems.add(label, RuleUnsupported, "complexBehaviorDefinition in multiInstanceLoopCharacteristics is not supported yet")
		default:
			p.unsupported(c, c.Tag+" in multiInstanceLoopCharacteristics")
		}
	}
	zeebe := extension(lc, NamespaceZeebe, "loopCharacteristics")
	zeebeAttr := func(key string) (string, bool) {
		if zeebe == nil {
			return "", false
		}
		if a := zeebe.SelectAttr(key); a != nil {
			return a.Value, true
		}
		return "", false
	}

	// The collection: an expression, or a variable named by loopDataInputRef.
	var colls []source
	if v, ok := nsAttr(lc, NamespaceGobpm, "collection"); ok {
		colls = append(colls, source{"gobpm:collection", v})
	}
	if v, ok := zeebeAttr("inputCollection"); ok {
		colls = append(colls, source{"zeebe:loopCharacteristics inputCollection", v})
	}
	if v, ok := nsAttr(lc, NamespaceCamunda, "collection"); ok {
		colls = append(colls, source{"camunda:collection", v})
	}
	inRef := p.oneChild(label, ch, "loopDataInputRef")
	if inRef != nil {
		colls = append(colls, source{"loopDataInputRef", text(inRef)})
	}
	coll, hasColl := pick(colls)
	if hasColl {
		switch {
		case strings.TrimSpace(coll.value) == "":
			p.problems.add(label, RuleMissingAttribute, "%s is empty", coll.what)
		case coll.what == "loopDataInputRef":
			p.loopRefs = append(p.loopRefs, loopRef{label: label, loop: l, ref: strings.TrimSpace(coll.value)})
		default:
			l.Collection = p.compile(label, coll.what, p.exprLang, coll.value)
		}
	}

	card := p.oneChild(label, ch, "loopCardinality")
	if card != nil {
		l.Cardinality = p.formalExpression(label, "loopCardinality", card)
	}
	switch {
	case card != nil && hasColl:
		p.problems.add(label, RuleInvalidAttribute, "multiInstanceLoopCharacteristics has both a loopCardinality and a collection (%s); give one", coll.what)
	case card == nil && !hasColl:
		p.problems.add(label, RuleMissingAttribute,
			"multiInstanceLoopCharacteristics needs a loopCardinality or a collection (gobpm:collection, or loopDataInputRef)")
	}

	// The element variable.
	var elems []source
	if v, ok := nsAttr(lc, NamespaceGobpm, "elementVariable"); ok {
		elems = append(elems, source{"gobpm:elementVariable", v})
	}
	if v, ok := zeebeAttr("inputElement"); ok {
		elems = append(elems, source{"zeebe:loopCharacteristics inputElement", v})
	}
	if v, ok := nsAttr(lc, NamespaceCamunda, "elementVariable"); ok {
		elems = append(elems, source{"camunda:elementVariable", v})
	}
	if it := p.oneChild(label, ch, "inputDataItem"); it != nil {
		elems = append(elems, source{"inputDataItem", nameOrID(it)})
	}
	if s, ok := pick(elems); ok {
		l.ElementVariable = p.variableName(label, s)
		if !hasColl {
			p.problems.add(label, RuleInvalidAttribute, "%s needs a collection to take its items from (gobpm:collection, or loopDataInputRef)", s.what)
		}
	}

	// The output collection and the output element.
	var outColls, outElems []source
	if v, ok := nsAttr(lc, NamespaceGobpm, "outputCollection"); ok {
		outColls = append(outColls, source{"gobpm:outputCollection", v})
	}
	if v, ok := zeebeAttr("outputCollection"); ok {
		outColls = append(outColls, source{"zeebe:loopCharacteristics outputCollection", v})
	}
	if ref := p.oneChild(label, ch, "loopDataOutputRef"); ref != nil {
		outColls = append(outColls, source{"loopDataOutputRef", text(ref)})
	}
	if v, ok := nsAttr(lc, NamespaceGobpm, "outputElement"); ok {
		outElems = append(outElems, source{"gobpm:outputElement", v})
	}
	if v, ok := zeebeAttr("outputElement"); ok {
		outElems = append(outElems, source{"zeebe:loopCharacteristics outputElement", v})
	}
	if it := p.oneChild(label, ch, "outputDataItem"); it != nil {
		outElems = append(outElems, source{"outputDataItem", nameOrID(it)})
	}
	outColl, hasOutColl := pick(outColls)
	outElem, hasOutElem := pick(outElems)
	if hasOutColl {
		if outColl.what == "loopDataOutputRef" {
			if ref := strings.TrimSpace(outColl.value); ref == "" {
				p.problems.add(label, RuleMissingAttribute, "loopDataOutputRef is empty")
			} else {
				p.loopRefs = append(p.loopRefs, loopRef{label: label, loop: l, ref: ref, output: true})
			}
		} else {
			l.OutputCollection = p.variableName(label, outColl)
		}
	}
	if hasOutElem {
		if strings.HasPrefix(outElem.what, "zeebe:") {
			// Zeebe's outputElement is an expression evaluated in the
			// iteration; gobpm collects a variable of the iteration.
			v := expr.Unwrap(outElem.value)
			if !isPlainName(v) {
				p.problems.add(label, RuleUnsupported,
					"%s %q: only a variable name (\"=name\") is supported; gobpm collects that variable of each iteration", outElem.what, strings.TrimSpace(outElem.value))
			} else {
				l.OutputElement = v
			}
		} else {
			l.OutputElement = p.variableName(label, outElem)
		}
	}
	switch {
	case hasOutElem && !hasOutColl:
		p.problems.add(label, RuleMissingAttribute, "%s needs an output collection (gobpm:outputCollection, or loopDataOutputRef) to collect into", outElem.what)
	case hasOutColl && !hasOutElem:
		p.problems.add(label, RuleMissingAttribute, "%s needs an output element (gobpm:outputElement, or outputDataItem) to collect from each iteration", outColl.what)
	}

	if c := p.oneChild(label, ch, "completionCondition"); c != nil {
		l.CompletionCondition = p.formalExpression(label, "completionCondition", c)
	}
	return l
}

// variableName checks a variable name given by s: not empty, and not an
// expression.
func (p *parser) variableName(label string, s source) string {
	v := strings.TrimSpace(s.value)
	switch {
	case v == "":
		p.problems.add(label, RuleMissingAttribute, "%s is empty", s.what)
	case isExpression(v):
		p.problems.add(label, RuleInvalidAttribute, "%s %q is a variable name, not an expression", s.what, v)
		return ""
	}
	return v
}

// feelKeywords are FEEL words a bare name would not read as a variable.
var feelKeywords = map[string]bool{
	"true": true, "false": true, "null": true, "if": true, "then": true, "else": true, "for": true, "in": true,
	"return": true, "some": true, "every": true, "satisfies": true, "and": true, "or": true, "between": true,
	"instance": true, "of": true, "function": true,
}

// isPlainName reports whether s is a variable name an expression can
// read as is: letters, digits and underscores, not starting with a digit,
// and not a FEEL keyword.
func isPlainName(s string) bool {
	if s == "" || feelKeywords[s] {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// resolveLoopRefs resolves loopDataInputRef and loopDataOutputRef: a
// reference to a dataObject (or its reference), a property or a process
// data input/output stands for that element's variable; any other text is
// the variable name itself, as in Camunda 7. The input collection is that
// variable, read as an expression.
func (p *parser) resolveLoopRefs() {
	for _, r := range p.loopRefs {
		what := "loopDataInputRef"
		if r.output {
			what = "loopDataOutputRef"
		}
		name, ok := p.variableOf(r.ref)
		if !ok {
			if i := strings.LastIndexByte(r.ref, ':'); i >= 0 {
				name, ok = p.variableOf(r.ref[i+1:])
			}
		}
		switch {
		case !ok && p.ids[r.ref]:
			p.problems.add(r.label, RuleMissingReference, "%s %q names an element that is not a data object, property or data input/output", what, r.ref)
			continue
		case !ok:
			name = r.ref
		}
		if !isPlainName(name) {
			p.problems.add(r.label, RuleInvalidAttribute,
				"%s %q: the variable %q is not a plain name (letters, digits, _); use gobpm:collection / gobpm:outputCollection", what, r.ref, name)
			continue
		}
		if r.output {
			r.loop.OutputCollection = name
		} else {
			r.loop.Collection = p.compile(r.label, what, "", name)
		}
	}
}
