package feel

import (
	"testing"
)

// FuzzCompile compiles arbitrary text and evaluates whatever compiles
// against a small scope. Neither step may panic, and Eval must return
// either a JSON-shaped value or an error.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		`a + 1`,
		`0.1 + 0.2 = 0.3`,
		`if x > 1 then "a" else null`,
		`xs[-1] in [1..10)`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Compile(src)
		if err != nil {
			if p != nil {
				t.Fatalf("Compile(%q) returned a program and an error", src)
			}
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Compile(%q) error %T is not *Error", src, err)
			}
			return
		}
		v, err := p.Eval(testScope)
		if err == nil {
			checkJSONShape(t, v, 0)
		}
	})
}

func checkJSONShape(t *testing.T, v any, depth int) {
	t.Helper()
	switch x := v.(type) {
	case nil, bool, string, n:
	case []any:
		for _, e := range x {
			checkJSONShape(t, e, depth+1)
		}
	case map[string]any:
		for _, e := range x {
			checkJSONShape(t, e, depth+1)
		}
	default:
		t.Fatalf("Eval returned %T, not a JSON shape", v)
	}
}
