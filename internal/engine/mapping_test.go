package engine

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/scope"
)

// ioStage is one step of a mapping scenario and what must hold after it.
type ioStage struct {
	// act builds the step's event from the state (nil: the start).
	act func(t *testing.T, st *State) Event
	// waitAt names a wait's node; sees lists variables visible from its
	// scope (what a job worker or a task form gets).
	waitAt string
	sees   map[string]any
	// root lists root variables; absent names that must not be there.
	root   map[string]any
	absent []string
	status string
	// incident is a substring of the one open incident's message.
	incident string
	// scopes is the number of open scopes, the root included (0: unchecked).
	scopes int
}

func completeJob(node string, vars map[string]any) func(*testing.T, *State) Event {
	return func(t *testing.T, st *State) Event {
		return JobCompleted{Key: waitAt(t, st, WaitJob, node).ID, Variables: vars}
	}
}

func completeTaskAt(node string, vars map[string]any) func(*testing.T, *State) Event {
	return func(t *testing.T, st *State) Event {
		return TaskCompleted{TaskID: waitAt(t, st, WaitTask, node).ID, User: "u", Variables: vars}
	}
}

func deliverAt(node string, vars map[string]any) func(*testing.T, *State) Event {
	return func(t *testing.T, st *State) Event {
		return MessageDelivered{WaitID: waitAt(t, st, WaitMessage, node).ID, Variables: vars}
	}
}

func setRoot(vars map[string]any) func(*testing.T, *State) Event {
	return func(*testing.T, *State) Event { return VariablesSet{Variables: vars} }
}

func retryIncident(t *testing.T, st *State) Event {
	if len(st.Incidents) != 1 {
		t.Fatalf("want one incident to retry, have %+v", st.Incidents)
	}
	return IncidentRetried{IncidentID: st.Incidents[0].ID}
}

// normalize turns values into their JSON form, so json.Number and
// numbers written in a test compare equal.
func normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func checkVars(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: no variable %q in %v", what, k, got)
			continue
		}
		if !reflect.DeepEqual(normalize(t, g), normalize(t, w)) {
			t.Errorf("%s: %s = %#v, want %#v", what, k, g, w)
		}
	}
}

