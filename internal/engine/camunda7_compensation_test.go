package engine

import "testing"

// TestCamunda7Compensation runs Camunda 7's compensation test models
// (testdata/camunda7, translated: see NOTICE there) and asserts what their
// Java tests (CompensateEventTest) assert: every completion of the
// five-times sequential bookings is undone once (the counters reach 5),
// and the instance ends once the receive task after the throw is
// signalled (a message here).
func TestCamunda7Compensation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model    string
		counters map[string]any
	}{
		{"CompensateEventTest.testCompensateScope.bpmn20.xml", map[string]any{"undoBookHotel": num("5"), "undoBookFlight": num("5")}},
		{"CompensateEventTest.testCompensateSubprocess.bpmn20.xml", map[string]any{"undoBookHotel": num("5")}},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			t.Parallel()
			file := "camunda7/" + tc.model
			vars := map[string]any{"undoBookHotel": num("0"), "undoBookFlight": num("0")}
			st, _ := mustStart(t, mustProcess(t, file), vars)
			for name, want := range tc.counters {
				if got := rootVar(st, name); normalize(t, got) != normalize(t, want) {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
			st, _ = run(t, file, st, MessageDelivered{WaitID: waitAt(t, st, WaitMessage, "beforeEnd").ID}, t0)
			if st.Status != StatusCompleted || len(st.Entries) != 0 {
				t.Fatalf("status %s entries %d", st.Status, len(st.Entries))
			}
		})
	}
}
