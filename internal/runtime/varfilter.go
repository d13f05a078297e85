package runtime

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gobpm/gobpm/internal/store"
)

// MaxVariableFilters caps how many variable filters one list takes.
const MaxVariableFilters = 10

// variableOps are the comparisons of name:op:value.
var variableOps = map[string]bool{
	store.VarEq: true, store.VarNeq: true, store.VarGt: true, store.VarGte: true,
	store.VarLt: true, store.VarLte: true, store.VarLike: true,
}

// ParseVariableFilter reads a variable filter written name=value, where
// value is JSON: orderId="A-17", amount=120, ok=true, tags=["a","b"]; or
// name:op:value, where op is eq, neq, gt, gte, lt, lte or like:
// amount:gt:100, status:eq:open, ok:eq:true, due:lt:2025-03-01T00:00:00Z,
// orderId:like:A- (the texts that start with A-). In name:op:value a
// number compares as a number, an RFC 3339 time or date as a time, true,
// false and null as those values, anything else (quoted as JSON or not)
// as text; ranges compare numbers, times or texts (byte order), like
// texts. It is name:op:value when the text before the first '=' holds a
// ':' followed by one of the ops and a ':'; otherwise name=value, the
// name everything before the first '='. The error is a sentence for the
// person who wrote it.
func ParseVariableFilter(s string) (VariableFilter, error) {
	if f, ok, err := parseOpFilter(s); ok {
		return f, err
	}
	name, value, ok := strings.Cut(s, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case !ok || name == "":
		return VariableFilter{}, fmt.Errorf("a variable filter is name=value with the value as JSON, such as orderId=\"A-17\" or amount=120, or name:op:value with op eq, neq, gt, gte, lt, lte or like, such as amount:gt:100, not %q", s)
	case value == "":
		return VariableFilter{}, fmt.Errorf("the variable filter %q has no value: write it as JSON, such as %s=\"text\" or %s=120", s, name, name)
	}
	key, err := VariableValueKey([]byte(value))
	if err != nil {
		return VariableFilter{}, fmt.Errorf("the value of the variable filter %q is not JSON: quote text (%s=\"%s\"); numbers, true, false, null, arrays and objects are written as in JSON", s, name, strings.Trim(value, `"`))
	}
	return VariableFilter{Name: name, Value: key}, nil
}

// parseOpFilter reads s as name:op:value; ok is false when s is not
// written so (then it is name=value).
func parseOpFilter(s string) (f VariableFilter, ok bool, err error) {
	head, _, _ := strings.Cut(s, "=")
	name, rest, found := strings.Cut(s, ":")
	if !found || len(name) >= len(head) {
		return VariableFilter{}, false, nil
	}
	op, value, found := strings.Cut(rest, ":")
	op = strings.ToLower(strings.TrimSpace(op))
	if !found || !variableOps[op] {
		return VariableFilter{}, false, nil
	}
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if name == "" {
		return VariableFilter{}, true, fmt.Errorf("the variable filter %q has no name: write it as name:%s:value", s, op)
	}
	f = VariableFilter{Name: name, Op: op}
	operand, isText := value, true
	if strings.HasPrefix(value, `"`) {
		if err := json.Unmarshal([]byte(value), &operand); err != nil {
			return VariableFilter{}, true, fmt.Errorf("the value of the variable filter %q starts with a quote but is not a JSON string", s)
		}
	} else if value == "true" || value == "false" || value == "null" {
		isText = false
	}
	_, numErr := strconv.ParseFloat(operand, 64)
	isNumber := !strings.HasPrefix(value, `"`) && numErr == nil && json.Valid([]byte(value))
	switch {
	case op == store.VarLike:
		if strings.HasPrefix(value, `"`) || isText {
			f.Type, f.Text = store.VarTypeText, operand
			return f, true, nil
		}
		return VariableFilter{}, true, fmt.Errorf("the variable filter %q: like compares texts: the value is a prefix, such as %s:like:A-", s, name)
	case isNumber:
		n, _ := strconv.ParseFloat(operand, 64)
		f.Type, f.Num = store.VarTypeNumber, n
	case isText:
		if t, isTime := store.ParseVariableTime(operand); isTime {
			f.Type, f.Time = store.VarTypeTime, t
		} else {
			f.Type, f.Text = store.VarTypeText, operand
		}
	default: // true, false, null
		if op != store.VarEq && op != store.VarNeq {
			return VariableFilter{}, true, fmt.Errorf("the variable filter %q: %s compares numbers, times and texts; %s takes eq or neq", s, op, value)
		}
		f.Value = value
	}
	if f.Type == store.VarTypeText && (f.Op == store.VarEq || f.Op == store.VarNeq) {
		// Equality of a text is its value key: the index of any value,
		// which also holds texts longer than the text index keeps.
		key, err := VariableValueKey(mustJSON(operand))
		if err != nil {
			return VariableFilter{}, true, err
		}
		f.Type, f.Text, f.Value = store.VarTypeValue, "", key
	}
	if f.Type == store.VarTypeNumber && (f.Op == store.VarEq || f.Op == store.VarNeq) {
		key, err := VariableValueKey([]byte(value))
		if err != nil {
			return VariableFilter{}, true, err
		}
		f.Type, f.Num, f.Value = store.VarTypeValue, 0, key
	}
	return f, true, nil
}

// mustJSON is the JSON string of s (encoding a string cannot fail).
func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
