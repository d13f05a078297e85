package dmn

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/beevik/etree"
	"github.com/gobpm/gobpm/internal/feel"
)

// dmnType is a resolved typeRef: a FEEL built-in type or an item definition.
type dmnType struct {
	name    string          // the typeRef as written
	builtin string          // canonical built-in name, "" for an item definition
	item    *ItemDefinition // nil for a built-in
}

// Canonical names of the FEEL built-in types.
const (
	tNumber   = "number"
	tString   = "string"
	tBoolean  = "boolean"
	tDate     = "date"
	tTime     = "time"
	tDateTime = "date and time"
	tDTD      = "days and time duration"
	tYMD      = "years and months duration"
	tDur      = "duration" // either kind of duration
	tAny      = "Any"
	tContext  = "context"
	tList     = "list"
	tFunction = "function"
	tRange    = "range"
)

// builtinTypes maps every accepted spelling of a built-in typeRef (DMN 1.1
// XML Schema names, DMN 1.2+ FEEL names, Camunda's names) to its canonical name.
var builtinTypes = map[string]string{
	"number": tNumber, "integer": tNumber, "long": tNumber, "double": tNumber, "decimal": tNumber,
	"string":   tString,
	"boolean":  tBoolean,
	"date":     tDate,
	"time":     tTime,
	"dateTime": tDateTime, "date and time": tDateTime,
	"dayTimeDuration": tDTD, "days and time duration": tDTD, "duration": tDur,
	"yearMonthDuration": tYMD, "years and months duration": tYMD,
	"Any": tAny, "any": tAny,
	"context":  tContext,
	"list":     tList,
	"function": tFunction,
	"range":    tRange,
}

// resolveType resolves a typeRef ("" → nil, untyped). A QName prefix
// ("feel:number", "tns:tLoan", as DMN 1.1 writes them) is dropped when the
// whole name is unknown; "import.tType" names an item definition of an
// imported model. An unknown typeRef is a warning and reads as untyped.
func (p *parser) resolveType(ref, el string) *dmnType {
	if ref == "" {
		return nil
	}
	t := p.lookupType(ref)
	if t == nil {
		p.warn(el, RuleMissingReference, "typeRef %q names neither a FEEL type nor an item definition; values are not checked", ref)
		return nil
	}
	out := *t
	out.name = ref
	return &out
}

// lookupType finds a type by name: an item definition of the model or
// (import.name) of an imported model, or a FEEL type.
func (p *parser) lookupType(name string) *dmnType {
	if t := lookupIn(p.items, p.imports, name); t != nil {
		return t
	}
	if i := strings.IndexByte(name, ':'); i >= 0 {
		return lookupIn(p.items, p.imports, name[i+1:])
	}
	return nil
}

func lookupIn(items map[string]*ItemDefinition, imports map[string]*Definitions, name string) *dmnType {
	if it, ok := items[name]; ok {
		return &dmnType{name: name, item: it}
	}
	if b, ok := builtinTypes[name]; ok {
		return &dmnType{name: name, builtin: b}
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		if m := imports[name[:i]]; m != nil {
			for _, it := range m.ItemDefinitions {
				if it.Name == name[i+1:] {
					return &dmnType{name: name, item: it}
				}
			}
		}
	}
	return nil
}

