package examples_test

import (
	"testing"
	"time"

	"github.com/gobpm/gobpm/gobpmtest"
)

// TestFulfilmentShips is the process test the README quotes.
func TestFulfilmentShips(t *testing.T) {
	h := gobpmtest.New(t) // the real engine on SQLite in t.TempDir(), with a manual clock
	h.Deploy("fulfilment.bpmn")

	inst := h.Start("fulfilment", map[string]any{"orderId": "o-1"})
	gobpmtest.AssertWaitingAt(t, inst, "Reserve stock")

	h.CompleteJob(inst, "reserve-stock", map[string]any{"reserved": true})
	h.CompleteTask(inst, "Pack the parcel", "pat", map[string]any{"parcel": "P-7"})
	gobpmtest.AssertWaitingAt(t, inst, "Wait for pickup")

	h.Advance(5 * time.Second) // fires the PT5S timer; nothing sleeps
	gobpmtest.AssertCompleted(t, inst)
	gobpmtest.AssertPassed(t, inst, "Shipped")
	gobpmtest.AssertVariable(t, inst, "parcel", "P-7")
}
