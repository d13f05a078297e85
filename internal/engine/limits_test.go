package engine

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
)

func TestOptionsDefaultsAgree(t *testing.T) {
	t.Parallel()
	d := Options{}.WithDefaults()
	want := Options{MaxScopeDepth: 64, MaxActivations: 501_000, MaxIterations: 100_000, MaxCallDepth: 64, MinTimerPeriod: time.Second}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("defaults = %+v, want %+v", d, want)
	}
	if d.MaxActivations != DefaultMaxActivations {
		t.Errorf("MaxActivations default %d, DefaultMaxActivations %d", d.MaxActivations, DefaultMaxActivations)
	}
	// The activation budget follows the iteration limit unless set, so a
	// parallel body at the limit still starts in one step.
	if got := (Options{MaxIterations: 10}).WithDefaults().MaxActivations; got != 1_050 {
		t.Errorf("MaxActivations for 10 iterations = %d, want 1050", got)
	}
	if got := (Options{MaxIterations: 10, MaxActivations: 7}).WithDefaults().MaxActivations; got != 7 {
		t.Errorf("an explicit MaxActivations became %d", got)
	}
	// The deployment checks what the steps will apply.
	if got := (Options{}).ModelLimits(); got != (bpmn.Limits{MinTimerPeriod: time.Second, MaxActivations: 501_000}) {
		t.Errorf("ModelLimits() = %+v", got)
	}
	if got := (Options{MinTimerPeriod: -1, MaxActivations: 10}).ModelLimits(); got != (bpmn.Limits{MaxActivations: 10}) {
		t.Errorf("ModelLimits() without a floor = %+v", got)
	}
}

