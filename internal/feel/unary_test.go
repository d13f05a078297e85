package feel

import (
	"strings"
	"testing"
)

func TestUnaryTests(t *testing.T) {
	t.Parallel()
	scope := mapScope{"x": n("10"), "lo": n("1"), "hi": n("5"), "vip": []any{"gold", "platinum"}, "Max Age": n("65")}
	cases := []struct {
		tests string
		input any
		want  bool
	}{
		{`-`, n("1"), true},
		{`-`, nil, true},
		{``, "x", true},
		{`< 10`, n("9"), true},
		{`< 10`, n("10"), false},
		{`<= 10`, n("10"), true},
		{`> 10`, n("11"), true},
		{`>= x`, n("10"), true},
		{`>= x`, n("9"), false},
		{`>=18`, n("18"), true},
		{`= 5`, n("5"), true},
		{`!= 5`, n("5"), false},
		{`!= 5`, n("6"), true},
		{`< 10`, nil, false},
		{`< 10`, "a", false},
		{`[1..10]`, n("10"), true},
		{`[1..10)`, n("10"), false},
		{`(1..10]`, n("1"), false},
		{`]1..10[`, n("5"), true},
		{`[lo..hi]`, n("5"), true},
		{`"a","b"`, "b", true},
		{`"a", "b"`, "c", false},
		{`"High", "Low", "Medium"`, "Low", true},
		{`not("a", "b")`, "c", true},
		{`not("a", "b")`, "a", false},
		{`not(1, 2)`, n("2"), false},
		{`not(< 10)`, n("20"), true},
		{`not([1..5])`, n("3"), false},
		{`not(null)`, nil, false},
		{`not(null)`, n("1"), true},
		{`? > 3 and ? < 9`, n("5"), true},
		{`? > 3 and ? < 9`, n("9"), false},
		{`contains(?, "ol")`, "gold", true},
		{`? = true`, false, false},
		{`?`, true, true},
		{`null`, nil, true},
		{`null`, n("0"), false},
		{`5`, n("5"), true},
		{`5`, n("5.0"), true},
		{`x`, n("10"), true},
		{`x + 1`, n("11"), true},
		{`vip`, "gold", true},
		{`vip`, "silver", false},
		{`[1, 2, 3]`, n("2"), true},
		{`[1, 2]`, []any{n("1"), n("2")}, true},
		{`true`, true, true},
		{`false`, true, false},
		{`x > 5`, n("0"), true}, // a boolean expression decides when the input is not a boolean
		{`< 10, > 20`, n("25"), true},
		{`< 10, > 20`, n("15"), false},
		{`[1..2], [5..6]`, n("5"), true},
		{`< Max Age`, n("30"), true},
		{`date("2026-01-01")`, mustDate("2026-01-01"), true},
		{`[date("2026-01-01")..date("2026-12-31")]`, mustDate("2026-06-01"), true},
		{`> @"2026-01-01"`, mustDate("2025-06-01"), false},
		{`"a"`, nil, false},
	}
	for _, tc := range cases {
		u, err := CompileUnaryTests(tc.tests, Options{Names: []string{"Max Age"}})
		if err != nil {
			t.Errorf("CompileUnaryTests(%q): %v", tc.tests, err)
			continue
		}
		got, err := u.Match(tc.input, scope)
		if err != nil || got != tc.want {
			t.Errorf("%q.Match(%v) = %v, %v; want %v", tc.tests, tc.input, got, err, tc.want)
		}
	}
}

func mustDate(s string) Date {
	d, err := ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestUnaryTestErrors(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]string{
		`< `:          "unexpected end of expression",
		`"a",`:        "unexpected end of expression",
		`not("a"`:     `expected ")"`,
		`[1..`:        "unexpected end",
		`1 2`:         "unexpected number 2",
		`foo(1)`:      "unknown function",
		`not(1), 2`:   "",
		`< 1 < 2`:     `unexpected "<"`,
		`(1, 2`:       `expected ")"`,
		"\"\\u12\"":   "invalid escape",
		"not((1, 2))": `expected ")"`,
	} {
		_, err := CompileUnaryTests(src, Options{})
		if want == "" {
			if err != nil {
				t.Errorf("CompileUnaryTests(%q): %v", src, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CompileUnaryTests(%q) error = %v, want %q", src, err, want)
		}
	}
	u, _ := CompileUnaryTests(`not(1), 2`, Options{})
	if ok, _ := u.Match(n("2"), nil); !ok {
		t.Error(`"not(1), 2" should match 2 (not(1) is an expression there)`)
	}
	if u.Source() != `not(1), 2` {
		t.Error("Source")
	}
}

// TestUnaryFastPath checks that constant tests, matched without an
// evaluator, agree with the general path (MatchErrors).
func TestUnaryFastPath(t *testing.T) {
	t.Parallel()
	inputs := []any{nil, n("1"), n("5"), n("10"), n("10.5"), "a", "b", true, []any{n("1")},
		map[string]any{"a": n("1")}, "2020-01-01"}
	for _, src := range []string{`< 10`, `<= 10`, `> 5`, `>= 5`, `= 5`, `!= 5`, `[1..5]`, `(1..10)`, `]5..10]`,
		`"a", "b"`, `not("a")`, `not(< 3, > 8)`, `5`, `10.50`, `[1..null]`, `< "b"`, `@"2020-01-01"`, `>= date("2020-01-01")`} {
		u, err := CompileUnaryTests(src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		for _, in := range inputs {
			fast, err1 := u.Match(in, nil)
			slow, _, err2 := u.MatchErrors(in, nil)
			if fast != slow || err1 != nil || err2 != nil {
				t.Errorf("%s on %v: fast %v, general %v (%v %v)", src, in, fast, slow, err1, err2)
			}
		}
	}
}
