package juel

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

type n = json.Number

// testScope is a Scope over a map; with id set it is also an Execution.
type testScope struct {
	vars map[string]any
	id   string
	key  string
}

func (s testScope) Lookup(name string) (any, bool) {
	v, ok := s.vars[name]
	return v, ok
}

// execScope adds the Execution interface to a testScope.
type execScope struct{ testScope }

func (s execScope) Execution() (string, string) { return s.id, s.key }

func newVars() map[string]any {
	return map[string]any{
		"amount":   n("100"),
		"price":    n("9.99"),
		"rate":     n("1.10"),
		"approved": true,
		"rejected": false,
		"a":        true,
		"b":        false,
		"status":   "big",
		"name":     "Ann",
		"text":     "\t Hello, World \n",
		"blank":    "",
		"nothing":  nil,
		"numStr":   "42",
		"unicode":  "a😀b",
		"items":    []any{n("1"), "two", n("3.0"), nil, map[string]any{"k": "v"}},
		"none":     []any{},
		"order": map[string]any{
			"total":    n("10.5"),
			"customer": map[string]any{"name": "Bob", "vip": true},
			"nil":      nil,
		},
		"emptyMap": map[string]any{},
		"i":        2,
		"i64":      int64(-7),
		"f":        2.5,
		"whole":    2.0,
		"floats":   []any{1.5, 2},
		"big":      n("9223372036854775807"),
	}
}

// MustCompile compiles src or fails the test.
func MustCompile(tb testing.TB, src string) *Expression {
	tb.Helper()
	e, err := Compile(src)
	if err != nil {
		tb.Fatalf("Compile(%q): %v", src, err)
	}
	return e
}

type evalCase struct {
	src  string
	want any
}

func runEval(t *testing.T, scope Scope, cases []evalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			t.Parallel()
			got, err := MustCompile(t, tc.src).Eval(scope)
			if err != nil {
				t.Fatalf("Eval(%q): %v", tc.src, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Eval(%q) = %#v, want %#v", tc.src, got, tc.want)
			}
		})
	}
}

func TestLiterals(t *testing.T) {
	t.Parallel()
	runEval(t, testScope{}, []evalCase{
		{`${1}`, n("1")},
		{`${00012}`, n("12")}, // Long.valueOf ignores leading zeros
		{`${12345678901234567890}`, n("12345678901234567890")}, // beyond long: JUEL's BigInteger
		{`${1.5}`, n("1.5")},
		{`${1.50}`, n("1.5")}, // a floating literal is a Double: Double.toString drops the zero
		{`${1e3}`, n("1000.0")},
		{`${1E-4}`, n("1.0E-4")},
		{`${1.e2}`, n("100.0")},
		{`${.5}`, n("0.5")},
		{`${1.}`, n("1.0")},
		{`${'single'}`, "single"},
		{`${"double"}`, "double"},
		{`${'it\'s'}`, "it's"},
		{`${"say \"hi\""}`, `say "hi"`},
		{`${'back\\slash'}`, `back\slash`},
		{`${"it's"}`, "it's"},
		{`${'say "hi"'}`, `say "hi"`},
		{`${''}`, ""},
		{`${true}`, true},
		{`${false}`, false},
		{`${null}`, nil},
		{"${\n\t1 +\r\n 1 }", n("2")},
		{"${1\u2003+\u2028 1}", n("2")}, // Character.isWhitespace: em space, line separator
		{`${'}'}`, "}"},
	})
}

