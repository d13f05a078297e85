package engine

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/scope"
)

// TestCamundaJobs runs a Zeebe script task, a job whose type is a FEEL
// expression over the task's inputs, its static headers, and a script task
// implemented by a job worker.
func TestCamundaJobs(t *testing.T) {
	t.Parallel()
	const file = "camunda_jobs.bpmn"
	items := []any{map[string]any{"price": num("2.5")}, map[string]any{"price": num("4")}}
	st, _ := mustStart(t, mustProcess(t, file), map[string]any{"items": items, "region": "eu"})

	if got := st.Scopes.Get(scope.RootID).Vars["total"]; normalize(t, got) != normalize(t, 6.5) {
		t.Errorf("zeebe:script result total = %v, want 6.5", got)
	}
	job := waitAt(t, st, WaitJob, "ship")
	want := map[string]string{"carrier": "DHL", "priority": "high"}
	if job.Name != "ship-EU" || job.Retries != 2 || !maps.Equal(job.CustomHeaders, want) {
		t.Fatalf("job %+v, want type ship-EU (the type sees the inputs), retries 2, headers %v", job, want)
	}
	// Headers survive the checkpoint and belong to the wait, not the model.
	if got := roundTrip(t, st).Wait(job.ID).CustomHeaders; !maps.Equal(got, want) {
		t.Errorf("headers after the checkpoint = %v", got)
	}
	clone := job.clone()
	clone.CustomHeaders["carrier"] = "UPS"
	if job.CustomHeaders["carrier"] != "DHL" {
		t.Error("a clone shares the headers")
	}

	st, _ = run(t, file, st, JobCompleted{Key: job.ID}, t0)
	render := waitAt(t, st, WaitJob, "render")
	if render.Name != "render-invoice" || render.CustomHeaders != nil {
		t.Fatalf("job worker script task: %+v", render)
	}
	st, _ = run(t, file, st, JobCompleted{Key: render.ID, Variables: map[string]any{"pdf": "p-1"}}, t0)
	if st.Status != StatusCompleted || st.Scopes.Get(scope.RootID).Vars["pdf"] != "p-1" {
		t.Fatalf("status %s vars %v", st.Status, st.Scopes.Get(scope.RootID).Vars)
	}
}

// TestJobTypeExpressionIncidents: a job type expression that fails, or
// yields anything but a non-empty string, stops the task in an incident
// naming it; a retry after the data is fixed creates the job.
func TestJobTypeExpressionIncidents(t *testing.T) {
	t.Parallel()
	const file = "camunda_jobs.bpmn"
	tests := []struct {
		name   string
		region any
		msg    string
	}{
		{"missing variable", nil, "job type of ship"},
		{"not a string", num("5"), "yields null, not a non-empty string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			vars := map[string]any{"items": []any{}}
			if tc.region != nil {
				vars["region"] = tc.region
			}
			st, _ := mustStart(t, mustProcess(t, file), vars)
			if st.Status != StatusFailed || len(st.Incidents) != 1 || st.Incidents[0].Kind != IncidentExpression ||
				st.Incidents[0].NodeID != "ship" || !strings.Contains(st.Incidents[0].Message, tc.msg) {
				t.Fatalf("status %s incidents %+v", st.Status, st.Incidents)
			}
			if hasWaitAt(st, "ship") {
				t.Fatal("a job was created")
			}
			st, _ = run(t, file, st, VariablesSet{Variables: map[string]any{"region": "us"}}, t0)
			st, _ = run(t, file, st, IncidentRetried{IncidentID: st.Incidents[0].ID}, t0)
			if job := waitAt(t, st, WaitJob, "ship"); job.Name != "ship-US" || st.Status != StatusRunning {
				t.Fatalf("after retry: job %+v status %s", job, st.Status)
			}
		})
	}
}

