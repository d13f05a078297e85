package feel

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// mapScope is a Scope over a plain map.
type mapScope map[string]any

func (m mapScope) Lookup(name string) (any, bool) {
	v, ok := m[name]
	return v, ok
}

type n = json.Number

// testScope is shared by the evaluation tables; it must not be modified.
var testScope = mapScope{
	"a":      n("5"),
	"b":      n("0.1"),
	"f":      0.2,
	"i":      7,
	"i64":    int64(-3),
	"s":      "hello",
	"t":      true,
	"no":     false,
	"nul":    nil,
	"xs":     []any{n("1"), n("2"), n("3")},
	"people": []any{map[string]any{"name": "ann", "age": n("31")}, map[string]any{"name": "bob", "age": n("17")}},
	"order": map[string]any{
		"amount":   n("1500.50"),
		"customer": map[string]any{"tier": "gold", "tags": []any{"x", "y"}},
	},
}

// MustEval compiles and evaluates src against testScope.
func MustEval(tb testing.TB, src string) any {
	tb.Helper()
	p, err := Compile(src)
	if err != nil {
		tb.Fatalf("Compile(%q): %v", src, err)
	}
	v, err := p.Eval(testScope)
	if err != nil {
		tb.Fatalf("Eval(%q): %v", src, err)
	}
	return v
}

type evalCase struct {
	src  string
	want any
}

func runEvalTable(t *testing.T, cases []evalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			t.Parallel()
			got := MustEval(t, tc.src)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s = %#v, want %#v", tc.src, got, tc.want)
			}
		})
	}
}

func TestLiterals(t *testing.T) {
	t.Parallel()
	runEvalTable(t, []evalCase{
		{`1`, n("1")},
		{`-1`, n("-1")},
		{`1.50`, n("1.5")},
		{`.5`, n("0.5")},
		{`0.000`, n("0")},
		{`-0`, n("0")},
		{`"abc"`, "abc"},
		{`""`, ""},
		{`"a\"b\\c\nd\te\u00e9\U01F600'"`, "a\"b\\c\nd\teé\U0001F600'"},
		{`"\uD83D\uDE00"`, "\U0001F600"},
		{`"\d+\s"`, `\d+\s`},
		{`"héllo wörld"`, "héllo wörld"},
		{`true`, true},
		{`false`, false},
		{`null`, nil},
		{`[]`, []any{}},
		{`[1, "a", null, [true]]`, []any{n("1"), "a", nil, []any{true}}},
		{`{}`, map[string]any{}},
		{`{a: 1, "b c": 2, d e: 3}`, map[string]any{"a": n("1"), "b c": n("2"), "d e": n("3")}},
		{`{x: 2, y: x * 3}`, map[string]any{"x": n("2"), "y": n("6")}},
		{`{a: a + 1}`, map[string]any{"a": n("6")}},
		{`{a: 1}.a`, n("1")},
		{`1 // a comment`, n("1")},
		{`/* before */ 2 /* after */`, n("2")},
	})
}

func TestDecimals(t *testing.T) {
	t.Parallel()
	runEvalTable(t, []evalCase{
		{`0.1 + 0.2`, n("0.3")},
		{`0.1 + 0.2 = 0.3`, true},
		{`b + f`, n("0.3")}, // json.Number + float64
		{`1 / 3`, n("0.3333333333333333333333333333333333")},
		{`2 / 3`, n("0.6666666666666666666666666666666667")},
		{`10 / 4`, n("2.5")},
		{`1.10 * 2`, n("2.2")},
		{`5 * 2`, n("10")},
		{`100`, n("100")},
		{`1 - 1.00`, n("0")},
		{`2 ** 10`, n("1024")},
		{`2 ** -1`, n("0.5")},
		{`-2 ** 2`, n("4")},
		{`4 ** 0.5`, n("2")},
		{`(-8) ** 0.5`, nil},
		{`0 ** -1`, nil},
		{`2 ** 1000000000000000`, nil},
		{`10 ** 7000`, nil}, // beyond decimal128's range
		{`1 / 0`, nil},
		{`0 / 0`, nil},
		{`12345678901234567890123456789 + 1`, n("12345678901234567890123456790")},
		{`99999999999999999999999999999999999`, n("100000000000000000000000000000000000")}, // 35 nines round to 34 digits
		{`10 ** 100`, n("1e+100")},
		{`1 / 10 ** 50`, n("1e-50")},
		{`1 + 2 * 3 - 4 / 2`, n("5")},
		{`(1 + 2) * 3`, n("9")},
		{`2 * 3 ** 2`, n("18")},
		{`10 - 2 - 3`, n("5")},
		{`- a`, n("-5")},
		{`--a`, n("5")},
		{`-s`, nil},
		{`i + i64`, n("4")},
		{`a + null`, nil},
		{`a + "x"`, nil},
		{`"a" + "b"`, "ab"},
		{`s + " " + "world"`, "hello world"},
		{`"a" - "b"`, nil},
	})
}

