package feel

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// decimalText generates decimal literals: up to 34 significant digits,
// with a fraction part sometimes.
func decimalText() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		intPart := rapid.StringMatching(`[1-9][0-9]{0,15}|0`).Draw(t, "int")
		s := intPart
		if rapid.Bool().Draw(t, "frac?") {
			s += "." + rapid.StringMatching(`[0-9]{0,14}[1-9]`).Draw(t, "frac")
		}
		if rapid.Bool().Draw(t, "neg") && s != "0" {
			s = "-" + s
		}
		return s
	})
}

func evalWith(t *rapid.T, src string, scope Scope) any {
	p, err := Compile(src)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	_, v, err := p.run(scope)
	if err != nil {
		t.Fatalf("Eval(%q): %v", src, err)
	}
	return v
}

func TestPropInRangeIsBetween(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		a, b, x := decimalText().Draw(t, "a"), decimalText().Draw(t, "b"), decimalText().Draw(t, "x")
		if n(a) != n(b) && evalWith(t, "a > b", mapScope{"a": n(a), "b": n(b)}) == true {
			a, b = b, a // a range must not start after its end
		}
		lo, hi := rapid.SampledFrom([]string{"[", "(", "]"}).Draw(t, "lo"), rapid.SampledFrom([]string{"]", ")", "["}).Draw(t, "hi")
		scope := mapScope{"a": n(a), "b": n(b), "x": n(x)}
		in := evalWith(t, "x in "+lo+"a..b"+hi, scope)
		loOp, hiOp := ">=", "<="
		if lo != "[" {
			loOp = ">"
		}
		if hi != "]" {
			hiOp = "<"
		}
		cmp := evalWith(t, "x "+loOp+" a and x "+hiOp+" b", scope)
		if in != cmp {
			t.Fatalf("x=%s a=%s b=%s: in %s%s..%s%s = %v, comparisons = %v", x, a, b, lo, a, b, hi, in, cmp)
		}
		// between is the closed form
		if evalWith(t, "x between a and b", scope) != evalWith(t, "x in [a..b]", scope) {
			t.Fatalf("between and [a..b] disagree for %s, %s, %s", x, a, b)
		}
	})
}

func TestPropAddCommutesAndAssociatesExactly(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		scope := mapScope{"a": n(decimalText().Draw(t, "a")), "b": n(decimalText().Draw(t, "b")), "c": n(decimalText().Draw(t, "c"))}
		if evalWith(t, "a + b = b + a", scope) != true {
			t.Fatalf("a + b != b + a for %v", scope)
		}
		if evalWith(t, "a * b = b * a", scope) != true {
			t.Fatalf("a * b != b * a for %v", scope)
		}
		// Inputs have at most 31 digits, so sums are exact and associate.
		if evalWith(t, "(a + b) + c = a + (b + c)", scope) != true {
			t.Fatalf("+ does not associate for %v", scope)
		}
		if evalWith(t, "a + b - b = a", scope) != true {
			t.Fatalf("a + b - b != a for %v", scope)
		}
	})
}

func TestPropNumberStringRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := decimalText().Draw(t, "s")
		got := evalWith(t, "string(number(s))", mapScope{"s": s})
		if got != s {
			t.Fatalf("string(number(%q)) = %v", s, got)
		}
		if v, _ := evalWith(t, "number(string(x)) = x", mapScope{"x": n(s)}).(bool); !v {
			t.Fatalf("number(string(%s)) != %s", s, s)
		}
	})
}

// literal prints an internal value as FEEL source.
func literal(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case string:
		return quote(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = literal(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = quote(k) + ": " + literal(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case Date, Time, DateTime, Duration, YearsMonths:
		return "@" + strconv.Quote(x.(fmt.Stringer).String())
	}
	s, _ := toString(v, 0)
	return s
}

// valueGen generates FEEL values of every literal kind.
func valueGen(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		kinds := 9
		if depth > 2 {
			kinds = 7
		}
		switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
		case 0:
			return nil
		case 1:
			return rapid.Bool().Draw(t, "bool")
		case 2:
			return rapid.String().Draw(t, "string")
		case 3:
			return norm(n(decimalText().Draw(t, "number")))
		case 4:
			d, _ := NewDate(rapid.IntRange(-9999, 99999).Draw(t, "y"), rapid.IntRange(1, 12).Draw(t, "m"), rapid.IntRange(1, 28).Draw(t, "d"))
			if rapid.Bool().Draw(t, "dt") {
				return DateTime{date: d, time: timeGen().Draw(t, "t")}
			}
			return d
		case 5:
			if rapid.Bool().Draw(t, "ym") {
				return YearsMonths{rapid.Int64Range(-100000, 100000).Draw(t, "months")}
			}
			d, _ := NewDuration(rapid.Int64Range(-1e12, 1e12).Draw(t, "sec"), 0)
			return d
		case 6:
			return timeGen().Draw(t, "time")
		case 7:
			return rapid.SliceOfN(valueGen(depth+1), 0, 4).Draw(t, "list")
		default:
			m := rapid.MapOfN(rapid.StringN(1, 8, -1), valueGen(depth+1), 0, 4).Draw(t, "ctx")
			out := map[string]any{}
			for k, v := range m {
				out[k] = v
			}
			return out
		}
	})
}

func timeGen() *rapid.Generator[Time] {
	return rapid.Custom(func(t *rapid.T) Time {
		tm := Time{hour: rapid.IntRange(0, 23).Draw(t, "h"), minute: rapid.IntRange(0, 59).Draw(t, "mi"), second: rapid.IntRange(0, 59).Draw(t, "s")}
		if rapid.Bool().Draw(t, "frac") {
			tm.nano = rapid.IntRange(0, 999_999_999).Draw(t, "ns")
		}
		switch rapid.IntRange(0, 2).Draw(t, "tz") {
		case 1:
			tm.hasOffset, tm.offset = true, rapid.IntRange(-18*60, 18*60).Draw(t, "off")*60
		case 2:
			tm.zone = rapid.SampledFrom([]string{"Europe/Paris", "America/New_York", "UTC", "Asia/Tokyo"}).Draw(t, "zone")
		}
		return tm
	})
}

func TestPropPrintParseRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		v := valueGen(0).Draw(t, "v")
		src := literal(v)
		got := evalWith(t, src, nil)
		if !same(got, v) || evalWith(t, "is(x, "+src+")", mapScope{"x": v}) != true && v != nil && typeName(v) != "list" && typeName(v) != "context" {
			t.Fatalf("%s evaluates to %#v, want %#v", src, got, v)
		}
		if s, ok := v.(fmt.Stringer); ok && isTemporal(v) {
			// The String form is what the constructors and @"…" read.
			if back := parseTemporal(s.String()); back == nil || (*evaluator)(nil).is(back, v) != true {
				t.Fatalf("parse(%q) = %#v", s.String(), back)
			}
		}
	})
}
