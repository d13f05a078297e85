package cockpit_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestSavedFilters: a person with a user name saves the instance list's
// current filter (a variable comparison among them) under a name, sees
// it listed and applies it (the list filters as saved), replaces it by
// saving under the same name, and deletes it; another person sees none
// of it; a person without a user name is offered no saving.
func TestSavedFilters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	big := b.start("review", "big", map[string]any{"amount": jsonNumber("500")})
	b.start("review", "small", map[string]any{"amount": jsonNumber("5")})

	if p := b.mustGet("/instances?var=amount:gt:100"); p.testid("saved-filters").Length() != 0 {
		t.Errorf("no user name, yet saved filters are offered")
	}
	b.actAs("ada")
	list := b.mustGet("/instances?var=amount:gt:100")
	query := list.testid("save-filter").Find(`input[name="query"]`).AttrOr("value", "")
	if q, err := url.ParseQuery(query); err != nil || q.Get("var") != "amount:gt:100" {
		t.Fatalf("the save form's query = %q (%v)", query, err)
	}
	if b.mustGet("/instances").testid("save-filter").Length() != 0 {
		t.Error("an unfiltered list offers to save its filter")
	}
	saved := b.post("/instances/filters", url.Values{"name": {"big orders"}, "query": {query}})
	if !strings.Contains(saved.text("flash"), "Saved the filter big orders") {
		t.Errorf("save: flash %q", saved.text("flash"))
	}
	if got := saved.text("saved-filter-apply"); got != "big orders" {
		t.Errorf("saved filters shown %q, want big orders", got)
	}

	// Applied from another page of the list.
	plain := b.mustGet("/instances")
	href := plain.testid("saved-filter-apply").AttrOr("href", "")
	applied := b.mustGet(href)
	var ids []string
	applied.testid("instance-row").Each(func(_ int, s *goquery.Selection) { ids = append(ids, s.AttrOr("data-id", "")) })
	if len(ids) != 1 || ids[0] != string(big.ID) {
		t.Errorf("applied %s: instances %v, want only %s", href, ids, big.ID)
	}

	// Saving under the same name replaces it.
	b.post("/instances/filters", url.Values{"name": {"big orders"}, "query": {"var=amount%3Agt%3A1000"}})
	if href := b.mustGet("/instances").testid("saved-filter-apply").AttrOr("href", ""); !strings.Contains(href, "1000") {
		t.Errorf("replaced filter links %q", href)
	}
	for _, bad := range []url.Values{{"name": {""}, "query": {query}}, {"name": {"x"}, "query": {""}}} {
		if p := b.post("/instances/filters", bad); !strings.Contains(p.text("flash"), "filter") || p.testid("saved-filter").Length() != 1 {
			t.Errorf("save %v: flash %q, %d saved", bad, p.text("flash"), p.testid("saved-filter").Length())
		}
	}

	if filters, err := b.rt.SavedFilters(t.Context(), "bob"); err != nil || len(filters) != 0 {
		t.Errorf("bob's filters: %v, %v", filters, err)
	}
	del := b.post("/instances/filters/delete", url.Values{"name": {"big orders"}})
	if !strings.Contains(del.text("flash"), "Deleted") || del.testid("saved-filter").Length() != 0 {
		t.Errorf("delete: flash %q, %d left", del.text("flash"), del.testid("saved-filter").Length())
	}
	if p := b.post("/instances/filters/delete", url.Values{"name": {"big orders"}}); p.testid("flash").Length() == 0 {
		t.Error("deleting a missing filter says nothing")
	}
}

// TestInboxVariableFilter: the inbox keeps the tasks whose instance's
// variable meets the filter, and explains a malformed one.
func TestInboxVariableFilter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	b.start("review", "big", map[string]any{"amount": jsonNumber("500")})
	b.start("review", "small", map[string]any{"amount": jsonNumber("5")})
	b.actAs("ada", "clerks")
	all := b.mustGet("/tasks").testid("task").Length()
	big := b.mustGet("/tasks?var=" + url.QueryEscape("amount:gt:100"))
	if n := big.testid("task").Length(); all != 2 || n != 1 {
		t.Errorf("inbox: %d tasks, %d with amount > 100; want 2 and 1", all, n)
	}
	if v := big.testid("filter-task-var").AttrOr("value", ""); v != "amount:gt:100" {
		t.Errorf("the filter field shows %q", v)
	}
	if p := b.get("/tasks?var=" + url.QueryEscape("ok:gt:true")); p.status != 400 || !strings.Contains(p.body, "eq or neq") {
		t.Errorf("malformed filter: %d", p.status)
	}
}
