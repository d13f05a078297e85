// Package juel implements JUEL — the Unified Expression Language 2.2 as
// Camunda 7 evaluates it — for the expressions of Camunda 7 models:
// sequence-flow conditions, input and output mappings, assignees, and
// any other attribute written as ${…}.
//
// A text is compiled once, at deployment, into an immutable Expression,
// which is then evaluated any number of times, from any number of
// goroutines, against a read-only Scope of variables:
//
//	e, err := juel.Compile(`${amount > 1000 && not approved}`)
//	if err != nil {
//		return err // e.g. `juel: at 9: unexpected ')' in "${amount )}"`
//	}
//	v, err := e.Eval(scope) // true or false
//
// Compile refuses what gobpm cannot run exactly as Camunda would — beans,
// EL functions, unknown methods, writes through `execution`, EL 3.0
// syntax — so a model fails at deployment rather than at run time.
//
// This package imports no I/O and nothing else of gobpm.
//
// # Texts
//
// Compile takes the text as written: a single ${…} (or the deferred
// #{…}, which evaluates the same way) returns its value as it is;
// literal text mixed with ${…} parts (`Hello ${name}!`) returns a string
// in which each value is coerced to String (null becomes ""); text
// without ${ is a literal string. \${ writes a literal ${.
//
// # Values
//
// Expressions read and produce JSON-shaped values:
//
//	nil                 null
//	bool                Boolean
//	string              String
//	json.Number         Long (no fraction or exponent) or Double (with one)
//	[]any               java.util.List
//	map[string]any      java.util.Map
//
// A Scope may also hold Go integers and floats; results never contain
// float64. A value read from the scope and returned untouched keeps its
// JSON text; a number the expression computes is written as Jackson
// writes the Java value: 5 for a Long, 3.5, 2.0 or 1.0E10 for a Double.
//
// # Numbers
//
// EL's arithmetic rules pick Long or Double arithmetic by the operands'
// types, and gobpm follows them, with one change of representation: a
// Double is held as an exact decimal (up to 34 significant digits) rather
// than in binary, so 0.1 + 0.2 == 0.3 and 100 * 1.1 is 110.0 where Java
// shows binary noise. Concretely:
//
//   - + - * and % on two Longs (or strings without '.', 'e', 'E') give a
//     Long; an integral result beyond 34 digits is an error where Java's
//     long would wrap around.
//   - + - * and % with a Double (or a string containing '.', 'e' or 'E')
//     give a Double, exact to 34 digits.
//   - / and div always give a Double, as in EL: the exact quotient when a
//     decimal of at most 34 digits holds it (7/2 = 3.5, 4/2 = 2.0,
//     0.3/0.1 = 3.0), otherwise the double nearest the quotient, shown
//     with Java's digits (1/3 = 0.3333333333333333). For integer operands
//     this is what Java's double division gives.
//   - Division or remainder by zero is an error: Java's Infinity and NaN
//     are not JSON values.
//   - A Double written as text takes the form of Java's Double.toString:
//     plain with at least one fraction digit for magnitudes in
//     [10^-3, 10^7) (2.0, 0.001), computerized scientific notation
//     otherwise (1.0E7, 1.0E-4).
//
// A JSON number with a fraction is a Double, not a BigDecimal, because
// that is what Camunda 7 makes of it; so Java's type-strict equals, the
// text Double.toString writes and the rules of / follow Double, and
// JUEL's BigDecimal rules (scale-sensitive ==, BigDecimal.divide keeping
// the dividend's scale) never apply. An integer beyond the long range,
// JUEL's BigInteger, is computed exactly like a Long.
//
// # Language
//
// Everything in EL 2.2 except what calls Java code gobpm does not have:
// literals (integers, 1.5, 1e3, .5, 'single' and "double" strings with
// \\ and the escaped quote, true, false, null); identifiers, resolved
// through Scope.Lookup (a missing variable is an error, as Camunda's
// "Cannot resolve identifier"); a.b, a['b'], list[0] and list['0'] (null
// for a missing map key, an index out of range, or a null base or
// property); the operators with EL's precedence and keyword forms
// (empty, not, div, mod, lt, gt, le, ge, eq, ne, and, or), short-circuit
// && and ||, and ?:, with EL's coercions (section 1.18).
//
// Methods, with Java's semantics on the JSON value's Java type:
//
//	strings  length() isEmpty() contains(s) startsWith(s) endsWith(s)
//	         toUpperCase() toLowerCase() trim() substring(b[, e])
//	         indexOf(s) equals(x) equalsIgnoreCase(s)
//	lists    size() isEmpty() contains(x) get(i) indexOf(x) equals(x)
//	maps     size() isEmpty() containsKey(k) get(k) equals(x)
//	any      equals(x)
//
// equals, contains, indexOf and containsKey are type-strict, as Java's
// equals is: the Long 1 does not equal the Double 1.0 or the string "1".
// A method called on null, or on a value whose type lacks it, is a
// run-time error.
//
// Camunda's built-in `execution` object supports getVariable(name) (null
// when the variable is missing), hasVariable(name), processInstanceId,
// processBusinessKey and their getters; the last two need a Scope that
// implements Execution.
package juel
