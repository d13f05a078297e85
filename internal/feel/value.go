package feel

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
)

// decCtx is the arithmetic context: 34 significant digits and the exponent
// range of IEEE 754 decimal128, as DMN prescribes for FEEL numbers.
// Conditions are not trapped; callers inspect them (see decResult).
var decCtx = apd.Context{
	Precision:   34,
	MaxExponent: 6144,
	MinExponent: -6143,
	Rounding:    apd.RoundHalfEven,
}

// badConditions turn an arithmetic result into null.
const badConditions = apd.Overflow | apd.SystemOverflow | apd.SystemUnderflow |
	apd.DivisionByZero | apd.DivisionImpossible | apd.DivisionUndefined | apd.InvalidOperation

// maxStringLen bounds strings built during evaluation, so that an
// expression cannot allocate without limit by doubling a string.
const maxStringLen = 1 << 20

// maxValueDepth bounds recursion over nested lists and contexts
// (export, equality, string conversion).
const maxValueDepth = 1000

// Internal values. Evaluation works on:
//
//	nil, bool, string, *apd.Decimal, []any, map[string]any, *Range,
//	Date, Time, DateTime, Duration, YearsMonths, Function, foreign
//
// Lists and contexts may come straight from the scope, so their elements
// are in caller shape (json.Number, float64, …); norm converts an element
// when it is read. *apd.Decimal values are never mutated once created.

// Range is a FEEL range value such as [1..10) or [date("2026-01-01")..date("2026-12-31")].
// It is immutable.
type Range struct {
	// lo and hi are internal values. In a range literal ([1..10], (a..b])
	// a nil endpoint is a null one: nothing compares with it. In a range
	// made from a unary comparison (< 10) the missing side is unbounded.
	lo, hi             any
	loClosed, hiClosed bool
	// op is the comparison the range was written as: "<", "<=", ">",
	// ">=", "=" or "!=" ((!= x) is every value but lo = hi); "" for a
	// range literal. (< 10) is not (null..10).
	op string
}

// Start returns the low endpoint (numbers as json.Number), nil when unbounded.
func (r *Range) Start() any { v, _ := exportNative(r.lo, 0); return v }

// End returns the high endpoint (numbers as json.Number), nil when unbounded.
func (r *Range) End() any { v, _ := exportNative(r.hi, 0); return v }

// StartIncluded reports whether the low endpoint belongs to the range.
func (r *Range) StartIncluded() bool { return r.loClosed }

// EndIncluded reports whether the high endpoint belongs to the range.
func (r *Range) EndIncluded() bool { return r.hiClosed }

// String returns the range as a FEEL literal, e.g. "[1..10)".
func (r *Range) String() string { s, _ := toString(r, 0); return s }

// foreign wraps a Go value of a type FEEL does not know; it compares to
// nothing and cannot be returned.
type foreign struct{ v any }

// ctxVal is the internal form of a FEEL context: its entries in the order
// they were written (a context literal, context put, context merge) or,
// for a Go map from the caller, in sorted key order. A ctxVal is never
// modified once built; operations that change a context copy it.
type ctxVal struct {
	keys []string       // entry order; nil means sorted(vals) (see order)
	vals map[string]any // values in caller or internal shape
}

// newCtx returns an empty context with room for n entries.
func newCtx(n int) *ctxVal {
	return &ctxVal{keys: make([]string, 0, n), vals: make(map[string]any, n)}
}

// set adds or replaces an entry; only for contexts under construction.
func (c *ctxVal) set(k string, v any) {
	if _, ok := c.vals[k]; !ok {
		c.keys = append(c.keys, k)
	}
	c.vals[k] = v
}

// order returns the keys in entry order.
func (c *ctxVal) order() []string {
	if c.keys == nil && len(c.vals) > 0 {
		return sortedKeys(c.vals)
	}
	return c.keys
}

// get returns the value of key k, normalised.
func (c *ctxVal) get(k string) (any, bool) {
	v, ok := c.vals[k]
	return norm(v), ok
}

func (c *ctxVal) len() int { return len(c.vals) }

// clone copies c so that entries can be set on the copy.
func (c *ctxVal) clone(extra int) *ctxVal {
	out := newCtx(c.len() + extra)
	for _, k := range c.order() {
		out.set(k, c.vals[k])
	}
	return out
}

