package feel

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
)

// kind is the type a built-in function's parameter accepts.
type kind uint8

const (
	kAny      kind = iota
	kNumber        // a number
	kString        // a string
	kBoolean       // a boolean
	kList          // a list; any other value is taken as a singleton list
	kContext       // a context
	kFunction      // a function
	kRange         // a range
	kDate          // a date, or a date and time
	kTime          // a time
	kDuration      // a days and time duration
)

var kindNames = [...]string{"value", "number", "string", "boolean", "list", "context", "function", "range",
	"date", "time", "days and time duration"}

// param is one parameter of a built-in's signature.
type param struct {
	name     string
	kind     kind
	nullable bool // null is an accepted value
	optional bool // may be left out (at the end of the arguments)
	rest     bool // the last parameter, repeated any number of times
}

// builtin is a built-in function. Calls are checked against min and max
// (max < 0: no limit) at compile time. At run time the arguments are
// checked against the signature (see checkArgs) before fn sees them: a
// null for a parameter that does not accept null, or a value of the
// wrong type, makes the call null with an error. fn receives internal
// values of the declared kinds and returns an internal value (nil for
// FEEL null, recording an error through ev when the arguments are
// invalid).
type builtin struct {
	name     string
	min, max int
	sigs     [][]param
	// variadic: the single list parameter may also be given as the
	// arguments themselves (sum(1, 2, 3) is sum([1, 2, 3])).
	variadic bool
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
// dropped, so optional parameters stay absent). It returns the index of
// the signature.
func (b *builtin) order(args []node, names []string) ([]node, int, error) {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, 0, fmt.Errorf("parameter %q given twice", n)
		}
		seen[n] = true
	}
next:
	for si, sig := range b.sigs {
		pos := make([]node, len(sig))
		last := -1
		for i, n := range names {
			j := slices.IndexFunc(sig, func(p param) bool { return p.name == n })
			if j < 0 {
				continue next
			}
			pos[j] = args[i]
			last = max(last, j)
		}
		out := pos[:last+1]
		for len(out) < required(sig) {
			out = append(out, nil)
		}
		for i := range out {
			if out[i] == nil {
				out[i] = litNode{}
			}
		}
		return out, si, nil
	}
	return nil, 0, fmt.Errorf("function %q has no parameters named %s", b.name, strings.Join(names, ", "))
}

// required counts the parameters of sig that cannot be left out.
func required(sig []param) int {
	n := 0
	for _, p := range sig {
		if !p.optional && !p.rest {
			n++
		}
	}
	return n
}

// signature picks the signature for a positional call: the first whose
// parameter count fits and whose kinds the arguments have, else the
// first whose count fits.
func (b *builtin) signature(args []any) []param {
	n := len(args)
	var fits []param
	for _, sig := range b.sigs {
		if n < required(sig) || (n > len(sig) && (len(sig) == 0 || !sig[len(sig)-1].rest)) {
			continue
		}
		if fits == nil {
			fits = sig
		}
		ok := true
		for i, a := range args {
			if a != nil && i < len(sig) && !isKind(a, sig[i].kind) {
				ok = false
				break
			}
		}
		if ok {
			return sig
		}
	}
	if fits != nil {
		return fits
	}
	return b.sigs[0]
}

// callBuiltin checks args against b's signature (sig, or chosen by the
// argument count when sig < 0) and calls it.
func (ev *evaluator) callBuiltin(b *builtin, args []any, sig int) any {
	if b.variadic && len(args) != 1 {
		args = []any{args}
	}
	var params []param
	if sig >= 0 && sig < len(b.sigs) {
		params = b.sigs[sig]
	} else {
		params = b.signature(args)
	}
	for i, a := range args {
		var p param
		switch {
		case i < len(params):
			p = params[i]
		case len(params) > 0 && params[len(params)-1].rest:
			p = params[len(params)-1]
		default:
			return ev.errorf("%s: too many arguments", b.name)
		}
		if a == nil {
			if !p.nullable {
				return ev.errorf("%s: %s is null", b.name, p.name)
			}
			continue
		}
		v, ok := coerceArg(a, p.kind)
		if !ok {
			return ev.errorf("%s: %s must be a %s, not a %s", b.name, p.name, kindNames[p.kind], typeName(a))
		}
		args[i] = v
	}
	return b.fn(ev, args)
}

