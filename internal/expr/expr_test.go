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
		{"javascript", "javascript", `a > 1`, "only FEEL is supported", true},
		{"juel", "http://www.w3.org/1999/XPath", `a`, "not supported", true},
		{"syntax", "", `= a >`, "at 4: unexpected end of expression", false},
		{"syntax in wrapper", "", `${(a}`, `expected ")"`, false},
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
		"${a > 1}": "a > 1",
		"#{ x }":   "x",
		"  b  ":    "b",
		"${a":      "${a",
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
