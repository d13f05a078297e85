package engine

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/scope"
)

// routerJob returns the outstanding router job of the region on node.
func routerJob(t *testing.T, st *State, node string) *Wait {
	t.Helper()
	r := regionAt(t, st, node)
	w := st.Wait(r.RouterJob)
	if !IsRouterJob(w) {
		t.Fatalf("region %s has no router job (%q); waits %+v", node, r.RouterJob, st.Waits)
	}
	return w
}

// answer completes the outstanding router job of region with acts.
func answer(t *testing.T, file string, st *State, acts ...Activation) (*State, Effects) {
	t.Helper()
	return run(t, file, st, JobCompleted{Key: routerJob(t, st, "region").ID, Answered: true, Activate: acts, Worker: "w1"}, t0)
}

func act(ids ...string) []Activation {
	out := make([]Activation, len(ids))
	for i, id := range ids {
		out[i] = Activation{ActivityID: id}
	}
	return out
}

func TestRouterJobOpenSnapshot(t *testing.T) {
	t.Parallel()
	const file = "adhoc_job.bpmn"
	p := mustProcess(t, file)
	st, fx := mustStart(t, p, map[string]any{"ticket": "T-1"})
	w := routerJob(t, st, "region")
	if w.Name != "triage" || w.Retries != 2 || w.TrackID != "" || len(tasks(st)) != 0 || st.Status != StatusRunning {
		t.Fatalf("router job %+v, tasks %v, status %s", w, tasks(st), st.Status)
	}
	if f := factsOf(fx, FactJobCreated); len(f) != 1 || f[0].Detail["router"] != true {
		t.Errorf("job-created facts %+v", f)
	}
	if !slices.ContainsFunc(fx.Waits, func(o Wait) bool { return o.ID == w.ID && o.Kind == WaitJob }) {
		t.Errorf("the new router job is not in the effects: %+v", fx.Waits)
	}
	vars, ok := RouterJobVariables(p, st, w)
	if !ok {
		t.Fatal("no snapshot")
	}
	progress := vars["progress"].(map[string]any)
	if progress["trigger"] != nil || len(progress["running"].([]any)) != 0 || len(progress["completed"].(map[string]any)) != 0 {
		t.Errorf("progress %+v", progress)
	}
	if v := vars["variables"].(map[string]any); v["ticket"] != "T-1" {
		t.Errorf("variables %+v", v)
	}
	if r := vars["region"].(map[string]any); r["id"] != "region" || r["name"] != "Triage" || r["selection"] != "automatic" || r["ordering"] != "parallel" || r["scopeId"] != string(regionAt(t, st, "region").ScopeID) {
		t.Errorf("region %+v", r)
	}
	cands := vars["candidates"].([]any)
	if len(cands) != 3 {
		t.Fatalf("candidates %+v", cands)
	}
	a, b := cands[0].(map[string]any), cands[1].(map[string]any)
	if a["id"] != "A" || a["name"] != "Look up" || a["documentation"] != "Look the customer up." || a["kind"] != "userTask" || len(a["inputs"].([]any)) != 0 {
		t.Errorf("candidate A %+v", a)
	}
	if ins := b["inputs"].([]any); b["kind"] != "serviceTask" || len(ins) != 2 || ins[0].(map[string]any)["name"] != "team" {
		t.Errorf("candidate B %+v", b)
	}
	if _, ok := RouterJobVariables(p, st, &Wait{Kind: WaitJob}); ok {
		t.Error("a task's job has a router snapshot")
	}
}