// chainProcess returns a process of a none start, n tasks and an end: n+2
// activations in one step.
func chainProcess(n int) []byte {
	var b strings.Builder
	b.WriteString(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:t"><process id="chain" isExecutable="true"><startEvent id="s"/>`)
	prev := "s"
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<task id="t%d"/><sequenceFlow id="f%d" sourceRef="%s" targetRef="t%d"/>`, i, i, prev, i)
		prev = fmt.Sprintf("t%d", i)
	}
	fmt.Fprintf(&b, `<sequenceFlow id="fe" sourceRef="%s" targetRef="e"/><endEvent id="e"/></process></definitions>`, prev)
	return []byte(b.String())
}

// TestModelLimitsAgreeWithTheStepBudget checks that what the deployment
// refuses under ModelLimits is exactly what can never run under the same
// Options: the longest chain it accepts completes in one step, the
// shortest it refuses stops in a step-budget incident.
func TestModelLimitsAgreeWithTheStepBudget(t *testing.T) {
	t.Parallel()
	for _, budget := range []int{10, 1_000} {
		opts := Options{MaxActivations: budget}
		fits, over := chainProcess(budget-2), chainProcess(budget-1)

		defs, err := bpmn.ParseWith(fits, opts.ModelLimits())
		if err != nil {
			t.Fatalf("budget %d: a chain of %d activations refused: %v", budget, budget, err)
		}
		p := defs.Processes[0]
		st, _, err := Step(p, NewState("i1", p.ID, 1), Start{}, t0, opts)
		if err != nil || st.Status != StatusCompleted {
			t.Fatalf("budget %d: a chain of %d activations: status %s, incidents %+v, err %v", budget, budget, st.Status, st.Incidents, err)
		}

		_, err = bpmn.ParseWith(over, opts.ModelLimits())
		var verr *bpmn.ValidationError
		if !errors.As(err, &verr) || len(verr.Problems) != 1 || verr.Problems[0].Rule != bpmn.RuleStepBudget || verr.Problems[0].Element != "s" {
			t.Fatalf("budget %d: a chain of %d activations: ParseWith = %v, want one step-budget problem naming s", budget, budget+1, err)
		}
		defs, err = bpmn.Parse(over)
		if err != nil {
			t.Fatal(err)
		}
		p = defs.Processes[0]
		st, _, err = Step(p, NewState("i1", p.ID, 1), Start{}, t0, opts)
		if err != nil || st.Status != StatusFailed || len(st.Incidents) != 1 || st.Incidents[0].Kind != IncidentStepBudget {
			t.Fatalf("budget %d: the refused chain ran: status %s, incidents %+v, err %v", budget, st.Status, st.Incidents, err)
		}
	}
}

func TestTimerFloorHoldsExpressions(t *testing.T) {
	t.Parallel()
	p := mustProcess(t, "timer_floor.bpmn")
	tests := []struct {
		name   string
		cycle  string
		opts   Options
		detail string // "": armed
	}{
		{"below the default floor", "R/PT0.1S", Options{}, `timer of remind: timer "R/PT0.1S" fires every 100ms; the minimum timer period is 1s (the timer floor)`},
		{"at the default floor", "R/PT1S", Options{}, ""},
		{"cron under a minute's floor", "*/30 * * * * ?", Options{MinTimerPeriod: time.Minute}, `fires every 30s; the minimum timer period is 1m0s`},
		{"no floor", "R/PT0.1S", Options{MinTimerPeriod: -1}, ""},
		{"fires once", "R1/PT0.001S", Options{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, _, err := Step(p, NewState("i1", p.ID, 1), Start{Variables: map[string]any{"cycle": tt.cycle}}, t0, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if tt.detail == "" {
				if st.Status != StatusRunning || len(st.Incidents) != 0 {
					t.Fatalf("status %s, incidents %+v", st.Status, st.Incidents)
				}
				for _, w := range st.Waits {
					if w.Kind == WaitTimer && w.TimerText == tt.cycle {
						return
					}
				}
				t.Fatalf("no timer armed: %+v", st.Waits)
			}
			if st.Status != StatusFailed || len(st.Incidents) != 1 {
				t.Fatalf("status %s, incidents %+v", st.Status, st.Incidents)
			}
			in := st.Incidents[0]
			if in.Kind != IncidentTimer || in.NodeID != "work" || !strings.Contains(in.Message, tt.detail) {
				t.Errorf("incident %+v, want %s at work saying %q", in, IncidentTimer, tt.detail)
			}
			for _, w := range st.Waits {
				if w.Kind == WaitTask {
					t.Errorf("the task was created although its boundary cannot be armed: %+v", w)
				}
			}
		})
	}
}

func TestIterationLimit(t *testing.T) {
	t.Parallel()
	opts := Options{MaxIterations: 3}

	t.Run("multi-instance", func(t *testing.T) {
		t.Parallel()
		p := mustProcess(t, "mi_bench.bpmn")
		st, _, err := Step(p, NewState("i1", p.ID, 1), Start{Variables: map[string]any{"items": benchItems(4)}}, t0, opts)
		if err != nil {
			t.Fatal(err)
		}
		if st.Status != StatusFailed || len(st.Incidents) != 1 || !strings.Contains(st.Incidents[0].Message, "would run 4 iterations; a body runs at most 3 (the iteration limit)") {
			t.Fatalf("status %s, incidents %+v", st.Status, st.Incidents)
		}
		st, _, err = Step(p, NewState("i1", p.ID, 1), Start{Variables: map[string]any{"items": benchItems(3)}}, t0, opts)
		if err != nil || st.Status != StatusCompleted {
			t.Fatalf("3 iterations: status %s, incidents %+v, err %v", st.Status, st.Incidents, err)
		}
	})

	t.Run("standard loop", func(t *testing.T) {
		t.Parallel()
		// loop.bpmn counts while counter < limit: with limit 5 the loop
		// would run a fourth time. It stops in an incident naming the
		// limit instead of quietly ending after three.
		p := mustProcess(t, "loop.bpmn")
		st, _, err := Step(p, NewState("i1", p.ID, 1), Start{Variables: map[string]any{"limit": num("5")}}, t0, opts)
		if err != nil {
			t.Fatal(err)
		}
		if st.Status != StatusFailed || len(st.Incidents) != 1 || st.Incidents[0].NodeID != "count" ||
			!strings.Contains(st.Incidents[0].Message, "loop of count ran 3 iterations and would run another; a body runs at most 3 (the iteration limit)") {
			t.Fatalf("status %s, incidents %+v", st.Status, st.Incidents)
		}
		// Once the data says the loop is done, a retry completes it.
		if st, _, err = Step(p, st, VariablesSet{Variables: map[string]any{"limit": num("3")}}, t0, opts); err != nil {
			t.Fatal(err)
		}
		if st, _, err = Step(p, st, IncidentRetried{IncidentID: st.Incidents[0].ID}, t0, opts); err != nil {
			t.Fatal(err)
		}
		if st.Status != StatusCompleted {
			t.Fatalf("after the retry: status %s, incidents %+v", st.Status, st.Incidents)
		}
	})
}

// TestParallelBodyAtTheIterationLimit runs the documented maximum: a
// parallel multi-instance sub-process of 100,000 iterations (four
// activations each) starts and completes in one step within the default
// budget. Draining 100,000 sibling scopes used to scan every track for
// every scope (minutes); it is linear now.
func TestParallelBodyAtTheIterationLimit(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("100,000 iterations: not in -short or -race runs")
	}
	t.Parallel()
	data := fmt.Sprintf(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:t"><process id="mi" isExecutable="true">
<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="body"/>
<subProcess id="body"><multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>%d</loopCardinality></multiInstanceLoopCharacteristics>
<startEvent id="in"/><sequenceFlow id="g1" sourceRef="in" targetRef="work"/><task id="work"/><sequenceFlow id="g2" sourceRef="work" targetRef="out"/><endEvent id="out"/></subProcess>
<sequenceFlow id="f2" sourceRef="body" targetRef="e"/><endEvent id="e"/></process></definitions>`, DefaultMaxIterations)
	defs, err := bpmn.ParseWith([]byte(data), Options{}.ModelLimits())
	if err != nil {
		t.Fatal(err)
	}
	p := defs.Processes[0]
	start := time.Now()
	st, _, err := Apply(p, NewState("i1", p.ID, 1), Start{}, t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != StatusCompleted {
		t.Fatalf("status %s, incidents %+v", st.Status, st.Incidents)
	}
	t.Logf("%d iterations in one step: %v", DefaultMaxIterations, time.Since(start))
}
