package juel

import (
	"encoding/json"
	"errors"
	"testing"
)

// fuzzVars is the small fixed scope every fuzzed expression runs against.
var fuzzVars = map[string]any{
	"amount":   n("100"),
	"rate":     n("1.19"),
	"approved": true,
	"name":     "Ann",
	"unicode":  "a😀b",
	"nothing":  nil,
	"f":        2.5,
	"i":        3,
	"items":    []any{n("1"), "two", 3.5, nil, map[string]any{"k": "v"}},
	"order": map[string]any{
		"total":    n("10.50"),
		"customer": map[string]any{"name": "Bob"},
		"lines":    []any{map[string]any{"qty": n("2")}},
	},
}

// FuzzCompileEval compiles arbitrary text and evaluates whatever compiles
// against a small scope, with and without a process instance. Neither
// step may panic; a failure must be an *Error naming the source; a result
// must be JSON-shaped (json.Number holding valid JSON text, never
// float64), and a string for composite text.
func FuzzCompileEval(f *testing.F) {
	scopes := []Scope{
		testScope{vars: fuzzVars},
		execScope{testScope{vars: fuzzVars, id: "pi-1", key: "bk-1"}},
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Compile(src)
		if err != nil {
			if e != nil {
				t.Fatalf("Compile(%q) returned an expression and an error", src)
			}
			var je *Error
			if !errors.As(err, &je) || je.Src != src {
				t.Fatalf("Compile(%q) error %#v is not an *Error naming the source", src, err)
			}
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Compile(%q) error %q is neither ErrSyntax nor ErrUnsupported", src, err)
			}
			if je.Pos < 0 || je.Pos > len(src)+1 {
				t.Fatalf("Compile(%q) error position %d is outside the source", src, je.Pos)
			}
			return
		}
		for _, scope := range scopes {
			v, err := e.Eval(scope)
			if err != nil {
				var je *Error
				if !errors.As(err, &je) || je.Src != src || je.Pos < 1 || je.Pos > len(src) {
					t.Fatalf("Eval(%q) error %#v is not an *Error at a position in the source", src, err)
				}
				continue
			}
			if _, ok := v.(string); e.Composite() && !ok {
				t.Fatalf("Eval(%q) of composite text returned %T", src, v)
			}
			checkJSON(t, src, v)
		}
	})
}

func checkJSON(t *testing.T, src string, v any) {
	t.Helper()
	switch x := v.(type) {
	case nil, bool, string:
	case json.Number:
		if !json.Valid([]byte(x)) {
			t.Fatalf("Eval(%q) returned json.Number %q, which is not JSON", src, x)
		}
	case []any:
		for _, e := range x {
			checkJSON(t, src, e)
		}
	case map[string]any:
		for _, e := range x {
			checkJSON(t, src, e)
		}
	default:
		t.Fatalf("Eval(%q) returned %T, not a JSON shape", src, v)
	}
}