func TestRouterJobAnswers(t *testing.T) {
	t.Parallel()
	const file = "adhoc_job.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	first := routerJob(t, st, "region").ID
	st, fx := run(t, file, st, JobCompleted{Key: first, Answered: true, Worker: "w1", Variables: map[string]any{"note": "triaged"},
		Activate: []Activation{{ActivityID: "A"}, {ActivityID: "B", Variables: map[string]any{"urgency": "high"}}}}, t0)
	if got := tasks(st); !slices.Equal(got, []string{"A"}) || !hasWaitAt(st, "B") || len(regionAt(t, st, "region").RouterJob) != 0 {
		t.Fatalf("after the answer: tasks %v waits %+v", got, st.Waits)
	}
	f := factsOf(fx, FactAdHocActivated)
	if len(f) != 2 || f[0].Detail["by"] != "router job triage" || f[0].Detail["worker"] != "w1" || f[0].Detail["jobKey"] != first {
		t.Fatalf("activation facts %+v", f)
	}
	if v, ok := f[1].Detail["variables"].([]any); !ok || !slices.Equal(v, []any{"urgency"}) {
		t.Errorf("activation of B names its variables: %+v", f[1].Detail)
	}
	// B's activation variables are its own, over its input mapping; note went to the root.
	job := waitAt(t, st, WaitJob, "B")
	if v, _ := st.Scopes.Lookup(job.ScopeID, "urgency"); v != "high" {
		t.Errorf("B sees urgency=%v", v)
	}
	if v, _ := st.Scopes.Lookup(job.ScopeID, "team"); v != "ops" {
		t.Errorf("B sees team=%v", v)
	}
	if v, _ := st.Scopes.Lookup(scope.RootID, "note"); v != "triaged" {
		t.Errorf("note = %v", v)
	}
	if _, ok := st.Scopes.Lookup(scope.RootID, "urgency"); ok {
		t.Error("an activation variable leaked to the root")
	}
	// The same job answered again (a lock ran out and a second worker
	// completes it): nothing is activated twice.
	if _, _, err := Step(mustProcess(t, file), st, JobCompleted{Key: first, Answered: true, Activate: act("A")}, t0, Options{}); !errors.Is(err, ErrUnknownWait) {
		t.Fatalf("second completion of the router job: %v", err)
	}
	// B completes (no flows): the router is asked with trigger B.
	st, _ = run(t, file, st, JobCompleted{Key: job.ID}, t0)
	second := routerJob(t, st, "region")
	if r := regionAt(t, st, "region"); !slices.Equal(r.Triggers, []string{"B"}) || r.Completed["B"] != 1 {
		t.Fatalf("region after B %+v", r)
	}
	vars, _ := RouterJobVariables(mustProcess(t, file), st, second)
	if pr := vars["progress"].(map[string]any); pr["trigger"] != "B" || !slices.Equal(pr["running"].([]any), []any{"A"}) {
		t.Errorf("progress after B %+v", pr)
	}
	if _, ok := st.Scopes.Lookup(scope.RootID, "urgency"); ok {
		t.Error("B's activation variable outlived it")
	}
	// A completes while the router job is outstanding: A → C by its flow,
	// and the router is asked again once the job is answered.
	st, _ = complete(t, file, st, "A")
	if r := regionAt(t, st, "region"); r.RouterJob != second.ID || !r.Reask || !slices.Equal(r.Pending, []string{"A"}) || !slices.Equal(tasks(st), []string{"C"}) {
		t.Fatalf("region while answered late %+v tasks %v", r, tasks(st))
	}
	st, _ = answer(t, file, st)
	third := routerJob(t, st, "region")
	if third.ID == second.ID || !slices.Equal(regionAt(t, st, "region").Triggers, []string{"A"}) {
		t.Fatalf("the late completion was not asked about: %+v", regionAt(t, st, "region"))
	}
	st, _ = answer(t, file, st)
	st, _ = complete(t, file, st, "C")
	// C completes: asked again; nothing left: the empty answer drains the region.
	st, _ = answer(t, file, st)
	if !slices.Equal(tasks(st), []string{"after"}) || len(st.Regions) != 0 {
		t.Fatalf("region did not drain: tasks %v regions %+v", tasks(st), st.Regions)
	}
	assertNoRouterJobs(t, st)
}