func TestNumberConversion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   any
		want any
	}{
		{"json.Number", n("1.230"), n("1.23")},
		{"json.Number exponent", n("1e3"), n("1000")},
		{"float64", 0.1, n("0.1")},
		{"float64 integral", 3.0, n("3")},
		{"float32", float32(0.5), n("0.5")},
		{"int", 42, n("42")},
		{"uint64", uint64(18446744073709551615), n("18446744073709551615")},
		{"nested", []any{1.5, map[string]any{"k": 2}}, []any{n("1.5"), map[string]any{"k": n("2")}}},
	}
	p, err := Compile("x")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := p.Eval(mapScope{"x": tc.in})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestNullLogic(t *testing.T) {
	t.Parallel()
	vals := []string{"true", "false", "null"}
	and := map[[2]string]any{
		{"true", "true"}: true, {"true", "false"}: false, {"true", "null"}: nil,
		{"false", "true"}: false, {"false", "false"}: false, {"false", "null"}: false,
		{"null", "true"}: nil, {"null", "false"}: false, {"null", "null"}: nil,
	}
	or := map[[2]string]any{
		{"true", "true"}: true, {"true", "false"}: true, {"true", "null"}: true,
		{"false", "true"}: true, {"false", "false"}: false, {"false", "null"}: nil,
		{"null", "true"}: true, {"null", "false"}: nil, {"null", "null"}: nil,
	}
	var cases []evalCase
	for _, l := range vals {
		for _, r := range vals {
			cases = append(cases,
				evalCase{l + " and " + r, and[[2]string{l, r}]},
				evalCase{l + " or " + r, or[[2]string{l, r}]})
		}
	}
	cases = append(cases,
		evalCase{`not(true)`, false},
		evalCase{`not(false)`, true},
		evalCase{`not(null)`, nil},
		evalCase{`not(1)`, nil},
		evalCase{`1 and true`, nil},
		evalCase{`"x" or false`, nil},
		evalCase{`false and missing.x > 1`, false},
		evalCase{`true or 1 / 0 > 1`, true},
		evalCase{`a > 1 and s = "hello" or false`, true},
		evalCase{`false and false or true`, true}, // and binds tighter
		evalCase{`true or false and false`, true},
	)
	runEvalTable(t, cases)
}

func TestComparisons(t *testing.T) {
	t.Parallel()
	runEvalTable(t, []evalCase{
		{`1 = 1.0`, true},
		{`1 != 2`, true},
		{`1 < 2`, true},
		{`2 <= 2`, true},
		{`3 > 2`, true},
		{`1 >= 2`, false},
		{`a > 4`, true},
		{`order.amount >= 1500.5`, true},
		{`"abc" < "abd"`, true},
		{`"b" > "a"`, true},
		{`"x" = "x"`, true},
		{`true = true`, true},
		{`true != false`, true},
		{`true < false`, nil},
		{`1 = "1"`, nil},
		{`1 < "2"`, nil},
		{`"a" != 1`, nil},
		{`true = 1`, nil},
		{`null = null`, true},
		{`nul = null`, true},
		{`missing = null`, true},
		{`a = null`, false},
		{`null = a`, false},
		{`a != null`, true},
		{`null < 1`, nil},
		{`null != null`, false},
		{`[1, 2] = [1, 2]`, true},
		{`[1, 2] = [1, 3]`, false},
		{`[1, 2] = [1]`, false},
		{`xs = [1, 2, 3]`, true},
		{`{a: 1} = {a: 1.0}`, true},
		{`{a: 1} = {b: 1}`, false},
		{`[1] = 1`, nil},
		{`i = 7`, true},
		{`f = 0.2`, true},
	})
}

func TestIfThenElse(t *testing.T) {
	t.Parallel()
	runEvalTable(t, []evalCase{
		{`if true then 1 else 2`, n("1")},
		{`if false then 1 else 2`, n("2")},
		{`if null then 1 else 2`, n("2")},
		{`if 1 then 1 else 2`, n("2")},
		{`if a > 3 then "big" else "small"`, "big"},
		{`if a > 3 then if a > 10 then "huge" else "big" else "small"`, "big"},
		{`(if t then 1 else 2) + 10`, n("11")},
		{`if no then 1 else if t then 2 else 3`, n("2")},
	})
}