// itemDefinition reads an <itemDefinition> or <itemComponent> (types are
// resolved later, once every item definition is known).
func (p *parser) itemDefinition(e *etree.Element, top bool) *ItemDefinition {
	it := &ItemDefinition{Name: strings.TrimSpace(e.SelectAttrValue("name", ""))}
	if it.Name == "" {
		p.add(p.label(e), RuleMissingName, "<%s> has no name", e.Tag)
		return nil
	}
	if id := e.SelectAttrValue("id", ""); id != "" {
		p.noteID(e, id)
	}
	switch c := e.SelectAttrValue("isCollection", "false"); c {
	case "true", "1":
		it.IsCollection = true
	case "false", "0":
	default:
		p.warn(p.label(e), RuleInvalidAttribute, "isCollection %q is not a boolean", c)
	}
	if tr := child(e, "typeRef"); tr != nil {
		it.TypeRef = fullText(tr)
	}
	it.AllowedValues = textOf(child(e, "allowedValues"))
	it.TypeConstraint = textOf(child(e, "typeConstraint"))
	for _, c := range children(e, "itemComponent") {
		if ic := p.itemDefinition(c, false); ic != nil {
			it.Components = append(it.Components, ic)
		}
	}
	if fi := child(e, "functionItem"); fi != nil {
		if it.TypeRef == "" {
			it.TypeRef = tFunction
		}
		it.FunctionOutput = strings.TrimSpace(fi.SelectAttrValue("outputTypeRef", ""))
	}
	if it.TypeRef != "" && len(it.Components) > 0 {
		p.warn(p.label(e), RuleInvalidAttribute, "item definition %q has both a typeRef and item components", it.Name)
	}
	if lang := e.SelectAttrValue("typeLanguage", ""); lang != "" && !isFEEL(lang) {
		p.warn(p.label(e), RuleUnsupported, "typeLanguage %q is not supported; only FEEL is", lang)
	}
	return it
}

// resolveItem resolves an item definition's base type and compiles its
// allowed values, refusing typeRef cycles.
func (p *parser) resolveItem(it *ItemDefinition, el string) {
	if it.resolved {
		return
	}
	if it.resolving {
		p.add(el, RuleCycle, "item definition %q refers to itself through its typeRef", it.Name)
		return
	}
	it.resolving = true
	if it.TypeRef != "" {
		it.base = p.resolveType(it.TypeRef, el)
		if it.base != nil && it.base.item != nil {
			p.resolveItem(it.base.item, el)
		}
	}
	if it.FunctionOutput != "" {
		it.output = p.resolveType(it.FunctionOutput, el)
	}
	if it.AllowedValues != "" {
		it.allowed, _ = p.compileTests(it.AllowedValues, el, "allowedValues of "+it.Name)
	}
	if it.TypeConstraint != "" {
		it.constraint, _ = p.compileTests(it.TypeConstraint, el, "typeConstraint of "+it.Name)
	}
	for _, c := range it.Components {
		p.resolveItem(c, el)
	}
	it.resolving = false
	it.resolved = true
}

// emptyScope is a scope with no names.
type emptyScope struct{}

func (emptyScope) Lookup(string) (any, bool) { return nil, false }

// conform coerces the FEEL-native value v to t (nil t accepts anything)
// following DMN 1.5 §10.3.2.9: a value of the type stays; a singleton
// list of a conforming element becomes the element where t is not a
// list, and a conforming value the singleton list where t is a
// collection; a context conforms to a structure when it has every
// component (more entries are allowed) and each conforms; allowed values
// and type constraints must hold. null conforms to every type. A value
// that does not conform yields (nil, reason).
func conform(v any, t *dmnType) (any, string) {
	return conformAs(v, t, false)
}

// conformInput is conform for a value the caller supplied as JSON: a
// string is read as a date, time, date and time or duration where the
// type asks for one, and a structure's missing components are null.
func conformInput(v any, t *dmnType) (any, string) {
	return conformAs(normalize(v), t, true)
}

func conformAs(v any, t *dmnType, fromJSON bool) (any, string) {
	if t == nil || v == nil {
		return v, ""
	}
	if t.item != nil {
		return conformItem(v, t.item, fromJSON)
	}
	return conformBuiltin(v, t.builtin, fromJSON)
}

func conformItem(v any, it *ItemDefinition, fromJSON bool) (any, string) {
	if v == nil {
		return nil, ""
	}
	if it.IsCollection {
		list, ok := v.([]any)
		if !ok {
			c, why := conformElement(v, it, fromJSON)
			if why != "" {
				return nil, why
			}
			list = []any{c} // to singleton list
			return checkConstraint(list, it)
		}
		out := make([]any, len(list))
		for i, e := range list {
			c, why := conformElement(e, it, fromJSON)
			if why != "" {
				return nil, fmt.Sprintf("item %d: %s", i+1, why)
			}
			out[i] = c
		}
		return checkConstraint(out, it)
	}
	if l, ok := v.([]any); ok && len(l) == 1 && !elementIsList(it) {
		if c, why := conformElement(l[0], it, fromJSON); why == "" && c != nil {
			return checkConstraint(c, it) // from singleton list
		}
	}
	c, why := conformElement(v, it, fromJSON)
	if why != "" {
		return nil, why
	}
	return checkConstraint(c, it)
}

