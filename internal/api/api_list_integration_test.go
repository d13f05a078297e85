package api_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// TestIntegrationListCursor pages GET /api/v1/instances by cursor over a
// real runtime and SQLite: the pages join up to the offset listing, and a
// cursor the API did not make is a 400.
func TestIntegrationListCursor(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postMultipart("/api/v1/deployments", part{filename: "order-approval.bpmn", content: readExample(t, "order-approval.bpmn")}).
		wantStatus(t, http.StatusCreated)
	for i := range 7 {
		b.postJSON("/api/v1/processes/order-approval/instances",
			fmt.Sprintf(`{"businessKey":"o-%d","variables":{"quantity":1,"unitPrice":1}}`, i)).wantStatus(t, http.StatusCreated)
	}
	ids := func(items []any) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return out
	}
	all := b.get("/api/v1/instances?processKey=order-approval&status=completed").wantStatus(t, http.StatusOK).object(t)
	want := ids(all["items"].([]any))
	if len(want) != 7 {
		t.Fatalf("listing = %v", all)
	}
	if _, ok := all["nextCursor"]; ok {
		t.Errorf("a page that is not full has nextCursor: %v", all)
	}

	var got []string
	query := "/api/v1/instances?processKey=order-approval&status=completed&limit=3"
	page := b.get(query).wantStatus(t, http.StatusOK).object(t)
	for pages := 1; ; pages++ {
		got = append(got, ids(page["items"].([]any))...)
		next, ok := page["nextCursor"].(string)
		if !ok {
			break
		}
		if pages > 5 {
			t.Fatal("cursor paging does not end")
		}
		page = b.get(query+"&cursor="+next).wantStatus(t, http.StatusOK).object(t)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cursor pages = %v, want %v", got, want)
	}
	// Offset still works, and applies after a cursor.
	page = b.get(query+"&offset=3").wantStatus(t, http.StatusOK).object(t)
	if got := ids(page["items"].([]any)); !reflect.DeepEqual(got, want[3:6]) {
		t.Errorf("offset page = %v, want %v", got, want[3:6])
	}

	for _, c := range []string{"!!", base64.RawURLEncoding.EncodeToString([]byte("no-such-instance"))} {
		p := b.get("/api/v1/instances?cursor="+c).problem(t, http.StatusBadRequest, "invalid-request")
		if p.Field != "cursor" {
			t.Errorf("cursor %q: field = %q", c, p.Field)
		}
	}
	if sqlite.MaxListTotal != 10000 {
		t.Errorf("openapi.yaml documents a total capped at 10,000; sqlite.MaxListTotal = %d", sqlite.MaxListTotal)
	}
}