func assertNoRouterJobs(t *testing.T, st *State) {
	t.Helper()
	for _, w := range st.Waits {
		if IsRouterJob(w) {
			t.Fatalf("router job left: %+v", w)
		}
	}
}

func TestRouterJobTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		file  string
		steps func(t *testing.T, file string, st *State) *State
		// tasks are the open user tasks at the end; incident the kind of the one open incident.
		tasks    []string
		incident string
	}{
		{"emptyAnswerAtOpen", "adhoc_job.bpmn", func(t *testing.T, file string, st *State) *State {
			st, _ = answer(t, file, st)
			return st
		}, []string{"after"}, ""},
		{"unknownId", "adhoc_job.bpmn", func(t *testing.T, file string, st *State) *State {
			st, _ = answer(t, file, st, act("A", "ghost")...)
			if len(st.Regions) != 1 || len(tasks(st)) != 0 {
				t.Fatalf("a bad answer started something or closed the region: %v %+v", tasks(st), st.Regions)
			}
			return st
		}, nil, IncidentRouter},
		{"gatewayIsNoActivity", "adhoc_job.bpmn", func(t *testing.T, file string, st *State) *State {
			st, _ = answer(t, file, st, act("start")...)
			return st
		}, nil, IncidentRouter},
		{"sequentialTwo", "adhoc_job_seq.bpmn", func(t *testing.T, file string, st *State) *State {
			st, _ = answer(t, file, st, act("A", "B")...)
			return st
		}, nil, IncidentRouter},
		{"sequentialWhileRunning", "adhoc_job_seq.bpmn", func(t *testing.T, file string, st *State) *State {
			st, _ = answer(t, file, st, act("A")...)
			st, _ = complete(t, file, st, "A") // A → C; the router is asked while C runs
			st, _ = answer(t, file, st, act("B")...)
			return st
		}, []string{"C"}, IncidentRouter},
		{"sequentialOneByOne", "adhoc_job_seq.bpmn", func(t *testing.T, file string, st *State) *State {
			st, _ = answer(t, file, st, act("A")...)
			st, _ = complete(t, file, st, "A")
			st, _ = answer(t, file, st)
			st, _ = complete(t, file, st, "C")
			st, _ = answer(t, file, st)
			return st
		}, []string{"after"}, ""},
		{"failuresThenIncident", "adhoc_job.bpmn", func(t *testing.T, file string, st *State) *State {
			w := routerJob(t, st, "region")
			st, _ = run(t, file, st, JobFailed{Key: w.ID, Decrement: true, ErrorMessage: "model down"}, t0)
			if w2 := routerJob(t, st, "region"); w2.Retries != 1 || !w2.DueAt.After(t0) || st.Status != StatusRunning {
				t.Fatalf("after one failure %+v %s", w2, st.Status)
			}
			st, _ = run(t, file, st, JobFailed{Key: w.ID, Decrement: true, ErrorMessage: "model down"}, t0)
			if in := st.Incidents; len(in) != 1 || in[0].WaitID != w.ID || in[0].Message != "model down" || in[0].TrackID != "" {
				t.Fatalf("incidents %+v", in)
			}
			return st
		}, nil, IncidentJobFailed},
		{"errorCaughtOnRegion", "adhoc_job.bpmn", func(t *testing.T, file string, st *State) *State {
			st, _ = run(t, file, st, JobErrorThrown{Key: routerJob(t, st, "region").ID, Code: "give-up"}, t0)
			return st
		}, []string{"handled"}, ""},
		{"stopOnError", "adhoc_job.bpmn", func(t *testing.T, file string, st *State) *State {
			st, _ = answer(t, file, st, act("A")...)
			st, _ = complete(t, file, st, "A")
			st, _ = run(t, file, st, JobErrorThrown{Key: routerJob(t, st, "region").ID, Code: "give-up"}, t0)
			return st
		}, []string{"handled"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, _ := mustStart(t, mustProcess(t, tc.file), nil)
			st = tc.steps(t, tc.file, st)
			if got := tasks(st); !slices.Equal(got, tc.tasks) {
				t.Fatalf("tasks %v, want %v", got, tc.tasks)
			}
			if tc.incident == "" {
				if len(st.Incidents) != 0 {
					t.Fatalf("incidents %+v", st.Incidents)
				}
				return
			}
			if len(st.Incidents) != 1 || st.Incidents[0].Kind != tc.incident || st.Status != StatusFailed {
				t.Fatalf("incidents %+v status %s, want one %s", st.Incidents, st.Status, tc.incident)
			}
			// A retry asks (or hands the job out) again; an empty answer then finishes what runs.
			st, _ = run(t, tc.file, st, IncidentRetried{IncidentID: st.Incidents[0].ID, Retries: 1}, t0)
			if st.Status != StatusRunning {
				t.Fatalf("after retry: %s %+v", st.Status, st.Incidents)
			}
			st, _ = answer(t, tc.file, st)
			for _, task := range tasks(st) {
				if task == "after" {
					break
				}
				st, _ = complete(t, tc.file, st, task)
				st, _ = answer(t, tc.file, st)
			}
			if got := tasks(st); !slices.Equal(got, []string{"after"}) {
				t.Fatalf("after the retry: tasks %v", got)
			}
		})
	}
}

