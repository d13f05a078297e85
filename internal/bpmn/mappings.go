package bpmn

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/beevik/etree"
)

// Variable mappings (docs/scopes.md#variable-mappings): Camunda 7's camunda:inputOutput,
// Camunda 8's zeebe:ioMapping and gobpm's own gobpm:input / gobpm:output
// extension elements, read into Node.Mappings.

// mappingActivities and mappingEvents are the BPMN elements that may hold
// variable mappings at all; nodeMappings refines per element and form.
var (
	mappingActivities = map[string]bool{
		"task": true, "manualTask": true, "scriptTask": true, "serviceTask": true, "sendTask": true,
		"userTask": true, "receiveTask": true, "businessRuleTask": true, "callActivity": true,
		"subProcess": true, "adHocSubProcess": true,
	}
	mappingEvents = map[string]bool{
		"startEvent": true, "intermediateCatchEvent": true, "intermediateThrowEvent": true,
		"boundaryEvent": true, "endEvent": true,
	}
)

// mappingOwner reports whether the BPMN element owner may hold variable
// mappings (nodeMappings then reads them and checks the details).
func mappingOwner(owner *etree.Element) bool {
	return isBPMN(owner) && (mappingActivities[owner.Tag] || mappingEvents[owner.Tag])
}

// mappingHint says where variables are mapped instead of an element that
// cannot hold mappings.
const mappingHint = "map the variables on an activity or event next to it"

// gobpmMappings are gobpm's mapping extension elements.
var gobpmMappings = map[string]bool{"input": true, "output": true}

// nodeMappings reads the variable mappings of the flow node e into n (its
// loop characteristics already read): gobpm:input/gobpm:output, else
// zeebe:ioMapping, else camunda:inputOutput — the precedence every other
// setting follows; a lower form next to a higher one is ignored. Where a
// form cannot apply (Camunda 7 and Zeebe allow them on different elements)
// the element is refused, naming it.
func (p *parser) nodeMappings(e *etree.Element, n *Node) *Mappings {
	var gobpmEls []*etree.Element
	var zeebeEl, camundaEl *etree.Element
	for _, x := range e.ChildElements() {
		if !isBPMN(x) || x.Tag != "extensionElements" {
			continue
		}
		for _, c := range x.ChildElements() {
			switch {
			case c.NamespaceURI() == NamespaceGobpm && gobpmMappings[c.Tag]:
				gobpmEls = append(gobpmEls, c)
			case c.NamespaceURI() == NamespaceZeebe && c.Tag == "ioMapping":
				if zeebeEl != nil {
					p.problems.add(p.label(e), RuleInvalidAttribute, "%s has several zeebe:ioMapping elements; use one", e.Tag)
				}
				zeebeEl = c
			case c.NamespaceURI() == NamespaceCamunda && c.Tag == "inputOutput":
				if camundaEl != nil {
					p.problems.add(p.label(e), RuleInvalidAttribute, "%s has several camunda:inputOutput elements; use one", e.Tag)
				}
				camundaEl = c
			}
		}
	}
	var m *Mappings
	form := ""
	switch {
	case len(gobpmEls) > 0:
		m, form = p.gobpmMappings(e, gobpmEls), "gobpm:input/gobpm:output"
	case zeebeEl != nil:
		m, form = p.zeebeMappings(e, zeebeEl), "zeebe:ioMapping"
	case camundaEl != nil:
		m, form = p.camundaMappings(e, camundaEl), "camunda:inputOutput"
	default:
		return nil
	}
	if m == nil || !p.mappingsAllowed(e, n, m, form) {
		return nil
	}
	if len(m.Inputs) == 0 && len(m.Outputs) == 0 {
		return nil
	}
	return m
}

