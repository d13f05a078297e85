package feel

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
)

// builtin is a built-in function. Calls are checked against min and max
// (max < 0: no limit) at compile time; fn receives evaluated internal
// values and returns an internal value (nil for FEEL null). sigs lists
// the parameter names of each signature, for calls with named arguments.
type builtin struct {
	name     string
	min, max int
	sigs     [][]string
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

// order puts named arguments in the order of the first signature that
// has all their names; parameters left out are null (trailing ones are
// dropped, so optional parameters stay absent).
func (b *builtin) order(args []node, names []string) ([]node, error) {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, fmt.Errorf("parameter %q given twice", n)
		}
		seen[n] = true
	}
next:
	for _, sig := range b.sigs {
		pos := make([]node, len(sig))
		last := -1
		for i, n := range names {
			j := slices.Index(sig, n)
			if j < 0 {
				continue next
			}
			pos[j] = args[i]
			last = max(last, j)
		}
		out := pos[:last+1]
		for len(out) < b.min {
			out = append(out, nil)
		}
		for i := range out {
			if out[i] == nil {
				out[i] = litNode{}
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("function %q has no parameters named %s", b.name, strings.Join(names, ", "))
}

// builtins maps each function name (words joined by single spaces) to its
// implementation.
var builtins = map[string]*builtin{}

// register adds built-ins. sigs is "a, b, c" or several signatures
// separated by "|"; min and max bound the argument count (max -1: any).
func register(name, sigs string, min, max int, fn func(*evaluator, []any) any) {
	b := &builtin{name: name, min: min, max: max, fn: fn}
	for _, s := range strings.Split(sigs, "|") {
		var params []string
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				params = append(params, p)
			}
		}
		b.sigs = append(b.sigs, params)
	}
	builtins[name] = b
}

func init() {
	register("not", "negand", 1, 1, fnNot)
	register("string length", "string", 1, 1, strFn(func(s string) any { return intDec(utf8.RuneCountInString(s)) }))
	register("upper case", "string", 1, 1, strFn(func(s string) any { return strings.ToUpper(s) }))
	register("lower case", "string", 1, 1, strFn(func(s string) any { return strings.ToLower(s) }))
	register("contains", "string, match", 2, 2, str2Fn(strings.Contains))
	register("starts with", "string, match", 2, 2, str2Fn(strings.HasPrefix))
	register("ends with", "string, match", 2, 2, str2Fn(strings.HasSuffix))
	register("substring", "string, start position, length", 2, 3, fnSubstring)
	register("string", "from", 1, 1, fnString)
	register("number", "from, grouping separator, decimal separator", 1, 3, fnNumber)
	register("count", "list", 1, 1, fnCount)
	register("list contains", "list, element", 2, 2, fnListContains)
	register("sum", "list", 1, -1, fnSum)
	register("min", "list", 1, -1, func(_ *evaluator, a []any) any { return extreme(a, -1) })
	register("max", "list", 1, -1, func(_ *evaluator, a []any) any { return extreme(a, 1) })
	register("abs", "n", 1, 1, fnAbs)
	register("floor", "n, scale", 1, 2, roundFn(apd.RoundFloor, false))
	register("ceiling", "n, scale", 1, 2, roundFn(apd.RoundCeiling, false))
	register("decimal", "n, scale", 2, 2, roundFn(apd.RoundHalfEven, true))
	register("round up", "n, scale", 1, 2, roundFn(apd.RoundUp, false))
	register("round down", "n, scale", 1, 2, roundFn(apd.RoundDown, false))
	register("round half up", "n, scale", 1, 2, roundFn(apd.RoundHalfUp, false))
	register("round half down", "n, scale", 1, 2, roundFn(apd.RoundHalfDown, false))
	register("modulo", "dividend, divisor", 2, 2, fnModulo)
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
	switch x := a[0].(type) {
	case *apd.Decimal:
		return new(apd.Decimal).Abs(x)
	case Duration:
		if x.sec < 0 || x.nano < 0 {
			return x.neg()
		}
		return x
	case YearsMonths:
		if x.months < 0 {
			return YearsMonths{-x.months}
		}
		return x
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
