package conformance

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestParseStep covers the parts of the step syntax the scenarios rely on.
func TestParseStep(t *testing.T) {
	t.Parallel()
	s, err := parseStep(`start p with someVar="a, b", n=3, completed=true`)
	if err != nil || s.kind != stStart || s.arg != "p" {
		t.Fatalf("start: %+v %v", s, err)
	}
	if s.vars["someVar"] != "a, b" || s.vars["n"] != json.Number("3") || s.vars["completed"] != true {
		t.Errorf("vars %#v", s.vars)
	}
	s, err = parseStep("expect open user tasks {b, a ×2}")
	if err != nil || !slices.Equal(s.set, []string{"a", "a", "b"}) {
		t.Errorf("set: %v %v", s.set, err)
	}
	if s, err = parseStep("expect subscriptions {}"); err != nil || len(s.set) != 0 {
		t.Errorf("empty set: %v %v", s.set, err)
	}
	a, err1 := parseStep("expect scope tree process › {b › x, a, b › x}")
	b, err2 := parseStep("expect scope tree process › {a, b › x, b › x}")
	if err1 != nil || err2 != nil || a.tree != b.tree || a.tree != "process › {a, b › x, b › x}" {
		t.Errorf("trees %q %q (%v %v)", a.tree, b.tree, err1, err2)
	}
	if s, err = parseStep("correlate message m: expect rejected"); err != nil || !s.rejected || s.arg != "m" {
		t.Errorf("rejected: %+v %v", s, err)
	}
	if s, err = parseStep("expect ad-hoc regions 2"); err != nil || s.kind != stExpectRegions || s.n != 2 {
		t.Errorf("regions: %+v %v", s, err)
	}
	if s, err = parseStep(`expect ad-hoc stopped by "completion condition"`); err != nil || s.kind != stExpectStopReason || s.arg != "completion condition" {
		t.Errorf("stopped by: %+v %v", s, err)
	}
	if s, err = parseStep("expect completed user tasks {b, a}"); err != nil || s.kind != stExpectCompletedTasks || !slices.Equal(s.set, []string{"a", "b"}) {
		t.Errorf("completed user tasks: %+v %v", s, err)
	}
	for _, bad := range []string{
		"expect ad-hoc stopped by drained", "expect ad-hoc regions x",
		"expect ended: expect rejected", "advance the clock by 5 minutes", "expect open user tasks a, b",
		"expect scope tree process › {a", "start p with x=", "frobnicate", "expect timers -1",
	} {
		if _, err := parseStep(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
