package juel

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// number is a numeric value during evaluation. EL distinguishes integral
// numbers (Long, BigInteger) from floating ones (Double); the distinction
// decides which arithmetic rule of EL 2.2 section 1.7 applies, whether
// Java's equals holds, and how the number is written as text. The value
// itself is always an exact decimal.
type number struct {
	d apd.Decimal
	// flt is true for EL's Double: a JSON number or literal with a
	// fraction or exponent, a Go float, a string containing '.', 'e' or
	// 'E' coerced by an arithmetic rule, and every quotient.
	flt bool
}

// Precision is the number of significant digits arithmetic keeps (that of
// decimal128), and the exponent limits are decimal128's: every value a
// Java long or double can hold fits.
const (
	precision = 34
	maxExp    = 6144
	minExp    = -6143
)

// arith is the context of all arithmetic: 34 digits, half-even rounding,
// errors on overflow, underflow and invalid operations.
var arith = apd.Context{
	Precision:   precision,
	MaxExponent: maxExp,
	MinExponent: minExp,
	Traps:       apd.DefaultTraps,
	Rounding:    apd.RoundHalfEven,
}

// wide is the context that computes a quotient with a few guard digits
// before it is rounded to the nearest double.
var wide = apd.Context{
	Precision:   precision + 6,
	MaxExponent: maxExp,
	MinExponent: minExp,
	Traps:       apd.DefaultTraps,
	Rounding:    apd.RoundHalfEven,
}

// errRange reports a number whose exponent lies outside the limits.
var errRange = errors.New("number out of range")

func newInt(x int64) *number {
	n := &number{}
	n.d.SetInt64(x)
	return n
}

