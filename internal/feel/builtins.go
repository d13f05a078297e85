package feel

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
)

// builtin is a built-in function. Calls are checked against min and max
// (max < 0: no limit) at compile time; fn receives evaluated internal
// values and returns an internal value (nil for FEEL null).
type builtin struct {
	name     string
	min, max int
	fn       func(ev *evaluator, args []any) any
}

// arity describes the accepted argument counts for an error message.
func (b *builtin) arity() string {
	switch {
	case b.max < 0:
		return "at least " + plural(b.min)
	case b.min == b.max:
		return plural(b.min)
	case b.max == b.min+1:
		return strconv.Itoa(b.min) + " or " + plural(b.max)
	}
	return strconv.Itoa(b.min) + " to " + plural(b.max)
}

func plural(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return strconv.Itoa(n) + " arguments"
}

// builtins maps each function name (words joined by single spaces) to its
// implementation; builtinPrefixes holds every proper word prefix of a
// multi-word name, so the parser knows when to keep reading words.
var (
	builtins        = map[string]*builtin{}
	builtinPrefixes = map[string]bool{}
)

func init() {
	for _, b := range []*builtin{
		{"not", 1, 1, fnNot},
		{"string length", 1, 1, strFn(func(s string) any { return intDec(utf8.RuneCountInString(s)) })},
		{"upper case", 1, 1, strFn(func(s string) any { return strings.ToUpper(s) })},
		{"lower case", 1, 1, strFn(func(s string) any { return strings.ToLower(s) })},
		{"contains", 2, 2, str2Fn(strings.Contains)},
		{"starts with", 2, 2, str2Fn(strings.HasPrefix)},
		{"ends with", 2, 2, str2Fn(strings.HasSuffix)},
		{"substring", 2, 3, fnSubstring},
		{"string", 1, 1, fnString},
		{"number", 1, 3, fnNumber},
		{"count", 1, 1, fnCount},
		{"list contains", 2, 2, fnListContains},
		{"sum", 1, -1, fnSum},
		{"min", 1, -1, func(_ *evaluator, a []any) any { return extreme(a, -1) }},
		{"max", 1, -1, func(_ *evaluator, a []any) any { return extreme(a, 1) }},
		{"abs", 1, 1, fnAbs},
		{"floor", 1, 2, roundFn(apd.RoundFloor, false)},
		{"ceiling", 1, 2, roundFn(apd.RoundCeiling, false)},
		{"decimal", 2, 2, roundFn(apd.RoundHalfEven, true)},
		{"modulo", 2, 2, fnModulo},
	} {
		builtins[b.name] = b
		words := strings.Fields(b.name)
		for i := 1; i < len(words); i++ {
			builtinPrefixes[strings.Join(words[:i], " ")] = true
		}
	}
}

func intDec(n int) *apd.Decimal { return new(apd.Decimal).SetInt64(int64(n)) }

// intArg returns d as an int when it is integral and of modest size.
func intArg(v any) (int, bool) {
	d, ok := v.(*apd.Decimal)
	if !ok {
		return 0, false
	}
	var integ, frac apd.Decimal
	d.Modf(&integ, &frac)
	if !frac.IsZero() {
		return 0, false
	}
	i, err := integ.Int64()
	if err != nil || i > 1<<31 || i < -(1<<31) {
		return 0, false
	}
	return int(i), true
}

func fnNot(_ *evaluator, a []any) any {
	if b, ok := a[0].(bool); ok {
		return !b
	}
	return nil
}

func strFn(f func(string) any) func(*evaluator, []any) any {
	return func(_ *evaluator, a []any) any {
		if s, ok := a[0].(string); ok {
			return f(s)
		}
		return nil
	}
}

func str2Fn(f func(string, string) bool) func(*evaluator, []any) any {
	return func(_ *evaluator, a []any) any {
		s, ok1 := a[0].(string)
		t, ok2 := a[1].(string)
		if !ok1 || !ok2 {
			return nil
		}
		return f(s, t)
	}
}

// fnSubstring is substring(string, start position[, length]): positions
// count characters from 1; a negative start counts from the end.
func fnSubstring(_ *evaluator, a []any) any {
	s, ok := a[0].(string)
	start, ok2 := intArg(a[1])
	if !ok || !ok2 || start == 0 {
		return nil
	}
	runes := []rune(s)
	n := len(runes)
	i := start - 1
	if start < 0 {
		i = n + start
	}
	if i < 0 || i > n {
		return nil
	}
	end := n
	if len(a) == 3 {
		l, ok := intArg(a[2])
		if !ok || l < 0 {
			return nil
		}
		if l < n-i {
			end = i + l
		}
	}
	return string(runes[i:end])
}

