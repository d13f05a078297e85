package cockpit_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// TestBatchFromTheInstanceList follows the instance list's link to a
// batch over its filter: the page counts the matching instances first,
// the batch cancels them in the background, and its page shows the
// progress and outcome per instance; the list of batches names it.
func TestBatchFromTheInstanceList(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	north := []runtime.InstanceView{
		b.start("review", "", map[string]any{"region": "north"}),
		b.start("review", "", map[string]any{"region": "north"}),
	}
	south := b.start("review", "", map[string]any{"region": "south"})

	list := b.mustGet("/instances?process=review&var=" + url.QueryEscape(`region="north"`) + "&page=1")
	link, ok := list.testid("batch-from-filter").Attr("href")
	if !ok || !strings.HasPrefix(link, "/batches/new?") || strings.Contains(link, "page=") {
		t.Fatalf("batch link %q", link)
	}
	p := b.mustGet(link)
	if got := strings.Join(strings.Fields(p.text("batch-count")), " "); !strings.HasPrefix(got, "2 instances match") {
		t.Errorf("count %q", got)
	}
	query, _ := p.doc.Find(`[data-testid="batch-form"] input[name="query"]`).Attr("value")
	done := b.post("/batches", url.Values{"query": {query}, "operation": {"cancel"}})
	id := strings.TrimPrefix(done.url, "/batches/")
	if id == "" || id == done.url {
		t.Fatalf("after the start: %s", done.url)
	}
	if err := b.rt.AwaitBatch(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	p = b.mustGet("/batches/" + id)
	if p.text("batch-done") != "2" || p.text("batch-total") != "2" || p.testid("batch").AttrOr("data-state", "") != "completed" {
		t.Errorf("batch page: done %q of %q, %q", p.text("batch-done"), p.text("batch-total"), p.testid("batch").AttrOr("data-state", ""))
	}
	if n := p.doc.Find(`[data-testid="batch-item"][data-status="done"]`).Length(); n != 2 {
		t.Errorf("%d items done, want 2", n)
	}
	for _, v := range north {
		if got := b.instance(v.ID).Status; got != runtime.StatusTerminated {
			t.Errorf("%s is %s", v.ID, got)
		}
	}
	if got := b.instance(south.ID).Status; got != runtime.StatusRunning {
		t.Errorf("the south instance is %s", got)
	}
	if rows := b.mustGet("/batches").doc.Find(`[data-testid="batch-row"][data-id="` + id + `"]`); rows.Length() != 1 {
		t.Errorf("the batch list does not name %s", id)
	}

	// A set-variables batch needs a JSON object.
	bad := b.post("/batches", url.Values{"query": {query}, "operation": {"set-variables"}, "variables": {"nope"}})
	if !strings.Contains(bad.doc.Text(), "must be a JSON object") {
		t.Errorf("bad variables: %s", bad.url)
	}
}
