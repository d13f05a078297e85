package engine

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// run applies ev at time at and fails the test on error. The state goes
// through the checkpoint first, as it does between steps in the runtime.
func run(tb testing.TB, file string, st *State, ev Event, at time.Time) (*State, Effects) {
	tb.Helper()
	st = roundTrip(tb, st)
	next, fx, err := Step(mustProcess(tb, file), st, ev, at, Options{})
	if err != nil {
		tb.Fatalf("%s: %v", ev.Kind(), err)
	}
	return next, fx
}

// waitAt returns the open wait of a kind on a node.
func waitAt(tb testing.TB, st *State, kind WaitKind, node string) *Wait {
	tb.Helper()
	for _, w := range st.Waits {
		if w.Kind == kind && w.NodeID == node {
			return w
		}
	}
	tb.Fatalf("no %s wait at %s; waits: %+v", kind, node, st.Waits)
	return nil
}

func hasWaitAt(st *State, node string) bool {
	return slices.ContainsFunc(st.Waits, func(w *Wait) bool { return w.NodeID == node })
}

func TestJobLifecycle(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "job.bpmn")
	st, fx := mustStart(t, p, nil)
	job := waitAt(t, st, WaitJob, "charge")
	if job.Name != "charge-card" || job.Retries != 2 || st.Status != StatusRunning || st.Tracks[0].State != TrackWaiting {
		t.Fatalf("job %+v, status %s, tracks %+v", job, st.Status, st.Tracks)
	}
	if len(fx.Waits) != 1 || fx.Waits[0].ID != job.ID {
		t.Fatalf("effects do not carry the new job: %+v", fx.Waits)
	}
	done, fx := run(t, "job.bpmn", st, JobCompleted{Key: job.ID, Variables: map[string]any{"receipt": "r-1"}}, t0)
	if done.Status != StatusCompleted || done.Scopes.Get("root").Vars["receipt"] != "r-1" {
		t.Fatalf("after complete: %s %v", done.Status, done.Scopes.Get("root").Vars)
	}
	if !slices.Equal(fx.RemovedWaits, []string{job.ID}) || len(fx.Waits) != 0 {
		t.Errorf("effects: waits %+v removed %v", fx.Waits, fx.RemovedWaits)
	}
	if _, _, err := Step(p, done, JobCompleted{Key: job.ID}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Errorf("complete on ended instance: %v", err)
	}
	if _, _, err := Step(p, st, JobCompleted{Key: "nope"}, t0, Options{}); !errors.Is(err, ErrUnknownWait) {
		t.Errorf("complete unknown job: %v", err)
	}
}

func TestJobFailRetriesAndIncident(t *testing.T) {
	t.Parallel()
	st, _ := mustStart(t, mustProcess(t, "job.bpmn"), nil)
	key := waitAt(t, st, WaitJob, "charge").ID
	st, _ = run(t, "job.bpmn", st, JobFailed{Key: key, Retries: 1, Jitter: 0.5, ErrorMessage: "timeout"}, t0)
	job := st.Wait(key)
	if job.Retries != 1 || !job.DueAt.Equal(t0.Add(time.Second)) || st.Status != StatusRunning {
		t.Fatalf("after first failure: %+v status %s", job, st.Status)
	}
	st, fx := run(t, "job.bpmn", st, JobFailed{Key: key, Retries: 0, ErrorMessage: "card service down"}, t0.Add(2*time.Second))
	if st.Status != StatusFailed || len(st.Incidents) != 1 || st.Incidents[0].WaitID != key || st.Incidents[0].Message != "card service down" {
		t.Fatalf("after exhausting: status %s incidents %+v", st.Status, st.Incidents)
	}
	if len(fx.Incidents) != 1 {
		t.Errorf("incident not in effects")
	}
	st, _ = run(t, "job.bpmn", st, IncidentRetried{IncidentID: st.Incidents[0].ID, Retries: 3}, t0.Add(time.Minute))
	if st.Status != StatusRunning || st.Wait(key).Retries != 3 || !st.Wait(key).DueAt.IsZero() {
		t.Fatalf("after retry: status %s job %+v", st.Status, st.Wait(key))
	}
	if _, _, err := Step(mustProcess(t, "job.bpmn"), st, IncidentRetried{IncidentID: "nope"}, t0, Options{}); !errors.Is(err, ErrUnknownIncident) {
		t.Errorf("retry unknown incident: %v", err)
	}
}

