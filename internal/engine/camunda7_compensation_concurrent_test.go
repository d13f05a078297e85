package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// stepWith runs one step of process p (parsed once, not from a file).
func stepWith(t *testing.T, p *bpmn.Process, st *State, ev Event, at time.Time) *State {
	t.Helper()
	next, _, err := Step(p, roundTrip(t, st), ev, at, Options{})
	if err != nil {
		t.Fatalf("%s: %v", ev.Kind(), err)
	}
	return next
}

// processOf parses a testdata model, without the camunda namespace
// declaration when plain, with attr added to its process element.
func processOf(t *testing.T, file string, plain bool, attr string) *bpmn.Process {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	xml := string(data)
	if plain {
		xml = strings.Replace(xml, `xmlns:camunda="http://camunda.org/schema/1.0/bpmn"`, "", 1)
	}
	if attr != "" {
		xml = strings.Replace(xml, `<process id="compensateProcess"`, `<process id="compensateProcess" xmlns:gobpm="urn:gobpm:1" `+attr, 1)
	}
	defs, err := bpmn.Parse([]byte(xml))
	if err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	return defs.Processes[0]
}

// completeOldest completes the oldest open user task of node.
func completeOldest(t *testing.T, p *bpmn.Process, st *State, node string) *State {
	t.Helper()
	return stepWith(t, p, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, node).ID, User: "u"}, t0)
}

// TestCompensationConcurrentHandlers: a model drawn for
// Camunda (the camunda: namespace) starts the handlers a throw claims
// together, as Camunda 7 does — the five "Cancel Hotel" tasks of
// testCompensateActivityRefMiActivity, and Cancel Hotel and Cancel Flight
// of testCompensateSubprocessInsideSubprocess, which the Java test
// completes hotel first —; gobpm:compensation="sequential" keeps them one
// at a time, the latest completion first, as for a model without Camunda's
// namespace, where gobpm:compensation="concurrent" chooses Camunda's way.
func TestCompensationConcurrentHandlers(t *testing.T) {
	t.Parallel()
	const mi = "camunda7/CompensateEventTest.testCompensateActivityRefMiActivity.bpmn20.xml"
	const nested = "camunda7/CompensateEventTest.testCompensateSubprocessInsideSubprocess.bpmn20.xml"
	tests := []struct {
		name     string
		plain    bool
		attr     string
		together int
	}{
		{"camunda model", false, "", 5},
		{"camunda model, sequential", false, `gobpm:compensation="sequential"`, 1},
		{"plain model", true, "", 1},
		{"plain model, concurrent", true, `gobpm:compensation="concurrent"`, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := processOf(t, mi, tc.plain, tc.attr)
			if p.ConcurrentCompensation != (tc.together > 1) {
				t.Fatalf("ConcurrentCompensation %v", p.ConcurrentCompensation)
			}
			st, _, err := Step(p, NewState("i1", p.ID, 1), Start{}, t0, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				st = completeOldest(t, p, st, "bookHotel")
			}
			st = stepWith(t, p, st, TaskCompleted{TaskID: waitAt(t, st, WaitTask, "task").ID, User: "u", Variables: map[string]any{"accept": false}}, t0)
			if n := waitsAt(st, WaitTask, "undoBookHotel"); n != tc.together {
				t.Fatalf("%d Cancel Hotel tasks open at once, want %d", n, tc.together)
			}
			for i := 0; i < 5; i++ {
				st = completeOldest(t, p, st, "undoBookHotel")
			}
			if st.Status != StatusCompleted || len(st.Entries) != 0 {
				t.Fatalf("status %s entries %+v", st.Status, st.Entries)
			}
		})
	}
	t.Run("nested sub-processes", func(t *testing.T) {
		t.Parallel()
		st, _ := mustStart(t, mustProcess(t, nested), nil)
		for _, node := range []string{"bookHotel", "bookFlight", "throwCompensation", "undoBookHotel", "undoBookFlight"} {
			st = completeTasks(t, nested, st, node, 1, nil)
		}
		if st.Status != StatusCompleted {
			t.Fatalf("status %s", st.Status)
		}
	})
}
