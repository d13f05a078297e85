package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// TestIntegrationBatch runs batch operations over the real router, runtime
// and SQLite: refusals, a dry run's count of a variable filter, a cancel
// batch with its progress and paged items (oldest instance first), and a
// set-variables batch.
func TestIntegrationBatch(t *testing.T) {
	t.Parallel()
	b, rt, _ := setupRealClock(t)
	deployTestdata(t, b, "user_task.bpmn")
	var north []string
	for i := range 5 {
		region := "south"
		if i%2 == 0 {
			region = "north"
		}
		id := startProcess(t, b, "review", fmt.Sprintf(`{"region":%q}`, region))
		if region == "north" {
			north = append(north, id)
		}
	}

	for _, tc := range []struct {
		name, body string
		field, has string
	}{
		{"no operation", `{"filter":{}}`, "operation", "operation is required"},
		{"unknown operation", `{"operation":"explode"}`, "operation", "operation must be one of cancel"},
		{"misspelt filter", `{"operation":"cancel","filter":{"procesKey":"review"}}`, "filter.procesKey", "not a filter of the instance list"},
		{"bad status", `{"operation":"cancel","filter":{"status":"sleeping"}}`, "filter.status", "status must be running"},
		{"bad var", `{"operation":"cancel","filter":{"var":["region"]}}`, "filter.var", ""},
		{"no variables", `{"operation":"set-variables","filter":{}}`, "variables", "variables is required"},
		{"migration without target", `{"operation":"migrate","filter":{"processKey":"review","version":1}}`, "targetVersion", "targetVersion is required"},
		{"migration without version", `{"operation":"migrate","targetVersion":2,"filter":{"processKey":"review"}}`, "filter", "names the process key and the source version"},
	} {
		p := b.postJSON("/api/v1/batches", tc.body).problem(t, http.StatusBadRequest, "invalid-request")
		if p.Field != tc.field || !strings.Contains(p.Detail, tc.has) {
			t.Errorf("%s: problem %+v, want field %q and %q", tc.name, p, tc.field, tc.has)
		}
	}

	filter := `{"processKey":"review","status":"running","var":["region=\"north\""]}`
	dry := b.postJSON("/api/v1/batches", `{"operation":"cancel","dryRun":true,"filter":`+filter+`}`).wantStatus(t, http.StatusOK).object(t)
	if dry["dryRun"] != true || fmt.Sprint(dry["count"]) != "3" {
		t.Fatalf("dry run %s", mustJSON(t, dry))
	}
	if list := b.get("/api/v1/batches").wantStatus(t, http.StatusOK).object(t); fmt.Sprint(list["total"]) != "0" {
		t.Errorf("a dry run stored a batch: %s", mustJSON(t, list))
	}

	res := b.as("olga", "", "/api/v1/batches", `{"operation":"cancel","filter":`+filter+`}`).wantStatus(t, http.StatusCreated)
	created := res.object(t)
	id := created["id"].(string)
	if res.Header.Get("Location") != "/api/v1/batches/"+id || fmt.Sprint(created["total"]) != "3" || created["createdBy"] != "olga" ||
		created["operation"] != "cancel" {
		t.Fatalf("created %s", mustJSON(t, created))
	}
	if err := rt.AwaitBatch(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	got := b.get("/api/v1/batches/"+id).wantStatus(t, http.StatusOK).object(t)
	if got["state"] != "completed" || fmt.Sprint(got["done"]) != "3" || fmt.Sprint(got["pending"]) != "0" || got["finishedAt"] == nil {
		t.Fatalf("batch %s", mustJSON(t, got))
	}
	if f := mustJSON(t, got["filter"]); !strings.Contains(f, `"processKey":["review"]`) || !strings.Contains(f, `region=\"north\"`) {
		t.Errorf("filter echoed %s", f)
	}
	for _, inst := range north {
		if s := b.get("/api/v1/instances/"+inst).wantStatus(t, http.StatusOK).object(t)["status"]; s != runtime.StatusTerminated {
			t.Errorf("%s is %v after the cancel batch", inst, s)
		}
	}
	if n := b.get("/api/v1/instances?processKey=review&status=running").wantStatus(t, http.StatusOK).object(t)["total"]; fmt.Sprint(n) != "2" {
		t.Errorf("%v instances still running, want the 2 of the south", n)
	}

	page := b.get("/api/v1/batches/"+id+"/items?limit=2").wantStatus(t, http.StatusOK).object(t)
	items := page["items"].([]any)
	if len(items) != 2 || page["nextCursor"] == nil {
		t.Fatalf("first page %s", mustJSON(t, page))
	}
	rest := b.get("/api/v1/batches/"+id+"/items?limit=2&cursor="+page["nextCursor"].(string)).wantStatus(t, http.StatusOK).object(t)
	items = append(items, rest["items"].([]any)...)
	if len(items) != 3 || rest["nextCursor"] != nil {
		t.Fatalf("second page %s", mustJSON(t, rest))
	}
	for i, it := range items {
		it := it.(map[string]any)
		if it["instanceId"] != north[i] || it["status"] != "done" {
			t.Errorf("item %d: %s, want %s done", i, mustJSON(t, it), north[i])
		}
	}
	b.get("/api/v1/batches/"+id+"/items?status=sleeping").problem(t, http.StatusBadRequest, "invalid-request")
	b.get("/api/v1/batches/"+id+"/items?cursor=x").problem(t, http.StatusBadRequest, "invalid-request")
	b.as("olga", "", "/api/v1/batches/"+id+"/pause", "").problem(t, http.StatusConflict, "conflict")
	b.get("/api/v1/batches/nope").problem(t, http.StatusNotFound, "not-found")

	list := b.get("/api/v1/batches").wantStatus(t, http.StatusOK).object(t)
	if fmt.Sprint(list["total"]) != "1" || list["items"].([]any)[0].(map[string]any)["id"] != id {
		t.Errorf("batches %s", mustJSON(t, list))
	}

	// set-variables on the rest, then its batch's items name the instances.
	sv := b.postJSON("/api/v1/batches", `{"operation":"set-variables","variables":{"seen":true},"filter":{"processKey":"review","status":"running"}}`).
		wantStatus(t, http.StatusCreated).object(t)
	if err := rt.AwaitBatch(context.Background(), sv["id"].(string)); err != nil {
		t.Fatal(err)
	}
	if got := b.get("/api/v1/batches/"+sv["id"].(string)).wantStatus(t, http.StatusOK).object(t); fmt.Sprint(got["done"]) != "2" {
		t.Errorf("set-variables batch %s", mustJSON(t, got))
	}
	if n := b.get(`/api/v1/instances?processKey=review&var=seen=true`).wantStatus(t, http.StatusOK).object(t)["total"]; fmt.Sprint(n) != "2" {
		t.Errorf("%v instances have seen=true, want 2", n)
	}
}