func TestRouterJobRejectsWrongCompletions(t *testing.T) {
	t.Parallel()
	const file = "adhoc_job.bpmn"
	p := mustProcess(t, file)
	st, _ := mustStart(t, p, nil)
	if _, _, err := Step(p, st, JobCompleted{Key: routerJob(t, st, "region").ID}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("router job completed without an answer: %v", err)
	}
	st, _ = answer(t, file, st, act("B")...)
	if _, _, err := Step(p, st, JobCompleted{Key: waitAt(t, st, WaitJob, "B").ID, Answered: true}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("a task's job completed with activate: %v", err)
	}
}

func TestRouterJobManual(t *testing.T) {
	t.Parallel()
	const file = "adhoc_job_manual.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	st, fx := run(t, file, st, JobCompleted{Key: routerJob(t, st, "region").ID, Answered: true,
		Activate: []Activation{{ActivityID: "A"}, {ActivityID: "B", Variables: map[string]any{"urgency": "high"}}}}, t0)
	r := regionAt(t, st, "region")
	if !slices.Equal(r.Offer, []string{"A", "B"}) || len(tasks(st)) != 0 || hasWaitAt(st, "B") || len(factsOf(fx, FactCandidates)) != 1 {
		t.Fatalf("the answer is not the offer: %+v tasks %v", r, tasks(st))
	}
	// A person takes B without variables of their own: the router's proposal applies.
	st, fx = activateAt(t, file, st, "region", "B")
	if f := factsOf(fx, FactAdHocActivated); len(f) != 1 || f[0].Detail["by"] != "ann" {
		t.Fatalf("activation facts %+v", f)
	}
	job := waitAt(t, st, WaitJob, "B")
	if v, _ := st.Scopes.Lookup(job.ScopeID, "urgency"); v != "high" {
		t.Errorf("B sees urgency=%v", v)
	}
	if r := regionAt(t, st, "region"); !slices.Equal(r.Offer, []string{"A", "B"}) || r.RouterJob != "" {
		t.Errorf("the router's offer stands until it answers again: %+v", r)
	}
	st, _ = run(t, file, st, JobCompleted{Key: job.ID}, t0)
	st, _ = answer(t, file, st)
	if !slices.Equal(tasks(st), []string{"after"}) {
		t.Fatalf("tasks %v", tasks(st))
	}
}