// elementIsList reports whether the values of it are lists themselves.
func elementIsList(it *ItemDefinition) bool {
	if it.base == nil {
		return false
	}
	if it.base.item != nil {
		return it.base.item.IsCollection || elementIsList(it.base.item)
	}
	return it.base.builtin == tList || it.base.builtin == tAny
}

func checkConstraint(v any, it *ItemDefinition) (any, string) {
	if v != nil && it.constraint != nil {
		if ok, err := it.constraint.Match(v, emptyScope{}); err != nil || !ok {
			return nil, fmt.Sprintf("value %s violates the typeConstraint of %q", describe(v), it.Name)
		}
	}
	return v, ""
}

// conformElement checks one (non-collection) value against it.
func conformElement(v any, it *ItemDefinition, fromJSON bool) (any, string) {
	if v == nil {
		return nil, ""
	}
	if len(it.Components) > 0 {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Sprintf("value %s is not a context of type %q", describe(v), it.Name)
		}
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[k] = x
		}
		for _, c := range it.Components {
			x, present := m[c.Name]
			if !present {
				if fromJSON {
					continue
				}
				return nil, fmt.Sprintf("the context has no %q, a component of type %q", c.Name, it.Name)
			}
			cx, why := conformItem(x, c, fromJSON)
			if why != "" {
				return nil, fmt.Sprintf("component %q: %s", c.Name, why)
			}
			out[c.Name] = cx
		}
		return out, ""
	}
	if it.base != nil {
		var why string
		if v, why = conformAs(v, it.base, fromJSON); why != "" {
			return nil, why
		}
	}
	if v != nil && it.allowed != nil {
		ok, err := it.allowed.Match(v, emptyScope{})
		if err != nil || !ok {
			return nil, fmt.Sprintf("value %s is not among the allowed values of %q (%s)", describe(v), it.Name, it.AllowedValues)
		}
	}
	return v, ""
}

func conformBuiltin(v any, b string, fromJSON bool) (any, string) {
	if b == tAny {
		return v, ""
	}
	if b == tList {
		if _, isList := v.([]any); !isList {
			return []any{v}, "" // to singleton list
		}
		return v, ""
	}
	if l, ok := v.([]any); ok && len(l) == 1 {
		if _, nested := l[0].([]any); !nested && l[0] != nil {
			if c, why := conformBuiltin(l[0], b, fromJSON); why == "" {
				return c, "" // from singleton list
			}
		}
	}
	if fromJSON {
		if s, isStr := v.(string); isStr {
			switch b {
			case tDate, tTime, tDateTime, tDTD, tYMD, tDur:
				// JSON has no temporal values: a string is read with the
				// type's FEEL conversion.
				c := convertTemporal(b, s)
				if c == nil {
					return nil, fmt.Sprintf("string %q is not a valid %s", s, b)
				}
				v = c
			}
		}
	}
	if !isBuiltin(v, b) {
		return nil, fmt.Sprintf("value %s is not a %s", describe(v), b)
	}
	return v, ""
}

// isBuiltin reports whether v (not null) is of the FEEL built-in type b.
func isBuiltin(v any, b string) bool {
	switch b {
	case tAny:
		return true
	case tNumber:
		_, ok := v.(json.Number)
		return ok
	case tString:
		_, ok := v.(string)
		return ok
	case tBoolean:
		_, ok := v.(bool)
		return ok
	case tContext:
		_, ok := v.(map[string]any)
		return ok
	case tList:
		_, ok := v.([]any)
		return ok
	case tFunction:
		_, ok := v.(feel.Function)
		return ok
	case tRange:
		_, ok := v.(*feel.Range)
		return ok
	case tDate:
		_, ok := v.(feel.Date)
		return ok
	case tTime:
		_, ok := v.(feel.Time)
		return ok
	case tDateTime:
		_, ok := v.(feel.DateTime)
		return ok
	case tDTD:
		_, ok := v.(feel.Duration)
		return ok
	case tYMD:
		_, ok := v.(feel.YearsMonths)
		return ok
	case tDur:
		switch v.(type) {
		case feel.Duration, feel.YearsMonths:
			return true
		}
	}
	return false
}

