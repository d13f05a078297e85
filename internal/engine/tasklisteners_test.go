package engine

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/scope"
)

const taskListenersFile = "listeners_task.bpmn"

// TestTaskListeners runs user task listeners through Step: a claim or a
// completion of the task waits for its listeners' jobs, which may deny
// or correct it.
func TestTaskListeners(t *testing.T) {
	t.Parallel()
	ptr := func(s string) *string { return &s }
	// claimed runs a claim by anna and its assigning listener to the end,
	// anna the assignee then.
	claimed := func(t *testing.T, st *State) *State {
		t.Helper()
		task := waitAt(t, st, WaitTask, "review")
		st, _ = run(t, taskListenersFile, st, TaskClaimed{TaskID: task.ID, User: "anna", Groups: []string{"clerks"}}, t0)
		j := eventListenerJob(t, st, "assigning", "review", "check-assignee", 0)
		st, _ = run(t, taskListenersFile, st, JobCompleted{Key: j.ID}, t0)
		if a := waitAt(t, st, WaitTask, "review").Assignee; a != "anna" {
			t.Fatalf("assignee %q after the assigning listener, want anna", a)
		}
		return st
	}
	tests := []struct {
		name  string
		check func(t *testing.T, st *State)
	}{
		{"assigning: the claim applies only after the listener's job", func(t *testing.T, st *State) {
			task := waitAt(t, st, WaitTask, "review")
			st, _ = run(t, taskListenersFile, st, TaskClaimed{TaskID: task.ID, User: "anna", Groups: []string{"clerks"}}, t0)
			j := eventListenerJob(t, st, "assigning", "review", "check-assignee", 0)
			if task = waitAt(t, st, WaitTask, "review"); task.Assignee != "" {
				t.Fatalf("assignee %q before the listener completed", task.Assignee)
			}
			if j.CustomHeaders[headerUserTaskKey] != task.ID || j.CustomHeaders[headerAssignee] != "anna" {
				t.Errorf("listener job headers %v", j.CustomHeaders)
			}
			if _, _, err := Step(mustProcess(t, taskListenersFile), roundTrip(t, st), TaskClaimed{TaskID: task.ID, User: "ben", Groups: []string{"clerks"}}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
				t.Errorf("a second claim while the first waits: err %v, want ErrInvalidTransition", err)
			}
			if _, _, err := Step(mustProcess(t, taskListenersFile), roundTrip(t, st), JobCompleted{Key: j.ID, Variables: map[string]any{"x": 1}}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
				t.Errorf("a task listener's job completed with variables: err %v, want ErrInvalidTransition", err)
			}
			st, _ = run(t, taskListenersFile, st, JobCompleted{Key: j.ID}, t0)
			if task = waitAt(t, st, WaitTask, "review"); task.Assignee != "anna" || task.TaskChange != nil {
				t.Fatalf("after the listener: %+v", task)
			}
		}},
		{"assigning: a denied claim is not applied", func(t *testing.T, st *State) {
			task := waitAt(t, st, WaitTask, "review")
			st, _ = run(t, taskListenersFile, st, TaskClaimed{TaskID: task.ID, User: "anna", Groups: []string{"clerks"}}, t0)
			j := eventListenerJob(t, st, "assigning", "review", "check-assignee", 0)
			st, fx := run(t, taskListenersFile, st, JobCompleted{Key: j.ID, Result: &JobResult{Denied: true, DeniedReason: "on leave"}}, t0)
			if task = waitAt(t, st, WaitTask, "review"); task.Assignee != "" || task.TaskChange != nil || waitsAt(st, WaitJob, "review") != 0 {
				t.Fatalf("after the denial: %+v", task)
			}
			if !slices.ContainsFunc(fx.Facts, func(f Fact) bool { return f.Kind == FactTaskChangeDenied }) {
				t.Error("no task-change-denied fact")
			}
			// The task takes a new claim.
			claimed(t, st)
		}},
		{"assigning: a correction replaces the assignee and the candidates", func(t *testing.T, st *State) {
			task := waitAt(t, st, WaitTask, "review")
			st, _ = run(t, taskListenersFile, st, TaskClaimed{TaskID: task.ID, User: "anna", Groups: []string{"clerks"}}, t0)
			j := eventListenerJob(t, st, "assigning", "review", "check-assignee", 0)
			due := t0.Add(48 * time.Hour)
			st, _ = run(t, taskListenersFile, st, JobCompleted{Key: j.ID, Result: &JobResult{Corrections: TaskCorrections{
				Assignee: ptr("carla"), DueAt: &due, CandidateGroups: &[]string{"seniors"},
			}}}, t0)
			task = waitAt(t, st, WaitTask, "review")
			if task.Assignee != "carla" || !task.DueAt.Equal(due) || !slices.Equal(task.CandidateGroups, []string{"seniors"}) {
				t.Fatalf("after the correction: %+v", task)
			}
		}},
		{"unclaiming runs the assigning listeners too", func(t *testing.T, st *State) {
			st = claimed(t, st)
			task := waitAt(t, st, WaitTask, "review")
			st, _ = run(t, taskListenersFile, st, TaskUnclaimed{TaskID: task.ID, User: "anna"}, t0)
			j := eventListenerJob(t, st, "assigning", "review", "check-assignee", 0)
			if j.CustomHeaders[headerAssignee] != "" || waitAt(t, st, WaitTask, "review").Assignee != "anna" {
				t.Fatalf("unassigning before its listener: headers %v", j.CustomHeaders)
			}
			st, _ = run(t, taskListenersFile, st, JobCompleted{Key: j.ID}, t0)
			if a := waitAt(t, st, WaitTask, "review").Assignee; a != "" {
				t.Fatalf("assignee %q after unclaiming", a)
			}
		}},
		{"completing: listeners in order, then the completion with its variables", func(t *testing.T, st *State) {
			st = claimed(t, st)
			task := waitAt(t, st, WaitTask, "review")
			st, _ = run(t, taskListenersFile, st, TaskCompleted{TaskID: task.ID, User: "anna", Variables: map[string]any{"approved": true}}, t0)
			first := eventListenerJob(t, st, "completing", "review", "audit-completion", 0)
			if _, ok := st.Scopes.Get(scope.RootID).Vars["approved"]; ok {
				t.Fatal("the completion's variables were set before its listeners")
			}
			st, _ = run(t, taskListenersFile, st, JobCompleted{Key: first.ID}, t0)
			second := eventListenerJob(t, st, "completing", "review", "verify-completion", 1)
			st, _ = run(t, taskListenersFile, st, JobCompleted{Key: second.ID}, t0)
			if st.Status != StatusCompleted || st.Scopes.Get(scope.RootID).Vars["approved"] != true {
				t.Fatalf("status %s vars %v", st.Status, st.Scopes.Get(scope.RootID).Vars)
			}
			assertClean(t, st)
		}},
		{"completing: a denial by the second listener keeps the task open", func(t *testing.T, st *State) {
			st = claimed(t, st)
			task := waitAt(t, st, WaitTask, "review")
			st, _ = run(t, taskListenersFile, st, TaskCompleted{TaskID: task.ID, User: "anna", Variables: map[string]any{"approved": true}}, t0)
			st, _ = run(t, taskListenersFile, st, JobCompleted{Key: eventListenerJob(t, st, "completing", "review", "audit-completion", 0).ID, Result: &JobResult{Corrections: TaskCorrections{CandidateUsers: &[]string{"dora"}}}}, t0)
			st, _ = run(t, taskListenersFile, st, JobCompleted{Key: eventListenerJob(t, st, "completing", "review", "verify-completion", 1).ID, Result: &JobResult{Denied: true}}, t0)
			task = waitAt(t, st, WaitTask, "review")
			if st.Status == StatusCompleted || task.TaskChange != nil || len(task.CandidateUsers) != 0 {
				t.Fatalf("after the denial: status %s task %+v", st.Status, task)
			}
			if _, ok := st.Scopes.Get(scope.RootID).Vars["approved"]; ok {
				t.Error("a denied completion set its variables")
			}
		}},
		{"a failing listener job opens an incident; the change waits for the retry", func(t *testing.T, st *State) {
			task := waitAt(t, st, WaitTask, "review")
			st, _ = run(t, taskListenersFile, st, TaskClaimed{TaskID: task.ID, User: "anna", Groups: []string{"clerks"}}, t0)
			j := eventListenerJob(t, st, "assigning", "review", "check-assignee", 0)
			st, _ = run(t, taskListenersFile, st, JobFailed{Key: j.ID, Decrement: true, ErrorMessage: "directory down"}, t0)
			if len(st.Incidents) != 1 || st.Incidents[0].WaitID != j.ID {
				t.Fatalf("incidents %+v", st.Incidents)
			}
			st, _ = run(t, taskListenersFile, st, IncidentRetried{IncidentID: st.Incidents[0].ID, Retries: 1}, t0)
			st = roundTrip(t, st) // a restart between the listener and the change
			st, _ = run(t, taskListenersFile, st, JobCompleted{Key: j.ID}, t0)
			if a := waitAt(t, st, WaitTask, "review").Assignee; a != "anna" {
				t.Fatalf("assignee %q after the retried listener", a)
			}
		}},
		{"an interrupting boundary event withdraws the listener's job with the task", func(t *testing.T, st *State) {
			st = claimed(t, st)
			task := waitAt(t, st, WaitTask, "review")
			st, _ = run(t, taskListenersFile, st, TaskCompleted{TaskID: task.ID, User: "anna"}, t0)
			eventListenerJob(t, st, "completing", "review", "audit-completion", 0)
			st, _ = run(t, taskListenersFile, st, TimerFired{WaitID: waitAt(t, st, WaitTimer, "late").ID}, t0.Add(time.Hour))
			if st.Status != StatusCompleted {
				t.Fatalf("status %s", st.Status)
			}
			assertClean(t, st)
		}},
		{"a result on a job that is no task listener's is refused", func(t *testing.T, st *State) {
			_, _, err := Step(mustProcess(t, endListenersFile), mustStartState(t, endListenersFile), JobCompleted{Key: "i1-w000001", Result: &JobResult{Denied: true}}, t0, Options{})
			if !errors.Is(err, ErrInvalidTransition) {
				t.Fatalf("err %v, want ErrInvalidTransition", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, _ := mustStart(t, mustProcess(t, taskListenersFile), nil)
			tt.check(t, st)
		})
	}
}

// mustStartState starts the process of file with no variables.
func mustStartState(t *testing.T, file string) *State {
	t.Helper()
	st, _ := mustStart(t, mustProcess(t, file), nil)
	return st
}