func TestActivateWithInputs(t *testing.T) {
	t.Parallel()
	const file = "adhoc_manual.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	s := string(regionAt(t, st, "region").ScopeID)
	st, fx := run(t, file, st, AdHocActivated{ScopeID: s, ActivityID: "A", Variables: map[string]any{"q": "x"},
		Activations: []Activation{{ActivityID: "B", Variables: map[string]any{"q": "y"}}}, User: "ann"}, t0)
	if got := tasks(st); !slices.Equal(got, []string{"A", "B"}) {
		t.Fatalf("tasks %v", got)
	}
	if f := factsOf(fx, FactAdHocActivated); len(f) != 2 || f[1].NodeID != "B" || f[1].Detail["by"] != "ann" {
		t.Fatalf("facts %+v", f)
	}
	for node, want := range map[string]string{"A": "x", "B": "y"} {
		if v, _ := st.Scopes.Lookup(waitAt(t, st, WaitTask, node).ScopeID, "q"); v != want {
			t.Errorf("%s sees q=%v, want %s", node, v, want)
		}
	}
	// All or nothing: one non-candidate refuses the whole request.
	st2, _ := mustStart(t, mustProcess(t, file), nil)
	if _, _, err := Step(mustProcess(t, file), st2, AdHocActivated{ScopeID: s, ActivityID: "A", Activations: act("C"), User: "ann"}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("activation of a non-candidate among others: %v", err)
	}
	// A sequential region takes one at a time.
	seq, _ := mustStart(t, mustProcess(t, "adhoc_seq_manual.bpmn"), nil)
	if _, _, err := Step(mustProcess(t, "adhoc_seq_manual.bpmn"), seq, AdHocActivated{ScopeID: string(regionAt(t, seq, "region").ScopeID), Activations: act("A", "B"), User: "ann"}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("two activations in a sequential region: %v", err)
	}
}

func TestReofferAndExplicitComplete(t *testing.T) {
	t.Parallel()
	const file = "adhoc_reoffer.bpmn"
	p := mustProcess(t, file)
	st, _ := mustStart(t, p, map[string]any{"done": false})
	for range 2 { // A runs twice: it is offered again after it completed
		st, _ = activateAt(t, file, st, "region", "A")
		if r := regionAt(t, st, "region"); !slices.Equal(r.Offer, []string{"B"}) {
			t.Fatalf("offer while A runs %v", r.Offer)
		}
		st, _ = complete(t, file, st, "A")
		if r := regionAt(t, st, "region"); !slices.Equal(r.Offer, []string{"A", "B"}) {
			t.Fatalf("offer after A %v", r.Offer)
		}
	}
	if regionAt(t, st, "region").Completed["A"] != 2 {
		t.Fatalf("completed %+v", regionAt(t, st, "region").Completed)
	}
	s := string(regionAt(t, st, "region").ScopeID)
	// Explicit complete: refused while something runs, then the region ends.
	st, _ = activateAt(t, file, st, "region", "B")
	if _, _, err := Step(p, st, AdHocCompleted{ScopeID: s, User: "ann"}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("complete while B runs: %v", err)
	}
	if _, _, err := Step(p, st, AdHocCompleted{ScopeID: s}, t0, Options{}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("complete without a user: %v", err)
	}
	st, _ = complete(t, file, st, "B")
	st, fx := run(t, file, st, AdHocCompleted{ScopeID: s, User: "ann"}, t0)
	if !slices.Equal(tasks(st), []string{"after"}) || len(st.Regions) != 0 {
		t.Fatalf("after complete: tasks %v regions %+v", tasks(st), st.Regions)
	}
	if f := factsOf(fx, FactRegionStopped); len(f) != 1 || f[0].Detail["reason"] != "completed by ann" {
		t.Errorf("stop facts %+v", f)
	}
	if _, _, err := Step(p, st, AdHocCompleted{ScopeID: s, User: "ann"}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("complete a closed region: %v", err)
	}
	// The completion condition ends a re-offering region too.
	st, _ = mustStart(t, p, map[string]any{"done": false})
	st, _ = activateAt(t, file, st, "region", "B")
	st, _ = run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, "B").ID, User: "u", Variables: map[string]any{"done": true}}, t0)
	if !slices.Equal(tasks(st), []string{"after"}) {
		t.Fatalf("condition: tasks %v", tasks(st))
	}
}