// parseDecimal reads an unsigned-or-signed decimal in the shapes JSON, EL
// literals and Java's Long.valueOf and Double.valueOf accept once their
// prefixes and suffixes are dealt with: digits, an optional fraction
// (either side of the point may be empty, not both) and an optional
// exponent. It reports whether the text had a fraction or exponent.
func parseDecimal(s string) (*number, error) {
	t := s
	if t == "" {
		return nil, fmt.Errorf("empty number")
	}
	i := 0
	if t[0] == '+' || t[0] == '-' {
		i++
	}
	digits := 0
	for i < len(t) && isDigit(t[i]) {
		i++
		digits++
	}
	flt := false
	if i < len(t) && t[i] == '.' {
		flt = true
		i++
		for i < len(t) && isDigit(t[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return nil, fmt.Errorf("malformed number %q", s)
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		flt = true
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		exp := 0
		for i < len(t) && isDigit(t[i]) {
			i++
			exp++
		}
		if exp == 0 {
			return nil, fmt.Errorf("malformed number %q", s)
		}
	}
	if i != len(t) {
		return nil, fmt.Errorf("malformed number %q", s)
	}
	// apd reads "1." and ".5" but not "1.e5"; give it a digit after the point.
	text := t
	if k := strings.IndexByte(text, '.'); k >= 0 && (k+1 == len(text) || !isDigit(text[k+1])) {
		text = text[:k+1] + "0" + text[k+1:]
	}
	n := &number{flt: flt}
	if _, _, err := n.d.SetString(text); err != nil {
		return nil, errRange
	}
	if err := checkRange(&n.d); err != nil {
		return nil, err
	}
	if !flt {
		n.d.Negative = n.d.Negative && !n.d.IsZero()
	}
	return n, nil
}

// checkRange refuses a finite decimal whose magnitude lies outside the
// exponent limits, so that no operation has to scale by a huge power of ten.
func checkRange(d *apd.Decimal) error {
	if d.Form != apd.Finite {
		return errRange
	}
	if d.IsZero() {
		return nil
	}
	adj := int64(d.Exponent) + apd.NumDigits(&d.Coeff) - 1
	if adj > maxExp || adj < minExp {
		return errRange
	}
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// shorten cuts a long number text for a message.
func shorten(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// fromFloat converts a Go float to EL's Double through its shortest
// decimal form, the digits Java's Double.toString shows.
func fromFloat(f float64) (*number, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("%v is not a JSON number", f)
	}
	// Double.toString (as JDK 19 and later print it) shows the fewest
	// digits that single out the double, but never fewer than two
	// significant ones: where one digit would do, it shows the two-digit
	// decimal nearest the double (4.9E-324, not 5.0E-324, for the smallest
	// subnormal; 2.0 for 2).
	text := strconv.FormatFloat(f, 'e', -1, 64)
	if m, _, _ := strings.Cut(text, "e"); len(strings.TrimPrefix(m, "-")) == 1 {
		text = strconv.FormatFloat(f, 'e', 1, 64)
	}
	n := &number{flt: true}
	if _, _, err := n.d.SetString(text); err != nil {
		return nil, err
	}
	if f == 0 && math.Signbit(f) {
		n.d.Negative = true
	}
	return n, nil
}

// toNumber converts a numeric Go value (json.Number, a Go integer or a
// Go float) to a number. ok is false when v is not numeric.
func toNumber(v any) (n *number, ok bool, err error) {
	switch x := v.(type) {
	case json.Number:
		n, err := parseDecimal(string(x))
		if errors.Is(err, errRange) {
			return nil, true, fmt.Errorf("JSON number %s is out of range", shorten(string(x)))
		}
		if err != nil {
			return nil, true, fmt.Errorf("invalid JSON number %q", shorten(string(x)))
		}
		return n, true, nil
	case *number:
		return x, true, nil
	case int:
		return newInt(int64(x)), true, nil
	case int8:
		return newInt(int64(x)), true, nil
	case int16:
		return newInt(int64(x)), true, nil
	case int32:
		return newInt(int64(x)), true, nil
	case int64:
		return newInt(x), true, nil
	case uint:
		return fromUint(uint64(x)), true, nil
	case uint8:
		return newInt(int64(x)), true, nil
	case uint16:
		return newInt(int64(x)), true, nil
	case uint32:
		return newInt(int64(x)), true, nil
	case uint64:
		return fromUint(x), true, nil
	case float32:
		n, err := fromFloat(float64(x))
		return n, true, err
	case float64:
		n, err := fromFloat(x)
		return n, true, err
	}
	return nil, false, nil
}

func fromUint(x uint64) *number {
	n := &number{}
	n.d.Coeff.SetUint64(x)
	return n
}

// javaString writes n the way Java's toString writes the Java value: an
// integer in plain digits (Long.toString, BigInteger.toString); a Double
// as Double.toString does — plain notation with at least one fraction
// digit when 10^-3 <= |n| < 10^7 (2.0, 3.5, 0.001), otherwise computerized
// scientific notation (1.0E10, 1.0E-5). A Double holds every digit of the
// exact decimal, so digits beyond the 17 a Java double could show are
// kept rather than rounded away.
func (n *number) javaString() string {
	if !n.flt {
		return n.d.Text('f')
	}
	var b strings.Builder
	if n.d.Negative {
		b.WriteByte('-')
	}
	if n.d.IsZero() {
		b.WriteString("0.0")
		return b.String()
	}
	digits := n.d.Coeff.String()
	exp := int64(n.d.Exponent)
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	sci := exp + int64(len(digits)) - 1 // value = d.ddd × 10^sci
	if sci >= -3 && sci < 7 {
		point := int64(len(digits)) + exp // digits before the point
		switch {
		case point <= 0:
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", int(-point)))
			b.WriteString(digits)
		case point >= int64(len(digits)):
			b.WriteString(digits)
			b.WriteString(strings.Repeat("0", int(point)-len(digits)))
			b.WriteString(".0")
		default:
			b.WriteString(digits[:point])
			b.WriteByte('.')
			b.WriteString(digits[point:])
		}
		return b.String()
	}
	b.WriteByte(digits[0])
	b.WriteByte('.')
	if len(digits) > 1 {
		b.WriteString(digits[1:])
	} else {
		b.WriteByte('0')
	}
	b.WriteByte('E')
	b.WriteString(strconv.FormatInt(sci, 10))
	return b.String()
}

// intValue is Java's Number.intValue: an integer keeps its low 32 bits,
// a Double is truncated toward zero and saturates at the int range.
func (n *number) intValue() int64 {
	if n.flt {
		var integ, frac apd.Decimal
		n.d.Modf(&integ, &frac)
		if integ.Cmp(apd.New(math.MaxInt32, 0)) > 0 {
			return math.MaxInt32
		}
		if integ.Cmp(apd.New(math.MinInt32, 0)) < 0 {
			return math.MinInt32
		}
		v, _ := integ.Int64()
		return v
	}
	if v, err := n.d.Int64(); err == nil {
		return int64(int32(v))
	}
	bi := n.d.Coeff.MathBigInt()
	if n.d.Exponent > 0 {
		bi.Mul(bi, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n.d.Exponent)), nil))
	}
	if n.d.Negative {
		bi.Neg(bi)
	}
	low := new(big.Int).And(bi, big.NewInt(0xFFFFFFFF)).Uint64()
	return int64(int32(uint32(low)))
}

