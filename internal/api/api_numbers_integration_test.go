package api_test

import (
	"fmt"
	"net/http"
	"testing"
)

// TestIntegrationInstanceNumbers checks `number` through the real router
// and runtime: the start answer, the instance, the list and its filter.
func TestIntegrationInstanceNumbers(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postMultipart("/api/v1/deployments", part{filename: "order-approval.bpmn", content: readExample(t, "order-approval.bpmn")}).
		wantStatus(t, http.StatusCreated)
	ids := map[float64]string{}
	for i := 1; i <= 3; i++ {
		got := b.postJSON("/api/v1/processes/order-approval/instances", `{"variables":{"quantity":1,"unitPrice":1}}`).
			wantStatus(t, http.StatusCreated).object(t)
		if fmt.Sprint(got["number"]) != fmt.Sprint(i) {
			t.Fatalf("start %d answered number %v", i, got["number"])
		}
		ids[float64(i)] = got["id"].(string)
	}
	one := b.get("/api/v1/instances/"+ids[2]).wantStatus(t, http.StatusOK).object(t)
	if fmt.Sprint(one["number"]) != "2" {
		t.Errorf("GET instance: number %v, want 2", one["number"])
	}
	page := b.get("/api/v1/instances?processKey=order-approval&number=2").wantStatus(t, http.StatusOK).object(t)
	items := page["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["id"] != ids[2] || fmt.Sprint(items[0].(map[string]any)["number"]) != "2" {
		t.Errorf("order-approval #2: %v", page)
	}
	for _, n := range []float64{1, 3} {
		page := b.get(fmt.Sprintf("/api/v1/instances?number=%v", n)).wantStatus(t, http.StatusOK).object(t)
		if items := page["items"].([]any); len(items) != 1 || items[0].(map[string]any)["id"] != ids[n] {
			t.Errorf("#%v without a key: %v", n, page)
		}
	}
	if page := b.get("/api/v1/instances?processKey=order-approval&number=4").wantStatus(t, http.StatusOK).object(t); len(page["items"].([]any)) != 0 {
		t.Errorf("#4 does not exist: %v", page)
	}
	for _, bad := range []string{"0", "-1", "x"} {
		if p := b.get("/api/v1/instances?number="+bad).problem(t, http.StatusBadRequest, "invalid-request"); p.Field != "number" {
			t.Errorf("number=%s: field %q", bad, p.Field)
		}
	}
}
