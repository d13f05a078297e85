// Package gobpmtest tests BPMN processes in a plain go test: it runs the
// real gobpm runtime on SQLite in t.TempDir(), with a manual clock, and
// offers steps (deploy, start, complete jobs and tasks, correlate, advance
// time) and assertions that read like the model.
//
// # Example
//
//	func TestOrder(t *testing.T) {
//		h := gobpmtest.New(t)
//		h.Deploy("fulfilment.bpmn")
//		inst := h.Start("fulfilment", map[string]any{"orderId": "o-1"})
//		gobpmtest.AssertWaitingAt(t, inst, "Reserve stock")
//		h.CompleteJob(inst, "reserve-stock", nil)
//		h.CompleteTask(inst, "Pack the parcel", "pat", nil)
//		h.Advance(5 * time.Second)
//		gobpmtest.AssertCompleted(t, inst)
//	}
//
// Elements are named by id or by name. No HTTP server is involved; nothing
// sleeps: timers fire when Advance moves the clock past them.
package gobpmtest
