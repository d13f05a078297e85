package api_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAdHocRoutesNeedTheProcessRights drives the ad-hoc routes of a real
// manual region with builtin authentication: reading the regions needs
// read on the process, activating an activity (with variables of the
// caller's choosing) and completing a region need operate on it. A caller
// without them is refused and the region stays as it was.
func TestAdHocRoutesNeedTheProcessRights(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	model, err := os.ReadFile(filepath.Join("testdata", "adhoc_manual.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	w.call("admin", "POST", "/api/v1/deployments", string(model)).wantStatus(t, http.StatusCreated)
	id := w.call("admin", "POST", "/api/v1/processes/casework/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	inst := "/api/v1/instances/" + id
	regions := w.call("admin", "GET", inst+"/adhoc", "").wantStatus(t, http.StatusOK).object(t)["regions"].([]any)
	if len(regions) != 1 {
		t.Fatalf("regions = %v", regions)
	}
	scopeID := regions[0].(map[string]any)["scopeId"].(string)
	activate := inst + "/adhoc/" + scopeID + "/activate"
	complete := inst + "/adhoc/" + scopeID + "/complete"
	before := string(w.call("admin", "GET", inst+"/adhoc", "").wantStatus(t, http.StatusOK).Body)

	for _, role := range []string{"nobody", "worker"} {
		if res := w.call(role, "GET", inst+"/adhoc", ""); res.Status != http.StatusForbidden && res.Status != http.StatusNotFound {
			t.Errorf("GET adhoc as %s: %d %s, want refused", role, res.Status, res.Body)
		}
	}
	for _, role := range []string{"nobody", "worker", "viewer"} {
		if res := w.call(role, "POST", activate, `{"activityId":"A","variables":{"approved":true}}`); res.Status != http.StatusForbidden && res.Status != http.StatusNotFound {
			t.Errorf("activate as %s: %d %s, want refused", role, res.Status, res.Body)
		}
		if res := w.call(role, "POST", complete, `{}`); res.Status != http.StatusForbidden && res.Status != http.StatusNotFound {
			t.Errorf("complete as %s: %d %s, want refused", role, res.Status, res.Body)
		}
	}
	if after := string(w.call("admin", "GET", inst+"/adhoc", "").wantStatus(t, http.StatusOK).Body); after != before {
		t.Fatalf("a refused act changed the region:\nbefore %s\nafter  %s", before, after)
	}

	// A viewer reads; an operator acts.
	w.call("viewer", "GET", inst+"/adhoc", "").wantStatus(t, http.StatusOK)
	got := w.call("operator", "POST", activate, `{"activityId":"A"}`).wantStatus(t, http.StatusOK).object(t)
	if running := got["running"].([]any); len(running) != 1 || running[0] != "A" {
		t.Errorf("region after the operator's activation = %v", got)
	}
}