func TestArithmetic(t *testing.T) {
	t.Parallel()
	runEval(t, testScope{vars: newVars()}, []evalCase{
		{`${1 + 2}`, n("3")},
		{`${7 - 10}`, n("-3")},
		{`${6 * 7}`, n("42")},
		{`${7 / 2}`, n("3.5")},   // / on two Longs is a Double division
		{`${7 div 2}`, n("3.5")}, // div is /
		{`${4 / 2}`, n("2.0")},   // still a Double, which Jackson writes as 2.0
		{`${10 / 4}`, n("2.5")},
		{`${1 / 3}`, n("0.3333333333333333")}, // the nearest double, Java's digits
		{`${2 / 3}`, n("0.6666666666666666")}, // the nearest double, not 0.6666666666666667
		{`${1 / 1024}`, n("9.765625E-4")},     // Double.toString goes scientific below 10^-3
		{`${1e10 / 1}`, n("1.0E10")},
		{`${0.3 / 0.1}`, n("3.0")}, // exact quotient (Java's binary doubles give 2.9999999999999996)
		{`${amount / 3}`, n("33.333333333333336")},
		{`${7 % 3}`, n("1")},
		{`${7 mod 3}`, n("1")},
		{`${-7 % 3}`, n("-1")}, // Java's remainder takes the dividend's sign
		{`${7 % -3}`, n("1")},
		{`${7.5 % 2}`, n("1.5")},
		{`${6.0 % 3}`, n("0.0")},
		{`${'1' + 1}`, n("2")},       // a string without . e E is coerced to Long
		{`${'1.5' + 1}`, n("2.5")},   // a string with '.' makes it a Double operation
		{`${'1e2' + 1}`, n("101.0")}, // so does one with 'e'
		{`${' 1.5 ' + 1}`, n("2.5")}, // Double.valueOf ignores surrounding spaces
		{`${'2.5d' * 2}`, n("5.0")},  // and a d suffix
		{`${null + null}`, n("0")},   // both null: (Long) 0
		{`${null + 1}`, n("1")},      // null coerces to 0
		{`${'' + 1}`, n("1")},        // "" coerces to 0
		{`${null - null}`, n("0")},
		{`${null * null}`, n("0")},
		{`${null / null}`, n("0")}, // both null: (Long) 0 even for /
		{`${null % null}`, n("0")},
		{`${null / 2}`, n("0.0")},
		{`${0.1 + 0.2}`, n("0.3")},   // exact (Java: 0.30000000000000004)
		{`${100 * 1.1}`, n("110.0")}, // exact (Java: 110.00000000000001)
		{`${amount * rate}`, n("110.0")},
		{`${price * 3}`, n("29.97")},
		{`${amount + 1}`, n("101")},
		{`${amount - 0.5}`, n("99.5")},
		{`${i + 1}`, n("3")},
		{`${i64 * 2}`, n("-14")},
		{`${f * 2}`, n("5.0")},
		{`${whole + 1}`, n("3.0")}, // a Go float is a Double even when whole
		{`${-amount}`, n("-100")},
		{`${-price}`, n("-9.99")},
		{`${-'5'}`, n("-5")},
		{`${-'2.5'}`, n("-2.5")},
		{`${-null}`, n("0")},
		{`${- -1}`, n("1")},
		{`${-0.0}`, n("-0.0")}, // Java's negated Double keeps the sign of zero
		{`${1 + 2 * 3}`, n("7")},
		{`${(1 + 2) * 3}`, n("9")},
		{`${10 - 2 - 3}`, n("5")},
		{`${2 * 3 % 4}`, n("2")},
		{`${12 / 2 / 3}`, n("2.0")},
		{`${-2 * -3}`, n("6")},
		{`${big + 1}`, n("9223372036854775808")}, // exact where Java's long would wrap
		{`${1e300 * 1e300}`, n("1.0E600")},
	})
}

func TestRelational(t *testing.T) {
	t.Parallel()
	runEval(t, testScope{vars: newVars()}, []evalCase{
		{`${1 < 2}`, true},
		{`${1 lt 2}`, true},
		{`${2 > 1}`, true},
		{`${2 gt 1}`, true},
		{`${2 <= 2}`, true},
		{`${2 le 1}`, false},
		{`${2 >= 3}`, false},
		{`${3 ge 3}`, true},
		{`${1.5 > 1}`, true},
		{`${amount > 99.5}`, true},
		{`${items.size() > 0}`, true},
		{`${'a' < 'b'}`, true},
		{`${'abc' lt 'abd'}`, true},
		{`${'2' > '10'}`, true},  // two strings compare lexically
		{`${'10' < 9}`, false},   // a Long on one side: both are Longs, 10 < 9
		{`${'1.5' < 2.0}`, true}, // a Double on one side: both are Doubles
		{`${null < 1}`, false},   // a comparison with null is false
		{`${null > 1}`, false},
		{`${null <= null}`, true}, // the same object: <= and >= hold
		{`${null >= null}`, true},
		{`${null < null}`, false},
		{`${false < true}`, true},     // Boolean.compareTo
		{`${true < 'u'}`, true},       // a String on one side: "true" < "u"
		{`${'｡' > '😀'}`, true},        // UTF-16 order: U+FF61 > U+D83D, unlike code-point order
		{`${0.1 + 0.2 >= 0.3}`, true}, // exact
		{`${1 + 2 > 2}`, true},
	})
}