func TestDefaultBackoff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		failures int
		jitter   float64
		want     time.Duration
	}{
		{1, 0.5, time.Second},
		{2, 0.5, 2 * time.Second},
		{4, 0.5, 8 * time.Second},
		{20, 0.5, 5 * time.Minute},
		{1, 0, 800 * time.Millisecond},
		{1, 0.999999, 1199999800 * time.Nanosecond},
	}
	for _, tc := range tests {
		got := defaultBackoff(tc.failures, tc.jitter)
		if d := got - tc.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("defaultBackoff(%d, %v) = %v, want %v", tc.failures, tc.jitter, got, tc.want)
		}
	}
}

func TestJobErrorBoundary(t *testing.T) {
	t.Parallel()
	tests := []struct{ code, end string }{
		{"CARD_DECLINED", "declinedEnd"}, // the matching code beats the catch-all
		{"SOMETHING_ELSE", "otherEnd"},
		{"", "otherEnd"},
	}
	for _, tc := range tests {
		st, _ := mustStart(t, mustProcess(t, "job.bpmn"), nil)
		key := waitAt(t, st, WaitJob, "charge").ID
		st, fx := run(t, "job.bpmn", st, JobErrorThrown{Key: key, Code: tc.code, Variables: map[string]any{"reason": "x"}}, t0)
		if st.Status != StatusCompleted || !slices.Contains(activated(fx), tc.end) {
			t.Errorf("code %q: status %s path %v, want via %s", tc.code, st.Status, activated(fx), tc.end)
		}
		if st.Scopes.Get("root").Vars["reason"] != "x" {
			t.Errorf("code %q: error variables not merged", tc.code)
		}
	}
}

func TestUserTaskAuthorization(t *testing.T) {
	t.Parallel()
	const file = "user_task.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), map[string]any{"shipper": "dave"})
	task := waitAt(t, st, WaitTask, "approve")
	if task.Name != "Approve order" || !slices.Equal(task.CandidateUsers, []string{"ann"}) || !slices.Equal(task.CandidateGroups, []string{"sales", "managers"}) {
		t.Fatalf("task %+v", task)
	}
	p := mustProcess(t, file)
	steps := []struct {
		name string
		ev   Event
		want error
	}{
		{"non-candidate cannot claim", TaskClaimed{TaskID: task.ID, User: "bob", Groups: []string{"it"}}, ErrForbidden},
		{"no user cannot claim", TaskClaimed{TaskID: task.ID}, ErrForbidden},
		{"unclaimed offered task cannot be completed", TaskCompleted{TaskID: task.ID, User: "ann"}, ErrInvalidTransition},
		{"unclaim of an unclaimed task", TaskUnclaimed{TaskID: task.ID, User: "ann"}, ErrInvalidTransition},
		{"group member claims", TaskClaimed{TaskID: task.ID, User: "carl", Groups: []string{"sales"}}, nil},
		{"claiming again is idempotent", TaskClaimed{TaskID: task.ID, User: "carl", Groups: []string{"sales"}}, nil},
		{"candidate user cannot take it over", TaskClaimed{TaskID: task.ID, User: "ann"}, ErrInvalidTransition},
		{"non-assignee cannot unclaim", TaskUnclaimed{TaskID: task.ID, User: "ann"}, ErrForbidden},
		{"non-assignee cannot complete", TaskCompleted{TaskID: task.ID, User: "ann"}, ErrForbidden},
		{"assignee unclaims", TaskUnclaimed{TaskID: task.ID, User: "carl"}, nil},
		{"candidate user claims", TaskClaimed{TaskID: task.ID, User: "ann"}, nil},
		{"assignee completes", TaskCompleted{TaskID: task.ID, User: "ann", Variables: map[string]any{"approved": true}}, nil},
	}
	for _, s := range steps {
		next, _, err := Step(p, st, s.ev, t0, Options{})
		if !errors.Is(err, s.want) || (s.want == nil && err != nil) {
			t.Fatalf("%s: err = %v, want %v", s.name, err, s.want)
		}
		if err == nil {
			st = next
		}
	}
	if st.Scopes.Get("root").Vars["approved"] != true {
		t.Fatalf("form variables not merged")
	}
	ship := waitAt(t, st, WaitTask, "ship")
	if ship.Assignee != "dave" {
		t.Fatalf("assignee expression: %+v", ship)
	}
	if _, _, err := Step(p, st, TaskCompleted{TaskID: ship.ID, User: "carl"}, t0, Options{}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("non-assignee completes ship: %v", err)
	}
	st, _ = run(t, file, st, TaskCompleted{TaskID: ship.ID, User: "dave"}, t0)
	anyone := waitAt(t, st, WaitTask, "anyone")
	st, _ = run(t, file, st, TaskCompleted{TaskID: anyone.ID, User: "zed"}, t0)
	if st.Status != StatusCompleted {
		t.Fatalf("status %s", st.Status)
	}
}

