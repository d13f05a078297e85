package engine

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

// TestReceiveTaskTrigger: a receive task without a messageRef waits until
// it is triggered by its wait id, as Camunda 7's
// ReceiveTaskTest.testWaitStateBehavior signals the execution; the
// trigger's variables are its payload (output mappings see them), its
// boundary events are armed meanwhile, and only a trigger wait can be
// triggered.
func TestReceiveTaskTrigger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		file  string
		node  string
		vars  map[string]any
		path  []string       // activated after the trigger
		vars2 map[string]any // root variables at the end (exactly)
	}{
		{
			name: "camunda 7 wait state", file: "camunda7/ReceiveTaskTest.testWaitStateBehavior.bpmn20.xml", node: "waitState",
			vars: map[string]any{"ok": true}, path: []string{"theEnd"}, vars2: map[string]any{"ok": true},
		},
		{
			name: "in a sub-process with outputs", file: "trigger/boundary.bpmn", node: "wait",
			vars: map[string]any{"amount": num("1")}, path: []string{"subEnd", "end"}, vars2: map[string]any{"next": num("2")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := mustProcess(t, tc.file)
			st, _ := mustStart(t, p, nil)
			w := waitAt(t, st, WaitTrigger, tc.node)
			if w.Name == "" || len(st.Waits) != 1+len(p.Node(tc.node).Boundaries) {
				t.Fatalf("waits %+v", st.Waits)
			}
			// Another act on the wait is refused, and so is a trigger of
			// another kind of wait.
			if _, _, err := Step(p, roundTrip(t, st), MessageDelivered{WaitID: w.ID}, t0, Options{}); !errors.Is(err, ErrUnknownWait) {
				t.Errorf("a message to the trigger wait: %v", err)
			}
			st, fx := run(t, tc.file, st, WaitTriggered{WaitID: w.ID, Variables: tc.vars, By: "ops"}, t0)
			if got := activated(fx); !reflect.DeepEqual(got, tc.path) || st.Status != StatusCompleted {
				t.Fatalf("path %v status %s, want %v completed", got, st.Status, tc.path)
			}
			if got := st.Scopes.Get(scope.RootID).Vars; !reflect.DeepEqual(got, tc.vars2) {
				t.Errorf("variables %v, want %v", got, tc.vars2)
			}
			ev := factsOf(fx, FactEventTriggered)
			if len(ev) != 1 || ev[0].Detail["kind"] != string(WaitTrigger) || ev[0].Detail["by"] != "ops" {
				t.Errorf("event-triggered facts %+v", ev)
			}
			if _, _, err := Step(p, roundTrip(t, st), WaitTriggered{WaitID: w.ID}, t0, Options{}); !errors.Is(err, ErrInvalidTransition) {
				t.Errorf("a second trigger after the end: %v", err)
			}
		})
	}

	t.Run("the boundary timer withdraws the trigger wait", func(t *testing.T) {
		t.Parallel()
		const file = "trigger/boundary.bpmn"
		st, _ := mustStart(t, mustProcess(t, file), nil)
		w := waitAt(t, st, WaitTrigger, "wait")
		timer := waitAt(t, st, WaitTimer, "late")
		st, _ = run(t, file, st, TimerFired{WaitID: timer.ID}, timer.DueAt)
		if st.Status != StatusCompleted || st.Wait(w.ID) != nil {
			t.Fatalf("status %s waits %+v", st.Status, st.Waits)
		}
	})

	t.Run("only a trigger wait is triggered", func(t *testing.T) {
		t.Parallel()
		const file = "user_task.bpmn"
		st, _ := mustStart(t, mustProcess(t, file), nil)
		task := st.Waits[0]
		_, _, err := Step(mustProcess(t, file), roundTrip(t, st), WaitTriggered{WaitID: task.ID}, t0, Options{})
		if !errors.Is(err, ErrUnknownWait) || !strings.Contains(err.Error(), "receive task without a messageRef") {
			t.Errorf("trigger of a user task: %v", err)
		}
	})
}

// TestReceiveTaskTriggerShapes: the shapes a receive task without a
// messageRef cannot take are refused at deployment.
func TestReceiveTaskTriggerShapes(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, body, want string }{
		{"instantiating", `<receiveTask id="r" instantiate="true"/><sequenceFlow id="f" sourceRef="r" targetRef="e"/><endEvent id="e"/>`,
			"an instantiating receiveTask needs a messageRef"},
		{"after an event-based gateway", `<startEvent id="s"/><sequenceFlow id="f0" sourceRef="s" targetRef="g"/><eventBasedGateway id="g"/>
			<sequenceFlow id="f1" sourceRef="g" targetRef="r"/><receiveTask id="r"/>
			<sequenceFlow id="f2" sourceRef="g" targetRef="t"/><intermediateCatchEvent id="t"><timerEventDefinition><timeDuration>PT1M</timeDuration></timerEventDefinition></intermediateCatchEvent>
			<sequenceFlow id="f3" sourceRef="r" targetRef="e"/><sequenceFlow id="f4" sourceRef="t" targetRef="e"/><endEvent id="e"/>`,
			"receive tasks with a messageRef"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="urn:t"><process id="p" isExecutable="true">` + tc.body + `</process></definitions>`
			if _, err := bpmn.Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("parse = %v, want a refusal saying %q", err, tc.want)
			}
		})
	}
}