// Cancelling the instance, or an interrupting boundary event on the
// region, withdraws the outstanding router job with the region.
func TestRouterJobWithdrawnWithRegion(t *testing.T) {
	t.Parallel()
	const file = "adhoc_job.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	job := routerJob(t, st, "region").ID
	st, fx := run(t, file, st, Cancel{}, t0)
	if len(st.Waits) != 0 || len(st.Regions) != 0 || !slices.Contains(fx.RemovedWaits, job) {
		t.Fatalf("after cancel: waits %+v regions %+v removed %v", st.Waits, st.Regions, fx.RemovedWaits)
	}
	// A BPMN error thrown by an inner job's worker leaves by the region's
	// error boundary: the router job outstanding meanwhile goes too.
	st, _ = mustStart(t, mustProcess(t, file), nil)
	st, _ = answer(t, file, st, act("A", "B")...)
	st, _ = complete(t, file, st, "A") // asks the router: a job is outstanding while B runs
	job = routerJob(t, st, "region").ID
	st, fx = run(t, file, st, JobErrorThrown{Key: waitAt(t, st, WaitJob, "B").ID, Code: "give-up"}, t0)
	if got := tasks(st); !slices.Equal(got, []string{"handled"}) || !slices.Contains(fx.RemovedWaits, job) || len(st.Regions) != 0 {
		t.Fatalf("after the error: tasks %v removed %v regions %+v", got, fx.RemovedWaits, st.Regions)
	}
}

// Event sub-processes inside an ad-hoc region arm with it, are never
// offered, do not count as completions, and an interrupting one ends the
// region once its handler is done.
func TestAdHocEventSubProcesses(t *testing.T) {
	t.Parallel()
	const file = "adhoc_eventsub.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	if r := regionAt(t, st, "region"); !slices.Equal(r.Offer, []string{"A", "B"}) {
		t.Fatalf("offer %v", r.Offer)
	}
	st, _ = activateAt(t, file, st, "region", "A")
	st, _ = run(t, file, st, MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "onPing").ID}, t0)
	if got := tasks(st); !slices.Equal(got, []string{"A", "noted"}) {
		t.Fatalf("tasks %v", got)
	}
	st, _ = complete(t, file, st, "noted")
	if r := regionAt(t, st, "region"); len(r.Completed) != 0 || !slices.Equal(r.Offer, []string{"B"}) {
		t.Fatalf("the handler counted as a routed activity: %+v", r)
	}
	if _, _, err := Step(mustProcess(t, file), st, AdHocActivated{ScopeID: string(regionAt(t, st, "region").ScopeID), ActivityID: "onPing", User: "ann"}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("activating an event sub-process: %v", err)
	}
	// The interrupting timer cancels A and closes the offer; the region
	// ends when its handler does.
	st, _ = run(t, file, st, TimerFired{WaitID: waitAt(t, st, WaitTimer, "onTimeout").ID}, t0.Add(time.Hour))
	if got := tasks(st); !slices.Equal(got, []string{"escalate"}) {
		t.Fatalf("after the timer: tasks %v", got)
	}
	if _, _, err := Step(mustProcess(t, file), st, AdHocActivated{ScopeID: string(regionAt(t, st, "region").ScopeID), ActivityID: "B", User: "ann"}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("activating in an interrupted region: %v", err)
	}
	st, fx := complete(t, file, st, "escalate")
	if got := tasks(st); !slices.Equal(got, []string{"after"}) || len(st.Regions) != 0 {
		t.Fatalf("after the handler: tasks %v regions %+v", got, st.Regions)
	}
	if f := factsOf(fx, FactRegionStopped); len(f) != 1 || f[0].Detail["reason"] != "interrupted by an event sub-process" {
		t.Errorf("stop facts %+v", f)
	}
}