func TestTimers(t *testing.T) {
	t.Parallel()
	const file = "timers.bpmn"
	p := mustProcess(t, file)
	st, _ := mustStart(t, p, nil)
	wait := waitAt(t, st, WaitTimer, "wait")
	if !wait.DueAt.Equal(t0.Add(10 * time.Minute)) {
		t.Fatalf("due %v", wait.DueAt)
	}
	if _, _, err := Step(p, st, TimerFired{WaitID: wait.ID}, t0.Add(5*time.Minute), Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("early firing: %v", err)
	}
	at := t0.Add(10 * time.Minute)
	st, _ = run(t, file, st, TimerFired{WaitID: wait.ID}, at)
	remind := waitAt(t, st, WaitTimer, "remind")
	deadline := waitAt(t, st, WaitTimer, "deadline")
	task := waitAt(t, st, WaitTask, "work")
	if !remind.DueAt.Equal(at.Add(time.Hour)) || !deadline.DueAt.Equal(at.Add(3*time.Hour)) {
		t.Fatalf("boundaries: remind %v deadline %v", remind.DueAt, deadline.DueAt)
	}
	st, fx := run(t, file, st, TimerFired{WaitID: remind.ID}, remind.DueAt)
	if st.Scopes.Get("root").Vars["reminders"] != num("1") || st.Wait(remind.ID) == nil || st.Wait(task.ID) == nil {
		t.Fatalf("first reminder: vars %v waits %+v", st.Scopes.Get("root").Vars, st.Waits)
	}
	if !st.Wait(remind.ID).DueAt.Equal(at.Add(2*time.Hour)) || fx.Fired != 1 {
		t.Fatalf("cycle not re-armed: %+v", st.Wait(remind.ID))
	}
	st, _ = run(t, file, st, TimerFired{WaitID: remind.ID}, at.Add(2*time.Hour))
	if st.Wait(remind.ID) != nil || st.Scopes.Get("root").Vars["reminders"] != num("2") {
		t.Fatalf("R2 cycle fired more than twice or not twice: %+v", st.Wait(remind.ID))
	}
	st, fx = run(t, file, st, TimerFired{WaitID: deadline.ID}, at.Add(3*time.Hour))
	if st.Status != StatusCompleted || !slices.Contains(fx.RemovedWaits, task.ID) || !slices.Contains(activated(fx), "late") {
		t.Fatalf("deadline: status %s removed %v path %v", st.Status, fx.RemovedWaits, activated(fx))
	}
	if len(factsOf(fx, FactElementTerminated)) != 1 {
		t.Errorf("the interrupted task has no element-terminated fact")
	}
}

