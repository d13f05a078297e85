package gobpmtest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/gobpmtest"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestFailureMessagesShowWhereTheInstanceIs(t *testing.T) {
	t.Parallel()
	h := gobpmtest.New(t)
	h.Deploy("../examples/fulfilment.bpmn")
	inst := h.Start("fulfilment", map[string]any{"orderId": "o-1"})

	tests := []struct {
		name   string
		assert func(tb testing.TB)
		want   []string
	}{
		{"waiting elsewhere", func(tb testing.TB) { gobpmtest.AssertWaitingAt(tb, inst, "Pack the parcel") }, []string{
			`instance is not waiting at "Pack the parcel"`, `waiting at: "Reserve stock" (reserve), a job wait "reserve-stock"`, "passed: placed → reserve", `variables: {"orderId":"o-1"}`}},
		{"not completed", func(tb testing.TB) { gobpmtest.AssertCompleted(tb, inst) }, []string{"has not completed", "is running"}},
		{"not passed", func(tb testing.TB) { gobpmtest.AssertPassed(tb, inst, "shipped") }, []string{`did not pass "shipped"`}},
		{"wrong variable", func(tb testing.TB) { gobpmtest.AssertVariable(tb, inst, "orderId", "o-2") }, []string{`variable "orderId" = "o-1", want "o-2"`}},
		{"missing variable", func(tb testing.TB) { gobpmtest.AssertVariable(tb, inst, "nope", 1) }, []string{`no variable "nope"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			tt.assert(r)
			if len(r.errs) != 1 {
				t.Fatalf("failures = %q, want one", r.errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.errs[0], w) {
					t.Errorf("failure %q\nlacks %q", r.errs[0], w)
				}
			}
		})
	}

	// Passing assertions record nothing; names and ids both work.
	r := &recorder{TB: t}
	gobpmtest.AssertWaitingAt(r, inst, "Reserve stock")
	gobpmtest.AssertWaitingAt(r, inst, "reserve")
	gobpmtest.AssertPassed(r, inst, "Order placed", "reserve")
	gobpmtest.AssertVariable(r, inst, "orderId", "o-1")
	if len(r.errs) != 0 {
		t.Errorf("failures = %q", r.errs)
	}
}

func TestAdvanceFiresDueTimersOnly(t *testing.T) {
	t.Parallel()
	h := gobpmtest.New(t)
	h.Deploy("../examples/fulfilment.bpmn")
	inst := h.Start("fulfilment", nil)
	h.CompleteJob(inst, "reserve-stock", nil)
	h.CompleteTask(inst, "pack", "pat", nil)
	if n := h.Advance(4999 * time.Millisecond); n != 0 {
		t.Errorf("fired %d before the timer was due", n)
	}
	if n := h.Advance(time.Millisecond); n != 1 {
		t.Errorf("fired %d at the due time, want 1", n)
	}
	gobpmtest.AssertCompleted(t, inst)
	if got := h.Clock.Now(); !got.Equal(gobpmtest.Epoch.Add(5 * time.Second)) {
		t.Errorf("clock = %s", got)
	}
}