// TestConditionsSeeCompletionVariables: the variables a task completes
// with are a change of variables in their own right. The armed conditions
// are evaluated after they are written and before the task completes, so a
// conditional boundary of the enclosing sub-process (or of the task) that
// they satisfy fires even when the task's completion would have closed the
// sub-process; an interrupting one makes the completion void.
func TestConditionsSeeCompletionVariables(t *testing.T) {
	t.Parallel()
	const file = "conditional_completion.bpmn"
	start := map[string]any{"cancelled": false, "flagged": false, "late": false, "amount": num("0")}
	jobDone := func(vars map[string]any) func(*testing.T, *State) Event { return completeJob("work", vars) }
	reviewDone := func(vars map[string]any) func(*testing.T, *State) Event { return completeTaskAt("review", vars) }
	tests := []struct {
		name  string
		steps []func(*testing.T, *State) Event
		// tasks are the open user tasks after the last step; completed
		// and never are elements the last step completed and did not
		// complete; unreached ones it did not even activate.
		tasks      []string
		completed  []string
		never      []string
		unreached  []string
		root       map[string]any
		ended      bool
		openScopes int
	}{
		{
			name:  "job variables trigger the sub-process's interrupting boundary: the job's completion is void",
			steps: []func(*testing.T, *State) Event{jobDone(map[string]any{"cancelled": true})},
			tasks: []string{"onCancel"}, completed: []string{"cancel"}, never: []string{"work"}, unreached: []string{"review"},
			root: map[string]any{"cancelled": true}, openScopes: 1,
		},
		{
			name:  "a non-interrupting boundary fires and the job completes as well",
			steps: []func(*testing.T, *State) Event{jobDone(map[string]any{"flagged": true})},
			tasks: []string{"review"}, completed: []string{"work", "flag", "flagEnd"}, openScopes: 2,
		},
		{
			name:  "the job's own conditional boundary interrupts it",
			steps: []func(*testing.T, *State) Event{jobDone(map[string]any{"late": true})},
			tasks: []string{"after"}, completed: []string{"late", "lateEnd", "sub"}, never: []string{"work"}, unreached: []string{"review"}, openScopes: 1,
		},
		{
			name:  "the last user task's variables trigger the boundary before the sub-process can close",
			steps: []func(*testing.T, *State) Event{jobDone(nil), reviewDone(map[string]any{"cancelled": true})},
			tasks: []string{"onCancel"}, completed: []string{"cancel"}, never: []string{"review", "sub"}, unreached: []string{"calc", "subEnd", "after"}, openScopes: 1,
		},
		{
			name:  "a script's result interrupts the script task like a job's variables",
			steps: []func(*testing.T, *State) Event{jobDone(nil), reviewDone(map[string]any{"amount": num("150")})},
			tasks: []string{"onCancel"}, completed: []string{"review", "cancel"}, never: []string{"calc", "sub"}, unreached: []string{"note", "subEnd", "after"}, openScopes: 1,
			root: map[string]any{"cancelled": true, "amount": 150},
		},
		{
			name:  "an output mapping's write is seen before the next element runs",
			steps: []func(*testing.T, *State) Event{jobDone(nil), reviewDone(map[string]any{"amount": num("1500")})},
			tasks: []string{"onCancel"}, completed: []string{"review", "calc", "note", "cancel"}, never: []string{"sub"}, unreached: []string{"subEnd", "after"}, openScopes: 1,
			root: map[string]any{"cancelled": true},
		},
		{
			name:  "variables that satisfy nothing: the sub-process completes",
			steps: []func(*testing.T, *State) Event{jobDone(map[string]any{"x": 1}), reviewDone(map[string]any{"amount": num("5")})},
			tasks: []string{"after"}, completed: []string{"review", "calc", "note", "subEnd", "sub"}, openScopes: 1,
			root: map[string]any{"cancelled": false},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, _ := mustStart(t, mustProcess(t, file), start)
			var fx Effects
			for _, step := range tc.steps {
				st, fx = run(t, file, st, step(t, st), t0)
			}
			if got := tasks(st); !slices.Equal(got, tc.tasks) {
				t.Errorf("open tasks %v, want %v", got, tc.tasks)
			}
			var done []string
			for _, f := range factsOf(fx, FactElementCompleted) {
				done = append(done, f.NodeID)
			}
			for _, id := range tc.completed {
				if !slices.Contains(done, id) {
					t.Errorf("%s did not complete; completed %v", id, done)
				}
			}
			for _, id := range tc.never {
				if slices.Contains(done, id) {
					t.Errorf("%s completed; completed %v", id, done)
				}
			}
			for _, id := range tc.unreached {
				if slices.Contains(activated(fx), id) {
					t.Errorf("%s was activated; activated %v", id, activated(fx))
				}
			}
			checkVars(t, "root", st.Scopes.Get(scope.RootID).Vars, tc.root)
			if n := len(st.Scopes.All()); n != tc.openScopes {
				t.Errorf("%d open scopes, want %d", n, tc.openScopes)
			}
			if len(st.Incidents) != 0 {
				t.Errorf("incidents %+v", st.Incidents)
			}
		})
	}
}

// TestConditionsSeeMessagePayload: a message's payload is seen by the
// conditions before the catch completes, like a task's variables.
func TestConditionsSeeMessagePayload(t *testing.T) {
	t.Parallel()
	const file = "conditional_message.bpmn"
	for _, tc := range []struct {
		payload map[string]any
		end     string
	}{
		{map[string]any{"cancelled": true}, "cancelled"},
		{map[string]any{"cancelled": false}, "done"},
	} {
		st, _ := mustStart(t, mustProcess(t, file), map[string]any{"cancelled": false})
		st, fx := run(t, file, st, MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "await").ID, Variables: tc.payload}, t0)
		var done []string
		for _, f := range factsOf(fx, FactElementCompleted) {
			done = append(done, f.NodeID)
		}
		if st.Status != StatusCompleted || !slices.Contains(done, tc.end) || slices.Contains(done, "await") == (tc.end == "cancelled") {
			t.Errorf("payload %v: status %s, completed %v; want the end %s", tc.payload, st.Status, done, tc.end)
		}
	}
}