func TestMessagesAndSignals(t *testing.T) {
	t.Parallel()
	const file = "messages.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), map[string]any{"orderId": "o-1"})
	pay := waitAt(t, st, WaitMessage, "awaitPayment")
	cancel := waitAt(t, st, WaitMessage, "cancelled")
	stop := waitAt(t, st, WaitSignal, "stopped")
	if pay.Name != "order-paid" || pay.CorrelationKey != "o-1" || cancel.CorrelationKey != "o-1" || stop.Name != "stop-all" {
		t.Fatalf("subscriptions: %+v %+v %+v", pay, cancel, stop)
	}
	// A non-interrupting signal boundary fires and stays armed.
	next, fx := run(t, file, st, SignalDelivered{Name: "stop-all"}, t0)
	if fx.Fired != 1 || next.Wait(stop.ID) == nil || next.Wait(pay.ID) == nil || !slices.Contains(activated(fx), "stopEnd") {
		t.Fatalf("signal: fired %d waits %+v path %v", fx.Fired, next.Waits, activated(fx))
	}
	if _, fx := run(t, file, next, SignalDelivered{Name: "other"}, t0); fx.Fired != 0 {
		t.Errorf("unrelated signal fired %d", fx.Fired)
	}
	done, fx := run(t, file, next, MessageDelivered{WaitID: pay.ID, Variables: map[string]any{"amount": num("9.99")}}, t0)
	if done.Status != StatusCompleted || done.Scopes.Get("root").Vars["amount"] != num("9.99") || len(done.Waits) != 0 {
		t.Fatalf("payment: status %s waits %+v", done.Status, done.Waits)
	}
	if !slices.Contains(fx.RemovedWaits, cancel.ID) || !slices.Contains(fx.RemovedWaits, stop.ID) {
		t.Errorf("boundary subscriptions not withdrawn: %v", fx.RemovedWaits)
	}
	// The interrupting message boundary withdraws the receive task.
	cancelled, fx := run(t, file, st, MessageDelivered{WaitID: cancel.ID}, t0)
	if cancelled.Status != StatusCompleted || !slices.Contains(activated(fx), "cancelEnd") || !slices.Contains(fx.RemovedWaits, pay.ID) {
		t.Fatalf("cancel: status %s path %v removed %v", cancelled.Status, activated(fx), fx.RemovedWaits)
	}
}

func TestEventBasedGateway(t *testing.T) {
	t.Parallel()
	const file = "event_gateway.bpmn"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	if len(st.Waits) != 3 {
		t.Fatalf("waits %+v", st.Waits)
	}
	answer := waitAt(t, st, WaitMessage, "gotAnswer")
	timeout := waitAt(t, st, WaitTimer, "timeout")
	tests := []struct {
		name string
		ev   Event
		at   time.Time
		end  string
	}{
		{"message wins", MessageDelivered{WaitID: answer.ID}, t0, "answerEnd"},
		{"timer wins", TimerFired{WaitID: timeout.ID}, t0.Add(time.Hour), "timeoutEnd"},
		{"signal wins", SignalDelivered{Name: "abort"}, t0, "abortEnd"},
	}
	for _, tc := range tests {
		next, fx := run(t, file, st, tc.ev, tc.at)
		if next.Status != StatusCompleted || len(next.Waits) != 0 || len(fx.RemovedWaits) != 3 {
			t.Errorf("%s: status %s waits %+v removed %v", tc.name, next.Status, next.Waits, fx.RemovedWaits)
		}
		if path := activated(fx); !slices.Contains(path, tc.end) || len(path) != 2 {
			t.Errorf("%s: path %v", tc.name, path)
		}
	}
}