// mappingsAllowed checks where the mappings m of form sit: Camunda 7
// refuses camunda:inputOutput on start and boundary events and event
// sub-processes, and output parameters on end events and multi-instance
// activities; Zeebe takes no inputs on start and boundary events and no
// outputs on error or terminate end events. gobpm refuses inputs on event
// sub-processes (not supported yet).
func (p *parser) mappingsAllowed(e *etree.Element, n *Node, m *Mappings, form string) bool {
	label := p.label(e)
	refuse := func(format string, args ...any) bool {
		p.problems.add(label, RuleUnsupported, form+" on "+e.Tag+": "+format, args...)
		return false
	}
	eventSub := e.Tag == "subProcess" && n.TriggeredByEvent
	if m.Style == MappingCamunda7 {
		switch {
		case e.Tag == "startEvent":
			return refuse("Camunda 7 allows no input/output mapping on a start event; map the variables on the activity after it")
		case e.Tag == "boundaryEvent":
			return refuse("Camunda 7 allows no input/output mapping on a boundary event; map the variables on the activity after it")
		case eventSub:
			return refuse("Camunda 7 allows no input/output mapping on an event sub-process; map the variables on an activity inside it")
		case len(m.Outputs) > 0 && e.Tag == "endEvent":
			return refuse("camunda:outputParameter is not allowed on an end event (as in Camunda 7): nothing follows it")
		case len(m.Outputs) > 0 && n.Loop != nil && !n.Loop.Standard:
			return refuse("camunda:outputParameter is not allowed on a multi-instance activity (as in Camunda 7): every instance would overwrite the others' values; collect them with an output collection")
		}
		return true
	}
	switch {
	case len(m.Inputs) > 0 && (e.Tag == "boundaryEvent" || e.Tag == "startEvent"):
		return refuse("a %s takes output mappings only (as in Camunda 8)", strings.TrimSuffix(e.Tag, "Event")+" event")
	case len(m.Inputs) > 0 && eventSub:
		return refuse("input mappings on an event sub-process are not supported yet; map the variables in its first activity (output mappings are supported)")
	case len(m.Outputs) > 0 && e.Tag == "endEvent" && n.Event != nil && (n.Event.Kind == TriggerError || n.Event.Kind == TriggerTerminate):
		return refuse("an %s end event takes no output mappings (as in Camunda 8): it hands nothing to its scope", n.Event.Kind)
	}
	return true
}

// gobpmMappings reads gobpm:input and gobpm:output elements (attributes
// source and target; Zeebe's semantics).
func (p *parser) gobpmMappings(e *etree.Element, els []*etree.Element) *Mappings {
	m := &Mappings{Style: MappingZeebe}
	for _, c := range els {
		mp, ok := p.sourceTarget(e, c, "gobpm:"+c.Tag)
		if !ok {
			continue
		}
		if c.Tag == "input" {
			m.Inputs = append(m.Inputs, mp)
		} else {
			m.Outputs = append(m.Outputs, mp)
		}
	}
	return m
}

// zeebeMappings reads a zeebe:ioMapping: zeebe:input and zeebe:output
// elements, in order.
func (p *parser) zeebeMappings(e, io *etree.Element) *Mappings {
	m := &Mappings{Style: MappingZeebe}
	p.noAttributes(e, io, "zeebe:ioMapping")
	for _, c := range io.ChildElements() {
		if c.NamespaceURI() != NamespaceZeebe || (c.Tag != "input" && c.Tag != "output") {
			p.problems.add(p.label(e), RuleUnsupported, "%s in zeebe:ioMapping of %s is not supported: it holds zeebe:input and zeebe:output elements", qualified(c), e.Tag)
			continue
		}
		mp, ok := p.sourceTarget(e, c, "zeebe:"+c.Tag)
		if !ok {
			continue
		}
		if c.Tag == "input" {
			m.Inputs = append(m.Inputs, mp)
		} else {
			m.Outputs = append(m.Outputs, mp)
		}
	}
	return m
}

// noAttributes refuses the attributes of extension element c other than
// namespace declarations and those in allowed.
func (p *parser) noAttributes(e, c *etree.Element, what string, allowed ...string) {
	for _, a := range c.Attr {
		if a.Space == "xmlns" || (a.Space == "" && a.Key == "xmlns") {
			continue
		}
		ok := a.Space == ""
		if ok {
			ok = false
			for _, k := range allowed {
				ok = ok || k == a.Key
			}
		}
		if !ok {
			name := a.Key
			if a.Space != "" {
				name = a.Space + ":" + a.Key
			}
			p.problems.add(p.label(e), RuleUnsupported, "attribute %q of %s on %s is not supported: gobpm does not read it", name, what, e.Tag)
		}
	}
}

