package cockpit_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/gobpm/gobpm/internal/runtime"
)

// TestInstanceListVariableFilter: the instance list filters by the JSON
// value of a top-level variable (name=value), several at once, keeps each
// in the form with one spare field, follows a variable written later, and
// refuses a value that is not JSON with a sentence saying how to write it.
func TestInstanceListVariableFilter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("migrate_v1.bpmn")
	a := b.start("migr", "", map[string]any{"orderId": "A-17", "amount": jsonNumber("120")})
	c := b.start("migr", "", map[string]any{"orderId": "C-3", "amount": jsonNumber("120")})
	d := b.start("migr", "", map[string]any{"orderId": "D-4", "amount": jsonNumber("7")})

	list := func(vars ...string) *page {
		t.Helper()
		return b.mustGet("/instances?" + url.Values{"var": vars}.Encode())
	}
	for _, tt := range []struct {
		vars []string
		want string
	}{
		{[]string{`orderId="A-17"`}, string(a.ID)},
		{[]string{`amount=120.0`}, sortedIDs(string(a.ID), string(c.ID))},
		{[]string{`amount=120`, `orderId="C-3"`}, string(c.ID)},
		{[]string{`amount="120"`}, ""},
		{[]string{`orderId="A-17"`, ""}, string(a.ID)}, // the form's spare field
	} {
		if got := listedIDs(list(tt.vars...)); got != tt.want {
			t.Errorf("var=%v: %s, want %s", tt.vars, got, tt.want)
		}
	}
	p := list(`orderId="A-17"`, `amount=120`)
	var fields []string
	p.testid("filter-var").Each(func(_ int, s *goquery.Selection) { fields = append(fields, s.AttrOr("value", "?")) })
	if strings.Join(fields, "|") != `orderId="A-17"|amount=120|` {
		t.Errorf("filter fields %q, want both filters and a spare one", fields)
	}

	if _, err := b.rt.SetVariables(context.Background(), d.ID, "", map[string]any{"amount": jsonNumber("120")}, false); err != nil {
		t.Fatal(err)
	}
	if got, want := listedIDs(list(`amount=120`)), sortedIDs(string(a.ID), string(c.ID), string(d.ID)); got != want {
		t.Errorf("after writing amount into %s: %s, want %s", d.ID, got, want)
	}

	bad := b.get("/instances?" + url.Values{"var": {"orderId=A-17"}}.Encode())
	if bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "is not JSON: quote text (orderId=&#34;A-17&#34;)") {
		t.Errorf("a value that is not JSON: %d %s", bad.status, bad.text("error"))
	}
}

// TestMigrateSelected: "migrate selected" on the instance list takes the
// selected instances of one process version to the migration page, which
// plans, validates and runs for just them (the other instances of the
// version stay); a selection of two versions, or of an instance that does
// not exist, is refused with what it holds.
func TestMigrateSelected(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("migrate_v1.bpmn")
	a := b.start("migr", "", map[string]any{"orderId": "o-1"})
	c := b.start("migr", "", map[string]any{"orderId": "o-2"})
	stays := b.start("migr", "", map[string]any{"orderId": "o-3"})
	b.deploy("migrate_v2.bpmn")
	v2 := b.start("migr", "", map[string]any{"orderId": "o-4"})

	if b.mustGet("/instances").testid("bulk-migrate-submit").Length() != 1 {
		t.Fatalf("the list offers no migrate selected")
	}
	mixed := b.post("/instances/migrate", url.Values{"instance": {string(a.ID), string(c.ID), string(v2.ID)}, "return": {"/instances"}})
	if flash := mixed.text("flash"); mixed.url != "/instances" ||
		!strings.Contains(flash, "the selection holds 2 of migr v1, 1 of migr v2") {
		t.Errorf("a selection of two versions: %s %q", mixed.url, flash)
	}
	unknown := b.post("/instances/migrate", url.Values{"instance": {string(a.ID), "01900000-0000-7000-8000-00000000dead"}, "return": {"/instances"}})
	if flash := unknown.text("flash"); !strings.Contains(flash, "do not exist: 01900000-0000-7000-8000-00000000dead") {
		t.Errorf("an unknown instance: %q", flash)
	}
	if none := b.post("/instances/migrate", url.Values{"return": {"/instances"}}); !strings.Contains(none.text("flash"), "Select the instances") {
		t.Errorf("nothing selected: %q", none.text("flash"))
	}

	p := b.post("/instances/migrate", url.Values{"instance": {string(a.ID), string(c.ID)}, "return": {"/instances"}})
	if p.status != http.StatusOK || !strings.HasPrefix(p.url, "/processes/migr/migrate?from=1&instance=") {
		t.Fatalf("migrate selected: %d %s", p.status, p.url)
	}
	if !strings.Contains(p.text("migrate-selected"), "The 2 instances selected") || p.testid("migrate-from").Length() != 0 {
		t.Errorf("selection note %q, from select %d", p.text("migrate-selected"), p.testid("migrate-from").Length())
	}
	if got := p.testid("migrate-instance").Length(); got != 2 {
		t.Errorf("validation lists %d instances, want the 2 selected", got)
	}
	// The Validate form carries the selection: with msg → msg2 both pass.
	form := url.Values{"from": {"1"}, "to": {"2"}, "map:msg": {"msg2"}, "instance": {string(a.ID), string(c.ID)}}
	p = b.mustGet("/processes/migr/migrate?" + form.Encode())
	if p.doc.Find(`[data-testid="migrate-instance"][data-valid="true"]`).Length() != 2 ||
		p.doc.Find(`[data-testid="migrate-run-form"] input[name="instance"]`).Length() != 2 {
		t.Fatalf("validation of the selection: %s", p.testid("migrate-validation").Text())
	}
	p = b.post("/processes/migr/migrate", form)
	if p.status != http.StatusOK || !strings.HasPrefix(p.text("flash"), "Migrating 2 instances of migr from v1 to v2") {
		t.Fatalf("run: %d %q", p.status, p.text("flash"))
	}
	if err := b.rt.AwaitMigration(context.Background(), p.url[strings.LastIndex(p.url, "/")+1:]); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[runtime.InstanceID]int{a.ID: 2, c.ID: 2, stays.ID: 1, v2.ID: 2} {
		if got := b.instance(id).ProcessVersion; got != want {
			t.Errorf("%s at v%d, want v%d", id, got, want)
		}
	}
}
