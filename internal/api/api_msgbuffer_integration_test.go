package api_test

// Buffered messages (timeToLive, messageId on POST /api/v1/messages)
// through the real router, the real runtime and a real database, with a
// manual clock.

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

func TestIntegrationBufferedMessages(t *testing.T) {
	t.Parallel()
	b, _, clk := setupRealClock(t)
	deployTestdata(t, b, "message.bpmn")

	// Nothing waits: buffered (202), not 404.
	res := b.postJSON("/api/v1/messages", `{"name":"order-paid","correlationKey":"o-1","variables":{"amount":12},"timeToLive":60000,"messageId":"pay-o-1"}`).
		wantStatus(t, http.StatusAccepted).object(t)
	if res["correlated"] != json.Number("0") || res["buffered"] != true || res["messageKey"] == "" || res["messageId"] != "pay-o-1" ||
		res["expiresAt"] != apiEpoch.Add(time.Minute).Format(time.RFC3339Nano) {
		t.Fatalf("publication = %v", res)
	}
	// The same message id while it is buffered: 409.
	b.postJSON("/api/v1/messages", `{"name":"order-paid","correlationKey":"o-1","timeToLive":60000,"messageId":"pay-o-1"}`).
		problem(t, http.StatusConflict, "conflict")

	// The subscription that opens within the time to live gets it at once.
	clk.Advance(30 * time.Second)
	first := startProcess(t, b, "payment", `{"orderId":"o-1"}`)
	inst := b.get("/api/v1/instances/"+first).wantStatus(t, http.StatusOK).object(t)
	if inst["status"] != "completed" || inst["variables"].(map[string]any)["amount"] != json.Number("12") {
		t.Fatalf("first = %v", inst)
	}
	// Once per process: a second instance waits.
	second := startProcess(t, b, "payment", `{"orderId":"o-1"}`)
	if st := instanceStatus(t, b, second); st != "running" {
		t.Fatalf("second = %s, want running", st)
	}

	// A waiting subscription takes a buffered publication at once: 200.
	if got := b.postJSON("/api/v1/messages", `{"name":"order-paid","correlationKey":"o-1","timeToLive":1000}`).wantStatus(t, http.StatusOK).object(t); got["correlated"] != json.Number("1") || got["buffered"] != true {
		t.Fatalf("to a waiting subscription = %v", got)
	}
	if st := instanceStatus(t, b, second); st != "completed" {
		t.Fatalf("second = %s, want completed", st)
	}

	// Past its time to live a message is not delivered.
	b.postJSON("/api/v1/messages", `{"name":"order-paid","correlationKey":"o-2","timeToLive":1000}`).wantStatus(t, http.StatusAccepted)
	clk.Advance(time.Second)
	late := startProcess(t, b, "payment", `{"orderId":"o-2"}`)
	if st := instanceStatus(t, b, late); st != "running" {
		t.Fatalf("late = %s, want running", st)
	}

	// Without a time to live, nothing waiting is still 404; bad values are 400.
	b.postJSON("/api/v1/messages", `{"name":"order-paid","correlationKey":"o-3"}`).problem(t, http.StatusNotFound, "not-found")
	b.postJSON("/api/v1/messages", `{"name":"order-paid","correlationKey":"o-3","timeToLive":0}`).problem(t, http.StatusNotFound, "not-found")
	for _, body := range []string{
		`{"name":"order-paid","timeToLive":-1}`,
		`{"name":"order-paid","timeToLive":"PT1M"}`,
		`{"name":"order-paid","timeToLive":31622400001}`,
		`{"name":"order-paid","timeToLive":1000,"messageId":7}`,
		// Longer than a buffered message's index rows allow on every store.
		`{"name":"` + strings.Repeat("n", runtime.MaxMessageNameLen+1) + `","timeToLive":1000}`,
		`{"name":"order-paid","correlationKey":"` + strings.Repeat("k", runtime.MaxCorrelationKeyLen+1) + `","timeToLive":1000}`,
		`{"name":"order-paid","timeToLive":1000,"messageId":"` + strings.Repeat("i", runtime.MaxMessageIDLen+1) + `"}`,
	} {
		b.postJSON("/api/v1/messages", body).wantStatus(t, http.StatusBadRequest)
	}
}
