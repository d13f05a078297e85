package engine

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/expr"
)

// ids lists the ids of nodes.
func ids(nodes []*bpmn.Node) []string {
	out := []string{}
	for _, n := range nodes {
		out = append(out, n.ID)
	}
	return out
}

// TestHoldingConditionalStarts: each conditional start event is evaluated
// on its own against the call's variables (Camunda 7's
// ConditionalStartEventTest); a variable the call did not send makes a
// condition false; any other failure is an error naming the event.
func TestHoldingConditionalStarts(t *testing.T) {
	t.Parallel()
	three := mustProcess(t, "conditionalstart/conditional_starts.bpmn")
	juel := mustProcess(t, "conditionalstart/conditional_juel.bpmn")
	if got := ids(ConditionalStarts(three)); !reflect.DeepEqual(got, []string{"warm", "hot", "boiling"}) {
		t.Fatalf("conditional starts = %v", got)
	}
	tests := []struct {
		name  string
		proc  *bpmn.Process
		vars  map[string]any
		opts  Options
		want  []string
		fails string // part of the error, "" when it evaluates
	}{
		{name: "two of three hold", proc: three, vars: map[string]any{"temperature": json.Number("42")}, want: []string{"warm", "hot"}},
		{name: "all hold", proc: three, vars: map[string]any{"temperature": json.Number("101")}, want: []string{"warm", "hot", "boiling"}},
		{name: "FEEL: a missing variable is null, false", proc: three, vars: map[string]any{}, want: []string{}},
		{name: "JUEL: a missing variable is false", proc: juel, vars: map[string]any{"orderTotal": json.Number("150")}, want: []string{"ordered"}},
		{name: "JUEL: nothing sent", proc: juel, vars: nil, want: []string{}},
		{name: "JUEL: a non-boolean result fails", proc: juel, vars: map[string]any{"flag": "yes"}, fails: `start event "flagged" of process juelCondition`},
		{name: "JUEL: a failed coercion fails", proc: juel, vars: map[string]any{"orderTotal": "lots"}, fails: `start event "ordered"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := HoldingConditionalStarts(tc.proc, tc.vars, t0, tc.opts)
			if tc.fails != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fails) {
					t.Fatalf("err = %v, want one saying %q", err, tc.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ids := ids(got); !reflect.DeepEqual(ids, tc.want) {
				t.Errorf("holding = %v, want %v", ids, tc.want)
			}
		})
	}
}

// TestConditionalStartBudget: a condition that hits the evaluation budget
// is an error, not a false.
func TestConditionalStartBudget(t *testing.T) {
	t.Parallel()
	p := parseOne(t, `<startEvent id="heavy"><conditionalEventDefinition><condition>count(for i in 1..100000 return i) &gt; 0</condition></conditionalEventDefinition></startEvent>
    <sequenceFlow id="f" sourceRef="heavy" targetRef="e"/><endEvent id="e"/>`)
	_, err := HoldingConditionalStarts(p, nil, t0, Options{Eval: expr.Limits{MaxSteps: 100}})
	if !errors.Is(err, expr.ErrBudget) || !strings.Contains(err.Error(), `"heavy"`) {
		t.Fatalf("err = %v, want the budget error naming the event", err)
	}
}

// TestConditionalStartRun: an instance started at a conditional start
// event runs from it with the call's variables; started by key, a process
// whose only starts are conditional points to evaluating conditions.
func TestConditionalStartRun(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "conditionalstart/conditional_starts.bpmn")
	vars := map[string]any{"temperature": json.Number("42")}
	st, fx, err := Step(p, NewState("i1", p.ID, 1), Start{Variables: vars, StartNode: "hot"}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := activated(fx); !reflect.DeepEqual(got, []string{"hot", "hotTask"}) || st.Status != StatusRunning {
		t.Fatalf("path %v status %s, want [hot hotTask] running", got, st.Status)
	}
	_, _, err = Step(p, NewState("i2", p.ID, 1), Start{Variables: vars}, t0, Options{})
	if !errors.Is(err, ErrInvalidTransition) || !strings.Contains(err.Error(), "POST /api/v1/conditions/evaluate") {
		t.Fatalf("start by key = %v, want a refusal naming the evaluate-conditions route", err)
	}
	one := parseOne(t, `<startEvent id="only"><conditionalEventDefinition><condition>x</condition></conditionalEventDefinition></startEvent>
    <sequenceFlow id="f" sourceRef="only" targetRef="e"/><endEvent id="e"/>`)
	if _, err := DirectStart(one); err == nil || !strings.Contains(err.Error(), `conditional start event "only"`) || !strings.Contains(err.Error(), "/api/v1/conditions/evaluate") {
		t.Fatalf("DirectStart = %v", err)
	}
}

// parseOne parses a process body.
func parseOne(t *testing.T, body string) *bpmn.Process {
	t.Helper()
	defs, err := bpmn.Parse([]byte(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:test"><process id="p" isExecutable="true">` + body + `</process></definitions>`))
	if err != nil {
		t.Fatal(err)
	}
	return defs.Processes[0]
}