func TestMappings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file string
		vars       map[string]any
		stages     []ioStage
	}{
		{
			name: "Camunda 7: inputs are the job's locals, job variables propagate, outputs read both", file: "io_c7.bpmn",
			vars: map[string]any{"amount": num("21"), "name": "Ann"},
			stages: []ioStage{
				{waitAt: "charge", sees: map[string]any{
					"label": "order", "double": 42, "greeting": "Hello Ann!", "nothing": nil,
					"lines": []any{"a", 21, []any{"nested"}}, "meta": map[string]any{"by": "Ann", "tags": []any{"x"}},
					"earlierUnseen": true, "amount": 21,
				}, absent: []string{"label", "double", "greeting", "lines", "meta"}, scopes: 2},
				// label exists locally, so the job's label stays local (Camunda 7's setVariable).
				{act: completeJob("charge", map[string]any{"result": "ok", "label": "changed", "extra": num("1")}),
					root:   map[string]any{"receipt": "ok-changed", "result": "ok", "extra": 1, "amount": 21},
					absent: []string{"label", "double", "greeting", "nothing", "lines", "meta"}, scopes: 1, waitAt: "after"},
				{act: completeTaskAt("after", nil), status: StatusCompleted},
			},
		},
		{
			name: "Zeebe: inputs see earlier inputs and build nested targets, only mapped outputs propagate", file: "io_zeebe.bpmn",
			vars: map[string]any{"amount": num("21"), "name": "Ann", "order": map[string]any{"id": "o-1", "total": num("5")}},
			stages: []ioStage{
				{waitAt: "charge", sees: map[string]any{
					"double": 42, "plusOne": 43, "sender": map[string]any{"email": "demo@example.com", "name": "Ann"}, "nothing": nil,
				}, absent: []string{"double", "plusOne", "sender", "nothing"}, scopes: 2},
				// The job's variables stay local: double=0 overrides the input for the outputs.
				{act: completeJob("charge", map[string]any{"status": "paid", "secret": "x", "double": num("0")}),
					root: map[string]any{
						"order":   map[string]any{"id": "o-1", "total": 5, "status": "paid"},
						"doubled": 0, "shout": "paid!",
					},
					absent: []string{"status", "secret", "double", "plusOne", "sender"},
					waitAt: "notify", sees: map[string]any{"id": "o-1"}, scopes: 2},
				// Without output mappings the job's variables propagate as usual.
				{act: completeJob("notify", map[string]any{"notified": true}),
					root: map[string]any{"notified": true}, absent: []string{"id"}, scopes: 1},
				{act: completeTaskAt("after", nil), status: StatusCompleted},
			},
		},
		{
			name: "gobpm: a user task sees its inputs; a script's result stays local under outputs", file: "io_gobpm.bpmn",
			vars: map[string]any{"customer": map[string]any{"name": "Ann", "limit": num("500")}},
			stages: []ioStage{
				{waitAt: "review", sees: map[string]any{"who": "Ann", "big": true}, absent: []string{"who", "big"}},
				{act: completeTaskAt("review", map[string]any{"approved": true, "comment": "fine"}),
					root:   map[string]any{"decision": true, "reviewed": map[string]any{"by": "Ann"}, "twice": 14},
					absent: []string{"approved", "comment", "who", "big", "sum", "x"}, status: StatusCompleted, scopes: 1},
			},
		},
		{
			name: "sub-process, catch and boundary events map like tasks", file: "io_scopes.bpmn",
			vars: map[string]any{"amount": num("2"), "id": "k"},
			stages: []ioStage{
				{root: map[string]any{"fromSub": 3, "innerResult": 20}, absent: []string{"local"}, scopes: 2},
				{act: deliverAt("wait", map[string]any{"payload": map[string]any{"code": num("7")}, "other": num("1")}),
					root: map[string]any{"code": 7}, absent: []string{"payload", "other"}},
				{act: deliverAt("poked", map[string]any{"reason": "late", "junk": true}),
					root: map[string]any{"pokeReason": "late"}, absent: []string{"reason", "junk"}, waitAt: "review"},
				{act: completeTaskAt("review", nil), status: StatusCompleted, scopes: 1},
			},
		},
		{
			name: "multi-instance: mappings apply per iteration, outputs feed the output element", file: "io_mi.bpmn",
			vars: map[string]any{"items": []any{num("1"), num("2")}},
			stages: []ioStage{
				{act: completeTaskAt("approve", map[string]any{"decision": "ok"})},
				{act: completeTaskAt("approve", map[string]any{"decision": "no"}),
					root: map[string]any{"results": []any{"ok-10", "no-20"}}, absent: []string{"res", "decision", "scaled", "item"},
					status: StatusCompleted, scopes: 1},
			},
		},
		{
			name: "a failing input or output is an incident; retry after fixing the data", file: "io_errors.bpmn",
			stages: []ioStage{
				{status: StatusFailed, incident: "input mapping 1 (value) of prep: juel", scopes: 1},
				{act: setRoot(map[string]any{"missing": num("5")}), status: StatusFailed},
				{act: retryIncident, waitAt: "prep", sees: map[string]any{"value": 5}, absent: []string{"value"}, status: StatusRunning, scopes: 2},
				{act: completeJob("prep", nil), waitAt: "finish"},
				// Outputs are all or nothing: "first" is not written while "state" fails.
				{act: completeTaskAt("finish", map[string]any{"note": "x"}), status: StatusFailed,
					incident: "output mapping 2 (state) of finish", absent: []string{"first", "state", "note"}, scopes: 2},
				{act: setRoot(map[string]any{"ok": true})},
				{act: retryIncident, root: map[string]any{"first": "first", "state": "done"}, absent: []string{"note"},
					status: StatusCompleted, scopes: 1},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := mustProcess(t, tt.file)
			var st *State
			for i, sg := range tt.stages {
				if i == 0 && sg.act == nil {
					st, _ = mustStart(t, p, tt.vars)
				} else {
					if st == nil {
						st, _ = mustStart(t, p, tt.vars)
					}
					st, _ = run(t, tt.file, st, sg.act(t, st), t0)
				}
				where := tt.name + " stage " + string(rune('0'+i))
				root := st.Scopes.Get(scope.RootID).Vars
				checkVars(t, where+" root", root, sg.root)
				for _, name := range sg.absent {
					if _, ok := root[name]; ok {
						t.Errorf("%s: %q reached the root: %v", where, name, root[name])
					}
				}
				if sg.waitAt != "" {
					var found *Wait
					for _, w := range st.Waits {
						if w.NodeID == sg.waitAt && !w.Boundary {
							found = w
						}
					}
					if found == nil {
						t.Fatalf("%s: no wait at %s: %+v", where, sg.waitAt, st.Waits)
					}
					checkVars(t, where+" seen by "+sg.waitAt, st.Scopes.Visible(found.ScopeID), sg.sees)
				}
				if sg.status != "" && st.Status != sg.status {
					t.Errorf("%s: status %s, want %s (incidents %+v)", where, st.Status, sg.status, st.Incidents)
				}
				if sg.incident != "" && (len(st.Incidents) != 1 || !strings.Contains(st.Incidents[0].Message, sg.incident)) {
					t.Errorf("%s: incidents %+v, want one about %q", where, st.Incidents, sg.incident)
				}
				if sg.scopes != 0 && len(st.Scopes.All()) != sg.scopes {
					t.Errorf("%s: %d open scopes, want %d", where, len(st.Scopes.All()), sg.scopes)
				}
			}
		})
	}
}

