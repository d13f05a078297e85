package feel

import (
	"fmt"
	"strings"
	"testing"
)

// tailFn is a Function of three parameters whose last one may be left out.
type tailFn struct{}

func (tailFn) Params() []string { return []string{"a", "b", "c"} }
func (tailFn) MinArgs() int     { return 2 }
func (tailFn) Call(args []any) (any, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("called with %d arguments, want 3", len(args))
	}
	return fmt.Sprintf("%v %v %v", args...), nil
}

// A Function with optional trailing parameters is called with any count
// from MinArgs to all of them, the left-out ones null; fewer or more is an
// evaluation error, as for a Function without them.
func TestOptionalParams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src, want, err string
	}{
		{src: `f("x", "y")`, want: "x y <nil>"},
		{src: `f("x", "y", "z")`, want: "x y z"},
		{src: `f(a: "x", b: "y")`, want: "x y <nil>"},
		{src: `f("x")`, err: "takes 2 to 3 arguments, got 1"},
		{src: `f("x", "y", "z", "w")`, err: "takes 2 to 3 arguments, got 4"},
	} {
		p, err := CompileWith(tc.src, Options{Names: []string{"f"}})
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		v, errs, err := p.EvalErrors(mapScope{"f": tailFn{}})
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if tc.err != "" {
			if v != nil || len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.err) {
				t.Errorf("%s = %v, errors %v; want null and %q", tc.src, v, errs, tc.err)
			}
			continue
		}
		if v != tc.want || len(errs) != 0 {
			t.Errorf("%s = %v, errors %v; want %q", tc.src, v, errs, tc.want)
		}
	}
}
