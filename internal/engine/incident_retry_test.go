package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/scope"
)

// waitsAt counts the open waits of a kind on a node.
func waitsAt(st *State, kind WaitKind, node string) int {
	n := 0
	for _, w := range st.Waits {
		if w.Kind == kind && w.NodeID == node {
			n++
		}
	}
	return n
}

// retryAll sets vars at the root, then retries every open incident.
func retryAll(t *testing.T, file string, st *State, vars map[string]any) (*State, Effects) {
	t.Helper()
	var fx Effects
	if vars != nil {
		st, _ = run(t, file, st, VariablesSet{Variables: vars}, t0)
	}
	for i := 0; len(st.Incidents) > 0; i++ {
		if i == 10 {
			t.Fatalf("incidents do not go away: %+v", st.Incidents)
		}
		st, fx = run(t, file, st, IncidentRetried{IncidentID: st.Incidents[0].ID, Retries: 1}, t0)
	}
	return st, fx
}

// retryCase is one behaviour of an incident and its retry (or of the scope
// it stopped), demonstrated through Step on a parsed fixture.
type retryCase struct {
	name  string
	file  string
	check func(t *testing.T, file string)
}

var retryCases = []retryCase{
	{
		// A loop condition that fails stops the loop's host in an incident
		// while its body scope is open. Retrying must resume the loop, not
		// enter it again and leave the old body behind.
		name: "retrying a failed loop condition resumes the loop", file: "retry_loop_retry.bpmn",
		check: func(t *testing.T, file string) {
			st, _ := mustStart(t, mustProcess(t, file), map[string]any{"broken": true})
			if len(st.Incidents) != 1 || st.Incidents[0].Kind != IncidentExpression {
				t.Fatalf("incidents %+v", st.Incidents)
			}
			st, _ = retryAll(t, file, st, map[string]any{"broken": false})
			if st.Status != StatusCompleted {
				t.Fatalf("status %s, scopes %d, bodies %d, tracks %+v", st.Status, len(st.Scopes.All()), len(st.Bodies), st.Tracks)
			}
			if got := st.Scopes.Get(scope.RootID).Vars["counter"]; got != num("3") {
				t.Errorf("counter %v, want 3", got)
			}
			assertClean(t, st)
		},
	},
	{
		// An uncaught job error stops the task in an incident with its
		// timer boundary still armed; retrying re-runs the task and must
		// not leave the old boundary wait behind.
		name: "retrying an activity does not duplicate its boundary waits", file: "retry_boundary_retry.bpmn",
		check: func(t *testing.T, file string) {
			st, _ := mustStart(t, mustProcess(t, file), nil)
			st, _ = run(t, file, st, JobErrorThrown{Key: waitAt(t, st, WaitJob, "charge").ID, Code: "X"}, t0)
			if len(st.Incidents) != 1 || st.Incidents[0].Kind != IncidentUnhandled {
				t.Fatalf("incidents %+v", st.Incidents)
			}
			st, _ = retryAll(t, file, st, nil)
			if waitsAt(st, WaitJob, "charge") != 1 || waitsAt(st, WaitTimer, "late") != 1 {
				t.Fatalf("waits after retry %+v", st.Waits)
			}
			st, _ = run(t, file, st, TimerFired{WaitID: waitAt(t, st, WaitTimer, "late").ID}, t0.Add(2*time.Hour))
			assertClean(t, st)
		},
	},
	{
		// A handler that could not be armed opens an incident of its
		// scope; when the scope closes the incident must go with it.
		name: "scope incidents close with their scope", file: "retry_scope_incident.bpmn",
		check: func(t *testing.T, file string) {
			st, _ := mustStart(t, mustProcess(t, file), nil)
			if len(st.Incidents) != 1 || st.Incidents[0].Kind != IncidentTimer {
				t.Fatalf("incidents %+v", st.Incidents)
			}
			st, fx := complete(t, file, st, "work")
			if len(factsOf(fx, FactIncidentResolved)) != 1 {
				t.Errorf("incident not resolved: %+v", fx.Incidents)
			}
			assertClean(t, st)
		},
	},
	{
		// A boundary timer that cannot be armed stops the activity before
		// it starts: no task is created and no sub-process scope runs,
		// and retrying starts each exactly once.
		name: "a boundary that cannot be armed does not half-start the activity", file: "retry_boundary_arm.bpmn",
		check: func(t *testing.T, file string) {
			st, fx := mustStart(t, mustProcess(t, file), nil)
			if len(st.Incidents) != 2 {
				t.Fatalf("incidents %+v", st.Incidents)
			}
			if len(st.Waits) != 0 || len(st.Scopes.All()) != 1 || slices.Contains(activated(fx), "inner") {
				t.Fatalf("activities half-started: waits %+v scopes %d path %v", st.Waits, len(st.Scopes.All()), activated(fx))
			}
			st, _ = retryAll(t, file, st, map[string]any{"dur": "PT1H"})
			if got := tasks(st); !slices.Equal(got, []string{"inner", "review"}) {
				t.Fatalf("tasks %v", got)
			}
			if waitsAt(st, WaitTimer, "reviewLate") != 1 || waitsAt(st, WaitTimer, "subLate") != 1 {
				t.Fatalf("waits %+v", st.Waits)
			}
			st, _ = complete(t, file, st, "review")
			st, _ = complete(t, file, st, "inner")
			assertClean(t, st)
		},
	},
	{
		// A handler that ends by throwing the same event hands
		// it to the host's boundary; it must not catch its own re-throw.
		name: "a non-interrupting escalation handler that re-throws reaches the boundary", file: "retry_escalation_rethrow.bpmn",
		check: func(t *testing.T, file string) {
			st, fx := mustStart(t, mustProcess(t, file), nil)
			if len(st.Incidents) != 0 {
				t.Fatalf("incidents %+v", st.Incidents)
			}
			if n := len(factsOf(fx, FactHandlerFired)); n != 1 {
				t.Errorf("handler fired %d times, want 1", n)
			}
			if got := st.Scopes.Get(scope.RootID).Vars["escalated"]; got != num("1") {
				t.Errorf("boundary ran %v times, want 1", got)
			}
			st, _ = complete(t, file, st, "inspect")
			assertClean(t, st)
		},
	},
}

func TestIncidentRetries(t *testing.T) {
	t.Parallel()
	for _, tc := range retryCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.check(t, tc.file)
		})
	}
}
