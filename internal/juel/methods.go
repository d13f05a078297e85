package juel

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// call invokes a method on a non-null receiver with Java's semantics for
// the receiver's Java type: java.lang.String for a string, java.util.List
// for a list, java.util.Map for a map. Arguments are coerced as EL
// coerces them to the parameter types: an int parameter takes a number's
// intValue, Integer.valueOf of a string, 0 for null; a String parameter
// takes the String coercion of a non-null value; an Object parameter
// takes the value as it is. Indexes and lengths count UTF-16 code units,
// as Java's strings do.
func call(name string, recv any, args []any) (any, error) {
	if name == "equals" {
		if _, ok, err := toNumber(recv); ok && err != nil {
			return nil, failf("%v", err)
		}
		return javaEquals(recv, args[0])
	}
	switch r := recv.(type) {
	case string:
		return stringMethod(name, r, args)
	case []any:
		return listMethod(name, r, args)
	case map[string]any:
		return mapMethod(name, r, args)
	}
	return nil, noMethod(name, recv)
}

func noMethod(name string, recv any) error {
	return failf("method %s() is not defined on %s", name, typeName(recv))
}

// typeName names the Java type a value stands for, in messages.
func typeName(v any) string {
	switch v.(type) {
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	if isNumeric(v) {
		return "a number"
	}
	return describe(v)
}

func stringMethod(name, s string, args []any) (any, error) {
	switch name {
	case "length":
		return newInt(int64(utf16Len(s))), nil
	case "isEmpty":
		return s == "", nil
	case "contains":
		// contains(CharSequence): only a string is a CharSequence.
		sub, ok := args[0].(string)
		if !ok {
			if args[0] == nil {
				return nil, failf("contains(null): the argument is null")
			}
			return nil, failf("contains(): cannot coerce %s to CharSequence", describe(args[0]))
		}
		return strings.Contains(s, sub), nil
	case "startsWith", "endsWith", "indexOf":
		if args[0] == nil {
			return nil, failf("%s(null): the argument is null", name)
		}
		sub, err := coerceString(args[0])
		if err != nil {
			return nil, err
		}
		switch name {
		case "startsWith":
			return strings.HasPrefix(s, sub), nil
		case "endsWith":
			return strings.HasSuffix(s, sub), nil
		}
		i := strings.Index(s, sub)
		if i < 0 {
			return newInt(-1), nil
		}
		return newInt(int64(utf16Len(s[:i]))), nil
	case "equalsIgnoreCase":
		if args[0] == nil {
			return false, nil
		}
		t, err := coerceString(args[0])
		if err != nil {
			return nil, err
		}
		return equalsIgnoreCase(s, t), nil
	case "toUpperCase":
		return cases.Upper(language.Und).String(s), nil
	case "toLowerCase":
		return cases.Lower(language.Und).String(s), nil
	case "trim":
		return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }), nil
	case "substring":
		return substring(s, args)
	}
	return nil, noMethod(name, s)
}

// substring is String.substring(begin[, end]) over UTF-16 code units; an
// index outside 0 <= begin <= end <= length() is an error, as Java throws
// StringIndexOutOfBoundsException.
func substring(s string, args []any) (any, error) {
	units := utf16.Encode([]rune(s))
	begin, err := coerceInteger(args[0])
	if err != nil {
		return nil, err
	}
	end := int64(len(units))
	if len(args) == 2 {
		if end, err = coerceInteger(args[1]); err != nil {
			return nil, err
		}
	}
	if begin < 0 || end > int64(len(units)) || begin > end {
		call := fmt.Sprintf("substring(%d)", begin)
		if len(args) == 2 {
			call = fmt.Sprintf("substring(%d, %d)", begin, end)
		}
		return nil, failf("%s is out of range for a string of length %d", call, len(units))
	}
	return string(utf16.Decode(units[begin:end])), nil
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// equalsIgnoreCase is String.equalsIgnoreCase: same length, and each pair
// of characters equal, equal in upper case, or equal in lower case of
// upper case.
func equalsIgnoreCase(a, b string) bool {
	if utf16Len(a) != utf16Len(b) {
		return false
	}
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		a, b = a[na:], b[nb:]
		if ra == rb {
			continue
		}
		ua, ub := unicode.ToUpper(ra), unicode.ToUpper(rb)
		if ua != ub && unicode.ToLower(ua) != unicode.ToLower(ub) {
			return false
		}
	}
	return a == "" && b == ""
}

func listMethod(name string, l []any, args []any) (any, error) {
	switch name {
	case "size":
		return newInt(int64(len(l))), nil
	case "isEmpty":
		return len(l) == 0, nil
	case "contains", "indexOf":
		for i, e := range l {
			eq, err := javaEquals(e, args[0])
			if err != nil {
				return nil, err
			}
			if eq {
				if name == "contains" {
					return true, nil
				}
				return newInt(int64(i)), nil
			}
		}
		if name == "contains" {
			return false, nil
		}
		return newInt(-1), nil
	case "get":
		i, err := coerceInteger(args[0])
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(l)) {
			return nil, failf("get(%d): index out of bounds for a list of size %d", i, len(l))
		}
		return l[i], nil
	}
	return nil, noMethod(name, l)
}

func mapMethod(name string, m map[string]any, args []any) (any, error) {
	switch name {
	case "size":
		return newInt(int64(len(m))), nil
	case "isEmpty":
		return len(m) == 0, nil
	case "containsKey", "get":
		// Map.get(Object) and containsKey(Object) are type-strict: only a
		// string can be a key of a JSON object.
		k, ok := args[0].(string)
		v, found := m[k]
		if name == "containsKey" {
			return ok && found, nil
		}
		if !ok {
			return nil, nil
		}
		return v, nil
	}
	return nil, noMethod(name, m)
}