func TestInclusiveGateway(t *testing.T) {
	t.Parallel()
	const file = "inclusive.bpmn"
	st, fx := mustStart(t, mustProcess(t, file), map[string]any{"wantA": true, "wantB": true})
	if st.Status != StatusRunning || slices.Contains(activated(fx), "end") {
		t.Fatalf("join fired before a arrived: %v", activated(fx))
	}
	job := waitAt(t, st, WaitJob, "a")
	st, fx = run(t, file, st, JobCompleted{Key: job.ID}, t0)
	if st.Status != StatusCompleted || strings.Count(strings.Join(activated(fx), ","), "end") != 1 {
		t.Fatalf("after a: status %s path %v", st.Status, activated(fx))
	}
	st, fx = mustStart(t, mustProcess(t, file), map[string]any{"wantA": false, "wantB": false})
	if st.Status != StatusCompleted || !reflect.DeepEqual(activated(fx), []string{"start", "fork", "c", "join", "end"}) {
		t.Fatalf("default: status %s path %v", st.Status, activated(fx))
	}
	st, _ = mustStart(t, mustProcess(t, file), map[string]any{"wantA": false, "wantB": true})
	if st.Status != StatusCompleted {
		t.Fatalf("single branch: status %s", st.Status)
	}
}

func TestSubProcessErrorsAndEscalation(t *testing.T) {
	t.Parallel()
	const file = "sub_errors.bpmn"
	st, fx := mustStart(t, mustProcess(t, file), map[string]any{"fraud": true})
	if st.Status != StatusCompleted {
		t.Fatalf("status %s incidents %+v", st.Status, st.Incidents)
	}
	path := activated(fx)
	for _, want := range []string{"noted", "fraudOut"} {
		if !slices.Contains(path, want) {
			t.Errorf("path %v lacks %s", path, want)
		}
	}
	if slices.Contains(path, "end") || st.Scopes.Get("root").Vars["escalated"] != true {
		t.Errorf("path %v vars %v", path, st.Scopes.Get("root").Vars)
	}
	// Without fraud the sub-process waits on a user task; its timer boundary cancels the scope.
	st, _ = mustStart(t, mustProcess(t, file), map[string]any{"fraud": false})
	task := waitAt(t, st, WaitTask, "inspect")
	timer := waitAt(t, st, WaitTimer, "tooLong")
	if len(st.Scopes.All()) != 2 {
		t.Fatalf("scopes %v", st.Scopes.All())
	}
	st, fx = run(t, file, st, TimerFired{WaitID: timer.ID}, t0.Add(24*time.Hour))
	if st.Status != StatusCompleted || !slices.Contains(fx.RemovedWaits, task.ID) || len(factsOf(fx, FactScopeCancelled)) != 1 {
		t.Fatalf("timeout: status %s removed %v facts %v", st.Status, fx.RemovedWaits, factsOf(fx, FactScopeCancelled))
	}
	// Completing the task instead disarms the timer boundary.
	st, _ = mustStart(t, mustProcess(t, file), map[string]any{"fraud": false})
	st, fx = run(t, file, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, "inspect").ID, User: "x"}, t0)
	if st.Status != StatusCompleted || !slices.Contains(fx.RemovedWaits, waitAt(t, st0(t, file), WaitTimer, "tooLong").ID) {
		t.Fatalf("normal completion: status %s removed %v", st.Status, fx.RemovedWaits)
	}
}

// st0 starts sub_errors.bpmn without fraud (ids are deterministic).
func st0(t *testing.T, file string) *State {
	st, _ := mustStart(t, mustProcess(t, file), map[string]any{"fraud": false})
	return st
}

func TestUncaughtErrorIsIncident(t *testing.T) {
	t.Parallel()
	st, _ := mustStart(t, mustProcess(t, "uncaught.bpmn"), nil)
	if st.Status != StatusFailed || len(st.Incidents) != 1 || st.Incidents[0].Kind != IncidentUnhandled || !strings.Contains(st.Incidents[0].Message, "BOOM") {
		t.Fatalf("status %s incidents %+v", st.Status, st.Incidents)
	}
}

func TestEventStarts(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "starts.bpmn")
	st, _, err := Step(p, NewState("i1", p.ID, 1), Start{StartNode: "byMessage", Variables: map[string]any{"x": num("1")}}, t0, Options{})
	if err != nil || st.Status != StatusCompleted {
		t.Fatalf("message start: %v %v", err, st)
	}
	st, fx, err := Step(p, NewState("i2", p.ID, 1), Start{StartNode: "bySignal"}, t0, Options{})
	if err != nil || st.Status != StatusCompleted || len(fx.Signals) != 1 || fx.Signals[0].Name != "go" {
		t.Fatalf("signal start: %v %+v", err, fx.Signals)
	}
	if _, _, err := Step(p, NewState("i3", p.ID, 1), Start{StartNode: "plain"}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("start at the none start by name: %v", err)
	}
}

