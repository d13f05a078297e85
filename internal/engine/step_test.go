package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// mustProcess parses a fixture under testdata/ and returns its only process.
func mustProcess(tb testing.TB, file string) *bpmn.Process {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		tb.Fatal(err)
	}
	defs, err := bpmn.Parse(data)
	if err != nil {
		tb.Fatalf("parse %s: %v", file, err)
	}
	if len(defs.Processes) != 1 {
		tb.Fatalf("%s: want 1 process, got %d", file, len(defs.Processes))
	}
	return defs.Processes[0]
}

// mustStart runs the Start step of a fresh instance.
func mustStart(tb testing.TB, p *bpmn.Process, vars map[string]any) (*State, Effects) {
	tb.Helper()
	st, fx, err := Step(p, NewState("i1", p.ID, 1), Start{Variables: vars}, t0, Options{})
	if err != nil {
		tb.Fatalf("start: %v", err)
	}
	return st, fx
}

// activated returns the node ids of element-activated facts in order.
func activated(fx Effects) []string {
	var out []string
	for _, f := range fx.Facts {
		if f.Kind == FactElementActivated {
			out = append(out, f.NodeID)
		}
	}
	return out
}

func factsOf(fx Effects, kind string) []Fact {
	var out []Fact
	for _, f := range fx.Facts {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

func num(s string) json.Number { return json.Number(s) }

func TestStep(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		file     string
		vars     map[string]any
		status   string
		path     []string
		vars2    map[string]any // expected root variables (subset)
		tracks   []string       // expected "node:state" of remaining tracks
		scopes   []string       // expected open scope paths besides the root
		inciKind string
	}{
		{
			name: "straight through", file: "straight.bpmn", vars: map[string]any{"amount": num("21")},
			status: StatusCompleted, path: []string{"start", "check", "calc", "end"},
			vars2: map[string]any{"amount": num("21"), "total": num("42.1")},
		},
		{
			name: "xor takes the matching flow", file: "xor.bpmn", vars: map[string]any{"amount": num("500")},
			status: StatusCompleted, path: []string{"start", "gw", "big", "end"},
		},
		{
			name: "xor falls back to the default flow", file: "xor.bpmn", vars: map[string]any{"amount": num("5")},
			status: StatusCompleted, path: []string{"start", "gw", "small", "end"},
		},
		{
			name: "xor default when the condition is null", file: "xor.bpmn", vars: map[string]any{},
			status: StatusCompleted, path: []string{"start", "gw", "small", "end"},
		},
		{
			name: "xor without match and default is an incident", file: "xor_nomatch.bpmn", vars: map[string]any{"amount": num("50")},
			status: StatusFailed, path: []string{"start", "gw"}, tracks: []string{"gw:incident"}, inciKind: IncidentNoFlow,
		},
		{
			name: "parallel fork and join", file: "parallel.bpmn",
			status: StatusCompleted, path: []string{"start", "fork", "a", "b", "join", "join", "end"},
			vars2: map[string]any{"seen": "b"},
		},
		{
			name: "unbalanced branches drain", file: "parallel_unbalanced.bpmn",
			status: StatusCompleted, path: []string{"start", "fork", "a", "b", "c", "join", "join", "endC", "end"},
		},
		{
			name: "surplus token keeps waiting at the join", file: "parallel_surplus.bpmn",
			status: StatusRunning, path: []string{"start", "fork", "a", "b", "c", "merge", "merge", "join", "join", "join", "end"},
			tracks: []string{"join:joining"},
		},
		{
			name: "sub-process with one none start", file: "subprocess.bpmn", vars: map[string]any{"name": "x"},
			status: StatusCompleted, path: []string{"start", "review", "subStart", "note", "outer", "subEnd", "end"},
			vars2: map[string]any{"name": "x", "result": "inner x!"},
		},
		{
			name: "flow-less seeding", file: "seeding.bpmn",
			status: StatusCompleted, path: []string{"start", "checks", "credit", "fraud", "fraudDone", "end"},
			vars2: map[string]any{"creditOk": true, "fraudOk": true},
		},
		{
			name: "nested sub-processes write the declaring scope", file: "nested.bpmn",
			status: StatusCompleted, path: []string{"start", "outer", "os", "init", "inner", "is", "bump", "publish", "ie", "oe", "end"},
			vars2: map[string]any{"finalCount": num("2")},
		},
		{
			name: "scoped terminate inside a sub-process", file: "terminate_sub.bpmn",
			status: StatusCompleted,
			path:   []string{"start", "fork", "work", "outside", "ws", "join", "wfork", "waitJoin", "quick", "kill", "after", "join", "end"},
			vars2:  map[string]any{"afterRan": true},
		},
		{
			name: "terminate at top level ends the instance", file: "terminate_top.bpmn",
			status: StatusCompleted, path: []string{"start", "fork", "stuck", "quick", "kill"},
		},
		{
			name: "re-entry opens two scopes at once", file: "reentry.bpmn",
			status: StatusRunning, path: []string{"start", "fork", "handle", "handle", "hs", "hs", "hold", "hold"},
			tracks: []string{"handle:in-scope", "handle:in-scope", "hold:joining", "hold:joining"},
			scopes: []string{"/handle", "/handle"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := mustProcess(t, tc.file)
			st, fx := mustStart(t, p, tc.vars)
			if st.Status != tc.status {
				t.Errorf("status = %s, want %s (incidents %+v)", st.Status, tc.status, st.Incidents)
			}
			if got := activated(fx); !reflect.DeepEqual(got, tc.path) {
				t.Errorf("path = %v\nwant   %v", got, tc.path)
			}
			root := st.Scopes.Get(scope.RootID)
			for k, want := range tc.vars2 {
				if got := root.Vars[k]; !reflect.DeepEqual(got, want) {
					t.Errorf("var %s = %#v, want %#v", k, got, want)
				}
			}
			var tracks []string
			for _, tr := range st.Tracks {
				tracks = append(tracks, tr.Node+":"+string(tr.State))
			}
			if !reflect.DeepEqual(tracks, tc.tracks) {
				t.Errorf("tracks = %v, want %v", tracks, tc.tracks)
			}
			var scopes []string
			for _, s := range st.Scopes.All() {
				if s.ID != scope.RootID {
					scopes = append(scopes, s.Path)
				}
			}
			if !reflect.DeepEqual(scopes, tc.scopes) {
				t.Errorf("scopes = %v, want %v", scopes, tc.scopes)
			}
			if tc.inciKind != "" {
				if len(st.Incidents) != 1 || st.Incidents[0].Kind != tc.inciKind {
					t.Errorf("incidents = %+v, want one %s", st.Incidents, tc.inciKind)
				}
			} else if len(st.Incidents) != 0 {
				t.Errorf("unexpected incidents %+v", st.Incidents)
			}
		})
	}
}

func TestScopedTerminateCancelsOnlyItsScope(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "terminate_sub.bpmn")
	st, fx := mustStart(t, p, nil)
	var terminated []string
	for _, f := range factsOf(fx, FactElementTerminated) {
		terminated = append(terminated, f.NodeID+"@"+f.ScopePath)
	}
	if want := []string{"waitJoin@/work"}; !reflect.DeepEqual(terminated, want) {
		t.Errorf("terminated = %v, want %v", terminated, want)
	}
	if st.Scopes.Get(scope.RootID) == nil || len(st.Scopes.All()) != 1 {
		t.Errorf("scopes left open: %v", st.Scopes.All())
	}
	closed := factsOf(fx, FactScopeClosed)
	if len(closed) != 1 || closed[0].NodeID != "work" {
		t.Errorf("scope-closed facts = %+v", closed)
	}
}

