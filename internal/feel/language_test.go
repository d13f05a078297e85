package feel

import (
	"testing"
)

func TestIterationAndQuantifiers(t *testing.T) {
	t.Parallel()
	runFeelTable(t, []feelCase{
		{`for i in 1..3 return i * 2`, `[2, 4, 6]`},
		{`for i in 3..1 return i`, `[3, 2, 1]`},
		{`for i in [1..3] return i`, `[1, 2, 3]`},
		{`for i in (1..3] return i`, `[2, 3]`},
		{`for x in xs return x + 1`, `[2, 3, 4]`},
		{`for x in [1, 2], y in [10, 20] return x + y`, `[11, 21, 12, 22]`},
		{`for x in [1, 2], y in x..2 return [x, y]`, `[[1, 1], [1, 2], [2, 2]]`},
		{`for i in 1..5 return if i = 1 then 1 else i * partial[-1]`, `[1, 2, 6, 24, 120]`},
		{`for p in people return p.name`, `["ann", "bob"]`},
		{`for x in [] return x`, `[]`},
		{`for x in null return x`, `null`},
		{`for i in 1.5..3 return i`, `null`},
		{`for x in 5 return x`, `[5]`},
		{`some x in xs satisfies x > 2`, `true`},
		{`some x in xs satisfies x > 3`, `false`},
		{`every x in xs satisfies x > 0`, `true`},
		{`every x in xs satisfies x > 1`, `false`},
		{`every x in [] satisfies false`, `true`},
		{`some x in [] satisfies true`, `false`},
		{`some x in [1, 2], y in [2, 3] satisfies x = y`, `true`},
		{`every p in people satisfies p.age > 10`, `true`},
		{`some x in null satisfies true`, `null`},
		{`count(for i in 1..1000 return i)`, `1000`},
	})
}

func TestFunctionsAndInvocation(t *testing.T) {
	t.Parallel()
	runFeelTable(t, []feelCase{
		{`(function(a, b) a + b)(1, 2)`, `3`},
		{`{f: function(a, b) a - b, r: f(5, 3)}.r`, `2`},
		{`{f: function(a, b) a - b, r: f(b: 5, a: 3)}.r`, `-2`},
		{`{f: function(a, b) a - b, r: f(a: 5)}.r`, `null`},
		{`{f: function(a, b) a - b, r: f(1)}.r`, `null`},
		{`{f: function(a, b) a - b, r: f(c: 1)}.r`, `null`},
		{`{f: function(x: number) x * 2, r: f(4)}.r`, `8`},
		{`{fact: function(n) if n <= 1 then 1 else n * fact(n - 1), r: fact(10)}.r`, `3628800`},
		{`{add: function(a) function(b) a + b, r: add(1)(2)}.r`, `3`},
		{`{k: 10, f: function(x) x + k, r: f(1)}.r`, `11`},
		{`{first name: "Ann", greet: function(x) "Hi " + x, r: greet(first name)}.r`, `"Hi Ann"`},
		{`substring(string: "foobar", start position: 3)`, `"obar"`},
		{`substring(start position: 2, string: "foobar", length: 3)`, `"oob"`},
		{`round half up(n: 2.5, scale: 0)`, `3`},
		{`date(year: 2026, month: 1, day: 2)`, `@"2026-01-02"`},
		{`list contains(element: 2, list: [1, 2])`, `true`},
		{`(a)(1)`, `null`},
		{`sort([3, 1, 2], function(x, y) x > y)`, `[3, 2, 1]`},
		{`sort(list: [3, 1, 2], precedes: function(x, y) x < y)`, `[1, 2, 3]`},
		{`(function(a) a) instance of function`, `true`},
		{`(function(a) a instance of number)(1)`, `true`},
	})
}

func TestInstanceOf(t *testing.T) {
	t.Parallel()
	runFeelTable(t, []feelCase{
		{`1 instance of number`, `true`},
		{`"a" instance of string`, `true`},
		{`"a" instance of number`, `false`},
		{`true instance of boolean`, `true`},
		{`null instance of Null`, `true`},
		{`null instance of number`, `false`},
		{`null instance of Any`, `false`},
		{`1 instance of Any`, `true`},
		{`@"2026-01-01" instance of date`, `true`},
		{`@"2026-01-01" instance of date and time`, `false`},
		{`@"2026-01-01T10:00:00" instance of date and time`, `true`},
		{`@"10:00:00" instance of time`, `true`},
		{`@"P1D" instance of days and time duration`, `true`},
		{`@"P1Y" instance of years and months duration`, `true`},
		{`@"P1Y" instance of days and time duration`, `false`},
		{`[1, 2] instance of list<number>`, `true`},
		{`[1, "a"] instance of list<number>`, `false`},
		{`[[1]] instance of list<list<number>>`, `true`},
		{`[1] instance of list`, `true`},
		{`{a: 1, b: "x"} instance of context<a: number>`, `true`},
		{`{a: 1} instance of context<a: string>`, `false`},
		{`{a: 1} instance of context<b: number>`, `false`},
		{`[1..2] instance of range<number>`, `true`},
		{`[1..2] instance of range<string>`, `false`},
		{`(function(a) a) instance of function<Any>->Any`, `true`},
		{`a instance of number and s instance of string`, `true`},
		{`a + 1 instance of number`, `true`},
	})
}

