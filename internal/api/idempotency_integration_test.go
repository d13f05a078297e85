package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestIdempotentStartOverHTTP: the Idempotency-Key header (or requestId)
// makes a retried start answer the first instance; a reused key with
// another request is 409; a malformed key is 400.
func TestIdempotentStartOverHTTP(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postXML("/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)
	start := func(key, body string) *response {
		req := httptestRequest("POST", "/api/v1/processes/order/instances", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		return b.do(req)
	}
	first := start("k-1", `{"businessKey":"B-1"}`).wantStatus(t, http.StatusCreated)
	again := start("k-1", `{"businessKey":"B-1"}`).wantStatus(t, http.StatusCreated)
	if first.object(t)["id"] != again.object(t)["id"] || again.Header.Get("Idempotent-Replayed") != "true" || first.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("retry: %s / %s, replayed %q", first.Body, again.Body, again.Header.Get("Idempotent-Replayed"))
	}
	viaBody := start("", `{"businessKey":"B-1","requestId":"k-1"}`).wantStatus(t, http.StatusCreated)
	if viaBody.object(t)["id"] != first.object(t)["id"] {
		t.Errorf("requestId is not the same key as the header")
	}
	start("k-1", `{"businessKey":"B-2"}`).wantStatus(t, http.StatusConflict)
	start("k 1", `{}`).wantStatus(t, http.StatusBadRequest)
	start("k-2", `{"requestId":"k-3"}`).wantStatus(t, http.StatusBadRequest)
	page := b.get("/api/v1/instances?processKey=order").wantStatus(t, http.StatusOK).object(t)
	if page["total"] != json.Number("1") {
		t.Errorf("instances: %v, want 1", page["total"])
	}
}
