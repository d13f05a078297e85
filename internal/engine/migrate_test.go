package engine

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// migrateStart starts migrate_v1.bpmn: a token waits in every wait kind.
func migrateStart(t *testing.T) *State {
	t.Helper()
	p := mustProcess(t, "migrate_v1.bpmn")
	st, _ := mustStart(t, p, map[string]any{"orderId": "o-7"})
	if st.Status != StatusRunning {
		t.Fatalf("status %s", st.Status)
	}
	return st
}

// problemElements returns the elements the problems name, sorted, once each.
func problemElements(ps []MigrationProblem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Element)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// waitOf returns the one wait at node (of kind, when given).
func waitOf(t *testing.T, st *State, node string, kind WaitKind) *Wait {
	t.Helper()
	var found []*Wait
	for _, w := range st.Waits {
		if w.NodeID == node && (kind == "" || w.Kind == kind) {
			found = append(found, w)
		}
	}
	if len(found) == 0 {
		t.Fatalf("no %s wait at %s; waits at %v", kind, node, waitNodes(st))
	}
	return found[0]
}

func TestCheckMigrationRefuses(t *testing.T) {
	t.Parallel()
	v1 := mustProcess(t, "migrate_v1.bpmn")
	v2 := mustProcess(t, "migrate_v2.bpmn")
	v3 := mustProcess(t, "migrate_v3.bpmn")
	st := migrateStart(t)
	tests := []struct {
		name     string
		target   *bpmn.Process
		mapping  map[string]string
		elements []string // the source elements the problems name
		says     []string // substrings some problem must contain
	}{
		{
			name: "default mapping misses renamed elements", target: v2,
			elements: []string{"B", "inner", "msg", "sub"},
			says: []string{"inner is inside sub but inner is inside sub2; an element must stay inside the target of its container (sub)",
				`element msg is active and maps to "msg" (the same id), which the target version does not have`,
				`scope of sub is active`, `B is offered in region but "B" (the same id) is not an activity of region`},
		},
		{
			name: "kinds, containers and multi-instance differ", target: v3,
			elements: []string{"each", "inner", "job", "wait"},
			says: []string{"job is a serviceTask but job in the target version is a userTask",
				"wait waits for a timer but wait catches no timer",
				"inner is inside sub but inner is inside the process level",
				"each is a multi-instance or loop activity but each is not"},
		},
		{
			name: "mapping names unknown elements", target: v2,
			mapping:  map[string]string{"nope": "job", "msg": "gone", "sub": "sub2", "B": "C"},
			elements: []string{"msg", "nope"},
			says:     []string{`the source version of migr has no element "nope"`, `msg maps to "gone", which the target version of migr does not have`},
		},
		{
			name: "an element leaves its container", target: v2,
			mapping:  map[string]string{"msg": "msg2", "sub": "sub2", "B": "C", "inner": "job"},
			elements: []string{"inner"},
			says:     []string{"inner is inside sub but job is inside the process level; an element must stay inside the target of its container (sub2)"},
		},
		{
			name: "a job cannot become a timer", target: v2,
			mapping:  map[string]string{"msg": "msg2", "sub": "sub2", "B": "C", "job": "wait"},
			elements: []string{"job"},
			says:     []string{"job is a serviceTask but wait in the target version is a intermediateCatchEvent"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := Migrate{Target: tc.target, TargetVersion: 2, Mapping: tc.mapping}
			ps := CheckMigration(v1, st, m, Options{})
			if got := problemElements(ps); !reflect.DeepEqual(got, tc.elements) {
				t.Fatalf("problems name %v, want %v: %+v", got, tc.elements, ps)
			}
			for _, want := range tc.says {
				if !slices.ContainsFunc(ps, func(p MigrationProblem) bool { return strings.Contains(p.Message, want) }) {
					t.Errorf("no problem says %q: %+v", want, ps)
				}
			}
			// The step refuses the same plan and changes nothing.
			_, _, err := Step(v1, st, m, t0.Add(time.Minute), Options{})
			var me *MigrationError
			if !errors.Is(err, ErrInvalidMigration) || !errors.As(err, &me) || len(me.Problems) != len(ps) {
				t.Fatalf("step: %v", err)
			}
		})
	}
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	v1 := mustProcess(t, "migrate_v1.bpmn")
	v2 := mustProcess(t, "migrate_v2.bpmn")
	st := migrateStart(t)
	before := waitOf(t, st, "job", WaitJob).ID
	timerDue := waitOf(t, st, "wait", WaitTimer).DueAt
	m := Migrate{Target: v2, TargetVersion: 2, By: "olga",
		Mapping: map[string]string{"msg": "msg2", "sub": "sub2", "B": "C"}}
	if ps := CheckMigration(v1, st, m, Options{}); len(ps) != 0 {
		t.Fatalf("problems: %+v", ps)
	}
	next, fx, err := Step(v1, st, m, t0.Add(time.Minute), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if next.ProcessVersion != 2 || next.Status != StatusRunning {
		t.Fatalf("version %d status %s", next.ProcessVersion, next.Status)
	}
	mig := factsOf(fx, FactInstanceMigrated)
	if len(mig) != 1 || mig[0].Detail["fromVersion"] != 1 || mig[0].Detail["toVersion"] != 2 || mig[0].Detail["by"] != "olga" {
		t.Fatalf("migrated facts %+v", mig)
	}
	if got := mig[0].Detail["mapping"]; !reflect.DeepEqual(got, map[string]any{"msg": "msg2", "sub": "sub2", "B": "C"}) {
		t.Errorf("mapping detail %v", got)
	}
	t.Run("job follows its element with the target's type", func(t *testing.T) {
		w := waitOf(t, next, "job", WaitJob)
		if w.ID != before || w.Name != "pay2" {
			t.Errorf("job %s %q, want %s pay2", w.ID, w.Name, before)
		}
	})
	t.Run("boundary events re-armed from the target", func(t *testing.T) {
		if slices.Contains(waitNodes(next), "jobLate") {
			t.Errorf("the timer boundary of v1 is still armed: %v", waitNodes(next))
		}
		if w := waitOf(t, next, "jobAbort", WaitMessage); !w.Boundary || w.Name != "abort" || w.CorrelationKey != "o-7" {
			t.Errorf("jobAbort %+v", w)
		}
		if !slices.Contains(fx.RemovedWaits, waitOf(t, st, "jobLate", WaitTimer).ID) {
			t.Errorf("jobLate not reported removed: %v", fx.RemovedWaits)
		}
	})
	t.Run("user task keeps its assignee and takes the target's candidates", func(t *testing.T) {
		w := waitOf(t, next, "review", WaitTask)
		if w.Name != "Review order" || w.Assignee != "ann" || !reflect.DeepEqual(w.CandidateGroups, []string{"clerks"}) {
			t.Errorf("task %+v", w)
		}
	})
	t.Run("timer keeps its due time", func(t *testing.T) {
		if w := waitOf(t, next, "wait", WaitTimer); !w.DueAt.Equal(timerDue) {
			t.Errorf("due %v, want %v", w.DueAt, timerDue)
		}
	})
	t.Run("message subscription follows the renamed element", func(t *testing.T) {
		if w := waitOf(t, next, "msg2", WaitMessage); w.Name != "ping2" || w.CorrelationKey != "o-7" {
			t.Errorf("subscription %+v", w)
		}
	})
	t.Run("nested scope renamed with its path", func(t *testing.T) {
		w := waitOf(t, next, "inner", WaitJob)
		sc := next.Scopes.Get(w.ScopeID)
		if sc == nil || sc.NodeID != "sub2" || sc.Path != "/sub2" {
			t.Errorf("scope of inner %+v", sc)
		}
	})
	t.Run("multi-instance body and iterations move", func(t *testing.T) {
		n := 0
		for _, w := range next.Waits {
			if w.NodeID == "each" {
				n++
				if w.Name != "each2" {
					t.Errorf("iteration job %q", w.Name)
				}
			}
		}
		if n != 2 || len(next.Bodies) != 1 || next.Bodies[0].NodeID != "each" {
			t.Errorf("%d iteration jobs, bodies %+v", n, next.Bodies)
		}
	})
	t.Run("ad-hoc offer renamed", func(t *testing.T) {
		if len(next.Regions) != 1 || !reflect.DeepEqual(next.Regions[0].Offer, []string{"A", "C"}) {
			t.Errorf("regions %+v", next.Regions[0])
		}
	})
	t.Run("event sub-processes re-armed from the target", func(t *testing.T) {
		nodes := waitNodes(next)
		if slices.Contains(nodes, "onCancel") {
			t.Errorf("v1's handler still armed: %v", nodes)
		}
		if w := waitOf(t, next, "onRemind", WaitSignal); !w.Handler || w.Name != "remind" {
			t.Errorf("onRemind %+v", w)
		}
	})
	t.Run("the migrated instance runs on", func(t *testing.T) {
		job := waitOf(t, next, "job", WaitJob)
		after, _, err := Step(v2, next, JobCompleted{Key: job.ID}, t0.Add(2*time.Minute), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(waitNodes(after), "jobAbort") || slices.Contains(waitNodes(after), "job") {
			t.Errorf("waits after the job: %v", waitNodes(after))
		}
		sig := waitOf(t, after, "onRemind", WaitSignal)
		after, _, err = Step(v2, after, SignalDelivered{Name: sig.Name}, t0.Add(3*time.Minute), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if after.Status != StatusRunning {
			t.Errorf("status %s", after.Status)
		}
	})
}

func TestMigrateSameVersionChangesNothingButTheVersion(t *testing.T) {
	t.Parallel()
	v1 := mustProcess(t, "migrate_v1.bpmn")
	st := migrateStart(t)
	next, fx, err := Step(v1, st, Migrate{Target: v1, TargetVersion: 3}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(waitNodes(next), waitNodes(st)) || len(next.Tracks) != len(st.Tracks) || next.ProcessVersion != 3 {
		t.Errorf("waits %v → %v, version %d", waitNodes(st), waitNodes(next), next.ProcessVersion)
	}
	if len(fx.RemovedWaits) != 0 || len(factsOf(fx, FactHandlerArmed)) != 0 {
		t.Errorf("removed %v, armed %v", fx.RemovedWaits, factsOf(fx, FactHandlerArmed))
	}
	ended := NewState("i2", "migr", 1)
	ended.Status = StatusCompleted
	if _, _, err := Step(v1, ended, Migrate{Target: v1}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Errorf("an ended instance: %v", err)
	}
}

// TestMigrateJoinAndIncident: a token waiting at a parallel join keeps the
// flow it arrived on (renamed in the target), so the join still fires; a
// failed instance keeps its incident, at the renamed element.
func TestMigrateJoinAndIncident(t *testing.T) {
	t.Parallel()
	v1 := mustProcess(t, "migrate_join_v1.bpmn")
	v2 := mustProcess(t, "migrate_join_v2.bpmn")
	st, _ := mustStart(t, v1, nil)
	jobAt := func(st *State, node string) string { return waitOf(t, st, node, WaitJob).ID }
	st, _, err := Step(v1, st, JobCompleted{Key: jobAt(st, "a")}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, _, err = Step(v1, st, JobFailed{Key: jobAt(st, "b"), Retries: 0, ErrorMessage: "broken"}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != StatusFailed || len(st.Incidents) != 1 {
		t.Fatalf("status %s incidents %+v", st.Status, st.Incidents)
	}
	m := Migrate{Target: v2, TargetVersion: 2, Mapping: map[string]string{"b": "b2"}}
	next, fx, err := Step(v1, st, m, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if next.Status != StatusFailed || len(next.Incidents) != 1 || next.Incidents[0].NodeID != "b2" {
		t.Fatalf("after migration: %s %+v", next.Status, next.Incidents)
	}
	if len(fx.Incidents) != 1 || fx.Incidents[0].NodeID != "b2" {
		t.Errorf("incident rows %+v", fx.Incidents)
	}
	for _, tr := range next.Tracks {
		if tr.Node == "join" && tr.Via != "ga" {
			t.Errorf("the joining token arrived on %q, want ga", tr.Via)
		}
	}
	next, _, err = Step(v2, next, IncidentRetried{IncidentID: next.Incidents[0].ID, Retries: 1}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	done, _, err := Step(v2, next, JobCompleted{Key: jobAt(next, "b2")}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != StatusCompleted {
		t.Errorf("the join did not fire: %s, tracks %+v", done.Status, done.Tracks)
	}
}
