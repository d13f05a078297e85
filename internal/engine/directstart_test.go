package engine

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/scope"
)

// TestDirectStart: an instance started without an event of its own (by key,
// or by a call activity) begins at the process's one start event when that
// is the only way it starts and its trigger needs nothing (Camunda 7's
// "initial" activity, MessageStartEventTest.testSingleMessageStartEvent);
// every other shape without a None start is refused, naming why.
func TestDirectStart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		file   string
		vars   map[string]any
		path   []string
		status string
		vars2  map[string]any // expected root variables (exactly)
		refuse string         // part of the refusal, "" when it starts
	}{
		{
			name: "camunda 7 single message start", file: "camunda7/MessageStartEventTest.testSingleMessageStartEvent.bpmn20.xml",
			path: []string{"theStart", "task"}, status: StatusRunning, vars2: map[string]any{},
		},
		{
			name: "signal start", file: "directstart/signal_only.bpmn", vars: map[string]any{"x": "1"},
			path: []string{"start", "task"}, status: StatusRunning, vars2: map[string]any{"x": "1"},
		},
		{
			name: "timer start", file: "directstart/timer_only.bpmn",
			path: []string{"start", "end"}, status: StatusCompleted, vars2: map[string]any{},
		},
		{
			name: "message start with outputs takes the variables as its payload", file: "directstart/message_outputs.bpmn",
			vars: map[string]any{"amount": num("4")}, path: []string{"start", "task"}, status: StatusRunning,
			vars2: map[string]any{"doubled": num("8")},
		},
		{name: "two message starts", file: "directstart/two_messages.bpmn", refuse: "2 triggered ways to start"},
		{name: "instantiating event-based gateway", file: "instantiate_gateway.bpmn", refuse: "3 triggered ways to start"},
		{name: "instantiating receive task", file: "instantiate_receive.bpmn", refuse: "instantiating"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := mustProcess(t, tc.file)
			st, fx, err := Step(p, NewState("i1", p.ID, 1), Start{Variables: tc.vars}, t0, Options{})
			if tc.refuse != "" {
				if !errors.Is(err, ErrInvalidTransition) || !strings.Contains(err.Error(), tc.refuse) || !strings.Contains(err.Error(), "no none start event") {
					t.Fatalf("start = %v, want a refusal saying %q", err, tc.refuse)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := activated(fx); !reflect.DeepEqual(got, tc.path) || st.Status != tc.status {
				t.Fatalf("path %v status %s, want %v %s", got, st.Status, tc.path, tc.status)
			}
			if got := st.Scopes.Get(scope.RootID).Vars; !reflect.DeepEqual(got, tc.vars2) {
				t.Errorf("variables = %v, want %v", got, tc.vars2)
			}
			if tc.status != StatusRunning {
				return
			}
			// The instance goes on as one its event started: complete the
			// task, after a checkpoint round trip.
			w := waitAt(t, st, WaitTask, "task")
			st, _ = run(t, tc.file, st, TaskCompleted{TaskID: w.ID, User: "u"}, t0)
			if st.Status != StatusCompleted {
				t.Errorf("after the task: status %s", st.Status)
			}
		})
	}
}
