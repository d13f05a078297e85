package dmn

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

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
	"dayTimeDuration": tDTD, "days and time duration": tDTD,
	"yearMonthDuration": tYMD, "years and months duration": tYMD,
	"Any": tAny, "any": tAny,
	"context":  tContext,
	"list":     tList,
	"function": tFunction,
	"range":    tRange,
}

// resolveType resolves a typeRef ("" → nil, untyped). A QName prefix
// ("feel:number", "tns:tLoan", as DMN 1.1 writes them) is dropped when the
// whole name is unknown.
func (p *parser) resolveType(ref, el string) *dmnType {
	if ref == "" {
		return nil
	}
	t := p.lookupType(ref)
	if t == nil {
		if i := strings.IndexByte(ref, ':'); i >= 0 {
			t = p.lookupType(ref[i+1:])
		}
	}
	if t == nil {
		p.add(el, RuleMissingReference, "typeRef %q names neither a FEEL type nor an item definition", ref)
		return nil
	}
	t.name = ref
	return t
}

func (p *parser) lookupType(name string) *dmnType {
	if it, ok := p.items[name]; ok {
		return &dmnType{item: it}
	}
	if b, ok := builtinTypes[name]; ok {
		return &dmnType{builtin: b}
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
		p.add(p.label(e), RuleInvalidAttribute, "isCollection %q is not a boolean", c)
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
	if child(e, "functionItem") != nil && it.TypeRef == "" {
		it.TypeRef = tFunction
	}
	if it.TypeRef != "" && len(it.Components) > 0 {
		p.add(p.label(e), RuleInvalidAttribute, "item definition %q has both a typeRef and item components", it.Name)
	}
	if lang := e.SelectAttrValue("typeLanguage", ""); lang != "" && !isFEEL(lang) {
		p.add(p.label(e), RuleUnsupported, "typeLanguage %q is not supported; only FEEL is", lang)
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
	if it.AllowedValues != "" {
		it.allowed = p.compileTests(it.AllowedValues, el, "allowedValues of "+it.Name)
	}
	if it.TypeConstraint != "" {
		it.constraint = p.compileTests(it.TypeConstraint, el, "typeConstraint of "+it.Name)
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

// conform coerces v to t (nil t accepts anything) following DMN 1.5
// §10.3.2.9.4: singleton-list conversions, structural conformance of
// contexts, and allowed values. A value that does not conform yields
// (nil, reason); a conforming one (value, "").
func conform(v any, t *dmnType) (any, string) {
	v = normalize(v)
	if t == nil || v == nil {
		return v, ""
	}
	if t.item != nil {
		return conformItem(v, t.item)
	}
	return conformBuiltin(v, t.builtin)
}

func conformItem(v any, it *ItemDefinition) (any, string) {
	if v == nil {
		return nil, ""
	}
	if it.IsCollection {
		list, ok := v.([]any)
		if !ok {
			list = []any{v} // to singleton list
		}
		out := make([]any, len(list))
		for i, e := range list {
			c, why := conformElement(e, it)
			if why != "" {
				return nil, fmt.Sprintf("item %d: %s", i+1, why)
			}
			out[i] = c
		}
		if it.constraint != nil {
			if ok, err := it.constraint.Match(out, emptyScope{}); err != nil || !ok {
				return nil, fmt.Sprintf("value violates the typeConstraint of %q", it.Name)
			}
		}
		return out, ""
	}
	v, why := conformElement(v, it)
	if why == "" && v != nil && it.constraint != nil {
		if ok, err := it.constraint.Match(v, emptyScope{}); err != nil || !ok {
			return nil, fmt.Sprintf("value %s violates the typeConstraint of %q", describe(v), it.Name)
		}
	}
	return v, why
}

// conformElement checks one (non-collection) value against it.
func conformElement(v any, it *ItemDefinition) (any, string) {
	if v == nil {
		return nil, ""
	}
	if len(it.Components) > 0 {
		if l, ok := v.([]any); ok && len(l) == 1 {
			v = l[0] // from singleton list
		}
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
				continue
			}
			cx, why := conformItem(x, c)
			if why != "" {
				return nil, fmt.Sprintf("component %q: %s", c.Name, why)
			}
			out[c.Name] = cx
		}
		return out, ""
	}
	if it.base != nil {
		var why string
		if v, why = conform(v, it.base); why != "" {
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

func conformBuiltin(v any, b string) (any, string) {
	if l, ok := v.([]any); ok && len(l) == 1 && b != tList && b != tAny {
		v = l[0] // from singleton list
		if v == nil {
			return nil, ""
		}
	}
	ok := false
	switch b {
	case tAny:
		return v, ""
	case tNumber:
		_, ok = v.(json.Number)
	case tString:
		_, ok = v.(string)
	case tBoolean:
		_, ok = v.(bool)
	case tContext:
		_, ok = v.(map[string]any)
	case tList:
		if _, isList := v.([]any); !isList {
			return []any{v}, "" // to singleton list
		}
		ok = true
	case tFunction:
		_, ok = v.(feel.Function)
	case tDate, tTime, tDateTime, tDTD, tYMD:
		if s, isStr := v.(string); isStr {
			// JSON has no temporal values: a string is read with the
			// type's FEEL conversion function.
			v = temporal(b).convert(s)
			if v == nil {
				return nil, fmt.Sprintf("string %q is not a valid %s", s, b)
			}
		}
		ok = temporal(b).is(v)
	case tRange:
		ok = true // ranges only exist inside FEEL evaluation
	}
	if !ok {
		return nil, fmt.Sprintf("value %s is not a %s", describe(v), b)
	}
	return v, ""
}

// temporalType holds the FEEL programs that convert a string to a temporal
// type and test a value's type.
type temporalType struct {
	conv, test *feel.Program
}

var (
	temporalOnce  sync.Once
	temporalTypes map[string]*temporalType
)

// temporal returns the conversion and test programs of a temporal type.
func temporal(name string) *temporalType {
	temporalOnce.Do(func() {
		temporalTypes = map[string]*temporalType{}
		for b, fn := range map[string]string{
			tDate: "date", tTime: "time", tDateTime: "date and time", tDTD: "duration", tYMD: "duration",
		} {
			tt := &temporalType{}
			tt.conv, _ = feel.CompileWith(fn+"(v)", feel.Options{})
			tt.test, _ = feel.CompileWith("v instance of "+b, feel.Options{})
			temporalTypes[b] = tt
		}
	})
	return temporalTypes[name]
}

func (t *temporalType) convert(s string) any {
	if t.conv == nil {
		return nil
	}
	v, err := t.conv.EvalValue(oneVar{"v", s})
	if err != nil {
		return nil
	}
	return v
}

func (t *temporalType) is(v any) bool {
	if t.test == nil {
		return true // cannot check: accept
	}
	r, err := t.test.EvalValue(oneVar{"v", v})
	return err == nil && r == true
}

// oneVar is a scope holding a single variable.
type oneVar struct {
	name string
	v    any
}

func (s oneVar) Lookup(name string) (any, bool) {
	if name == s.name {
		return s.v, true
	}
	return nil, false
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