func TestNamesWithSpaces(t *testing.T) {
	t.Parallel()
	scope := mapScope{
		"Monthly Salary": n("1000"),
		"Applicant Age":  n("30"),
		"Loan-to-value":  n("0.8"),
		"Date of Birth":  "1990-01-01",
		"PMT":            &lambda{params: []string{"x"}, body: arithNode{op: "*", l: nameNode{"x"}, r: litNode{intDec(2)}}},
		"first name":     "ann",
	}
	names := []string{"Monthly Salary", "Applicant Age", "Loan-to-value", "Date of Birth", "PMT"}
	cases := []struct {
		src  string
		want any
	}{
		{`12 * Monthly Salary`, n("12000")},
		{`12 *  Monthly   Salary`, n("12000")},
		{`Applicant Age >= 18 and Monthly Salary > 500`, true},
		{`Loan-to-value * 100`, n("80")},
		{`Loan-to-value - 0.3`, n("0.5")},
		{`Date of Birth`, "1990-01-01"},
		{`PMT(21)`, n("42")},
		{`PMT(x: 2) + 1`, n("5")},
		{`first name`, "ann"},
		{`{full name: first name + "!", n: full name}.n`, "ann!"},
		{`{a: {b c: 1}}.a.b c`, n("1")},
		{`[{x y: 1}, {x y: 2}][x y > 1]`, []any{map[string]any{"x y": n("2")}}},
	}
	for _, tc := range cases {
		p, err := CompileWith(tc.src, Options{Names: names})
		if err != nil {
			t.Errorf("Compile(%q): %v", tc.src, err)
			continue
		}
		got, err := p.Eval(scope)
		if err != nil {
			t.Errorf("Eval(%q): %v", tc.src, err)
			continue
		}
		if !same(got, tc.want) {
			t.Errorf("%s = %#v, want %#v", tc.src, got, tc.want)
		}
	}
	// A known name must end at a word boundary: "Applicant Agent" is not "Applicant Age" + "nt".
	if p, err := CompileWith(`Applicant Agent`, Options{Names: names}); err != nil {
		t.Error(err)
	} else if v, _ := p.Eval(mapScope{"Applicant Agent": "x"}); v != "x" {
		t.Errorf("Applicant Agent = %v", v)
	}
	// Known names may contain keywords; the clock comes from Options.Now.
	p, err := CompileWith(`Date of Birth or today() = date("2026-03-15")`, Options{Names: []string{"Date of Birth"}, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := p.Eval(mapScope{"Date of Birth": false}); v != true || err != nil {
		t.Errorf("keyword name / Now = %v, %v", v, err)
	}
	u, err := CompileUnaryTests(`< today()`, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := u.Match(mustDate("2026-03-14"), nil); !ok {
		t.Error("unary test did not use Options.Now")
	}
	// Without the name, PMT(…) is an unknown function.
	if _, err := Compile(`PMT(1)`); err == nil {
		t.Error(`Compile("PMT(1)") without Names succeeded`)
	}
}

func TestContextsAndPaths(t *testing.T) {
	t.Parallel()
	runFeelTable(t, []feelCase{
		{`{a: 1, b: {c: a + 1}}.b.c`, `2`},
		{`[{a: 1}, {a: 2}].a`, `[1, 2]`},
		{`[{a: {b: 1}}, {a: {b: 2}}].a.b`, `[1, 2]`},
		{`{"a b": 1}.a b`, `1`},
		{`{a: 1}.b`, `null`},
		{`[1..10].start`, `1`},
		{`[1..10).end included`, `false`},
		{`(1..10].start included`, `false`},
		{`[1..10].end`, `10`},
		{`xs[item > 1][1]`, `2`},
		{`[1, 2, 3, 4][modulo(item, 2) = 0]`, `[2, 4]`},
		{`people[name = "bob"].age`, `[17]`},
		{`people[age > 100]`, `[]`},
		{`{a: [1, 2]}.a[2]`, `2`},
	})
}

func TestRangesAsValues(t *testing.T) {
	t.Parallel()
	runFeelTable(t, []feelCase{
		{`{r: [1..10], x: 5 in r}.x`, `true`},
		{`{r: (1..10), x: 10 in r}.x`, `false`},
		{`[1..10] = [1..10]`, `true`},
		{`[1..10] = [1..10)`, `false`},
		{`@"2026-01-15" in [@"2026-01-01"..@"2026-01-31"]`, `true`},
		{`@"2026-02-15" in [@"2026-01-01"..@"2026-01-31"]`, `false`},
		{`"b" in ["a".."c")`, `true`},
		{`@"PT2H" in [@"PT1H"..@"PT3H"]`, `true`},
		{`string([1..2))`, `"[1..2)"`},
	})
}