func TestReentryScopesHaveDistinctIDs(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "reentry.bpmn")
	st, _ := mustStart(t, p, nil)
	ids := map[scope.ID]bool{}
	for _, tr := range st.Tracks {
		if tr.Node == "hold" {
			ids[tr.Scope] = true
		}
	}
	if len(ids) != 2 {
		t.Fatalf("joining tracks share scopes: %+v", st.Tracks)
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "reentry.bpmn")
	st, _ := mustStart(t, p, map[string]any{"keep": "me"})
	next, fx, err := Step(p, st, Cancel{Reason: "test"}, t0.Add(time.Second), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if next.Status != StatusTerminated || len(next.Tracks) != 0 || len(next.Scopes.All()) != 1 {
		t.Fatalf("after cancel: status %s, tracks %v, scopes %v", next.Status, next.Tracks, next.Scopes.All())
	}
	if got := len(factsOf(fx, FactElementTerminated)); got != 4 {
		t.Errorf("terminated facts = %d, want 4", got)
	}
	if got := len(factsOf(fx, FactScopeCancelled)); got != 2 {
		t.Errorf("scope-cancelled facts = %d, want 2", got)
	}
	if next.Scopes.Get(scope.RootID).Vars["keep"] != "me" {
		t.Errorf("root variables lost on cancel")
	}
	if len(st.Tracks) != 4 {
		t.Errorf("Step modified its input state")
	}
	if _, _, err := Step(p, next, Cancel{}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Errorf("second cancel: err = %v, want ErrInvalidTransition", err)
	}
}

func TestCancelResolvesIncidents(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "xor_nomatch.bpmn")
	st, _ := mustStart(t, p, map[string]any{"amount": num("50")})
	next, fx, err := Step(p, st, Cancel{}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Incidents) != 0 || len(fx.Incidents) != 1 || fx.Incidents[0].Resolved.IsZero() {
		t.Fatalf("incidents after cancel: state %+v effects %+v", next.Incidents, fx.Incidents)
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"terminate_sub.bpmn", "reentry.bpmn", "nested.bpmn"} {
		p := mustProcess(t, file)
		a, fa := mustStart(t, p, map[string]any{"n": num("1")})
		b, fb := mustStart(t, p, map[string]any{"n": num("1")})
		ja, _ := a.Marshal()
		jb, _ := b.Marshal()
		if string(ja) != string(jb) || !reflect.DeepEqual(fa, fb) {
			t.Errorf("%s: two runs differ", file)
		}
	}
}