func TestEquality(t *testing.T) {
	t.Parallel()
	runEval(t, testScope{vars: newVars()}, []evalCase{
		{`${amount == 100}`, true},
		{`${amount eq 100}`, true},
		{`${amount == 100.0}`, true}, // a Double on one side: both compared as Doubles
		{`${amount != 100}`, false},
		{`${amount ne 99}`, true},
		{`${status eq 'big'}`, true},
		{`${status == "big"}`, true},
		{`${status != 'small'}`, true},
		{`${'a' == null}`, false},
		{`${null == 'a'}`, false},
		{`${null == null}`, true},
		{`${null != null}`, false},
		{`${nothing == null}`, true},
		{`${'1' == 1}`, true}, // a Long on one side: '1' becomes 1
		{`${'1.0' == 1.0}`, true},
		{`${true == 'true'}`, true}, // a Boolean on one side: Boolean.valueOf
		{`${true == 'TRUE'}`, true},
		{`${false == 'yes'}`, true}, // Boolean.valueOf('yes') is false
		{`${approved == true}`, true},
		{`${approved eq rejected}`, false},
		{`${0.0 == -0.0}`, false}, // JUEL compares Doubles with Double.equals
		{`${0.1 + 0.2 == 0.3}`, true},
		{`${f == 2.5}`, true},
		{`${i == 2}`, true},
		{`${items == items}`, true},
		{`${order.customer == order.customer}`, true},
		{`${emptyMap == none}`, false},
		{`${none == 'x'}`, false},   // a String on one side: "[]" != "x"
		{`${none == '[]'}`, true},   // List.toString
		{`${1 == 1 == true}`, true}, // left-associative
	})
}

func TestLogical(t *testing.T) {
	t.Parallel()
	runEval(t, testScope{vars: newVars()}, []evalCase{
		{`${a && b}`, false},
		{`${a and b}`, false},
		{`${a || b}`, true},
		{`${a or b}`, true},
		{`${!approved}`, false},
		{`${not approved}`, false},
		{`${not rejected}`, true},
		{`${approved and not rejected}`, true},
		{`${rejected && missing}`, false}, // short-circuit: missing is never read
		{`${approved || missing}`, true},
		{`${nothing && missing}`, false}, // null coerces to false
		{`${'true' && 'TRUE'}`, true},
		{`${'yes' || ''}`, false},
		{`${!nothing}`, true},
		{`${!'x'}`, true},
		{`${a || b && false}`, true}, // && binds tighter than ||
		{`${!a || b}`, false},        // ! binds tighter than ||
		{`${a == true && b == false}`, true},
		{`${approved ? 'yes' : 'no'}`, "yes"},
		{`${nothing ? 1 : 2}`, n("2")},
		{`${'true' ? 1 : 2}`, n("1")},
		{`${amount > 50 ? amount * 2 : 0}`, n("200")},
		{`${false ? 1 : true ? 2 : 3}`, n("2")},
		{`${true ? false ? 1 : 2 : 3}`, n("2")},
		{`${rejected ? missing : 'safe'}`, "safe"},
	})
}

func TestEmpty(t *testing.T) {
	t.Parallel()
	runEval(t, testScope{vars: newVars()}, []evalCase{
		{`${empty ''}`, true},
		{`${empty null}`, true},
		{`${empty nothing}`, true},
		{`${empty blank}`, true},
		{`${empty none}`, true},
		{`${empty emptyMap}`, true},
		{`${empty items}`, false},
		{`${empty order}`, false},
		{`${empty name}`, false},
		{`${empty 0}`, false},
		{`${empty false}`, false},
		{`${not empty items}`, true},
		{`${!empty none}`, false},
		{`${empty order.missing}`, true},
		{`${empty items[99]}`, true},
	})
}

func TestAccess(t *testing.T) {
	t.Parallel()
	runEval(t, testScope{vars: newVars()}, []evalCase{
		{`${order.total}`, n("10.5")},
		{`${order['total']}`, n("10.5")},
		{`${order["total"]}`, n("10.5")},
		{`${order.customer.name}`, "Bob"},
		{`${order['customer']["vip"]}`, true},
		{`${order.missing}`, nil},        // MapELResolver: a missing key is null
		{`${order.missing.deeper}`, nil}, // a property of null is null
		{`${nothing.x}`, nil},
		{`${nothing[0]}`, nil},
		{`${order[nothing]}`, nil}, // a null property is null
		{`${order[1]}`, nil},       // Map.get is type-strict: 1 is no string key
		{`${order.nil}`, nil},
		{`${items[0]}`, n("1")},
		{`${items['1']}`, "two"},  // Integer.valueOf('1')
		{`${items[1.9]}`, "two"},  // Number.intValue truncates
		{`${items[true]}`, "two"}, // ListELResolver reads true as 1
		{`${items[-1]}`, nil},     // out of range reads null
		{`${items[99]}`, nil},
		{`${items[4].k}`, "v"},
		{`${items[4294967296]}`, n("1")}, // intValue keeps the low 32 bits: 0
		{`${items[i]}`, n("3.0")},
		{`${items[1 + 1]}`, n("3.0")},
		{`${order.customer}`, map[string]any{"name": "Bob", "vip": true}},
		{`${items}`, []any{n("1"), "two", n("3.0"), nil, map[string]any{"k": "v"}}},
		{`${f}`, n("2.5")},
		{`${whole}`, n("2.0")},
		{`${i}`, n("2")},
		{`${floats}`, []any{n("1.5"), n("2")}},
		{`${rate}`, n("1.10")}, // a scope value returned untouched keeps its text
		{`${name}`, "Ann"},
	})
}

