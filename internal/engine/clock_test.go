package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/feel"
	"github.com/gobpm/gobpm/internal/scope"
)

// The expression scopes are clocks: FEEL's now() reads the step's time.
var (
	_ feel.Clock = scopeView{}
	_ feel.Clock = snapshotScope{}
)

func TestExpressionsReadTheStepTime(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "clock.bpmn")
	for _, c := range []struct {
		at       time.Time
		stamp    string
		pathNode string
	}{
		{t0, "2026-11-30T12:00:00Z", "today"},
		{t0, "2026-11-30T12:00:00Z", "today"}, // the same now, the same result
		{t0.Add(24 * time.Hour), "2026-12-01T12:00:00Z", "later"},
	} {
		st, fx, err := Step(p, NewState("i1", p.ID, 1), Start{}, c.at, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Scopes.Get(scope.RootID).Vars["at"]; got != c.stamp {
			t.Errorf("at %v: now() = %v, want %s", c.at, got, c.stamp)
		}
		if !slices.Contains(activated(fx), c.pathNode) {
			t.Errorf("at %v: path %v does not pass %s", c.at, activated(fx), c.pathNode)
		}
	}
}