func TestWaitsSurviveCheckpoint(t *testing.T) {
	t.Parallel()
	st, _ := mustStart(t, mustProcess(t, "timers.bpmn"), nil)
	data, err := st.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if !sameState(t, st, back) {
		t.Fatalf("round trip differs")
	}
	w := waitAt(t, back, WaitTimer, "wait")
	back, _ = run(t, "timers.bpmn", back, TimerFired{WaitID: w.ID}, w.DueAt)
	if !hasWaitAt(back, "work") {
		t.Fatal("restored timer did not continue")
	}
}

func TestJobFailedDecrementsUnderTheWriter(t *testing.T) {
	t.Parallel()
	st, _ := mustStart(t, mustProcess(t, "job.bpmn"), nil)
	key := waitAt(t, st, WaitJob, "charge").ID
	st, _ = run(t, "job.bpmn", st, JobFailed{Key: key, Decrement: true}, t0)
	st, _ = run(t, "job.bpmn", st, JobFailed{Key: key, Decrement: true}, t0)
	if st.Wait(key).Retries != 0 || len(st.Incidents) != 1 {
		t.Fatalf("two decrements of a budget of 2: retries %d incidents %d", st.Wait(key).Retries, len(st.Incidents))
	}
}

// TestJobRetryCycle runs Camunda 7's camunda:failedJobRetryTimeCycle as
// Camunda 7 does: the budget is the job's retries, failure k waits the
// k-th interval (the last repeats), a worker's own backoff wins, and
// gobpm:retries (or zeebe retries) sets the budget and default schedule
// instead.
func TestJobRetryCycle(t *testing.T) {
	t.Parallel()
	const file = "retry_cycle.bpmn"
	tests := []struct {
		node    string
		retries int
		// waits are the backoffs after each failure until the incident.
		waits []time.Duration
	}{
		{"repeating", 3, []time.Duration{5 * time.Minute, 5 * time.Minute}},
		{"listed", 4, []time.Duration{time.Minute, 10 * time.Minute, 24 * time.Hour}},
		{"once", 2, []time.Duration{30 * time.Second}},
		{"overridden", 2, []time.Duration{time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			t.Parallel()
			st, _ := mustStart(t, mustProcess(t, file), nil)
			key := waitAt(t, st, WaitJob, tt.node).ID
			if got := st.Wait(key).Retries; got != tt.retries {
				t.Fatalf("created with %d retries, want %d", got, tt.retries)
			}
			now := t0
			for i, want := range tt.waits {
				st, _ = run(t, file, st, JobFailed{Key: key, Decrement: true, Jitter: 0.5, ErrorMessage: "down"}, now)
				w := st.Wait(key)
				if got := w.DueAt.Sub(now); got != want || len(st.Incidents) != 0 {
					t.Fatalf("failure %d: due after %v, incidents %d; want %v, none", i+1, got, len(st.Incidents), want)
				}
				now = w.DueAt
			}
			st, _ = run(t, file, st, JobFailed{Key: key, Decrement: true, ErrorMessage: "down"}, now)
			if len(st.Incidents) != 1 || st.Wait(key).Retries != 0 {
				t.Fatalf("last failure: retries %d incidents %+v, want an incident", st.Wait(key).Retries, st.Incidents)
			}
		})
	}
	t.Run("worker backoff wins", func(t *testing.T) {
		t.Parallel()
		st, _ := mustStart(t, mustProcess(t, file), nil)
		key := waitAt(t, st, WaitJob, "repeating").ID
		st, _ = run(t, file, st, JobFailed{Key: key, Retries: 2, Backoff: 7 * time.Second}, t0)
		if got := st.Wait(key).DueAt.Sub(t0); got != 7*time.Second {
			t.Errorf("due after %v, want the worker's 7s", got)
		}
	})
}