func TestListsRangesIn(t *testing.T) {
	t.Parallel()
	runEvalTable(t, []evalCase{
		{`xs[1]`, n("1")},
		{`xs[3]`, n("3")},
		{`xs[-1]`, n("3")},
		{`xs[-3]`, n("1")},
		{`xs[0]`, nil},
		{`xs[4]`, nil},
		{`xs[-4]`, nil},
		{`xs[1.5]`, nil},
		{`[10, 20, 30][a - 3]`, n("20")},
		{`xs[item > 1]`, []any{n("2"), n("3")}},
		{`people[age >= 18].name`, []any{"ann"}},
		{`people.name`, []any{"ann", "bob"}},
		{`people[1].age`, n("31")},
		{`missing[1]`, nil},
		{`5[1]`, n("5")},
		{`[[1, 2], [3]][1][2]`, n("2")},
		{`2 in [1, 2]`, true},
		{`4 in [1, 2]`, false},
		{`null in [1, null]`, true},
		{`"y" in order.customer.tags`, true},
		{`5 in [1..10]`, true},
		{`10 in [1..10]`, true},
		{`10 in [1..10)`, false},
		{`10 in [1..10[`, false},
		{`1 in (1..10]`, false},
		{`1 in ]1..10]`, false},
		{`2 in ]1..10[`, true},
		{`0 in [1..10]`, false},
		{`11 in [1..10]`, false},
		{`1.5 in [1..2]`, true},
		{`"b" in ["a".."c"]`, true},
		{`"x" in [1..10]`, nil},
		{`null in [1..10]`, nil},
		{`a in >= 5`, true},
		{`a in > 5`, false},
		{`a in < 6`, true},
		{`a in <= 4`, false},
		{`a in (< 2, > 4)`, true},
		{`a in (1, 2, 3)`, false},
		{`a in (1, 5)`, true},
		{`a in ([1..2], [4..6])`, true},
		{`a in ([1..2], > 100)`, false},
		{`a in (a)`, true},
		{`a in xs`, false},
		{`2 in xs`, true},
		{`2 in [[1..3], 10]`, true},
		{`a in [1..10] and s = "hello"`, true},
		{`a in (1..a]`, true},
		{`a in [1.."x"]`, nil},
		{`a between 1 and 10`, true},
		{`a between 5 and 5`, true},
		{`a between 6 and 10`, false},
		{`a between 1 and 10 and false`, false},
		{`"b" between "a" and "c"`, true},
		{`a between "a" and 10`, nil},
		{`(1)`, n("1")},
	})
}

func TestPaths(t *testing.T) {
	t.Parallel()
	runEvalTable(t, []evalCase{
		{`order.customer.tier`, "gold"},
		{`order.customer.tier = "gold"`, true},
		{`order.customer.missing`, nil},
		{`order.nope.deeper.still`, nil},
		{`missing.x`, nil},
		{`missing`, nil},
		{`s.length`, nil},
		{`order.customer`, map[string]any{"tier": "gold", "tags": []any{"x", "y"}}},
		{`{inner: {v: 3}}.inner.v`, n("3")},
	})
}