// coerceArg converts a (not null) to kind k: a singleton list stands for
// its element where a single value is expected, and a single value for
// the singleton list where a list is expected (DMN 1.5 §10.3.2.9.4).
func coerceArg(a any, k kind) (any, bool) {
	if k == kAny {
		return a, true
	}
	if k == kList {
		if _, ok := a.([]any); ok {
			return a, true
		}
		return []any{a}, true
	}
	if l, ok := a.([]any); ok && len(l) == 1 {
		if el := norm(l[0]); el != nil && isKind(el, k) {
			return el, true
		}
	}
	return a, isKind(a, k)
}

func isKind(a any, k kind) bool {
	switch k {
	case kAny:
		return true
	case kNumber:
		_, ok := a.(*apd.Decimal)
		return ok
	case kString:
		_, ok := a.(string)
		return ok
	case kBoolean:
		_, ok := a.(bool)
		return ok
	case kList:
		_, ok := a.([]any)
		return ok
	case kContext:
		_, ok := a.(*ctxVal)
		return ok
	case kFunction:
		_, ok := a.(Function)
		return ok
	case kRange:
		_, ok := a.(*Range)
		return ok
	case kDate:
		switch a.(type) {
		case Date, DateTime:
			return true
		}
	case kTime:
		_, ok := a.(Time)
		return ok
	case kDuration:
		_, ok := a.(Duration)
		return ok
	}
	return false
}

var kindByName = map[string]kind{
	"any": kAny, "number": kNumber, "string": kString, "boolean": kBoolean, "list": kList,
	"context": kContext, "function": kFunction, "range": kRange, "date": kDate, "time": kTime,
	"duration": kDuration,
}

// builtins maps each function name (words joined by single spaces) to its
// implementation.
var builtins = map[string]*builtin{}

// register adds a built-in. sigs lists its signatures separated by "|",
// each a comma list of parameters "name:kind": "[name:kind]" may be left
// out, "name:kind?" accepts null, "name:kind..." repeats (last only). A
// name without a kind accepts anything, null included.
func register(name, sigs string, fn func(*evaluator, []any) any) *builtin {
	b := &builtin{name: name, fn: fn, min: -1}
	for _, s := range strings.Split(sigs, "|") {
		var params []param
		for _, ps := range strings.Split(s, ",") {
			ps = strings.TrimSpace(ps)
			if ps == "" {
				continue
			}
			var p param
			if strings.HasPrefix(ps, "[") && strings.HasSuffix(ps, "]") {
				p.optional = true
				ps = ps[1 : len(ps)-1]
			}
			if strings.HasSuffix(ps, "...") {
				p.rest = true
				ps = strings.TrimSuffix(ps, "...")
			}
			if strings.HasSuffix(ps, "?") {
				p.nullable = true
				ps = strings.TrimSuffix(ps, "?")
			}
			n, k, typed := strings.Cut(ps, ":")
			p.name = strings.TrimSpace(n)
			if typed {
				kk, ok := kindByName[strings.TrimSpace(k)]
				if !ok {
					panic("feel: unknown parameter kind " + k)
				}
				p.kind = kk
			} else {
				p.nullable = true
			}
			params = append(params, p)
		}
		b.sigs = append(b.sigs, params)
		req := required(params)
		if b.min < 0 || req < b.min {
			b.min = req
		}
		switch {
		case len(params) > 0 && params[len(params)-1].rest:
			b.max = -1
		case b.max >= 0 && len(params) > b.max:
			b.max = len(params)
		}
	}
	builtins[name] = b
	return b
}

// registerList adds a built-in over one list that may also be called
// with the list's elements as the arguments (sum(1, 2, 3)).
func registerList(name string, fn func(*evaluator, []any) any) {
	b := register(name, "list:list", fn)
	b.variadic = true
	b.max = -1
}