func TestMethods(t *testing.T) {
	t.Parallel()
	runEval(t, testScope{vars: newVars()}, []evalCase{
		{`${name.length()}`, n("3")},
		{`${unicode.length()}`, n("4")}, // UTF-16 code units: the emoji counts 2
		{`${blank.isEmpty()}`, true},
		{`${name.isEmpty()}`, false},
		{`${name.contains('n')}`, true},
		{`${name.contains('x')}`, false},
		{`${name.startsWith('A')}`, true},
		{`${name.startsWith(1)}`, false}, // a String parameter coerces 1 to "1"
		{`${name.endsWith('nn')}`, true},
		{`${name.toUpperCase()}`, "ANN"},
		{`${'Straße'.toUpperCase()}`, "STRASSE"}, // Java's full case mapping
		{`${name.toLowerCase()}`, "ann"},
		{`${'ΟΔΟΣ'.toLowerCase()}`, "οδος"}, // final sigma
		{`${text.trim()}`, "Hello, World"},
		{`${name.substring(1)}`, "nn"},
		{`${name.substring(0, 2)}`, "An"},
		{`${name.substring(3)}`, ""},
		{`${name.substring('1')}`, "nn"}, // an int parameter: Integer.valueOf
		{`${name.substring(nothing)}`, "Ann"},
		{`${unicode.substring(3)}`, "b"},
		{`${unicode.indexOf('b')}`, n("3")},
		{`${name.indexOf('n')}`, n("1")},
		{`${name.indexOf('x')}`, n("-1")},
		{`${name.equals('Ann')}`, true},
		{`${name.equals('ann')}`, false},
		{`${numStr.equals(42)}`, false}, // equals is type-strict
		{`${name.equalsIgnoreCase('aNN')}`, true},
		{`${numStr.equalsIgnoreCase(42)}`, true}, // a String parameter coerces 42
		{`${name.equalsIgnoreCase(null)}`, false},
		{`${'a,b'.contains(',')}`, true},
		{`${name.trim().toUpperCase().length()}`, n("3")},
		{`${name['length']()}`, n("3")},
		{`${items.size()}`, n("5")},
		{`${items.isEmpty()}`, false},
		{`${none.isEmpty()}`, true},
		{`${items.contains(1)}`, true},
		{`${items.contains('1')}`, false}, // type-strict
		{`${items.contains(3)}`, false},   // 3.0 is a Double, 3 a Long
		{`${items.contains(3.0)}`, true},
		{`${items.contains(null)}`, true},
		{`${items.get(1)}`, "two"},
		{`${items.get('1')}`, "two"},
		{`${items.get(nothing)}`, n("1")}, // null is 0 for an int parameter
		{`${items.indexOf('two')}`, n("1")},
		{`${items.indexOf('zzz')}`, n("-1")},
		{`${items.equals(items)}`, true},
		{`${none.equals(emptyMap)}`, false},
		{`${order.size()}`, n("3")},
		{`${emptyMap.isEmpty()}`, true},
		{`${order.containsKey('total')}`, true},
		{`${order.containsKey('nil')}`, true},
		{`${order.containsKey(1)}`, false},
		{`${order.get('total')}`, n("10.5")},
		{`${order.get('x')}`, nil},
		{`${order.get(1)}`, nil},
		{`${order.customer.equals(order.customer)}`, true},
		{`${amount.equals(100)}`, true},
		{`${amount.equals(100.0)}`, false}, // Long.equals(Double) is false
		{`${price.equals(9.99)}`, true},
		{`${approved.equals(true)}`, true},
		{`${f.equals(2.5)}`, true},
		{`${i.equals(2)}`, true},
	})
}