func fnString(ev *evaluator, a []any) any {
	if a[0] == nil {
		return nil
	}
	s, ok := toString(a[0], 0)
	if !ok {
		return nil
	}
	if len(s) > maxStringLen {
		return ev.fail(errStringTooLong)
	}
	return s
}

// fnNumber is number(from[, grouping separator[, decimal separator]]).
func fnNumber(_ *evaluator, a []any) any {
	if d, ok := a[0].(*apd.Decimal); ok && len(a) == 1 {
		return d
	}
	s, ok := a[0].(string)
	if !ok {
		return nil
	}
	if len(a) > 1 && a[1] != nil {
		g, ok := a[1].(string)
		if !ok || (g != " " && g != "," && g != ".") {
			return nil
		}
		s = strings.ReplaceAll(s, g, "")
	}
	if len(a) > 2 && a[2] != nil {
		d, ok := a[2].(string)
		if !ok || (d != "," && d != ".") || (len(a) > 1 && a[1] == d) {
			return nil
		}
		s = strings.Replace(s, d, ".", 1)
	}
	if !validNumber(s) {
		return nil
	}
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return nil
	}
	return rounded(d)
}

// validNumber accepts [-]digits[.digits][e[+-]digits] (or .digits), and
// so refuses apd's extra spellings such as "NaN" and "Infinity".
func validNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		exp := 0
		for i < len(s) && isDigit(s[i]) {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

func fnCount(_ *evaluator, a []any) any {
	if l, ok := a[0].([]any); ok {
		return intDec(len(l))
	}
	return nil
}

func fnListContains(_ *evaluator, a []any) any {
	l, ok := a[0].([]any)
	if !ok {
		return nil
	}
	for _, el := range l {
		if equal(el, a[1], 0) == true {
			return true
		}
	}
	return false
}

// items returns the list argument of sum/min/max: a single list, or the
// arguments themselves.
func items(a []any) ([]any, bool) {
	if len(a) == 1 {
		l, ok := a[0].([]any)
		return l, ok
	}
	return a, true
}

func fnSum(_ *evaluator, a []any) any {
	l, ok := items(a)
	if !ok || len(l) == 0 {
		return nil
	}
	sum := new(apd.Decimal)
	for _, el := range l {
		d, ok := norm(el).(*apd.Decimal)
		if !ok {
			return nil
		}
		next := new(apd.Decimal)
		cond, err := decCtx.Add(next, sum, d)
		if decResult(next, cond, err) == nil {
			return nil
		}
		sum = next
	}
	return sum
}

// extreme returns the minimum (sign -1) or maximum (sign 1) of
// comparable values.
func extreme(a []any, sign int) any {
	l, ok := items(a)
	if !ok || len(l) == 0 {
		return nil
	}
	best := norm(l[0])
	for _, el := range l[1:] {
		el = norm(el)
		c, ok := compare(el, best)
		if !ok {
			return nil
		}
		if c*sign > 0 {
			best = el
		}
	}
	if _, ok := compare(best, best); !ok {
		return nil
	}
	return best
}

func fnAbs(_ *evaluator, a []any) any {
	if d, ok := a[0].(*apd.Decimal); ok {
		return new(apd.Decimal).Abs(d)
	}
	return nil
}

// roundFn builds floor(n[, scale]), ceiling(n[, scale]) and
// decimal(n, scale): round n to scale digits after the point.
func roundFn(mode apd.Rounder, scaleRequired bool) func(*evaluator, []any) any {
	ctx := decCtx
	ctx.Rounding = mode
	return func(_ *evaluator, a []any) any {
		d, ok := a[0].(*apd.Decimal)
		if !ok {
			return nil
		}
		scale := 0
		if len(a) > 1 {
			if a[1] == nil && !scaleRequired {
				return nil
			}
			s, ok := intArg(a[1])
			if !ok || s < -6111 || s > 6176 {
				return nil
			}
			scale = s
		}
		if d.Exponent >= int32(-scale) {
			return d // no digits below the requested scale
		}
		z := new(apd.Decimal)
		cond, err := ctx.Quantize(z, d, int32(-scale))
		return decResult(z, cond, err)
	}
}

// fnModulo is modulo(dividend, divisor): the remainder with the sign of
// the divisor, dividend - divisor*floor(dividend/divisor).
func fnModulo(_ *evaluator, a []any) any {
	x, ok1 := a[0].(*apd.Decimal)
	y, ok2 := a[1].(*apd.Decimal)
	if !ok1 || !ok2 || y.IsZero() {
		return nil
	}
	r := new(apd.Decimal)
	cond, err := decCtx.Rem(r, x, y)
	if decResult(r, cond, err) == nil {
		return nil
	}
	if !r.IsZero() && r.Negative != y.Negative {
		z := new(apd.Decimal)
		cond, err = decCtx.Add(z, r, y)
		return decResult(z, cond, err)
	}
	return r
}