func init() {
	register("not", "negand:boolean?", fnNot)
	register("string length", "string:string", func(_ *evaluator, a []any) any {
		return intDec(utf8.RuneCountInString(a[0].(string)))
	})
	register("upper case", "string:string", func(_ *evaluator, a []any) any { return strings.ToUpper(a[0].(string)) })
	register("lower case", "string:string", func(_ *evaluator, a []any) any { return strings.ToLower(a[0].(string)) })
	register("contains", "string:string, match:string", str2Fn(strings.Contains))
	register("starts with", "string:string, match:string", str2Fn(strings.HasPrefix))
	register("ends with", "string:string, match:string", str2Fn(strings.HasSuffix))
	register("substring", "string:string, start position:number, [length:number]", fnSubstring)
	register("string", "from", fnString)
	register("number", "from:string, [grouping separator:string?], [decimal separator:string?]", fnNumber)
	register("count", "list:list", func(_ *evaluator, a []any) any { return intDec(len(a[0].([]any))) })
	register("list contains", "list:list, element", fnListContains)
	registerList("sum", fnSum)
	registerList("min", func(ev *evaluator, a []any) any { return ev.extreme("min", a[0].([]any), -1) })
	registerList("max", func(ev *evaluator, a []any) any { return ev.extreme("max", a[0].([]any), 1) })
	register("abs", "n:any", fnAbs)
	register("floor", "n:number, [scale:number]", roundFn("floor", apd.RoundFloor))
	register("ceiling", "n:number, [scale:number]", roundFn("ceiling", apd.RoundCeiling))
	register("decimal", "n:number, scale:number", roundFn("decimal", apd.RoundHalfEven))
	register("round up", "n:number, [scale:number]", roundFn("round up", apd.RoundUp))
	register("round down", "n:number, [scale:number]", roundFn("round down", apd.RoundDown))
	register("round half up", "n:number, [scale:number]", roundFn("round half up", apd.RoundHalfUp))
	register("round half down", "n:number, [scale:number]", roundFn("round half down", apd.RoundHalfDown))
	register("modulo", "dividend:number, divisor:number", fnModulo)
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

// truncArg returns the integer part of a number of modest size (FEEL
// positions and lengths such as substring's 3.8 count as 3).
func truncArg(v any) (int, bool) {
	d, ok := v.(*apd.Decimal)
	if !ok {
		return 0, false
	}
	var integ, frac apd.Decimal
	d.Modf(&integ, &frac)
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

func str2Fn(f func(string, string) bool) func(*evaluator, []any) any {
	return func(_ *evaluator, a []any) any { return f(a[0].(string), a[1].(string)) }
}

// fnSubstring is substring(string, start position[, length]): positions
// count characters from 1; a negative start counts from the end.
func fnSubstring(ev *evaluator, a []any) any {
	s := a[0].(string)
	start, ok := truncArg(a[1])
	if !ok || start == 0 {
		return ev.errorf("substring: start position %s is not a valid position", numText(a[1].(*apd.Decimal)))
	}
	runes := []rune(s)
	n := len(runes)
	i := start - 1
	if start < 0 {
		i = n + start
	}
	if i < 0 || i > n {
		return ev.errorf("substring: start position %d is outside a string of %d characters", start, n)
	}
	end := n
	if len(a) == 3 {
		l, ok := truncArg(a[2])
		if !ok || l < 0 {
			return ev.errorf("substring: length %s is not a valid length", numText(a[2].(*apd.Decimal)))
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
	s, ok := ev.toString(a[0], 0)
	if ev.err != nil {
		return nil
	}
	if !ok {
		return ev.errorf("string: cannot convert a %s", typeName(a[0]))
	}
	if len(s) > maxStringLen {
		return ev.fail(errStringTooLong)
	}
	return s
}

// fnNumber is number(from[, grouping separator[, decimal separator]]).
func fnNumber(ev *evaluator, a []any) any {
	s := a[0].(string)
	var g, d string
	if len(a) > 1 && a[1] != nil {
		g = a[1].(string)
		if g != " " && g != "," && g != "." {
			return ev.errorf("number: grouping separator %q is not one of space, comma and period", g)
		}
	}
	if len(a) > 2 && a[2] != nil {
		d = a[2].(string)
		if d != "," && d != "." {
			return ev.errorf("number: decimal separator %q is not a comma or a period", d)
		}
		if d == g {
			return ev.errorf("number: the grouping and decimal separators are both %q", d)
		}
	}
	if g != "" {
		s = strings.ReplaceAll(s, g, "")
	}
	if d != "" {
		s = strings.Replace(s, d, ".", 1)
	}
	if !validNumber(s) {
		return ev.errorf("number: %q is not a number", a[0])
	}
	n, _, err := apd.NewFromString(s)
	if err != nil {
		return ev.errorf("number: %q is not a number", a[0])
	}
	if r := rounded(n); r != nil {
		return r
	}
	return ev.errorf("number: %q is out of range", a[0])
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

// fnListContains compares element by element: each comparison spends
// the steps of = (one per value compared).
func fnListContains(ev *evaluator, a []any) any {
	for _, el := range a[0].([]any) {
		if ev.equal(el, a[1], 0) == true {
			return true
		}
		if ev.err != nil {
			return nil
		}
	}
	return false
}

func fnSum(ev *evaluator, a []any) any {
	l := a[0].([]any)
	if len(l) == 0 || !ev.tick(2*len(l)) { // a decimal addition per element
		return nil
	}
	sum := new(apd.Decimal)
	for _, el := range l {
		d, ok := norm(el).(*apd.Decimal)
		if !ok {
			return ev.errorf("sum: the list holds a %s", typeName(norm(el)))
		}
		next := new(apd.Decimal)
		cond, err := decCtx.Add(next, sum, d)
		if decResult(next, cond, err) == nil {
			return ev.errorf("sum: out of range")
		}
		sum = next
	}
	return sum
}

// extreme returns the minimum (sign -1) or maximum (sign 1) of
// comparable values.
func (ev *evaluator) extreme(name string, l []any, sign int) any {
	if len(l) == 0 || !ev.tick(len(l)) {
		return nil
	}
	best := norm(l[0])
	for _, el := range l[1:] {
		el = norm(el)
		c, ok := ev.compare(el, best)
		if ev.err != nil {
			return nil
		}
		if !ok {
			return ev.errorf("%s: cannot compare a %s with a %s", name, typeName(el), typeName(best))
		}
		if c*sign > 0 {
			best = el
		}
	}
	if _, ok := ev.compare(best, best); !ok {
		return ev.errorf("%s: a %s has no order", name, typeName(best))
	}
	return best
}

func fnAbs(ev *evaluator, a []any) any {
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
	return ev.errorf("abs: n must be a number or a duration, not a %s", typeName(a[0]))
}

// roundFn builds floor(n[, scale]), ceiling(n[, scale]), decimal(n,
// scale) and the round functions: round n to scale digits after the
// point (a scale with a fraction counts by its integer part).
func roundFn(name string, mode apd.Rounder) func(*evaluator, []any) any {
	ctx := decCtx
	ctx.Rounding = mode
	return func(ev *evaluator, a []any) any {
		d := a[0].(*apd.Decimal)
		scale := 0
		if len(a) > 1 {
			s, ok := truncArg(a[1])
			if !ok || s < -6111 || s > 6176 {
				return ev.errorf("%s: scale %s is outside -6111..6176", name, numText(a[1].(*apd.Decimal)))
			}
			scale = s
		}
		if d.Exponent >= int32(-scale) {
			return d // no digits below the requested scale
		}
		z := new(apd.Decimal)
		cond, err := ctx.Quantize(z, d, int32(-scale))
		if r := decResult(z, cond, err); r != nil {
			return r
		}
		return ev.errorf("%s: the result is out of range", name)
	}
}

// fnModulo is modulo(dividend, divisor): the remainder with the sign of
// the divisor, dividend - divisor*floor(dividend/divisor).
func fnModulo(ev *evaluator, a []any) any {
	x, y := a[0].(*apd.Decimal), a[1].(*apd.Decimal)
	if y.IsZero() {
		return ev.errorf("modulo: division by zero")
	}
	r := new(apd.Decimal)
	cond, err := decCtx.Rem(r, x, y)
	if decResult(r, cond, err) == nil {
		return ev.errorf("modulo: out of range")
	}
	if !r.IsZero() && r.Negative != y.Negative {
		z := new(apd.Decimal)
		cond, err = decCtx.Add(z, r, y)
		return decResult(z, cond, err)
	}
	return r
}
