package api_test

import (
	"net/http"
	"net/url"
	"testing"
)

// TestIncidentsPaged: GET /incidents pages by cursor, oldest first, and
// each incident names its instance by process key and number.
func TestIncidentsPaged(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postXML("/api/v1/deployments", noMatchModel).wantStatus(t, http.StatusCreated)
	numbers := map[any]any{} // instance id → number
	for range 3 {
		inst := b.postJSON("/api/v1/processes/nomatch/instances", `{"variables":{"x":0}}`).wantStatus(t, http.StatusCreated).object(t)
		numbers[inst["id"]] = inst["number"]
	}
	first := b.get("/api/v1/incidents?limit=2").wantStatus(t, http.StatusOK).object(t)
	items := first["items"].([]any)
	cursor, _ := first["nextCursor"].(string)
	if len(items) != 2 || cursor == "" {
		t.Fatalf("first page: %v", first)
	}
	second := b.get("/api/v1/incidents?limit=2&cursor="+url.QueryEscape(cursor)).wantStatus(t, http.StatusOK).object(t)
	if rest := second["items"].([]any); len(rest) != 1 || second["nextCursor"] != nil {
		t.Fatalf("second page: %v", second)
	}
	seen := map[any]bool{}
	for _, it := range append(items, second["items"].([]any)...) {
		inc := it.(map[string]any)
		seen[inc["id"]] = true
		if n, ok := numbers[inc["instanceId"]]; !ok || inc["processKey"] != "nomatch" || inc["instanceNumber"] != n {
			t.Errorf("incident %v names its instance %v as %v #%v, want nomatch #%v", inc["id"], inc["instanceId"], inc["processKey"], inc["instanceNumber"], n)
		}
	}
	if len(seen) != 3 {
		t.Errorf("pages repeat or skip incidents: %v", seen)
	}
	b.get("/api/v1/incidents?cursor=nonsense").wantStatus(t, http.StatusBadRequest)
	b.get("/api/v1/incidents?limit=0").wantStatus(t, http.StatusBadRequest)
}