// qualified names an extension element by its conventional prefix.
func qualified(c *etree.Element) string {
	switch c.NamespaceURI() {
	case NamespaceZeebe:
		return "zeebe:" + c.Tag
	case NamespaceCamunda:
		return "camunda:" + c.Tag
	case NamespaceGobpm:
		return "gobpm:" + c.Tag
	}
	if c.Space != "" {
		return c.Space + ":" + c.Tag
	}
	return c.Tag
}

// sourceTarget reads a Zeebe-style mapping element (zeebe:input,
// gobpm:output, …): source is FEEL with a leading "=", a static string
// otherwise, null when absent or empty; target is a variable name or a
// nested path of names "a.b.c".
func (p *parser) sourceTarget(e, c *etree.Element, what string) (Mapping, bool) {
	label := p.label(e)
	p.noAttributes(e, c, what, "source", "target")
	if len(c.ChildElements()) > 0 {
		p.problems.add(label, RuleUnsupported, "%s on %s has child elements; it takes the attributes source and target only", what, e.Tag)
	}
	target := strings.TrimSpace(c.SelectAttrValue("target", ""))
	if target == "" {
		p.problems.add(label, RuleMissingAttribute, "%s on %s needs a target (a variable name, or a path such as a.b)", what, e.Tag)
		return Mapping{}, false
	}
	segs := strings.Split(target, ".")
	for _, s := range segs {
		if !variableName(s) {
			p.problems.add(label, RuleInvalidAttribute,
				"%s target %q on %s is not a variable name or a path of names (a.b.c): each part is a letter or _ followed by letters, digits or _", what, target, e.Tag)
			return Mapping{}, false
		}
	}
	m := Mapping{Target: segs[0]}
	if len(segs) > 1 {
		m.Path = segs[1:]
	}
	src := c.SelectAttrValue("source", "")
	switch t := strings.TrimSpace(src); {
	case t == "":
	case strings.HasPrefix(t, "="):
		x := p.compile(label, fmt.Sprintf("%s source for %q", what, target), "feel", t)
		if x == nil {
			return Mapping{}, false
		}
		m.Value = Value{Kind: ValueExpr, Expr: x}
	default:
		// A static value, as Camunda 8 reads a source without "=".
		m.Value = Value{Kind: ValueConst, Const: src}
	}
	return m, true
}

// variableName reports whether s is a plain variable name: a letter or _
// followed by letters, digits or _.
func variableName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', unicode.IsLetter(r):
		case i > 0 && unicode.IsDigit(r):
		default:
			return false
		}
	}
	return true
}

// camundaMappings reads a camunda:inputOutput: inputParameter and
// outputParameter elements, in order.
func (p *parser) camundaMappings(e, io *etree.Element) *Mappings {
	label := p.label(e)
	m := &Mappings{Style: MappingCamunda7}
	p.noAttributes(e, io, "camunda:inputOutput")
	for _, c := range io.ChildElements() {
		if c.NamespaceURI() != NamespaceCamunda || (c.Tag != "inputParameter" && c.Tag != "outputParameter") {
			p.problems.add(label, RuleUnsupported, "%s in camunda:inputOutput of %s is not supported: it holds camunda:inputParameter and camunda:outputParameter elements", qualified(c), e.Tag)
			continue
		}
		what := "camunda:" + c.Tag
		p.noAttributes(e, c, what, "name")
		name := strings.TrimSpace(c.SelectAttrValue("name", ""))
		if name == "" {
			p.problems.add(label, RuleMissingAttribute, "%s on %s needs a name (the variable it sets)", what, e.Tag)
			continue
		}
		v, ok := p.camundaValue(e, c, fmt.Sprintf("%s %q", what, name))
		if !ok {
			continue
		}
		mp := Mapping{Target: name, Value: v}
		if c.Tag == "inputParameter" {
			m.Inputs = append(m.Inputs, mp)
		} else {
			m.Outputs = append(m.Outputs, mp)
		}
	}
	return m
}

