package engine

import (
	"reflect"
	"testing"

	"github.com/gobpm/gobpm/internal/scope"
)

// scopeParts returns the keys of the scope parts a step changed.
func scopeParts(fx Effects) []string {
	var out []string
	for _, p := range fx.Changed {
		if p.Kind == PartScope {
			out = append(out, p.Key)
		}
	}
	return out
}

// TestJobFailedVariables checks that a failure's variables become local
// variables of the job's task (Camunda 8's FailJob variables): in the
// task's io scope, opened for them when the task has none, visible to the
// job's next attempt, never propagated, dropped with the task; without
// variables a failure changes no scope.
func TestJobFailedVariables(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		file  string
		node  string
		vars  map[string]any
		check func(t *testing.T, file string, before, st *State, fx Effects, key string)
	}{{
		name: "a task without mappings gets an io scope for them",
		file: "job.bpmn", node: "charge",
		vars: map[string]any{"attempt": 1.0, "why": map[string]any{"code": "E1"}},
		check: func(t *testing.T, file string, _, st *State, fx Effects, key string) {
			w := st.Wait(key)
			io := st.Scopes.Get(w.ScopeID)
			if io == nil || io.Kind != scopeKindIO || io.NodeID != "charge" || io.Parent != scope.RootID {
				t.Fatalf("job's scope %+v, want an io scope of charge under the root", io)
			}
			if tr := st.Track(w.TrackID); tr == nil || tr.Scope != io.ID {
				t.Fatalf("track %+v not in the io scope %s", tr, io.ID)
			}
			if !reflect.DeepEqual(io.Vars, map[string]any{"attempt": 1.0, "why": map[string]any{"code": "E1"}}) {
				t.Errorf("io scope variables %v", io.Vars)
			}
			if _, ok := st.Scopes.Get(scope.RootID).Vars["attempt"]; ok {
				t.Error("a failure variable reached the root scope")
			}
			if f := factsOf(fx, FactVariableSet); len(f) != 2 || f[0].Detail["name"] != "attempt" || f[0].ScopeID != io.ID || f[1].Detail["name"] != "why" {
				t.Errorf("variable facts %+v", f)
			}
			if f := factsOf(fx, FactScopeOpened); len(f) != 1 || f[0].NodeID != "charge" {
				t.Errorf("scope facts %+v", f)
			}
			if got := st.Scopes.Visible(w.ScopeID)["attempt"]; got != 1.0 {
				t.Errorf("the job's next attempt sees attempt = %v", got)
			}
			// A second failure writes into the same scope.
			st, fx = run(t, file, st, JobFailed{Key: key, Retries: 1, Variables: map[string]any{"attempt": 2.0}}, t0)
			if st.Wait(key).ScopeID != io.ID || len(factsOf(fx, FactScopeOpened)) != 0 || st.Scopes.Get(io.ID).Vars["attempt"] != 2.0 {
				t.Fatalf("second failure: job scope %s, scope facts %v, vars %v", st.Wait(key).ScopeID, factsOf(fx, FactScopeOpened), st.Scopes.Get(io.ID).Vars)
			}
			// The completion's variables propagate; the locals go with the task.
			st, _ = run(t, file, st, JobCompleted{Key: key, Variables: map[string]any{"charged": true}}, t0)
			root := st.Scopes.Get(scope.RootID).Vars
			if st.Status != StatusCompleted || root["charged"] != true || root["attempt"] != nil || st.Scopes.Get(io.ID) != nil {
				t.Fatalf("after completion: status %s root %v io %v", st.Status, root, st.Scopes.Get(io.ID))
			}
		},
	}, {
		name: "a task with mappings keeps them in its io scope",
		file: "io_zeebe.bpmn", node: "charge",
		vars: map[string]any{"attempt": 1.0},
		check: func(t *testing.T, file string, before, st *State, fx Effects, key string) {
			w := st.Wait(key)
			if w.ScopeID != before.Wait(key).ScopeID || len(factsOf(fx, FactScopeOpened)) != 0 {
				t.Fatalf("job moved from %s to %s", before.Wait(key).ScopeID, w.ScopeID)
			}
			io := st.Scopes.Get(w.ScopeID)
			if _, ok := io.Vars["double"]; io.Vars["attempt"] != 1.0 || !ok {
				t.Fatalf("io scope variables %v", io.Vars)
			}
			if got := scopeParts(fx); !reflect.DeepEqual(got, []string{string(io.ID)}) {
				t.Errorf("changed scopes %v, want the io scope alone", got)
			}
			st, _ = run(t, file, st, JobCompleted{Key: key, Variables: map[string]any{"status": "paid"}}, t0)
			if root := st.Scopes.Get(scope.RootID).Vars; root["attempt"] != nil || root["shout"] != "paid!" {
				t.Errorf("after completion the root holds %v", root)
			}
		},
	}, {
		name: "without variables no scope changes",
		file: "job.bpmn", node: "charge",
		check: func(t *testing.T, _ string, before, st *State, fx Effects, key string) {
			if st.Wait(key).ScopeID != before.Wait(key).ScopeID || len(scopeParts(fx)) != 0 || len(factsOf(fx, FactVariableSet)) != 0 {
				t.Errorf("scope %s, changed scopes %v, variable facts %v", st.Wait(key).ScopeID, scopeParts(fx), factsOf(fx, FactVariableSet))
			}
		},
	}, {
		name: "the last failure sets them and opens the incident",
		file: "job.bpmn", node: "charge",
		vars: map[string]any{"lastError": "down"},
		check: func(t *testing.T, file string, _, st *State, _ Effects, key string) {
			st, _ = run(t, file, st, JobFailed{Key: key, Retries: 0, ErrorMessage: "down", Variables: map[string]any{"attempt": 2.0}}, t0)
			w := st.Wait(key)
			if len(st.Incidents) != 1 || st.Status != StatusFailed {
				t.Fatalf("incidents %+v status %s", st.Incidents, st.Status)
			}
			vars := st.Scopes.Get(w.ScopeID).Vars
			if vars["lastError"] != "down" || vars["attempt"] != 2.0 {
				t.Errorf("task locals %v", vars)
			}
			st, _ = run(t, file, st, IncidentRetried{IncidentID: st.Incidents[0].ID, Retries: 1}, t0)
			if st.Scopes.Get(st.Wait(key).ScopeID).Vars["lastError"] != "down" {
				t.Errorf("the retried job lost the failure's variables: job %+v scopes %+v", st.Wait(key), st.Scopes.All())
			}
		},
	}, {
		name: "an interrupted task drops them",
		file: "job.bpmn", node: "charge",
		vars: map[string]any{"attempt": 1.0},
		check: func(t *testing.T, file string, _, st *State, _ Effects, key string) {
			io := st.Wait(key).ScopeID
			st, _ = run(t, file, st, JobErrorThrown{Key: key, Code: "CARD_DECLINED"}, t0)
			if st.Status != StatusCompleted || st.Scopes.Get(io) != nil || st.Scopes.Get(scope.RootID).Vars["attempt"] != nil {
				t.Errorf("status %s io %v root %v", st.Status, st.Scopes.Get(io), st.Scopes.Get(scope.RootID).Vars)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, _ := mustStart(t, mustProcess(t, tt.file), map[string]any{"amount": 3.0, "name": "Ann"})
			key := waitAt(t, st, WaitJob, tt.node).ID
			next, fx := run(t, tt.file, st, JobFailed{Key: key, Retries: 1, Jitter: 0.5, ErrorMessage: "timeout", Variables: tt.vars}, t0)
			if w := next.Wait(key); w == nil || w.Retries != 1 || w.ErrorMessage != "timeout" {
				t.Fatalf("job after the failure: %+v", w)
			}
			tt.check(t, tt.file, st, next, fx, key)
		})
	}
}

