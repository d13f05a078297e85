package expr

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCompileThroughSeam(t *testing.T) {
	t.Parallel()
	scope := MapScope{"a": json.Number("2"), "name": "ann", "order": map[string]any{"total": 10.5}}
	cases := []struct {
		name, lang, src string
		want            any
	}{
		{"plain FEEL", "", `a > 1`, true},
		{"feel language", "feel", `a + 0.5`, json.Number("2.5")},
		{"FEEL URI", "https://www.omg.org/spec/DMN/20191111/FEEL/", `name = "ann"`, true},
		{"language with spaces", "  FEEL ", `a`, json.Number("2")},
		{"Camunda 8 prefix", "", `= a > 1`, true},
		{"Camunda 8 prefix no space", "", `=order.total * 2`, json.Number("21")},
		{"Camunda 7 wrapper", "", `${a > 1}`, true},
		{"Camunda 7 wrapper spaced", "", `  ${ a < 1 }  `, false},
		{"hash wrapper", "", `#{name}`, "ann"},
		// JUEL, not FEEL: these parse in both languages with other meanings.
		{"JUEL not", "", `${not (a > 1)}`, false},
		{"JUEL empty", "", `${empty name}`, false},
		{"JUEL eq", "", `${name eq 'ann'}`, true},
		{"JUEL and", "", `${a > 1 && name == "ann"}`, true},
		{"JUEL division", "", `${7 / 2}`, json.Number("3.5")},
		{"JUEL composite", "", `Hello ${name}!`, "Hello ann!"},
		{"FEEL string with a dollar", "", `= "${name}"`, "${name}"},
		{"JUEL by language", "juel", `Hello ${name}!`, "Hello ann!"},
		{"Camunda 7 expressionLanguage", "http://java.sun.com/products/jsp/", `${a + 1}`, json.Number("3")},
		{"decimals", "", `=0.1 + 0.2`, json.Number("0.3")},
		{"missing variable", "", `missing = null`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := Compile(tc.lang, tc.src)
			if err != nil {
				t.Fatalf("Compile(%q, %q): %v", tc.lang, tc.src, err)
			}
			if e.Source() != tc.src {
				t.Errorf("Source() = %q, want %q", e.Source(), tc.src)
			}
			got, err := e.Eval(scope)
			if err != nil {
				t.Fatalf("Eval: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Eval = %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, lang, src, want string
		unsupported           bool
	}{
		{"javascript", "javascript", `a > 1`, "FEEL and JUEL are supported", true},
		{"xpath", "http://www.w3.org/1999/XPath", `a`, "not supported", true},
		{"syntax", "", `= a >`, "at 4: unexpected end of expression", false},
		{"syntax in JUEL", "", `${(a}`, `unexpected '}'`, false},
		{"JUEL bean", "", `${orderService.check(order)}`, `not supported`, false},
		{"JUEL setVariable", "", `${execution.setVariable("a", 1)}`, `output mappings`, false},
		{"unknown function", "", `=foo(a)`, `unknown function "foo"`, false},
		{"empty", "", `=`, "empty expression", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := Compile(tc.lang, tc.src)
			if err == nil {
				t.Fatalf("Compile(%q, %q) = %v, want error", tc.lang, tc.src, e)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if got := errors.Is(err, ErrUnsupportedLanguage); got != tc.unsupported {
				t.Errorf("errors.Is(err, ErrUnsupportedLanguage) = %v, want %v", got, tc.unsupported)
			}
		})
	}
}

func TestUnwrapAndTruthy(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"= a":      "a",
		"${a > 1}": "${a > 1}", // JUEL stays JUEL
		"  b  ":    "b",
	} {
		if got := Unwrap(in); got != want {
			t.Errorf("Unwrap(%q) = %q, want %q", in, got, want)
		}
	}
	for v, want := range map[any]bool{true: true, false: false, nil: false, "true": false, 1: false} {
		if got := Truthy(v); got != want {
			t.Errorf("Truthy(%#v) = %v, want %v", v, got, want)
		}
	}
}

func TestCondition(t *testing.T) {
	t.Parallel()
	scope := MapScope{"approved": false, "n": json.Number("3"), "s": "true"}
	cases := []struct {
		src     string
		want    bool
		wantErr string
	}{
		{`= approved`, false, ""},
		{`= n > 1`, true, ""},
		{`= s`, false, ""}, // FEEL: a non-boolean is not true
		{`= missing`, false, ""},
		{`${!approved}`, true, ""},
		{`${n > 1}`, true, ""},
		{`${s}`, false, "returned a string, not a boolean"}, // Camunda 7 throws
		{`${missing}`, false, "missing"},                    // an unknown identifier is an error
		{`${null}`, false, "returned null, not a boolean"},
	}
	for _, tc := range cases {
		x, err := Compile("", tc.src)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tc.src, err)
		}
		got, err := Condition(x, scope)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("Condition(%q) error = %v, want one containing %q", tc.src, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("Condition(%q) = %v, %v; want %v", tc.src, got, err, tc.want)
		}
	}
}
