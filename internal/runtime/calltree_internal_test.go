package runtime

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/gobpm/gobpm/internal/engine"
)

func TestCallTreeLimitsDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limits CallTreeLimits
		eng    engine.Options
		want   CallTreeLimits
	}{
		{"zero picks the defaults", CallTreeLimits{}, engine.Options{},
			CallTreeLimits{MaxInstances: 1_000, MaxActivations: 2 * engine.DefaultMaxActivations, MaxBytes: 32 << 20}},
		{"activations follow the engine's step budget", CallTreeLimits{}, engine.Options{MaxIterations: 1_000},
			CallTreeLimits{MaxInstances: 1_000, MaxActivations: 2 * 6_000, MaxBytes: 32 << 20}},
		{"set values stay", CallTreeLimits{MaxInstances: 7, MaxActivations: 8, MaxBytes: 9}, engine.Options{},
			CallTreeLimits{MaxInstances: 7, MaxActivations: 8, MaxBytes: 9}},
		{"negative is no cap", CallTreeLimits{MaxInstances: -1, MaxActivations: -1, MaxBytes: -1}, engine.Options{},
			CallTreeLimits{MaxInstances: math.MaxInt, MaxActivations: math.MaxInt, MaxBytes: math.MaxInt64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.limits.withDefaults(tt.eng); got != tt.want {
				t.Errorf("withDefaults = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestCallBudgetAdmit checks the account a command keeps: a launch is
// admitted (and counted) while every count is below its bound; the first
// bound reached refuses it, counts nothing, and is named with its value.
func TestCallBudgetAdmit(t *testing.T) {
	t.Parallel()
	limits := CallTreeLimits{MaxInstances: 3, MaxActivations: 100, MaxBytes: 1_000}
	tests := []struct {
		name   string
		budget callBudget
		want   string // "" admits
	}{
		{"empty", callBudget{}, ""},
		{"below every bound", callBudget{launched: 2, activations: 99, bytes: 999}, ""},
		{"instances", callBudget{launched: 3}, "this step would launch more than 3 instances (CallTreeLimits.MaxInstances)"},
		{"activations", callBudget{activations: 100}, "this step has made 100 element activations across its call tree, the most it may make is 100 (CallTreeLimits.MaxActivations)"},
		{"bytes", callBudget{bytes: 1_200}, "the instances this step launched hold 1200 bytes, the most they may hold is 1000 (CallTreeLimits.MaxBytes)"},
		{"instances are named first", callBudget{launched: 3, activations: 100, bytes: 1_000}, "more than 3 instances"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := tt.budget
			why := b.admit(limits, "spawn")
			if tt.want == "" {
				if why != "" || b.launched != tt.budget.launched+1 {
					t.Errorf("admit = %q with %+v, want admitted and counted", why, b)
				}
				return
			}
			prefix := "call-tree budget: call activity spawn was not launched: "
			if !strings.HasPrefix(why, prefix) || !strings.Contains(why, tt.want) || !strings.HasSuffix(why, "; retrying this incident launches it in a step of its own") {
				t.Errorf("admit = %q, want %q naming %q", why, prefix, tt.want)
			}
			if b != tt.budget {
				t.Errorf("a refusal counted: %+v", b)
			}
		})
	}
}

// TestCallBudgetSpendAndHold checks what counts: every applied step's
// activations, and every launched child's encoded bytes and rows.
func TestCallBudgetSpendAndHold(t *testing.T) {
	t.Parallel()
	var b callBudget
	b.spend(engine.Effects{Activations: 5})
	b.spend(engine.Effects{Activations: 7})
	b.hold(StepRecord{Header: make([]byte, 10), Parts: []engine.Part{{Data: make([]byte, 20)}, {Data: make([]byte, 30)}},
		Facts: []FactRow{{Detail: make([]byte, 40), ScopePath: "/sub"}}, Outbox: []OutboxRow{{Payload: make([]byte, 50)}},
		Waits: []WaitRow{{}}, Incidents: []IncidentRow{{}}, RemovedParts: []engine.PartRef{{}}})
	rows := 2*unsafe.Sizeof(engine.Part{}) + unsafe.Sizeof(FactRow{}) + unsafe.Sizeof(OutboxRow{}) +
		unsafe.Sizeof(WaitRow{}) + unsafe.Sizeof(IncidentRow{}) + unsafe.Sizeof(engine.PartRef{})
	if want := 154 + int64(rows); b.activations != 12 || b.bytes != want || b.launched != 0 {
		t.Errorf("budget %+v, want 12 activations and %d bytes", b, want)
	}
}

// TestWakeups checks that a launched child's effects keep what
// afterCommit reads besides the record (job and timer waits, by kind and
// name) and drop what its record already holds.
func TestWakeups(t *testing.T) {
	t.Parallel()
	fx := engine.Effects{
		Facts: []engine.Fact{{Kind: engine.FactIncidentCreated}},
		Waits: []engine.Wait{{ID: "j", Kind: engine.WaitJob, Name: "mail"}, {ID: "u", Kind: engine.WaitTask, Name: "review"},
			{ID: "t", Kind: engine.WaitTimer, Name: "late"}},
		Changed: []engine.PartRef{{}}, Activations: 3,
	}
	got := wakeups(fx)
	want := []engine.Wait{{Kind: engine.WaitJob, Name: "mail"}, {Kind: engine.WaitTimer, Name: "late"}}
	if !reflect.DeepEqual(got, engine.Effects{Waits: want}) {
		t.Errorf("wakeups = %+v, want only %+v", got, want)
	}
}