// neg is EL's unary minus, which keeps the operand's type. A Double keeps
// the sign of zero as Java's does (-0.0).
func (n *number) neg() *number {
	r := &number{flt: n.flt}
	r.d.Set(&n.d)
	if n.flt || !n.d.IsZero() {
		r.d.Negative = !n.d.Negative
	}
	return r
}

// binary applies +, -, * or % to two numbers of the same EL type. An
// integral result that would need more than 34 digits is an error (Java's
// Long would silently wrap around); a Double result is rounded to 34
// digits.
func binary(op byte, x, y *number, flt bool) (*number, error) {
	r := &number{flt: flt}
	var cond apd.Condition
	var err error
	switch op {
	case '+':
		cond, err = arith.Add(&r.d, &x.d, &y.d)
	case '-':
		cond, err = arith.Sub(&r.d, &x.d, &y.d)
	case '*':
		cond, err = arith.Mul(&r.d, &x.d, &y.d)
	case '%':
		if y.d.IsZero() {
			return nil, errors.New("division by zero")
		}
		cond, err = arith.Rem(&r.d, &x.d, &y.d)
	}
	if err != nil {
		if op == '%' && cond&apd.DivisionImpossible != 0 {
			return nil, errors.New("the integral part of the quotient has more than 34 digits")
		}
		return nil, errRange
	}
	if !flt {
		if cond.Inexact() {
			return nil, errors.New("integer overflow (more than 34 digits)")
		}
		if r.d.IsZero() {
			r.d.Negative = false
		}
	}
	return r, nil
}

// quotient is EL's / and div, whose result is a Double. When the exact
// quotient is a decimal of at most 34 digits, it is the result (7/2 = 3.5,
// 0.3/0.1 = 3.0). Otherwise the result is the double nearest to the exact
// quotient — what Java's double division gives for integer operands —
// with the digits of Java's Double.toString (1/3 = 0.3333333333333333,
// 2/3 = 0.6666666666666666). Division by zero, which Java answers with
// Infinity or NaN, is an error because JSON cannot hold either.
func quotient(x, y *number) (*number, error) {
	if y.d.IsZero() {
		return nil, errors.New("division by zero")
	}
	r := &number{flt: true}
	cond, err := arith.Quo(&r.d, &x.d, &y.d)
	if err != nil {
		return nil, errRange
	}
	if !cond.Inexact() {
		r.d.Reduce(&r.d)
		return r, nil
	}
	var q apd.Decimal
	if _, err := wide.Quo(&q, &x.d, &y.d); err != nil {
		return nil, errRange
	}
	f, err := strconv.ParseFloat(q.String(), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, errRange
	}
	return fromFloat(f)
}

// double returns n as EL's Double of the same value.
func (n *number) double() *number {
	if n.flt {
		return n
	}
	r := &number{flt: true}
	r.d.Set(&n.d)
	return r
}

// cmp compares two numbers exactly.
func (n *number) cmp(m *number) int { return n.d.Cmp(&m.d) }

// javaEquals is Java's equals between two boxed numbers: a Long equals
// only a Long of the same value, a Double only a Double of the same value
// (and 0.0 is not -0.0, as Double.equals has it).
func (n *number) javaEquals(m *number) bool {
	if n.flt != m.flt || n.cmp(m) != 0 {
		return false
	}
	if n.flt && n.d.IsZero() {
		return n.d.Negative == m.d.Negative
	}
	return true
}

// jsonNumber writes n as json.Number: integers in plain digits, Doubles as
// Jackson writes a Java Double (Double.toString: 2.0, 3.5, 1.0E10).
func (n *number) jsonNumber() json.Number { return json.Number(n.javaString()) }
