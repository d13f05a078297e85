package feel

import (
	"strings"
	"testing"
)

// TestRuntimeErrors checks the runtime errors EvalErrors reports beside the
// value, and that Eval stays quiet about them.
func TestRuntimeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src     string
		want    string // the value, as FEEL text
		wantErr string // "" for none
	}{
		{`1 + "a"`, `null`, `cannot add a number and a string`},
		{`10 * null`, `null`, `cannot multiply a number and a null`},
		{`1 / 0`, `null`, `division by zero`},
		{`null = 1`, `false`, ``},
		{`1 = "1"`, `null`, `cannot compare a number with a string`},
		{`null < 1`, `null`, `cannot order null`},
		{`{a: 1}.b`, `null`, `no entry "b"`},
		{`null.b`, `null`, `cannot read "b" of null`},
		{`date("x")`, `null`, `not a valid date`},
		{`abs("x")`, `null`, `abs: n must be a number or a duration`},
		{`abs(null)`, `null`, `abs: n is null`},
		{`string length(["abc"])`, `3`, ``}, // from singleton list
		{`all(123)`, `null`, `not only booleans`},
		{`median(4)`, `4`, ``},
		{`string join("a", "X")`, `"a"`, ``},
		{`[{a: 1}, {b: 2}][a = 1]`, `[{a: 1}]`, ``},
		{`[{a: 1}, {b: 2}].a`, `[1, null]`, ``},
		{`true in [false, 2, 3]`, `false`, ``},
		{`null in [1..10]`, `null`, `null is in no range`},
		{`5 in [1..null]`, `null`, `null endpoint`},
		{`for i in [2..1] return i`, `null`, `start after its end`},
		{`{x: 1}.x(1)`, `null`, `cannot call a number`},
		{`(function(a: number) a)("x")`, `null`, `not a number`},
		{`-"a"`, `null`, `cannot negate a string`},
		{`decimal(1/3, 2.5)`, `0.33`, ``},
		{`substring("foobar", 3, 3.8)`, `"oba"`, ``},
		{`date and time("2021-01-02T10:00:00") - date("2021-01-01")`, `null`, `cannot subtract`},
	}
	for _, tt := range tests {
		p, err := Compile(tt.src)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		v, errs, err := p.EvalErrors(testScope)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		got, _ := toString(norm(v), 1)
		want, _ := toString(evalInternal(t, tt.want), 1)
		if got != want {
			t.Errorf("%s = %s, want %s", tt.src, got, want)
		}
		msgs := ""
		for _, e := range errs {
			msgs += e.Msg + "; "
		}
		if (tt.wantErr == "") != (len(errs) == 0) || !strings.Contains(msgs, tt.wantErr) {
			t.Errorf("%s: errors %q, want %q", tt.src, msgs, tt.wantErr)
		}
		if _, err := p.Eval(testScope); err != nil && !strings.Contains(err.Error(), "not a JSON value") {
			t.Errorf("%s: Eval: %v", tt.src, err)
		}
	}
}

// TestLenient checks that lenient compilation turns problems DMN wants
// at evaluation into runtime errors, listed by Problems.
func TestLenient(t *testing.T) {
	t.Parallel()
	for _, src := range []string{`abs(1, 2)`, `nope(1)`, `@"foo"`, `{a: 1, a: 2}`, `floor(n: 1, scal: 2)`, `1 instance of tUnknown`,
		`function(x) external {java: {class: "java.lang.Math", method signature: "abs(int)"}}`} {
		if _, err := Compile(src); err == nil {
			t.Errorf("%s: strict compilation accepted it", src)
		}
		p, err := CompileWith(src, Options{Lenient: true})
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if len(p.Problems()) != 1 {
			t.Errorf("%s: problems %v", src, p.Problems())
		}
		v, errs, err := p.EvalErrors(nil)
		if v != nil || len(errs) != 1 || err != nil {
			t.Errorf("%s: %v %v %v", src, v, errs, err)
		}
	}
	if _, err := CompileWith(`1 +`, Options{Lenient: true}); err == nil {
		t.Error("a syntax error compiled leniently")
	}
}

// TestNamedTypes checks `instance of` with Options.Types.
func TestNamedTypes(t *testing.T) {
	t.Parallel()
	types := func(name string) TypeFunc {
		switch name {
		case "tSmall":
			return func(v any) bool { n, ok := v.(n); return ok && len(n) == 1 }
		case "lib.tText":
			return func(v any) bool { _, ok := v.(string); return ok }
		}
		return nil
	}
	for src, want := range map[string]any{
		`5 instance of tSmall`:                  true,
		`55 instance of tSmall`:                 false,
		`"a" instance of lib.tText`:             true,
		`["a"] instance of list<lib.tText>`:     true,
		`[1] instance of lib.tText`:             false,
		`{a: 5} instance of context<a: tSmall>`: true,
	} {
		p, err := CompileWith(src, Options{Types: types})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if v, err := p.Eval(nil); err != nil || v != want {
			t.Errorf("%s = %v (%v), want %v", src, v, err, want)
		}
	}
}

func TestLanguageAdditions(t *testing.T) {
	t.Parallel()
	runFeelTable(t, []feelCase{
		{`1.23e4`, `12300`},
		{`1.23E+4 = 12300`, `true`},
		{`5e-1`, `0.5`},
		{`{🐎: "bar"}.🐎`, `"bar"`},
		{`{foo+bar: 1}`, `{"foo+bar": 1}`},
		{`get entries({b: 1, a: 2})[1].key`, `"b"`},
		{`string({z: 1, y: 2})`, `"{z: 1, y: 2}"`},
		{`(< 10) = (< 10)`, `true`},
		{`(< 10) = (null..10)`, `false`},
		{`(<= 10).end included`, `true`},
		{`(> 10).start`, `10`},
		{`(> 10).end`, `null`},
		{`(=10).start included`, `true`},
		{`10 in (!= 10)`, `false`},
		{`11 in (!= 10)`, `true`},
		{`5 in (< 10)`, `true`},
		{`sort([3, 1, 2], function(a, b) a > b)`, `[3, 2, 1]`},
		{`{f: abs}.f(-3)`, `3`},
		{`list replace([1, -2], function(item, newItem) item < 0, 0)`, `[1, 0]`},
		{`for d in @"2020-01-30"..@"2020-02-01" return day of week(d)`, `["Thursday", "Friday", "Saturday"]`},
		{`time("10:30:00.0001") = time("10:30:00.0002")`, `true`},
		{`upper case(["bob"])`, `"BOB"`},
		{`{item: 1, x: [{item: 2}]}.x[item = 2]`, `[{item: 2}]`},
	})
}

// TestBuiltinNameAsJSON checks that a bare built-in name, which FEEL
// reads as the function when no variable has that name, is null through
// Eval (JSON): an expression over a missing variable named count stays
// null.
func TestBuiltinNameAsJSON(t *testing.T) {
	t.Parallel()
	p, _ := Compile(`count`)
	if v, err := p.Eval(nil); v != nil || err != nil {
		t.Errorf("count = %v, %v", v, err)
	}
	if v, err := p.Eval(mapScope{"count": 3}); err != nil || v != n("3") {
		t.Errorf("count with a variable = %v, %v", v, err)
	}
}
