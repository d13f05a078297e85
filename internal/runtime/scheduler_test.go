package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// setupLimited is setupClocked with runtime options of the test's own (the
// clock is always the injected one).
func setupLimited(t *testing.T, opts runtime.Options) *clocked {
	t.Helper()
	c := &clocked{path: testdb.DSN(t), clk: clock.NewManual(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))}
	reopen := func() {
		db, err := testdb.Open(context.Background(), c.path)
		if err != nil {
			t.Fatal(err)
		}
		o := opts
		o.Now = c.clk.Now
		c.db, c.rt = db, runtime.New(db, o)
	}
	reopen()
	t.Cleanup(func() { c.close(t) })
	return c
}

// startsProcess returns a process "key" whose n timer start events each
// carry the timer element given (e.g. <timeCycle>R/PT1H</timeCycle>).
func startsProcess(key string, n int, timerXML string) runtime.File {
	var b strings.Builder
	fmt.Fprintf(&b, `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:t"><process id="%s" isExecutable="true">`, key)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<startEvent id="tick%d"><timerEventDefinition>%s</timerEventDefinition></startEvent><sequenceFlow id="f%d" sourceRef="tick%d" targetRef="end"/>`, i, timerXML, i, i)
	}
	b.WriteString(`<endEvent id="end"/></process></definitions>`)
	return runtime.File{Name: key + ".bpmn", Content: []byte(b.String())}
}

func instanceCount(t *testing.T, rt *runtime.Runtime, key string) int {
	t.Helper()
	_, total, err := rt.ListInstances(context.Background(), runtime.InstanceFilter{ProcessKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// TestTimerStartCatchUp: a cycle that missed occurrences while the server
// was down fires once for all of them and continues from the time it
// fired (Zeebe's rule), whatever the kind of cycle.
func TestTimerStartCatchUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, cycle string
		// next is the due time after the catch-up firing at 09:00 + 10h30m.
		next string
	}{
		{"interval", "R/PT1H", "2026-11-30T20:30:00Z"},
		{"anchored interval", "R/2026-11-30T09:00:00Z/PT1H", "2026-11-30T20:00:00Z"},
		{"cron", "0 0 * * * ?", "2026-11-30T20:00:00Z"},
		{"bounded", "R5/PT1H", "2026-11-30T20:30:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := setupLimited(t, runtime.Options{})
			ctx := context.Background()
			mustDeploy(t, c.rt, startsProcess("nightly", 1, "<timeCycle>"+tt.cycle+"</timeCycle>"))
			c.clk.Advance(10*time.Hour + 30*time.Minute) // ten missed occurrences
			if n, err := c.rt.FireDueTimers(ctx); n != 1 || err != nil {
				t.Fatalf("catch-up fired %d (%v), want 1", n, err)
			}
			if n, _ := c.rt.FireDueTimers(ctx); n != 0 {
				t.Fatalf("a second catch-up round fired %d", n)
			}
			if got := instanceCount(t, c.rt, "nightly"); got != 1 {
				t.Fatalf("%d instances, want 1", got)
			}
			rows, err := c.db.StartTimers(ctx, "nightly")
			if err != nil || len(rows) != 1 {
				t.Fatalf("schedule %+v %v", rows, err)
			}
			if got := rows[0].DueAt.UTC().Format(time.RFC3339); got != tt.next {
				t.Errorf("next due %s, want %s", got, tt.next)
			}
		})
	}
}

// TestTimerStartCap: 25 timer starts of one process due at once start at
// most MaxTimerStartsPerSecond instances per second of the clock; the rest
// fire in the following seconds, late and never early, none lost, and
// another process's timer start is not held back meanwhile.
func TestTimerStartCap(t *testing.T) {
	t.Parallel()
	past := "<timeDate>2026-01-01T00:00:00Z</timeDate>" // due at deployment
	t.Run("default cap", func(t *testing.T) {
		t.Parallel()
		c := setupLimited(t, runtime.Options{})
		ctx := context.Background()
		mustDeploy(t, c.rt, startsProcess("burst", 25, past))
		mustDeploy(t, c.rt, startsProcess("other", 1, past))
		deployed := c.clk.Now()
		want := []int{10, 20, 25}
		for sec, w := range want {
			if sec > 0 {
				c.clk.Advance(time.Second)
			}
			if _, err := c.rt.FireDueTimers(ctx); err != nil {
				t.Fatal(err)
			}
			if got := instanceCount(t, c.rt, "burst"); got != w {
				t.Fatalf("second %d: %d instances, want %d", sec, got, w)
			}
			if sec == 0 {
				if got := instanceCount(t, c.rt, "other"); got != 1 {
					t.Fatalf("the other process's timer start waited: %d instances", got)
				}
				rows, err := c.db.StartTimers(ctx, "burst")
				if err != nil || len(rows) != 15 {
					t.Fatalf("postponed schedules %d (%v), want 15", len(rows), err)
				}
				for i, r := range rows {
					if wantDue := deployed.Add(time.Duration(1+i/10) * time.Second); !r.DueAt.Equal(wantDue) {
						t.Errorf("row %d due %v, want %v", i, r.DueAt, wantDue)
					}
				}
				// Firing again within the second starts nothing.
				if n, _ := c.rt.FireDueTimers(ctx); n != 0 {
					t.Fatalf("fired %d more within the same second", n)
				}
			}
		}
		if rows, _ := c.db.StartTimers(ctx, "burst"); len(rows) != 0 {
			t.Errorf("schedules left: %+v", rows)
		}
	})
	t.Run("cap of 3", func(t *testing.T) {
		t.Parallel()
		c := setupLimited(t, runtime.Options{MaxTimerStartsPerSecond: 3})
		ctx := context.Background()
		mustDeploy(t, c.rt, startsProcess("burst", 7, past))
		for sec, w := range []int{3, 6, 7} {
			if sec > 0 {
				c.clk.Advance(time.Second)
			}
			c.rt.FireDueTimers(ctx)
			if got := instanceCount(t, c.rt, "burst"); got != w {
				t.Fatalf("second %d: %d instances, want %d", sec, got, w)
			}
		}
	})
	t.Run("no cap", func(t *testing.T) {
		t.Parallel()
		c := setupLimited(t, runtime.Options{MaxTimerStartsPerSecond: -1})
		mustDeploy(t, c.rt, startsProcess("burst", 25, past))
		c.rt.FireDueTimers(context.Background())
		if got := instanceCount(t, c.rt, "burst"); got != 25 {
			t.Fatalf("%d instances, want 25", got)
		}
	})
}

// TestDeployHoldsModelsToTheEngineLimits: the runtime's engine options are
// what a deployment is checked against; a definition deployed under other
// limits still reads back after a restart under stricter ones.
func TestDeployHoldsModelsToTheEngineLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fast := startsProcess("fast", 1, "<timeCycle>R/PT30S</timeCycle>")

	strict := setupLimited(t, runtime.Options{Engine: engine.Options{MinTimerPeriod: time.Minute, MaxActivations: 3}})
	_, err := strict.rt.Deploy(ctx, []runtime.File{fast, fixture(t, "straight.bpmn")})
	var derr *runtime.DeploymentError
	if !errors.As(err, &derr) {
		t.Fatalf("deploy = %v, want a DeploymentError", err)
	}
	rules := map[string]string{}
	for _, p := range derr.Problems {
		rules[p.Element] = p.Rule
	}
	if rules["tick1"] != "timer-too-frequent" || len(derr.Problems) != 2 {
		t.Errorf("problems %+v, want timer-too-frequent on tick1 and a step-budget problem in straight.bpmn", derr.Problems)
	}
	for _, p := range derr.Problems {
		if p.Resource == "straight.bpmn" && p.Rule != "step-budget-exceeded" {
			t.Errorf("straight.bpmn: %+v", p)
		}
	}

	// Deployed without a floor, then read back under the default one.
	c := setupLimited(t, runtime.Options{Engine: engine.Options{MinTimerPeriod: -1}})
	mustDeploy(t, c.rt, fast)
	c.close(t)
	db, err := testdb.Open(ctx, c.path)
	if err != nil {
		t.Fatal(err)
	}
	// No Resume: its scheduler would race this test to the due timer.
	c.db, c.rt = db, runtime.New(db, runtime.Options{Now: c.clk.Now})
	c.clk.Advance(30 * time.Second)
	if n, err := c.rt.FireDueTimers(ctx); n != 1 || err != nil {
		t.Fatalf("the old definition's timer start fired %d (%v), want 1", n, err)
	}
}