// TestRouterJobFailedVariables checks that a router job's failure writes
// its variables into the region's scope.
func TestRouterJobFailedVariables(t *testing.T) {
	t.Parallel()
	const file = "adhoc_job.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	w := routerJob(t, st, "region")
	st, fx := run(t, file, st, JobFailed{Key: w.ID, Retries: 1, Variables: map[string]any{"routerTried": true}}, t0)
	r := st.Wait(w.ID)
	if got := st.Scopes.Get(r.ScopeID).Vars["routerTried"]; got != true {
		t.Fatalf("region scope variables %v", st.Scopes.Get(r.ScopeID).Vars)
	}
	if st.Scopes.Get(scope.RootID).Vars["routerTried"] != nil {
		t.Error("the variable reached the root")
	}
	if f := factsOf(fx, FactVariableSet); len(f) != 1 || f[0].ScopeID != r.ScopeID {
		t.Errorf("variable facts %+v", f)
	}
}

// TestMigrateKeepsFailureVariables migrates an instance whose task holds a
// failure's variables in the io scope opened for them: the scope is no
// mapping's, so a target without mappings takes it, variables and all.
func TestMigrateKeepsFailureVariables(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "job.bpmn")
	st, _ := mustStart(t, p, nil)
	key := waitAt(t, st, WaitJob, "charge").ID
	st, _ = run(t, "job.bpmn", st, JobFailed{Key: key, Retries: 1, Variables: map[string]any{"lastTry": "down"}}, t0)
	m := Migrate{Target: p, TargetVersion: 2}
	if ps := CheckMigration(p, st, m, Options{}); len(ps) != 0 {
		t.Fatalf("migration problems: %+v", ps)
	}
	next, _, err := Step(p, st, m, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := next.Scopes.Get(next.Wait(key).ScopeID).Vars["lastTry"]; got != "down" {
		t.Errorf("after the migration the task's locals hold lastTry = %v", got)
	}
}