// TestMappingEdges covers what leaves an element's io scope other than its
// completion: boundary events (interrupting: no outputs, the locals are
// discarded; non-interrupting: the new track runs in the enclosing scope),
// a caught error, an inclusive join upstream of a mapped task, a
// sub-process whose outputs fail (retry, or interrupted meanwhile), and end
// events with mappings.
func TestMappingEdges(t *testing.T) {
	t.Parallel()
	rootVars := func(st *State) map[string]any { return st.Scopes.Get(scope.RootID).Vars }
	t.Run("interrupting timer discards the locals", func(t *testing.T) {
		t.Parallel()
		const file = "io_boundary.bpmn"
		st, _ := mustStart(t, mustProcess(t, file), map[string]any{"id": "k"})
		if len(st.Scopes.All()) != 2 {
			t.Fatalf("scopes %d", len(st.Scopes.All()))
		}
		st, _ = run(t, file, st, TimerFired{WaitID: waitAt(t, st, WaitTimer, "late").ID}, t0.Add(time.Hour))
		task := waitAt(t, st, WaitTask, "lateTask")
		if task.ScopeID != scope.RootID || len(st.Scopes.All()) != 1 || len(st.Waits) != 1 {
			t.Fatalf("late task in %s, scopes %d, waits %+v", task.ScopeID, len(st.Scopes.All()), st.Waits)
		}
		if _, ok := rootVars(st)["out"]; ok {
			t.Error("an interrupted activity's outputs were applied")
		}
		st, _ = complete(t, file, st, "lateTask")
		assertClean(t, st)
	})
	t.Run("a caught error leaves the io scope", func(t *testing.T) {
		t.Parallel()
		const file = "io_boundary.bpmn"
		st, _ := mustStart(t, mustProcess(t, file), map[string]any{"id": "k"})
		st, fx := run(t, file, st, JobErrorThrown{Key: waitAt(t, st, WaitJob, "work").ID, Code: "E"}, t0)
		if got := activated(fx); !reflect.DeepEqual(got, []string{"failed", "failedEnd"}) {
			t.Errorf("activated %v", got)
		}
		assertClean(t, st)
	})
	t.Run("non-interrupting boundary runs in the enclosing scope", func(t *testing.T) {
		t.Parallel()
		const file = "io_boundary.bpmn"
		st, _ := mustStart(t, mustProcess(t, file), map[string]any{"id": "k"})
		st, _ = run(t, file, st, MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "noted").ID, Variables: map[string]any{"text": "hi"}}, t0)
		if rootVars(st)["note"] != "hi" || rootVars(st)["text"] != nil {
			t.Errorf("root %v", rootVars(st))
		}
		job := waitAt(t, st, WaitJob, "work")
		if job.ScopeID == scope.RootID || len(st.Tracks) != 1 {
			t.Fatalf("job scope %s, tracks %+v", job.ScopeID, st.Tracks)
		}
		st, _ = run(t, file, st, JobCompleted{Key: job.ID}, t0)
		if rootVars(st)["out"] != num("1") {
			t.Errorf("out = %v", rootVars(st)["out"])
		}
		assertClean(t, st)
	})
	t.Run("an inclusive join waits for a mapped task upstream", func(t *testing.T) {
		t.Parallel()
		const file = "io_join.bpmn"
		st, _ := mustStart(t, mustProcess(t, file), nil)
		if st.Status != StatusRunning || !hasWaitAt(st, "a") {
			t.Fatalf("the join fired early: status %s, tracks %+v", st.Status, st.Tracks)
		}
		st, fx := run(t, file, st, JobCompleted{Key: waitAt(t, st, WaitJob, "a").ID}, t0)
		if got := activated(fx); !reflect.DeepEqual(got, []string{"join", "end"}) {
			t.Errorf("activated %v", got)
		}
		assertClean(t, st)
	})
	t.Run("a sub-process's failing outputs: retry", func(t *testing.T) {
		t.Parallel()
		const file = "io_sub_fail.bpmn"
		st, _ := mustStart(t, mustProcess(t, file), nil)
		task := waitAt(t, st, WaitTask, "inner")
		if v, _ := st.Scopes.Lookup(task.ScopeID, "mine"); v != "local" {
			t.Fatalf("the inner task sees mine = %v", v)
		}
		st, _ = complete(t, file, st, "inner")
		if st.Status != StatusFailed || len(st.Incidents) != 1 || !strings.Contains(st.Incidents[0].Message, "output mapping 1 (r) of sub") {
			t.Fatalf("status %s incidents %+v", st.Status, st.Incidents)
		}
		st, _ = run(t, file, st, VariablesSet{Variables: map[string]any{"ok": true}}, t0)
		st, _ = run(t, file, st, IncidentRetried{IncidentID: st.Incidents[0].ID}, t0)
		if rootVars(st)["r"] != "local" {
			t.Errorf("r = %v", rootVars(st)["r"])
		}
		assertClean(t, st)
	})
	t.Run("a sub-process's failing outputs: interrupted meanwhile", func(t *testing.T) {
		t.Parallel()
		const file = "io_sub_fail.bpmn"
		st, _ := mustStart(t, mustProcess(t, file), nil)
		st, _ = complete(t, file, st, "inner")
		st, fx := run(t, file, st, TimerFired{WaitID: waitAt(t, st, WaitTimer, "late").ID}, t0.Add(time.Hour))
		if got := activated(fx); !reflect.DeepEqual(got, []string{"late", "lateEnd"}) {
			t.Errorf("activated %v", got)
		}
		assertClean(t, st)
	})
	t.Run("start events: a None start maps on top, a message start and a handler's start keep their payload", func(t *testing.T) {
		t.Parallel()
		const file = "io_starts.bpmn"
		p := mustProcess(t, file)
		st, _ := mustStart(t, p, map[string]any{"amount": num("1"), "id": "k"})
		hasVars := func(what string, want map[string]any, absent ...string) {
			t.Helper()
			checkVars(t, what, rootVars(st), want)
			for _, name := range absent {
				if _, ok := rootVars(st)[name]; ok {
					t.Errorf("%s: %q reached the root", what, name)
				}
			}
		}
		hasVars("none start", map[string]any{"amount": 1, "plusOne": 2})
		var handler *Wait
		for _, w := range st.Waits {
			if w.Handler && w.NodeID == "onPing" {
				handler = w
			}
		}
		if handler == nil {
			t.Fatalf("no handler armed: %+v", st.Waits)
		}
		st, _ = run(t, file, st, MessageDelivered{WaitID: handler.ID, Variables: map[string]any{"reason": "r", "junk": true}}, t0)
		hasVars("handler start", map[string]any{"pingReason": "r"}, "reason", "junk")

		st, _, err := Step(p, NewState("i2", p.ID, 1), Start{StartNode: "byMessage", Variables: map[string]any{"payload": map[string]any{"x": num("5")}, "junk": true}}, t0, Options{})
		if err != nil {
			t.Fatal(err)
		}
		hasVars("message start", map[string]any{"x": 5}, "payload", "junk")
		if len(st.Scopes.All()) != 1 || !hasWaitAt(st, "work") {
			t.Errorf("scopes %d waits %+v", len(st.Scopes.All()), st.Waits)
		}
	})
	t.Run("end events: a job sees its inputs, a terminate leaves its io scope, outputs are applied", func(t *testing.T) {
		t.Parallel()
		const file = "io_end.bpmn"
		st, _ := mustStart(t, mustProcess(t, file), map[string]any{"name": "Ann"})
		job := waitAt(t, st, WaitJob, "notify")
		if v, _ := st.Scopes.Lookup(job.ScopeID, "text"); v != "Bye Ann" {
			t.Errorf("the end event's job sees text = %v", v)
		}
		if rootVars(st)["summary"] != "sub done" || hasWaitAt(st, "never") {
			t.Errorf("root %v, waits %+v", rootVars(st), st.Waits)
		}
		st, _ = run(t, file, st, JobCompleted{Key: job.ID}, t0)
		assertClean(t, st)
	})
}