func TestComposite(t *testing.T) {
	t.Parallel()
	runEval(t, testScope{vars: newVars()}, []evalCase{
		{`Hello ${name}!`, "Hello Ann!"},
		{`${name}${name}`, "AnnAnn"},
		{`Total: ${order.total}`, "Total: 10.5"},
		{`${amount} EUR`, "100 EUR"},
		{`Half: ${7/2}`, "Half: 3.5"},
		{`x=${nothing}.`, "x=."}, // null coerces to ""
		{`${approved} `, "true "},
		{`list ${items}`, "list [1, two, 3.0, null, {k=v}]"},  // List.toString
		{`map ${order.customer}`, "map {name=Bob, vip=true}"}, // Map.toString, keys sorted
		{`${rate}%`, "1.1%"},                                  // a Double's text, as Double.toString
		{`${whole}!`, "2.0!"},
		{`${i}!`, "2!"},
		{`${1e10} `, "1.0E10 "},
		{`plain text`, "plain text"},
		{``, ""},
		{`price \${amount}`, "price ${amount}"},
		{`price \#{amount}`, "price #{amount}"},
		{`a \ b \\ c`, `a \ b \\ c`}, // other backslashes are literal
		{`\\${name}`, `\${name}`},    // as in JUEL, the backslash next to ${ escapes it
		{`cost $5 {x} #`, "cost $5 {x} #"},
		{`#{name}`, "Ann"},
		{`#{amount + 1}`, n("101")},
		{`#{name} and #{status}`, "Ann and big"},
		{`${'a'}${'}'}`, "a}"},
	})
}

func TestExecution(t *testing.T) {
	t.Parallel()
	withKey := execScope{testScope{vars: newVars(), id: "pi-1", key: "order-7"}}
	runEval(t, withKey, []evalCase{
		{`${execution.processInstanceId}`, "pi-1"},
		{`${execution.getProcessInstanceId()}`, "pi-1"},
		{`${execution.processBusinessKey}`, "order-7"},
		{`${execution.getProcessBusinessKey()}`, "order-7"},
		{`${execution.getVariable('amount')}`, n("100")},
		{`${execution.getVariable("name").length()}`, n("3")},
		{`${execution.getVariable('missing')}`, nil}, // Camunda returns null
		{`${execution.getVariable('missing') == null}`, true},
		{`${execution.hasVariable('nothing')}`, true},
		{`${execution.hasVariable('missing')}`, false},
		{`${execution.processBusinessKey.startsWith('order')}`, true},
		{`key=${execution.processBusinessKey}`, "key=order-7"},
	})
	runEval(t, execScope{testScope{id: "pi-2"}}, []evalCase{
		{`${execution.processBusinessKey}`, nil}, // no business key: null
		{`${execution.processBusinessKey == null}`, true},
	})
	// getVariable needs no Execution.
	runEval(t, testScope{vars: newVars()}, []evalCase{
		{`${execution.getVariable('status')}`, "big"},
	})
}

func TestCompileRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  string
		kind error
		msg  string // a part of the message
	}{
		{`${a + )}`, ErrSyntax, `juel: at 7: unexpected ')' in "${a + )}"`},
		{`${}`, ErrSyntax, "at 1: empty expression"},
		{`${a`, ErrSyntax, "unexpected end of text (missing '}')"},
		{`${a b}`, ErrSyntax, "at 5: unexpected identifier 'b'"},
		{`${(a}`, ErrSyntax, "unexpected '}'"},
		{`${'abc}`, ErrSyntax, "at 3: unterminated string"},
		{`${'a\nb'}`, ErrSyntax, `invalid escape sequence \n`},
		{`${"it\'s"}`, ErrSyntax, `invalid escape sequence \'`}, // only \" in a double-quoted string
		{`${a & b}`, ErrSyntax, "invalid character '&' (use '&&')"},
		{`${a | b}`, ErrSyntax, "invalid character '|' (use '||')"},
		{`${a # b}`, ErrSyntax, "invalid character '#'"},
		{"${1\u00a0+ 1}", ErrSyntax, `invalid character '\u00a0'`}, // no-break space is not Java whitespace
		{`${a.1}`, ErrSyntax, "unexpected number .1"},
		{`${a.}`, ErrSyntax, "expected a property or method name after '.'"},
		{`${a.empty}`, ErrSyntax, "expected a property or method name after '.', found 'empty'"},
		{`${a instanceof b}`, ErrSyntax, "'instanceof' is a reserved word"},
		{`${a ? b}`, ErrSyntax, "unexpected '}'"},
		{`#{a} ${b}`, ErrSyntax, "at 6: cannot mix ${…} and #{…}"},
		{`${foo()}`, ErrUnsupported, "at 3: function foo() is not supported"},
		{`${fn:upper(name)}`, ErrUnsupported, "function fn:upper() is not supported"},
		{`${now()}`, ErrUnsupported, "function Camunda's now() is not supported"},
		{`${currentUser()}`, ErrUnsupported, "Camunda's currentUser()"},
		{`${S(order).prop('x')}`, ErrUnsupported, "Camunda Spin's S()"},
		{`${bean.doSomething()}`, ErrUnsupported, "method doSomething() is not supported: gobpm calls no beans"},
		{`${myService.check(execution)}`, ErrUnsupported, "method check() is not supported"},
		{`${items.stream()}`, ErrUnsupported, "method stream() is not supported"},
		{`${order.prop('x').stringValue()}`, ErrUnsupported, "method prop() is not supported"},
		{`${name.substring(1, 2, 3)}`, ErrUnsupported, "method substring() with 3 arguments is not supported (it takes 1 or 2 arguments)"},
		{`${items.size(1)}`, ErrUnsupported, "method size() with 1 argument is not supported (it takes no arguments)"},
		{`${name.startsWith('a', 1)}`, ErrUnsupported, "startsWith() with 2 arguments"},
		{`${a[b](1)}`, ErrUnsupported, "a method name computed at run time is not supported"},
		{`${execution.setVariable('x', 1)}`, ErrUnsupported, "execution.setVariable() is not supported: an expression only reads; gobpm sets variables through output mappings and job completion"},
		{`${execution.removeVariable('x')}`, ErrUnsupported, "sets variables through output mappings"},
		{`${execution.setVariableLocal('x', 1)}`, ErrUnsupported, "sets variables through output mappings"},
		{`${execution.activityId}`, ErrUnsupported, "execution.activityId is not supported; gobpm supports execution.getVariable(name)"},
		{`${execution.getVariableLocal('x')}`, ErrUnsupported, "execution.getVariableLocal() with 1 argument is not supported"},
		{`${execution.getVariable()}`, ErrUnsupported, "execution.getVariable() with 0 arguments is not supported"},
		{`${execution.getProcessInstanceId}`, ErrUnsupported, "execution.getProcessInstanceId is not supported"},
		{`${execution.processInstanceId()}`, ErrUnsupported, "execution.processInstanceId() with 0 arguments is not supported"},
		{`${execution}`, ErrUnsupported, "'execution' is only supported as execution.getVariable(name)"},
		{`${execution['processInstanceId']}`, ErrUnsupported, "'execution' is only supported as"},
		{`${x = 1}`, ErrUnsupported, "at 5: assignment '=' is not supported (EL 3.0"},
		{`${a; b}`, ErrUnsupported, "';' is not supported (EL 3.0"},
		{`${x -> x + 1}`, ErrUnsupported, "lambda expressions '->' are not supported (EL 3.0)"},
		{`${(x, y) -> x}`, ErrUnsupported, "lambda parameter lists are not supported (EL 3.0)"},
		{`${'a' += 'b'}`, ErrUnsupported, "string concatenation '+=' is not supported (EL 3.0)"},
		{`${[1, 2]}`, ErrUnsupported, "list literals '[…]' are not supported (EL 3.0)"},
		{`${{'a': 1}}`, ErrUnsupported, "set and map literals '{…}' are not supported (EL 3.0)"},
		{`${1e99999}`, ErrUnsupported, "number 1e99999 is out of range"},
		{`${` + strings.Repeat("(", 201) + "1" + strings.Repeat(")", 201) + `}`, ErrUnsupported, "expression nests deeper than 200 levels"},
		{`${` + strings.Repeat("-", 201) + "1}", ErrUnsupported, "expression nests deeper than 200 levels"},
		{`${1` + strings.Repeat(" + 1", 200) + "}", ErrUnsupported, "expression nests deeper than 200 levels"},
		{`${a` + strings.Repeat(".b", 200) + "}", ErrUnsupported, "expression nests deeper than 200 levels"},
		{`${` + strings.Repeat("1+", MaxSourceLen/2) + "1}", ErrUnsupported, "more than the 65536 allowed"},
	} {
		name := tc.src
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, err := Compile(tc.src)
			if err == nil {
				t.Fatalf("Compile(%q) = %v, want an error", tc.src, e)
			}
			var je *Error
			if !errors.As(err, &je) {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			if je.Src != tc.src {
				t.Errorf("Error.Src = %q, want the source", je.Src)
			}
			if !errors.Is(err, tc.kind) {
				t.Errorf("error %q is not %v", err, tc.kind)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "juel: ") {
				t.Errorf("error %q lacks the juel: prefix", err)
			}
		})
	}
}

func TestAtTheLimits(t *testing.T) {
	t.Parallel()
	runEval(t, testScope{vars: newVars()}, []evalCase{
		{`${` + strings.Repeat("(", 199) + "1" + strings.Repeat(")", 199) + `}`, n("1")},
		{`${1` + strings.Repeat(" + 1", 199) + "}", n("200")},
		{`${` + strings.Repeat("!", 199) + "true}", false},
	})
	long := strings.Repeat("x", MaxSourceLen)
	if got, err := MustCompile(t, long).Eval(nil); err != nil || got != long {
		t.Fatalf("a literal text of MaxSourceLen bytes: %v", err)
	}
}