func TestBuiltins(t *testing.T) {
	t.Parallel()
	runEvalTable(t, []evalCase{
		{`string length("héllo")`, n("5")},
		{`string length(1)`, nil},
		{`upper case("abc")`, "ABC"},
		{`lower case("ABC")`, "abc"},
		{`contains("foobar", "oba")`, true},
		{`contains("foobar", "x")`, false},
		{`contains("foobar", null)`, nil},
		{`starts with("foobar", "foo")`, true},
		{`ends with("foobar", "bar")`, true},
		{`ends with("foobar", "foo")`, false},
		{`substring("foobar", 3)`, "obar"},
		{`substring("foobar", 3, 3)`, "oba"},
		{`substring("foobar", -2, 1)`, "a"},
		{`substring("foobar", 1, 100)`, "foobar"},
		{`substring("héllo", 2, 1)`, "é"},
		{`substring("foobar", 0)`, nil},
		{`substring("foobar", 10)`, nil},
		{`count([1, 2, 3])`, n("3")},
		{`count([])`, n("0")},
		{`count(xs)`, n("3")},
		{`count("abc")`, n("1")}, // the singleton list ["abc"]
		{`sum([1, 2, 3.5])`, n("6.5")},
		{`sum(1, 2)`, n("3")},
		{`sum(xs)`, n("6")},
		{`sum([])`, nil},
		{`sum([1, "a"])`, nil},
		{`min([3, 1, 2])`, n("1")},
		{`max(3, 1, 2)`, n("3")},
		{`max(["a", "c", "b"])`, "c"},
		{`min([1, "a"])`, nil},
		{`min([])`, nil},
		{`min([true])`, nil},
		{`abs(-1.5)`, n("1.5")},
		{`abs(2)`, n("2")},
		{`floor(1.5)`, n("1")},
		{`floor(-1.5)`, n("-2")},
		{`floor(1.567, 2)`, n("1.56")},
		{`floor(10 ** 40)`, n("10000000000000000000000000000000000000000")},
		{`ceiling(1.2)`, n("2")},
		{`ceiling(-1.5)`, n("-1")},
		{`ceiling(1.561, 2)`, n("1.57")},
		{`decimal(1.125, 2)`, n("1.12")},
		{`decimal(1/3, 4)`, n("0.3333")},
		{`modulo(10, 3)`, n("1")},
		{`modulo(-10, 3)`, n("2")},
		{`modulo(10, -3)`, n("-2")},
		{`modulo(10, 0)`, nil},
		{`string(1.50)`, "1.5"},
		{`string(true)`, "true"},
		{`string("x")`, "x"},
		{`string(null)`, nil},
		{`string([1, "a"])`, `[1, "a"]`},
		{`string({b: 1, a: [true]})`, `{b: 1, a: [true]}`},
		{`string([1..2])`, `[1..2]`},
		{`number("1.50")`, n("1.5")},
		{`number("-12")`, n("-12")},
		{`number("1 000,5", " ", ",")`, n("1000.5")},
		{`number("1,000.5", ",", ".")`, n("1000.5")},
		{`number("abc")`, nil},
		{`number("NaN")`, nil},
		{`number("Infinity")`, nil},
		{`number(12)`, nil}, // from must be a string
		{`list contains([1, 2], 2)`, true},
		{`list contains(xs, 9)`, false},
		{`not(a > 1)`, false},
		{`not (a > 1)`, false},
		{`upper   case("x")`, "X"},
	})
}

func TestEvalErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src     string
		scope   Scope
		wantErr string
	}{
		{`[1..10]`, nil, "range"},
		{`[[1..2]]`, nil, "range"},
		{`{r: (1..2)}`, nil, "range"},
		{`x`, mapScope{"x": struct{}{}}, "not a JSON value"},
		{`count(for i in 1..2000, j in 1..2000 return i)`, nil, "exceeded"},
		{`{f: function(n) f(n + 1), r: f(1)}.r`, nil, "nested deeper"},
		{`f(1)`, mapScope{"f": failingFn{}}, "boom"},
		{`{s: "xxxxxxxxxxxxxxxx", a: s+s, b: a+a, c: b+b, d: c+c, e: d+d, f: e+e, g: f+f, h: g+g, i: h+h, j: i+i, k: j+j, l: k+k, m: l+l, n: m+m, o: n+n, p: o+o, q: p+p}`, nil, "string longer"},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			t.Parallel()
			p, err := CompileWith(tc.src, Options{Names: []string{"f"}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Eval(tc.scope)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Eval error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src, want string
	}{
		{``, "at 1: empty expression"},
		{`   `, "at 1: empty expression"},
		{`(1 + )`, `at 6: unexpected ")"`},
		{`1 +`, "at 4: unexpected end of expression"},
		{`1 2`, "at 3: unexpected number 2"},
		{`a "b"`, `at 3: unexpected string "b"`},
		{`(1`, `at 3: expected ")", found end of expression`},
		{`[1, 2`, `at 6: expected "]"`},
		{`"abc`, "at 1: unterminated string"},
		{`"\u12"`, `at 2: invalid escape`},
		{`1 # 2`, `at 3: unexpected character '#'`},
		{`/* x`, "at 1: unterminated comment"},
		{`if a then 1`, `at 12: expected "else", found end of expression`},
		{`if a 1 else 2`, `at 6: expected "then"`},
		{`a between 1 or 2`, `at 13: expected "and"`},
		{`foo(1)`, `at 1: unknown function "foo"`},
		{`string lengthx("a")`, `at 1: unknown function "string lengthx"`},
		{`1 + my func(2)`, `at 5: unknown function "my func"`},
		{`substring("a")`, `at 1: function "substring" takes 2 or 3 arguments, got 1`},
		{`not(1, 2)`, `at 1: function "not" takes 1 argument, got 2`},
		{`sum()`, `at 1: function "sum" takes at least 1 argument, got 0`},
		{`xs(1)`, `unknown function "xs"`},
		{`(a)(1`, `at 6: expected ")"`},
		{`{a: 1, a: 2}`, `at 8: duplicate context key "a"`},
		{`{1: 2}`, `at 2: expected a context key`},
		{`a.1`, `at 3: expected a name after "."`},
		{`[1..2`, `at 6: expected "]", "[" or ")" to close the range`},
		{`a in`, "at 5: unexpected end of expression"},
		{`1 < 2 < 3`, `at 7: unexpected "<"`},
		{`and`, `at 1: unexpected keyword "and"`},
		{`< 5`, `at 1: unexpected "<"`},
		{"\xff", "at 1: invalid UTF-8"},
		{strings.Repeat(" ", MaxSourceLen+1), fmt.Sprintf("at 1: expression too long: %d bytes (limit %d)", MaxSourceLen+1, MaxSourceLen)},
		{strings.Repeat("(", MaxDepth) + "1" + strings.Repeat(")", MaxDepth), "nested too deeply (limit 64)"},
		{strings.Repeat("-", 100) + "1", "nested too deeply"},
		{strings.Repeat("[", 100) + strings.Repeat("]", 100), "nested too deeply"},
		{strings.Repeat("not(", 70) + "true" + strings.Repeat(")", 70), "nested too deeply"},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			t.Parallel()
			p, err := Compile(tc.src)
			if err == nil {
				t.Fatalf("Compile(%q) succeeded, want error %q", tc.src, tc.want)
			}
			if p != nil {
				t.Errorf("Compile returned a program with an error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Compile(%q) error = %q, want it to contain %q", tc.src, err, tc.want)
			}
			var fe *Error
			if !errors.As(err, &fe) || fe.Pos < 1 {
				t.Errorf("error %v is not a positioned *Error", err)
			}
		})
	}
}

