package examples_test

import (
	"testing"
	"time"

	"github.com/gobpm/gobpm/gobpmtest"
)

func TestOrderApproval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		quantity, price   int
		approved          bool
		passed, notPassed []string
	}{
		{"small orders are approved automatically", 2, 10, true, []string{"Compute total", "autoApprove", "done"}, []string{"review"}},
		{"medium orders are reviewed and approved", 20, 100, true, []string{"review", "Assess risk", "reviewDecision"}, []string{"autoApprove"}},
		{"large orders are reviewed and refused", 100, 100, false, []string{"review", "Decide"}, []string{"Approve automatically"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := gobpmtest.New(t)
			h.Deploy("order-approval.bpmn")
			inst := h.Start("order-approval", map[string]any{"quantity": tt.quantity, "unitPrice": tt.price})
			gobpmtest.AssertCompleted(t, inst)
			gobpmtest.AssertVariable(t, inst, "total", tt.quantity*tt.price)
			gobpmtest.AssertVariable(t, inst, "approved", tt.approved)
			gobpmtest.AssertPassed(t, inst, tt.passed...)
			gobpmtest.AssertNotPassed(t, inst, tt.notPassed...)
		})
	}
}

func TestFulfilment(t *testing.T) {
	t.Parallel()

	t.Run("reserved, packed, picked up", func(t *testing.T) {
		t.Parallel()
		h := gobpmtest.New(t)
		h.Deploy("fulfilment.bpmn")
		inst := h.Start("fulfilment", map[string]any{"orderId": "o-1"})
		gobpmtest.AssertWaitingAt(t, inst, "Reserve stock")

		h.CompleteJob(inst, "reserve-stock", map[string]any{"reserved": true})
		gobpmtest.AssertWaitingAt(t, inst, "Pack the parcel")

		h.CompleteTask(inst, "Pack the parcel", "pat", map[string]any{"parcel": "P-7"})
		gobpmtest.AssertWaitingAt(t, inst, "Wait for pickup")

		h.Advance(4 * time.Second) // the pickup window is PT5S
		gobpmtest.AssertWaitingAt(t, inst, "pickupWindow")
		h.Advance(time.Second)

		gobpmtest.AssertCompleted(t, inst)
		gobpmtest.AssertPassed(t, inst, "reserve", "pack", "pickupWindow", "Shipped")
		gobpmtest.AssertNotPassed(t, inst, "Cancelled")
		gobpmtest.AssertVariable(t, inst, "parcel", "P-7")
	})

	t.Run("out of stock cancels the order", func(t *testing.T) {
		t.Parallel()
		h := gobpmtest.New(t)
		h.Deploy("fulfilment.bpmn")
		inst := h.Start("fulfilment", map[string]any{"orderId": "o-2"})
		h.ThrowError(inst, "reserve-stock", "OUT_OF_STOCK", nil)
		gobpmtest.AssertCompleted(t, inst)
		gobpmtest.AssertPassed(t, inst, "Out of stock", "cancelled")
		gobpmtest.AssertNotPassed(t, inst, "pack")
	})

	t.Run("a failed reservation with no retries left is an incident", func(t *testing.T) {
		t.Parallel()
		h := gobpmtest.New(t)
		h.Deploy("fulfilment.bpmn")
		other := h.Start("fulfilment", map[string]any{"orderId": "o-3"})
		inst := h.Start("fulfilment", map[string]any{"orderId": "o-4"})
		h.FailJob(inst, "reserve-stock", 0, "warehouse down")
		gobpmtest.AssertWaitingAt(t, inst, "Reserve stock")
		// The other order's job was only borrowed.
		h.CompleteJob(other, "reserve-stock", nil)
		gobpmtest.AssertWaitingAt(t, other, "Pack the parcel")
	})
}
