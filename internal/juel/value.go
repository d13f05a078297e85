package juel

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Values during evaluation are the JSON shapes the scope holds (nil,
// bool, string, json.Number, Go integers and floats, []any,
// map[string]any), plus *number for numbers the expression computed or
// wrote as literals. Values read from the scope are passed along
// untouched until an operator needs them, so a variable returned as the
// result keeps its exact JSON text.

// evalError is a run-time failure without a position yet; the node that
// sees it adds the position and the expression text.
type evalError struct{ msg string }

func (e *evalError) Error() string { return e.msg }

func failf(format string, args ...any) error {
	return &evalError{msg: fmt.Sprintf(format, args...)}
}

// describe names a value in an error message.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprintf("boolean %t", x)
	case string:
		return "string " + quote(x)
	case []any:
		return fmt.Sprintf("list of %d", len(x))
	case map[string]any:
		return fmt.Sprintf("map of %d", len(x))
	}
	if n, ok, err := toNumber(v); ok {
		if err != nil {
			return "invalid number"
		}
		return "number " + shorten(n.javaString())
	}
	return fmt.Sprintf("unsupported value of Go type %T", v)
}

// quote writes s in single quotes as EL would, shortened for messages.
func quote(s string) string {
	const limit = 40
	if utf8.RuneCountInString(s) > limit {
		r := []rune(s)
		s = string(r[:limit]) + "…"
	}
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `'`, `\'`) + "'"
}

// isNumeric reports whether v is a number (of any Go representation).
func isNumeric(v any) bool {
	_, ok, _ := toNumber(v)
	return ok
}

// isFloat reports whether v is EL's Double (Float or Double in the spec's
// type tests).
func isFloat(v any) (bool, error) {
	n, ok, err := toNumber(v)
	if !ok || err != nil {
		return false, err
	}
	return n.flt, nil
}

// hasDotEe is the spec's test "a String containing '.', 'e' or 'E'".
func hasDotEe(v any) bool {
	s, ok := v.(string)
	return ok && strings.ContainsAny(s, ".eE")
}

// coerceLong is EL 1.18.3 coercion to Long: null and "" are 0, a number
// keeps its value, a string must be Long.valueOf syntax (an optional sign
// and digits), and anything else is an error. The operators apply it only
// when neither operand is a Double, so it never has to truncate one.
func coerceLong(v any) (*number, error) {
	switch x := v.(type) {
	case nil:
		return newInt(0), nil
	case string:
		if x == "" {
			return newInt(0), nil
		}
		if !isJavaInteger(x) {
			return nil, failf("cannot coerce %s to Long", describe(x))
		}
		n, err := parseDecimal(x)
		if err != nil {
			return nil, failf("cannot coerce %s to Long: %v", describe(x), err)
		}
		return n, nil
	case bool, []any, map[string]any:
		return nil, failf("cannot coerce %s to Long", describe(v))
	}
	n, ok, err := toNumber(v)
	if err != nil {
		return nil, failf("%v", err)
	}
	if !ok {
		return nil, failf("cannot coerce %s to Long", describe(v))
	}
	return n, nil
}

// isJavaInteger is Long.valueOf's syntax: an optional sign and digits.
func isJavaInteger(s string) bool {
	i := 0
	if s != "" && (s[0] == '+' || s[0] == '-') {
		i++
	}
	if i == len(s) {
		return false
	}
	for ; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// coerceDouble is EL 1.18.3 coercion to Double: null and "" are 0, a
// number keeps its value, a string is read as Double.valueOf reads it
// (surrounding control characters and spaces ignored, an optional d/D/f/F
// suffix); NaN, Infinity and hexadecimal text are refused because the
// result could not be held exactly or written as JSON.
func coerceDouble(v any) (*number, error) {
	switch x := v.(type) {
	case nil:
		return &number{flt: true}, nil
	case string:
		if x == "" {
			return &number{flt: true}, nil
		}
		t := strings.TrimFunc(x, func(r rune) bool { return r <= ' ' })
		if t != "" && strings.ContainsRune("dDfF", rune(t[len(t)-1])) {
			t = t[:len(t)-1]
		}
		n, err := parseDecimal(t)
		if err != nil {
			return nil, failf("cannot coerce %s to Double", describe(x))
		}
		return n.double(), nil
	case bool, []any, map[string]any:
		return nil, failf("cannot coerce %s to Double", describe(v))
	}
	n, ok, err := toNumber(v)
	if err != nil {
		return nil, failf("%v", err)
	}
	if !ok {
		return nil, failf("cannot coerce %s to Double", describe(v))
	}
	return n.double(), nil
}

// coerceInteger is coercion to Java's int for method parameters
// (List.get, String.substring): null and "" are 0, a number gives its
// intValue, a string must be Integer.valueOf syntax within the int range.
func coerceInteger(v any) (int64, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case string:
		if x == "" {
			return 0, nil
		}
		return parseJavaInt(x)
	case bool, []any, map[string]any:
		return 0, failf("cannot coerce %s to Integer", describe(v))
	}
	n, ok, err := toNumber(v)
	if err != nil {
		return 0, failf("%v", err)
	}
	if !ok {
		return 0, failf("cannot coerce %s to Integer", describe(v))
	}
	return n.intValue(), nil
}