// camundaValue reads the value of a Camunda 7 parameter, list value or map
// entry c: one camunda:list, camunda:map or camunda:script child, else its
// text — empty is null, text with "${…}" or "#{…}" a JUEL expression
// (composite text such as "Hello ${name}" yields a string), anything else
// a constant string. Text is trimmed, as Camunda 7 does. A script is
// refused: gobpm runs no JavaScript or Groovy.
func (p *parser) camundaValue(e, c *etree.Element, what string) (Value, bool) {
	label := p.label(e)
	kids := c.ChildElements()
	if len(kids) == 0 {
		txt := strings.TrimSpace(text(c))
		switch {
		case txt == "":
			return Value{}, true
		case strings.Contains(txt, "${") || strings.Contains(txt, "#{"):
			x := p.compile(label, what, "juel", txt)
			if x == nil {
				return Value{}, false
			}
			return Value{Kind: ValueExpr, Expr: x}, true
		}
		return Value{Kind: ValueConst, Const: txt}, true
	}
	if len(kids) > 1 {
		p.problems.add(label, RuleInvalidAttribute, "%s on %s has %d child elements; a value is one camunda:list, camunda:map or text", what, e.Tag, len(kids))
		return Value{}, false
	}
	k := kids[0]
	if strings.TrimSpace(text(c)) != "" {
		p.problems.add(label, RuleInvalidAttribute, "%s on %s has both text and %s; a value is one of them", what, e.Tag, qualified(k))
		return Value{}, false
	}
	return p.camundaElemValue(e, k, what)
}

// camundaElemValue reads the camunda:list, camunda:map or camunda:script k
// holding the value of a Camunda 7 parameter, list item or map entry.
func (p *parser) camundaElemValue(e, k *etree.Element, what string) (Value, bool) {
	label := p.label(e)
	if k.NamespaceURI() != NamespaceCamunda {
		p.problems.add(label, RuleUnsupported, "%s in %s on %s is not supported: a value is text, camunda:list or camunda:map", qualified(k), what, e.Tag)
		return Value{}, false
	}
	switch k.Tag {
	case "script":
		p.problems.add(label, RuleUnsupported,
			"camunda:script in %s on %s is not supported: gobpm runs no JavaScript or Groovy; write the value as a ${…} expression (JUEL) in the parameter's text, or compute it in a FEEL script task before", what, e.Tag)
		return Value{}, false
	case "list":
		p.noAttributes(e, k, "camunda:list")
		v := Value{Kind: ValueList, List: []Value{}}
		ok := true
		for i, item := range k.ChildElements() {
			iw := fmt.Sprintf("item %d of the camunda:list of %s", i+1, what)
			var iv Value
			var good bool
			switch {
			case item.NamespaceURI() == NamespaceCamunda && item.Tag == "value":
				p.noAttributes(e, item, "camunda:value")
				iv, good = p.camundaValue(e, item, iw)
			case item.NamespaceURI() == NamespaceCamunda && (item.Tag == "list" || item.Tag == "map" || item.Tag == "script"):
				// A nested list, map or script stands for itself.
				iv, good = p.camundaElemValue(e, item, iw)
			default:
				p.problems.add(label, RuleUnsupported, "%s in a camunda:list of %s on %s is not supported: a list holds camunda:value, camunda:list and camunda:map", qualified(item), what, e.Tag)
			}
			if !good {
				ok = false
				continue
			}
			v.List = append(v.List, iv)
		}
		return v, ok
	case "map":
		p.noAttributes(e, k, "camunda:map")
		v := Value{Kind: ValueMap, Map: []Entry{}}
		ok := true
		for _, ent := range k.ChildElements() {
			if ent.NamespaceURI() != NamespaceCamunda || ent.Tag != "entry" {
				p.problems.add(label, RuleUnsupported, "%s in a camunda:map of %s on %s is not supported: a map holds camunda:entry elements", qualified(ent), what, e.Tag)
				ok = false
				continue
			}
			p.noAttributes(e, ent, "camunda:entry", "key")
			key := ent.SelectAttr("key")
			if key == nil {
				p.problems.add(label, RuleMissingAttribute, "a camunda:entry in the camunda:map of %s on %s needs a key", what, e.Tag)
				ok = false
				continue
			}
			ev, good := p.camundaValue(e, ent, fmt.Sprintf("entry %q of the camunda:map of %s", key.Value, what))
			if !good {
				ok = false
				continue
			}
			v.Map = append(v.Map, Entry{Key: key.Value, Value: ev})
		}
		return v, ok
	}
	p.problems.add(label, RuleUnsupported, "camunda:%s in %s on %s is not supported: a value is text, camunda:list or camunda:map", k.Tag, what, e.Tag)
	return Value{}, false
}
