package cockpit

import (
	"encoding/json"
	"testing"
)

func TestFactDetail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, kind, raw, want string
	}{
		{"a saga's throw", "compensation-thrown", `{"activities":["chargeCard","bookHotel","bookHotel","bookHotel","bookFlight"],"waitForCompletion":true}`,
			"undoes chargeCard, bookHotel ×3, bookFlight, the latest first"},
		{"one activity, not waiting", "compensation-thrown", `{"activities":["bookHotel"],"activityRef":"bookHotel","waitForCompletion":false}`,
			"undoes bookHotel, the latest first; only bookHotel; the token goes on without waiting"},
		{"nothing completed", "compensation-thrown", `{"activities":[],"waitForCompletion":true}`, "nothing completed to undo"},
		{"a cancelled transaction", "compensation-thrown", `{"activities":["book"],"cancel":true}`, "undoes book, the latest first; the transaction is cancelled"},
		{"a handler", "compensation-started", `{"entry":"c3","cause":"undoAll","handler":"undoFlight"}`, "undone by undoFlight; thrown by undoAll"},
		{"a sub-process through its activities", "compensation-started", `{"entry":"c4","cause":"undoAll"}`, "undone through its own activities; thrown by undoAll"},
		{"done", "compensation-completed", `{"entry":"c3","cause":"undoAll"}`, "done; thrown by undoAll"},
		{"other facts stay JSON", "job-created", `{"jobKey":"k","type":"t"}`, `{"jobKey":"k","type":"t"}`},
		{"unreadable stays JSON", "compensation-started", `{"handler":7}`, `{"handler":7}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := factDetail(tt.kind, json.RawMessage(tt.raw), nil); got != tt.want {
				t.Errorf("factDetail = %q\nwant         %q", got, tt.want)
			}
		})
	}
}
