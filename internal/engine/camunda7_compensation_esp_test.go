package engine

import (
	"reflect"
	"testing"
)

// TestCompensationEventSubProcessCamunda (Camunda 7
// CompensateEventTest.testCompensationEventSubProcessWithScope): a
// sub-process whose compensation event sub-process carries
// isForCompensation="true" is compensated by it: the flight, then the
// hotel (each named by a waiting throw), then the customer record, one
// task at a time, and the instance ends.
func TestCompensationEventSubProcessCamunda(t *testing.T) {
	t.Parallel()
	const file = "camunda7/CompensateEventTest.testCompensationEventSubProcess.bpmn20.xml"
	st, _ := mustStart(t, mustProcess(t, file), nil)
	st = completeTasks(t, file, st, "bookFlight", 1, nil)
	st = completeTasks(t, file, st, "bookHotel", 1, nil)
	st = completeTasks(t, file, st, "validateBooking", 1, map[string]any{"valid": false})
	var order []string
	for _, node := range []string{"cancelFlight", "cancelHotel", "updateCustomerRecord"} {
		if n := len(st.Waits); n != 1 || st.Waits[0].NodeID != node {
			t.Fatalf("waits %+v, want %s alone", st.Waits, node)
		}
		order = append(order, node)
		st = completeTasks(t, file, st, node, 1, nil)
	}
	if st.Status != StatusCompleted || !reflect.DeepEqual(order, []string{"cancelFlight", "cancelHotel", "updateCustomerRecord"}) {
		t.Fatalf("status %s order %v", st.Status, order)
	}
}