func TestRuntimeErrors(t *testing.T) {
	t.Parallel()
	vars := newVars()
	vars["bad"] = n("abc")
	vars["far"] = n("1e999999")
	vars["wide"] = n(strings.Repeat("9", 40))
	vars["odd"] = struct{}{}
	scope := testScope{vars: vars}
	for _, tc := range []struct {
		src  string
		kind error // nil: no sentinel
		msg  string
	}{
		{`${missing}`, ErrUnknownIdentifier, `juel: at 3: cannot resolve identifier 'missing' in "${missing}"`},
		{`${missing.x}`, ErrUnknownIdentifier, "cannot resolve identifier 'missing'"},
		{`${empty missing}`, ErrUnknownIdentifier, "cannot resolve identifier 'missing'"},
		{`${1 + missing}`, ErrUnknownIdentifier, "at 7: cannot resolve identifier"},
		{`Hi ${missing}`, ErrUnknownIdentifier, "at 6: cannot resolve identifier"},
		{`${'abc' + 1}`, nil, "at 9: operator '+': cannot coerce string 'abc' to Long"},
		{`${'abc' + 1.5}`, nil, "cannot coerce string 'abc' to Double"},
		{`${'1.5' * 'x'}`, nil, "cannot coerce string 'x' to Double"},
		{`${true + 1}`, nil, "cannot coerce boolean true to Long"},
		{`${items + 1}`, nil, "cannot coerce list of 5 to Long"},
		{`${1 / 0}`, nil, "operator '/': division by zero"},
		{`${1 div 0}`, nil, "operator 'div': division by zero"},
		{`${1.5 / 0}`, nil, "division by zero"},
		{`${0 / 0}`, nil, "division by zero"},
		{`${1 % 0}`, nil, "operator '%': division by zero"},
		{`${1.5 mod 0}`, nil, "operator 'mod': division by zero"},
		{`${-true}`, nil, "cannot negate boolean true"},
		{`${-'x'}`, nil, "cannot coerce string 'x' to Long"},
		{`${!1}`, nil, "cannot coerce number 1 to Boolean"},
		{`${1 && true}`, nil, "cannot coerce number 1 to Boolean"},
		{`${1 ? 2 : 3}`, nil, "cannot coerce number 1 to Boolean"},
		{`${'a' == 1}`, nil, "cannot coerce string 'a' to Long"}, // EL coerces to Long, which fails
		{`${'1.0' == 1}`, nil, "cannot coerce string '1.0' to Long"},
		{`${1 == true}`, nil, "cannot coerce boolean true to Long"},
		{`${'1.5' < 2}`, nil, "cannot coerce string '1.5' to Long"},
		{`${items < 1}`, nil, "cannot coerce list of 5 to Long"},
		{`${order < order}`, nil, "cannot compare map of 3 with map of 3"},
		{`${items['x']}`, nil, "cannot parse list index 'x'"},
		{`${items[order]}`, nil, "cannot coerce map of 3 to a list index"},
		{`${name.length}`, nil, "property 'length' not found on string 'Ann'"},
		{`${amount.x}`, nil, "property 'x' not found on number 100"},
		{`${nothing.size()}`, nil, "cannot call size() on null"},
		{`${order.missing.size()}`, nil, "cannot call size() on null"},
		{`${name.size()}`, nil, "method size() is not defined on a string"},
		{`${amount.size()}`, nil, "method size() is not defined on a number"},
		{`${order.contains('x')}`, nil, "method contains() is not defined on a map"},
		{`${items.get(9)}`, nil, "get(9): index out of bounds for a list of size 5"},
		{`${items.get(true)}`, nil, "cannot coerce boolean true to Integer"},
		{`${items.get('x')}`, nil, "cannot coerce string 'x' to Integer"},
		{`${name.substring(5)}`, nil, "substring(5) is out of range for a string of length 3"},
		{`${name.substring(2, 1)}`, nil, "substring(2, 1) is out of range"},
		{`${name.substring(-1)}`, nil, "out of range"},
		{`${name.contains(1)}`, nil, "contains(): cannot coerce number 1 to CharSequence"},
		{`${name.contains(null)}`, nil, "contains(null): the argument is null"},
		{`${name.startsWith(null)}`, nil, "startsWith(null): the argument is null"},
		{`${execution.getVariable(null)}`, nil, "the variable name passed to execution.getVariable is null"},
		{`${execution.processInstanceId}`, nil, "execution is not available"},
		{`${big * big}`, nil, "integer overflow (more than 34 digits)"},
		{`${1e6000 * 1e6000}`, nil, "number out of range"},
		{`${bad}`, nil, `invalid JSON number "abc"`},
		{`${far}`, nil, "JSON number 1e999999 is out of range"},
		{`${wide % 7}`, nil, "operator '%': the integral part of the quotient has more than 34 digits"},
		{`${wide * 10}`, nil, "integer overflow"},
		{`${bad + 1}`, nil, `invalid JSON number "abc"`},
		{`${odd}`, nil, "unsupported value of Go type struct {} cannot be a result"},
		{`${odd == odd}`, nil, "unsupported value of Go type struct {}"},
	} {
		t.Run(tc.src, func(t *testing.T) {
			t.Parallel()
			v, err := MustCompile(t, tc.src).Eval(scope)
			if err == nil {
				t.Fatalf("Eval(%q) = %#v, want an error", tc.src, v)
			}
			var je *Error
			if !errors.As(err, &je) {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			if je.Src != tc.src || je.Pos < 1 {
				t.Errorf("Error.Src = %q, Pos = %d", je.Src, je.Pos)
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("error %q is not %v", err, tc.kind)
			}
			if tc.kind == nil && je.Err != nil {
				t.Errorf("error %q has sentinel %v", err, je.Err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
		})
	}
}

func TestExpressionAccessors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src       string
		composite bool
		literal   string
		isLiteral bool
		deferred  bool
	}{
		{`${a}`, false, "", false, false},
		{`#{a}`, false, "", false, true},
		{` ${a}`, true, "", false, false},
		{`${a}${b}`, true, "", false, false},
		{`plain`, true, "plain", true, false},
		{``, true, "", true, false},
		{`cost \${x}`, true, "cost ${x}", true, false},
	} {
		t.Run(tc.src, func(t *testing.T) {
			t.Parallel()
			e := MustCompile(t, tc.src)
			if e.Source() != tc.src || e.String() != tc.src {
				t.Errorf("Source() = %q", e.Source())
			}
			if e.Composite() != tc.composite {
				t.Errorf("Composite() = %v", e.Composite())
			}
			if lit, ok := e.Literal(); ok != tc.isLiteral || lit != tc.literal {
				t.Errorf("Literal() = %q, %v", lit, ok)
			}
			if e.Deferred() != tc.deferred {
				t.Errorf("Deferred() = %v", e.Deferred())
			}
		})
	}
}

// TestResultIsJSON checks that a Go float inside a scope value comes back
// as json.Number in a copy, leaving the scope's value as it was.
func TestResultIsJSON(t *testing.T) {
	t.Parallel()
	inner := []any{1.5, "x"}
	vars := map[string]any{"m": map[string]any{"l": inner, "s": "y"}}
	got, err := MustCompile(t, `${m}`).Eval(testScope{vars: vars})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"l": []any{n("1.5"), "x"}, "s": "y"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
	if _, ok := inner[0].(float64); !ok {
		t.Fatalf("the scope's list was modified: %#v", inner)
	}
}

// TestScopeNumbers checks the number shapes a scope may hold: Go integers
// and floats of every size, and json.Number texts only Go would hold,
// which are read and written back as valid JSON.
func TestScopeNumbers(t *testing.T) {
	t.Parallel()
	scope := testScope{vars: map[string]any{
		"plus": n("+5"), "lead": n("007"), "dot": n("1."), "wide": n(strings.Repeat("9", 40)),
		"i8": int8(-3), "i16": int16(300), "i32": int32(70000), "u": uint(7), "u8": uint8(255), "u16": uint16(65535),
		"u32": uint32(1 << 31), "u64": uint64(1<<64 - 1), "f32": float32(0.5),
	}}
	runEval(t, scope, []evalCase{
		{`${i8 + i16 + i32 + u + u8 + u16}`, n("136094")},
		{`${u32 * 2}`, n("4294967296")},
		{`${u64 + 1}`, n("18446744073709551616")},
		{`${u64}`, n("18446744073709551615")},
		{`${f32 + 1}`, n("1.5")},
		{`${i8}`, n("-3")},
		{`${plus}`, n("5")},
		{`${lead}`, n("7")},
		{`${dot}`, n("1.0")},
		{`${plus + lead}`, n("12")},
		{`${wide}`, n(strings.Repeat("9", 40))}, // untouched, all digits
		{`${wide == wide}`, true},
		{`${wide + 1}`, n("1" + strings.Repeat("0", 40))}, // exact, though 41 digits: the rounding lost only zeros
	})
}

// TestConcurrentEval evaluates one Expression from many goroutines.
func TestConcurrentEval(t *testing.T) {
	t.Parallel()
	e := MustCompile(t, `${amount * rate + items.size()} for ${name.toUpperCase()}`)
	scope := testScope{vars: newVars()}
	for i := range 8 {
		t.Run(strings.Repeat("g", i+1), func(t *testing.T) {
			t.Parallel()
			for range 200 {
				got, err := e.Eval(scope)
				if err != nil || got != "115.0 for ANN" {
					t.Fatalf("Eval = %v, %v", got, err)
				}
			}
		})
	}
}