// norm converts a caller-supplied value to its internal form.
func norm(v any) any {
	switch x := v.(type) {
	case nil, bool, string, *apd.Decimal, []any, *ctxVal, *Range, foreign,
		Date, Time, DateTime, Duration, YearsMonths:
		return v
	case map[string]any:
		return &ctxVal{vals: x}
	case Function:
		return v
	case json.Number:
		d, _, err := apd.NewFromString(string(x))
		if err != nil || d.Form != apd.Finite {
			return foreign{v}
		}
		return rounded(d)
	case float64:
		return fromFloat(x, 64)
	case float32:
		return fromFloat(float64(x), 32)
	case int:
		return new(apd.Decimal).SetInt64(int64(x))
	case int8:
		return new(apd.Decimal).SetInt64(int64(x))
	case int16:
		return new(apd.Decimal).SetInt64(int64(x))
	case int32:
		return new(apd.Decimal).SetInt64(int64(x))
	case int64:
		return new(apd.Decimal).SetInt64(x)
	case uint:
		return fromUint(uint64(x))
	case uint8:
		return new(apd.Decimal).SetInt64(int64(x))
	case uint16:
		return new(apd.Decimal).SetInt64(int64(x))
	case uint32:
		return new(apd.Decimal).SetInt64(int64(x))
	case uint64:
		return fromUint(x)
	case apd.Decimal:
		return rounded(&x)
	case *Date:
		return derefOr(x)
	case *Time:
		return derefOr(x)
	case *DateTime:
		return derefOr(x)
	case *Duration:
		return derefOr(x)
	case *YearsMonths:
		return derefOr(x)
	}
	return foreign{v}
}

func derefOr[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func fromFloat(f float64, bits int) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	// The shortest text that round-trips, so 0.1 reads as 0.1, not as the
	// binary fraction nearest to it.
	d, _, err := apd.NewFromString(strconv.FormatFloat(f, 'g', -1, bits))
	if err != nil {
		return nil
	}
	return rounded(d)
}

func fromUint(u uint64) any {
	d, _, err := apd.NewFromString(strconv.FormatUint(u, 10))
	if err != nil {
		return nil
	}
	return d
}

// rounded rounds d to the arithmetic context; out-of-range values are null.
func rounded(d *apd.Decimal) any {
	r := new(apd.Decimal)
	cond, err := decCtx.Round(r, d)
	return decResult(r, cond, err)
}

// decResult returns d, or nil when the operation that produced it failed.
func decResult(d *apd.Decimal, cond apd.Condition, err error) any {
	if err != nil || cond&badConditions != 0 || d.Form != apd.Finite {
		return nil
	}
	return d
}

// numText renders d canonically: no exponent for ordinary magnitudes, no
// trailing zeros, "0" for zero.
func numText(d *apd.Decimal) string {
	if d.IsZero() {
		return "0"
	}
	r, _ := new(apd.Decimal).Reduce(d)
	adj := int64(r.NumDigits()) + int64(r.Exponent) - 1
	if adj >= -40 && adj < 60 {
		return r.Text('f')
	}
	return r.Text('e')
}

// canonicalNumber reports whether s is a number as numText writes it:
// an optional minus, an integer part without leading zeros, an optional
// fraction not ending in 0, at most 34 digits, no exponent ("0", "-1.5",
// "0.25"; not "-0", "1.0", "01", "1e3").
func canonicalNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intLen := i - start
	if intLen == 0 || (intLen > 1 && s[start] == '0') {
		return false
	}
	digits := intLen
	if s[start] == '0' {
		digits = 0
	}
	if i < len(s) {
		if s[i] != '.' {
			return false
		}
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == fs || i != len(s) || s[i-1] == '0' {
			return false
		}
		frac := s[fs:i]
		if digits == 0 {
			frac = strings.TrimLeft(frac, "0") // 0.001: one significant digit
		}
		digits += len(frac)
	}
	if s == "-0" || digits > 34 {
		return false
	}
	return true
}

// export converts an internal value to the JSON shape Eval returns
// (see ToJSON), outside any evaluation.
func export(v any, depth int) (any, error) { return (*evaluator)(nil).export(v, depth) }

// exportNative converts an internal value to the form EvalValue returns,
// outside any evaluation.
func exportNative(v any, depth int) (any, error) { return (*evaluator)(nil).exportNative(v, depth) }

// spendErr is the error of a conversion that ran out of budget.
func (ev *evaluator) spendErr() error {
	if ev.err != nil {
		return ev.err
	}
	return ErrBudget
}