func TestCheckpointRoundTrip(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "reentry.bpmn")
	st, _ := mustStart(t, p, map[string]any{"amount": num("0.1"), "list": []any{num("1"), "x"}})
	data, err := st.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if !sameState(t, st, back) {
		t.Fatalf("round trip differs:\n%+v\n%+v", st, back)
	}
	// The restored state steps on exactly like the original.
	n1, _, _ := Step(p, st, Cancel{}, t0, Options{})
	n2, _, _ := Step(p, back, Cancel{}, t0, Options{})
	if !sameState(t, n1, n2) {
		t.Fatalf("restored state behaves differently")
	}
}

func TestUnmarshalRejectsBadCheckpoints(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, `{`, `{"format":2}`, `{"format":1}`, `{"format":1,"scopes":{"scopes":{}}}`,
		`{"format":1,"scopes":{"scopes":{"root":{"id":"root","path":"/"}}},"tracks":[{"id":"t1","scope":"nope"}]}`,
		`{"format":1,"scopes":{"scopes":{"root":{"id":"root","path":"/"}}},"tracks":[null]}`} {
		if _, err := Unmarshal([]byte(in)); !errors.Is(err, ErrCheckpoint) {
			t.Errorf("Unmarshal(%q) err = %v, want ErrCheckpoint", in, err)
		}
	}
}

func TestStepBudget(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "straight.bpmn")
	st, _, err := Step(p, NewState("i1", p.ID, 1), Start{Variables: map[string]any{"amount": num("1")}}, t0, Options{MaxActivations: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != StatusFailed || len(st.Incidents) != 1 || st.Incidents[0].Kind != IncidentStepBudget {
		t.Fatalf("status %s incidents %+v", st.Status, st.Incidents)
	}
}

func TestScriptErrorIsIncident(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "script_error.bpmn")
	st, fx := mustStart(t, p, nil)
	if st.Status != StatusFailed || len(st.Incidents) != 1 || st.Incidents[0].Kind != IncidentExpression || st.Incidents[0].NodeID != "bad" {
		t.Fatalf("status %s incidents %+v", st.Status, st.Incidents)
	}
	if got := activated(fx); !reflect.DeepEqual(got, []string{"start", "bad"}) {
		t.Errorf("path = %v", got)
	}
	if !strings.Contains(st.Incidents[0].Message, "bad") {
		t.Errorf("message %q does not name the task", st.Incidents[0].Message)
	}
}

// sameState compares two states by their header and parts (derived
// indexes and nil-versus-empty lists aside).
func sameState(tb testing.TB, a, b *State) bool {
	tb.Helper()
	return canonical(tb, a) == canonical(tb, b)
}

// canonical is a state's header and parts as one text.
func canonical(tb testing.TB, st *State) string {
	tb.Helper()
	h, parts := mustEncode(tb, st)
	out := string(h)
	for _, p := range parts {
		out += fmt.Sprintf("\n%s %s %d %s", p.Kind, p.Key, p.Ord, p.Data)
	}
	return out
}

// TestOperatorActsNameThePerson: the facts of a cancel, a retry and a
// variable change name the person whose act it was (the authenticated
// caller the runtime passes in By).
func TestOperatorActsNameThePerson(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "xor_nomatch.bpmn")
	byOf := func(fx Effects, kind string) []any {
		var out []any
		for _, f := range factsOf(fx, kind) {
			out = append(out, f.Detail["by"])
		}
		return out
	}
	tests := []struct {
		name string
		ev   func(st *State) Event
		kind string
		want []any
	}{
		{"cancel by ann", func(*State) Event { return Cancel{Reason: "r", By: "ann"} }, FactInstanceTerminated, []any{"ann"}},
		{"cancel by nobody", func(*State) Event { return Cancel{} }, FactInstanceTerminated, []any{nil}},
		{"cancel resolves the incident as ann", func(*State) Event { return Cancel{By: "ann"} }, FactIncidentResolved, []any{"ann"}},
		{"retry by bob", func(st *State) Event { return IncidentRetried{IncidentID: st.Incidents[0].ID, Retries: 1, By: "bob"} }, FactIncidentResolved, []any{"bob"}},
		{"variables by carl", func(*State) Event { return VariablesSet{Variables: map[string]any{"amount": num("500")}, By: "carl"} }, FactVariableSet, []any{"carl"}},
		{"variables by nobody", func(*State) Event { return VariablesSet{Variables: map[string]any{"amount": num("500")}} }, FactVariableSet, []any{"operator"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, _ := mustStart(t, p, map[string]any{"amount": num("50")})
			_, fx, err := Step(p, st, tc.ev(st), t0, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := byOf(fx, tc.kind); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("by of %s facts = %v, want %v", tc.kind, got, tc.want)
			}
		})
	}
}