func TestDepthLimitBoundary(t *testing.T) {
	t.Parallel()
	// The top-level expression is level 1, so 63 brackets fit.
	src := strings.Repeat("(", MaxDepth-1) + "1" + strings.Repeat(")", MaxDepth-1)
	if got := MustEval(t, src); got != n("1") {
		t.Errorf("got %v", got)
	}
	long := "1" + strings.Repeat("+1", (MaxSourceLen-1)/2)
	if got := MustEval(t, long); got != n(strconv.Itoa(1+(MaxSourceLen-1)/2)) {
		t.Errorf("long sum = %v", got)
	}
}

func TestConcurrentEval(t *testing.T) {
	t.Parallel()
	p, err := Compile(`{total: sum(xs) + a * 0.1, big: a > 3, items: xs[item > 1]}`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"total": n("6.5"), "big": true, "items": []any{n("2"), n("3")}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				got, err := p.Eval(testScope)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("got %#v, %v", got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestNilScopeAndSource(t *testing.T) {
	t.Parallel()
	p, err := Compile(`x = null`)
	if err != nil {
		t.Fatal(err)
	}
	if p.Source() != `x = null` {
		t.Errorf("Source() = %q", p.Source())
	}
	v, err := p.Eval(nil)
	if err != nil || v != true {
		t.Errorf("Eval(nil) = %v, %v", v, err)
	}
}

// failingFn is a Function whose calls fail.
type failingFn struct{}

func (failingFn) Params() []string        { return []string{"x"} }
func (failingFn) Call([]any) (any, error) { return nil, errors.New("boom") }

func TestCanonicalNumber(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"0": true, "-1.5": true, "0.25": true, "123": true, "-0": false, "1.0": false, "01": false,
		"1e3": false, ".5": false, "1.": false, "": false, "-": false, "1.2.3": false,
		"12345678901234567890123456789012345": false, "1234567890123456789012345678901234": true,
		"0.0000000000000000000000000000000000001": true,
	} {
		if got := canonicalNumber(s); got != want {
			t.Errorf("canonicalNumber(%q) = %v, want %v", s, got, want)
		}
		if want {
			v, _ := export(n(s), 0)
			if v != n(s) {
				t.Errorf("export(%q) = %v", s, v)
			}
		}
	}
}

// TestRangeBeyondTheStepLimitIsAnError: iterating a range longer than the
// step budget is an evaluation error naming the limit, never a null.
func TestRangeBeyondTheStepLimitIsAnError(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"for i in 1..1000000000 return i",
		"count(for i in 1..100000000 return i)",
		`for d in @"1000-01-01"..@"9999-12-31" return d`,
	} {
		p, err := Compile(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if v, err := p.Eval(nil); err == nil || !strings.Contains(err.Error(), "step limit") {
			t.Errorf("%s = %v, %v; want an error naming the step limit", src, v, err)
		}
	}
}