// export converts an internal value to the JSON shape Eval returns
// (see ToJSON), one step per value: a list holding the same big list many
// times is a small value to build but a big one to write out.
func (ev *evaluator) export(v any, depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, budgetErrorf("result nested deeper than %d levels", maxValueDepth)
	}
	if !ev.tick(1) {
		return nil, ev.spendErr()
	}
	if n, ok := v.(json.Number); ok && canonicalNumber(string(n)) {
		return n, nil // already as numText would write it
	}
	switch x := norm(v).(type) {
	case nil, bool, string:
		return x, nil
	case *apd.Decimal:
		if !ev.tick(1) { // writing a decimal out is dearer than most values
			return nil, ev.spendErr()
		}
		return json.Number(numText(x)), nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			v, err := ev.export(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *ctxVal:
		out := make(map[string]any, x.len())
		for k, e := range x.vals {
			v, err := ev.export(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	case *Range:
		return nil, fmt.Errorf("feel: the result is a range, which is not a JSON value")
	case Date, Time, DateTime, Duration, YearsMonths:
		return x.(fmt.Stringer).String(), nil
	case *builtinFn:
		// A bare built-in name ("count", "sum") is the built-in function
		// only when no variable has that name: read as JSON it stays
		// null, as a missing variable always was.
		return nil, nil
	case Function:
		return nil, fmt.Errorf("feel: the result is a function, which is not a JSON value")
	case foreign:
		return nil, fmt.Errorf("feel: the result has Go type %T, which is not a JSON value", x.v)
	}
	return nil, fmt.Errorf("feel: the result has Go type %T, which is not a JSON value", v)
}

// exportNative converts an internal value to the form EvalValue returns:
// numbers become json.Number; temporal values, ranges and functions stay.
// It spends one step per value, as export does.
func (ev *evaluator) exportNative(v any, depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, budgetErrorf("result nested deeper than %d levels", maxValueDepth)
	}
	if !ev.tick(1) {
		return nil, ev.spendErr()
	}
	switch x := norm(v).(type) {
	case *apd.Decimal:
		if !ev.tick(1) { // writing a decimal out is dearer than most values
			return nil, ev.spendErr()
		}
		return json.Number(numText(x)), nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			v, err := ev.exportNative(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *ctxVal:
		out := make(map[string]any, x.len())
		for k, e := range x.vals {
			v, err := ev.exportNative(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	case foreign:
		return nil, fmt.Errorf("feel: the result has Go type %T, which is not a FEEL value", x.v)
	default:
		return x, nil
	}
}

// typeName names the FEEL type of an internal value, for messages and string().
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case *apd.Decimal:
		return "number"
	case []any:
		return "list"
	case *ctxVal:
		return "context"
	case *Range:
		return "range"
	case Date:
		return "date"
	case Time:
		return "time"
	case DateTime:
		return "date and time"
	case Duration:
		return "days and time duration"
	case YearsMonths:
		return "years and months duration"
	case Function:
		return "function"
	}
	return "unknown"
}

// equal is FEEL = outside any evaluation (of constants, in tests).
func equal(a, b any, depth int) any { return (*evaluator)(nil).equal(a, b, depth) }

// equal implements FEEL =. It returns true, false, or nil (null) when the
// operands have different types. null equals only null. It spends a step
// per value compared (lists and contexts element by element) and per 256
// bytes of equally long strings; when the budget is gone it returns null
// (and the evaluation fails).
func (ev *evaluator) equal(a, b any, depth int) any {
	a, b = norm(a), norm(b)
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if depth > maxValueDepth || !ev.tick(1) {
		return nil
	}
	switch x := a.(type) {
	case bool:
		if y, ok := b.(bool); ok {
			return x == y
		}
	case string:
		if y, ok := b.(string); ok {
			if len(x) == len(y) && !ev.tick(cmpCost(len(x))) {
				return nil
			}
			return x == y
		}
	case *apd.Decimal:
		if y, ok := b.(*apd.Decimal); ok {
			return x.Cmp(y) == 0
		}
	case []any:
		y, ok := b.([]any)
		if !ok {
			return nil
		}
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			e := ev.equal(x[i], y[i], depth+1)
			if e != true {
				return e
			}
		}
		return true
	case *ctxVal:
		y, ok := b.(*ctxVal)
		if !ok {
			return nil
		}
		if x.len() != y.len() {
			return false
		}
		for k, xv := range x.vals {
			yv, ok := y.vals[k]
			if !ok {
				return false
			}
			e := ev.equal(xv, yv, depth+1)
			if e != true {
				return e
			}
		}
		return true
	case Date, Time, DateTime, Duration, YearsMonths:
		c, ok := compareTemporal(a, b)
		if !ok {
			if typeName(a) == typeName(b) {
				return false
			}
			return nil
		}
		return c == 0
	case *Range:
		y, ok := b.(*Range)
		if !ok {
			return nil
		}
		if x.loClosed != y.loClosed || x.hiClosed != y.hiClosed || x.op != y.op {
			return false
		}
		lo := ev.equal(x.lo, y.lo, depth+1)
		if lo != true {
			return lo
		}
		return ev.equal(x.hi, y.hi, depth+1)
	}
	return nil
}

// compare orders a and b. ok is false when they are not both numbers or
// both strings (booleans, lists and so on have no order). Strings cost a
// step per 256 bytes of the shorter one; the caller pays for the
// comparison itself.
func (ev *evaluator) compare(a, b any) (c int, ok bool) {
	a, b = norm(a), norm(b)
	switch x := a.(type) {
	case *apd.Decimal:
		if y, ok := b.(*apd.Decimal); ok {
			return x.Cmp(y), true
		}
	case string:
		if y, ok := b.(string); ok {
			if !ev.tick(cmpCost(min(len(x), len(y)))) {
				return 0, false
			}
			switch {
			case x < y:
				return -1, true
			case x > y:
				return 1, true
			}
			return 0, true
		}
	case Date, Time, DateTime, Duration, YearsMonths:
		return compareTemporal(a, b)
	}
	return 0, false
}

// cmpOp applies a comparison operator; the result is true, false or nil.
func (ev *evaluator) cmpOp(op string, a, b any) any {
	switch op {
	case "=":
		return ev.equal(a, b, 0)
	case "!=":
		e := ev.equal(a, b, 0)
		if e == nil {
			return nil
		}
		return !e.(bool)
	}
	c, ok := ev.compare(a, b)
	if !ok {
		return nil
	}
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return nil
}

// inRange reports whether x lies in r: true, false, or nil when x cannot
// be compared with an endpoint.
func (ev *evaluator) inRangeOf(x any, r *Range) any {
	if r.op == "!=" {
		e := ev.equal(x, r.lo, 0)
		if e == nil {
			return nil
		}
		return !e.(bool)
	}
	if r.op == "" && (r.lo == nil || r.hi == nil) {
		return nil // a null endpoint compares with nothing
	}
	if r.lo != nil {
		c, ok := ev.compare(x, r.lo)
		if !ok {
			return nil
		}
		if c < 0 || (c == 0 && !r.loClosed) {
			return false
		}
	}
	if r.hi != nil {
		c, ok := ev.compare(x, r.hi)
		if !ok {
			return nil
		}
		if c > 0 || (c == 0 && !r.hiClosed) {
			return false
		}
	}
	return true
}

// toString renders v as FEEL's string() does, outside any evaluation.
func toString(v any, depth int) (string, bool) { return (*evaluator)(nil).toString(v, depth) }

// toString renders v as FEEL's string() does, a step per value and per
// 256 bytes of string written.
func (ev *evaluator) toString(v any, depth int) (string, bool) {
	if depth > maxValueDepth || !ev.tick(1) {
		return "", false
	}
	switch x := norm(v).(type) {
	case nil:
		return "null", true
	case bool:
		return strconv.FormatBool(x), true
	case string:
		if !ev.tick(textCost(len(x))) {
			return "", false
		}
		if depth > 0 {
			return quote(x), true
		}
		return x, true
	case *apd.Decimal:
		return numText(x), true
	case []any:
		b := []byte{'['}
		for i, e := range x {
			if i > 0 {
				b = append(b, ", "...)
			}
			s, ok := ev.toString(e, depth+1)
			if !ok || len(b)+len(s) > maxStringLen {
				return "", false
			}
			b = append(b, s...)
		}
		return string(append(b, ']')), true
	case *ctxVal:
		b := []byte{'{'}
		for i, k := range x.order() {
			if i > 0 {
				b = append(b, ", "...)
			}
			s, ok := ev.toString(x.vals[k], depth+1)
			if !ok || len(b)+len(k)+len(s) > maxStringLen {
				return "", false
			}
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, s...)
		}
		return string(append(b, '}')), true
	case *Range:
		lo, ok1 := ev.toString(x.lo, depth+1)
		hi, ok2 := ev.toString(x.hi, depth+1)
		if !ok1 || !ok2 {
			return "", false
		}
		switch x.op {
		case "<", "<=":
			return x.op + " " + hi, true
		case ">", ">=", "=", "!=":
			return x.op + " " + lo, true
		}
		l, h := "(", ")"
		if x.loClosed {
			l = "["
		}
		if x.hiClosed {
			h = "]"
		}
		return l + lo + ".." + hi + h, true
	case Date, Time, DateTime, Duration, YearsMonths:
		return x.(fmt.Stringer).String(), true
	case Function:
		return "function", true
	}
	return "", false
}

// quote writes s as a FEEL string literal: \" \\ \n \r \t escapes and
// \uXXXX for other control characters.
func quote(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20 || r == 0x7f:
			b = append(b, fmt.Sprintf("\\u%04x", r)...)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return string(append(b, '"'))
}
