package dmn

import (
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/feel"
)

var _ feel.Clock = (*mapScope)(nil)

func TestEvaluateAtFixesTheClock(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "clock.dmn")
	at := time.Date(2025, 3, 1, 23, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		due, state, left string
	}{
		{"2025-02-27", "overdue", "-2"},
		{"2025-03-01", "open", "0"},
		{"2025-03-11", "open", "10"},
	} {
		res, err := defs.EvaluateAt("status", map[string]any{"due": c.due}, at)
		if err != nil {
			t.Fatal(err)
		}
		if res.Err() != nil {
			t.Fatal(res.Err())
		}
		want := map[string]any{"state": c.state, "left": num(c.left), "checked": "2025-03-01"}
		if !sameValue(res.Value, want) {
			t.Errorf("due %s: value = %v, want %v", c.due, res.Value, want)
		}
		if len(res.Entries) != 1 || !sameValue(res.Entries[0], want) {
			t.Errorf("due %s: entries = %v", c.due, res.Entries)
		}
	}
	// A range has no JSON shape: the value is null and the reason recorded.
	res, err := defs.EvaluateAt("span", nil, at)
	if err != nil {
		t.Fatal(err)
	}
	if res.Value != nil || res.Err() == nil || !strings.Contains(res.Err().Error(), "range") {
		t.Errorf("span: value %v, err %v", res.Value, res.Err())
	}
}