// isInstance is `v instance of t` for a type of the model: the value's
// type, with no conversion and without allowed values (256 is an
// instance of a number type restricted to [0..255]).
func isInstance(v any, t *dmnType) bool {
	if v == nil {
		return false
	}
	if t.item == nil {
		return isBuiltin(v, t.builtin)
	}
	return isItem(v, t.item)
}

func isItem(v any, it *ItemDefinition) bool {
	if it.IsCollection {
		l, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range l {
			if e != nil && !isElement(e, it) {
				return false
			}
		}
		return true
	}
	return isElement(v, it)
}

func isElement(v any, it *ItemDefinition) bool {
	if len(it.Components) > 0 {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, c := range it.Components {
			x, present := m[c.Name]
			if !present {
				return false
			}
			if x != nil && !isItem(x, c) {
				return false
			}
		}
		return true
	}
	if it.base == nil {
		return true
	}
	return isInstance(v, it.base)
}

// convertTemporal reads s as the temporal type b, or returns nil.
func convertTemporal(b, s string) any {
	switch b {
	case tDate:
		if d, err := feel.ParseDate(s); err == nil {
			return d
		}
		if dt, err := feel.ParseDateTime(s); err == nil {
			return dt.Date()
		}
	case tTime:
		if t, err := feel.ParseTime(s); err == nil {
			return t
		}
	case tDateTime:
		if dt, err := feel.ParseDateTime(s); err == nil {
			return dt
		}
		if d, err := feel.ParseDate(s); err == nil {
			dt, _ := feel.ParseDateTime(d.String() + "T00:00:00")
			return dt
		}
	case tDTD:
		if v, err := feel.ParseDuration(s); err == nil {
			if d, ok := v.(feel.Duration); ok {
				return d
			}
		}
	case tYMD:
		if v, err := feel.ParseDuration(s); err == nil {
			if d, ok := v.(feel.YearsMonths); ok {
				return d
			}
		}
	case tDur:
		if v, err := feel.ParseDuration(s); err == nil {
			return v
		}
	}
	return nil
}

// normalize turns Go numbers into json.Number (FEEL's number
// representation) throughout v; NaN and infinities become nil.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, string, bool, json.Number:
		return v
	case float64:
		return floatNumber(x, 64)
	case float32:
		return floatNumber(float64(x), 32)
	case int:
		return json.Number(strconv.FormatInt(int64(x), 10))
	case int8:
		return json.Number(strconv.FormatInt(int64(x), 10))
	case int16:
		return json.Number(strconv.FormatInt(int64(x), 10))
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10))
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case uint:
		return json.Number(strconv.FormatUint(uint64(x), 10))
	case uint8:
		return json.Number(strconv.FormatUint(uint64(x), 10))
	case uint16:
		return json.Number(strconv.FormatUint(uint64(x), 10))
	case uint32:
		return json.Number(strconv.FormatUint(uint64(x), 10))
	case uint64:
		return json.Number(strconv.FormatUint(x, 10))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	}
	return v
}

func floatNumber(f float64, bits int) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return json.Number(strconv.FormatFloat(f, 'f', -1, bits))
}

// describe renders a value for an error message, abbreviated.
func describe(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		s = "null"
	case string:
		s = strconv.Quote(x)
	case json.Number:
		s = string(x)
	case bool:
		s = strconv.FormatBool(x)
	case []any:
		s = fmt.Sprintf("list of %d", len(x))
	case map[string]any:
		s = fmt.Sprintf("context of %d entries", len(x))
	case feel.Function:
		s = "function"
	default:
		s = fmt.Sprint(x)
	}
	return abbreviate(s)
}