// parseJavaInt is Integer.valueOf.
func parseJavaInt(s string) (int64, error) {
	if !isJavaInteger(s) || len(s) > 12 {
		return 0, failf("cannot coerce %s to Integer", describe(s))
	}
	n, err := parseDecimal(s)
	if err != nil {
		return 0, failf("cannot coerce %s to Integer", describe(s))
	}
	v, err := n.d.Int64()
	if err != nil || v > 1<<31-1 || v < -1<<31 {
		return 0, failf("cannot coerce %s to Integer", describe(s))
	}
	return v, nil
}

// coerceBool is EL 1.18.5 coercion to Boolean: null and "" are false, a
// string is true exactly when it equals "true" ignoring case
// (Boolean.valueOf), anything else but a boolean is an error.
func coerceBool(v any) (bool, error) {
	switch x := v.(type) {
	case nil:
		return false, nil
	case bool:
		return x, nil
	case string:
		return strings.EqualFold(x, "true"), nil
	}
	return false, failf("cannot coerce %s to Boolean", describe(v))
}

// coerceString is EL 1.18.2 coercion to String: null is "", everything
// else is its Java toString.
func coerceString(v any) (string, error) {
	if v == nil {
		return "", nil
	}
	var b strings.Builder
	if err := writeJava(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

// writeJava writes v's Java toString: numbers as Long/Double.toString,
// lists as AbstractCollection does ([a, b]), maps as AbstractMap does
// ({k=v, …}, keys in sorted order because a JSON object has none), null
// inside a list or map as "null".
func writeJava(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		b.WriteString(x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := writeJava(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k)
			b.WriteByte('=')
			if err := writeJava(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		n, ok, err := toNumber(v)
		if err != nil {
			return failf("%v", err)
		}
		if !ok {
			return failf("%s", describe(v))
		}
		b.WriteString(n.javaString())
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// isEmpty is EL's empty operator (1.10): null, "", an empty list and an
// empty map are empty; every other value is not.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// javaEquals is Java's Object.equals between two values: type-strict
// (the Long 1 does not equal the Double 1.0 or the String "1"), deep for
// lists and maps.
func javaEquals(a, b any) (bool, error) {
	if a == nil || b == nil {
		return a == nil && b == nil, nil
	}
	na, aNum, err := toNumber(a)
	if err != nil {
		return false, failf("%v", err)
	}
	nb, bNum, err := toNumber(b)
	if err != nil {
		return false, failf("%v", err)
	}
	if aNum || bNum {
		return aNum && bNum && na.javaEquals(nb), nil
	}
	switch x := a.(type) {
	case bool:
		y, ok := b.(bool)
		return ok && x == y, nil
	case string:
		y, ok := b.(string)
		return ok && x == y, nil
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false, nil
		}
		for i := range x {
			if eq, err := javaEquals(x[i], y[i]); err != nil || !eq {
				return false, err
			}
		}
		return true, nil
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false, nil
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok {
				return false, nil
			}
			if eq, err := javaEquals(xv, yv); err != nil || !eq {
				return false, err
			}
		}
		return true, nil
	}
	return false, failf("%s", describe(a))
}

// compareUTF16 compares two strings as Java's String.compareTo does, by
// UTF-16 code units (which orders U+E000–U+FFFF after the supplementary
// planes, unlike UTF-8 byte order).
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		a, b = a[na:], b[nb:]
		if ra == rb {
			continue
		}
		ua, ub := utf16Units(ra), utf16Units(rb)
		for i := 0; i < len(ua) && i < len(ub); i++ {
			if ua[i] != ub[i] {
				if ua[i] < ub[i] {
					return -1
				}
				return 1
			}
		}
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

func utf16Units(r rune) []uint16 {
	if r >= 0x10000 {
		r1, r2 := utf16.EncodeRune(r)
		return []uint16{uint16(r1), uint16(r2)}
	}
	return []uint16{uint16(r)}
}

// toJSON turns an evaluation result into a JSON-shaped value: computed
// numbers become json.Number, Go integers and floats from the scope too
// (never float64), and lists and maps are copied only when something
// inside them changes.
func toJSON(v any) (any, error) {
	out, _, err := normalize(v)
	return out, err
}

// normalize is toJSON that also reports whether the value changed.
func normalize(v any) (any, bool, error) {
	switch x := v.(type) {
	case nil, bool, string:
		return v, false, nil
	case json.Number:
		// A scope value keeps its text when it is valid JSON; text that
		// only Go's json.Number could hold ("+5", "1.") is rewritten.
		num, _, err := toNumber(x)
		if err != nil {
			return nil, false, failf("%v", err)
		}
		if !json.Valid([]byte(x)) {
			return num.jsonNumber(), true, nil
		}
		return v, false, nil
	case []any:
		var out []any
		for i, e := range x {
			c, changed, err := normalize(e)
			if err != nil {
				return nil, false, err
			}
			if changed && out == nil {
				out = make([]any, len(x))
				copy(out, x)
			}
			if out != nil {
				out[i] = c
			}
		}
		if out == nil {
			return x, false, nil
		}
		return out, true, nil
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			c, changed, err := normalize(e)
			if err != nil {
				return nil, false, err
			}
			if changed && out == nil {
				out = make(map[string]any, len(x))
				for k2, e2 := range x {
					out[k2] = e2
				}
			}
			if out != nil {
				out[k] = c
			}
		}
		if out == nil {
			return x, false, nil
		}
		return out, true, nil
	}
	n, ok, err := toNumber(v)
	if err != nil {
		return nil, false, failf("%v", err)
	}
	if !ok {
		return nil, false, failf("%s cannot be a result", describe(v))
	}
	return n.jsonNumber(), true, nil
}
