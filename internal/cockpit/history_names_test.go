package cockpit_test

import (
	"strings"
	"testing"
)

// The flow a gateway took is named by its name, or by the elements it
// joins when it has none; never by its id.
func TestHistoryNamesTheFlowTaken(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("ordersize.bpmn")
	for _, tc := range []struct {
		amount int
		want   string
	}{
		{500, "Completed Big order? and took the flow «Yes, big»"},
		{5, "Completed Big order? and took the flow from Big order? to Ship the order"},
	} {
		inst := b.start("ordersize", "", map[string]any{"amount": tc.amount})
		var found []string
		for _, s := range sentences(b.mustGet("/instances/" + string(inst.ID)))["element-completed"] {
			if strings.Contains(s, "flow") {
				found = append(found, s)
			}
		}
		if len(found) != 1 || found[0] != tc.want {
			t.Errorf("amount %d: %q, want %q", tc.amount, found, tc.want)
		}
	}
}

// The compensation facts name the activities, the handler and the event
// that threw them by their names.
func TestCompensationFactsUseNames(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("transaction_named.bpmn")
	inst := b.start("booking-named", "", nil)
	completeOnly(t, b, inst.ID, "confirm", map[string]any{"confirmed": false})
	p := b.mustGet("/instances/" + string(inst.ID))
	if got := factDetail(p, "compensation-thrown"); got != "undoes Book the hotel, the latest first; the transaction is cancelled" {
		t.Errorf("compensation-thrown reads %q", got)
	}
	if got := factDetail(p, "compensation-started"); got != "undone by Cancel the hotel; thrown by Booking cancelled" {
		t.Errorf("compensation-started reads %q", got)
	}
	completeOnly(t, b, inst.ID, "undoHotel", nil)
	if got := factDetail(b.mustGet("/instances/"+string(inst.ID)), "compensation-completed"); got != "done; thrown by Booking cancelled" {
		t.Errorf("compensation-completed reads %q", got)
	}
}
