package runtime_test

import (
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// VariableValueKey is one key per JSON value: whitespace and object key
// order do not matter, numbers compare by value, types do; a long value
// is keyed by its hash. ParseVariableFilter reads name=JSON and explains
// what it refuses.
func TestVariableValueKey(t *testing.T) {
	key := func(s string) string {
		t.Helper()
		k, err := runtime.VariableValueKey([]byte(s))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return k
	}
	for _, same := range [][]string{
		{`120`, `120.0`, `1.2e2`, ` 120 `},
		{`0.5`, `5e-1`},
		{`{"b":[1,{"y":2,"x":1}],"a":"t"}`, `{ "a" : "t", "b" : [1.0, {"x":1, "y":2}] }`},
		{`"A-17"`, `"A\u002d17"`},
	} {
		for _, s := range same[1:] {
			if key(s) != key(same[0]) {
				t.Errorf("%s and %s: keys %q and %q differ", same[0], s, key(s), key(same[0]))
			}
		}
	}
	for _, pair := range [][2]string{{`120`, `"120"`}, {`1`, `true`}, {`null`, `"null"`}, {`[1,2]`, `[2,1]`}, {`120`, `120.5`}} {
		if key(pair[0]) == key(pair[1]) {
			t.Errorf("%s and %s share the key %q", pair[0], pair[1], key(pair[0]))
		}
	}
	long := `"` + strings.Repeat("x", runtime.MaxIndexedValue) + `"`
	if k := key(long); !strings.HasPrefix(k, "#sha256:") || len(k) != len("#sha256:")+64 {
		t.Errorf("long value key %q", k)
	}
	if _, err := runtime.VariableValueKey([]byte(`1 2`)); err == nil {
		t.Error("two values: no error")
	}

	f, err := runtime.ParseVariableFilter(`note=a=b`)
	if err == nil {
		t.Errorf("note=a=b (not JSON): %+v", f)
	}
	if f, err := runtime.ParseVariableFilter(`note="a=b"`); err != nil || f.Name != "note" || f.Value != `"a=b"` {
		t.Errorf(`note="a=b": %+v, %v`, f, err)
	}
	for _, s := range []string{``, `=1`, `x`, `x=`, `x=abc`} {
		if _, err := runtime.ParseVariableFilter(s); err == nil || !strings.Contains(err.Error(), "JSON") {
			t.Errorf("%q: %v, want an error about JSON", s, err)
		}
	}
}
