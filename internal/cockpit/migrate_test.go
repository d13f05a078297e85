package cockpit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// TestMigrateFromTheProcessPage plans a migration of v1's instances to v2
// through the cockpit: the default mapping and its validation per
// instance, a mapping chosen for the renamed element, the run, and the
// batch's progress page; a plan that does not fit is refused and shown.
func TestMigrateFromTheProcessPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("migrate_v1.bpmn")
	a := b.start("migr", "", map[string]any{"orderId": "o-1"})
	c := b.start("migr", "", map[string]any{"orderId": "o-2"})
	b.deploy("migrate_v2.bpmn")

	p := b.mustGet("/processes/migr?version=1")
	link, _ := p.testid("migrate-link").Attr("href")
	if link != "/processes/migr/migrate?from=1" {
		t.Fatalf("migrate link %q", link)
	}

	// The default mapping: same ids; msg has no counterpart, so both
	// instances are refused, naming it, and there is nothing to run.
	p = b.mustGet(link)
	if got := p.doc.Find(`[data-testid="migrate-to"] option[selected]`).AttrOr("value", ""); got != "2" {
		t.Errorf("target version %q", got)
	}
	if got := p.doc.Find(`[data-testid="mapping-row"][data-source="a"] option[selected]`).AttrOr("value", "?"); got != "a" {
		t.Errorf("a maps to %q", got)
	}
	if got := p.doc.Find(`[data-testid="mapping-row"][data-source="msg"] option[selected]`).AttrOr("value", "?"); got != "" {
		t.Errorf("msg maps to %q", got)
	}
	for _, id := range []runtime.InstanceID{a.ID, c.ID} {
		row := p.doc.Find(`[data-testid="migrate-instance"][data-id="` + string(id) + `"]`)
		if row.AttrOr("data-valid", "") != "false" || !strings.Contains(row.Text(), `element msg is active and maps to "msg" (the same id)`) {
			t.Errorf("instance %s: %q", id, row.Text())
		}
	}
	// Each instance is named by key and number, its id on hover and in
	// its copy button, as in the instance list.
	wantLabels := func(p *page, row, link string) {
		t.Helper()
		for _, v := range []runtime.InstanceView{a, c} {
			r := p.doc.Find(`[data-testid="` + row + `"][data-id="` + string(v.ID) + `"]`)
			l := r.Find(`[data-testid="` + link + `"]`)
			if want := fmt.Sprintf("migr #%d", v.Number); v.Number < 1 || strings.TrimSpace(l.Text()) != want {
				t.Errorf("%s of %s reads %q, want %q", row, v.ID, strings.TrimSpace(l.Text()), want)
			}
			if l.AttrOr("title", "") != string(v.ID) || l.AttrOr("href", "") != "/instances/"+string(v.ID) {
				t.Errorf("%s of %s: title %q, href %q", row, v.ID, l.AttrOr("title", ""), l.AttrOr("href", ""))
			}
			if got := r.Find(`[data-testid="copy-id"]`).AttrOr("data-copy", ""); got != string(v.ID) {
				t.Errorf("%s of %s copies %q", row, v.ID, got)
			}
		}
	}
	wantLabels(p, "migrate-instance", "migrate-instance-link")
	if p.testid("migrate-run-form").Length() != 0 {
		t.Errorf("a plan that does not fit can be run")
	}
	refused := b.post("/processes/migr/migrate", url.Values{"from": {"1"}, "to": {"2"}})
	if refused.status != http.StatusConflict || !strings.Contains(refused.text("flash"), "2 of 2 instances cannot be migrated") {
		t.Fatalf("refused run: %d %q", refused.status, refused.text("flash"))
	}

	// msg → msg2: every instance passes.
	p = b.mustGet("/processes/migr/migrate?from=1&to=2&" + url.Values{"map:msg": {"msg2"}}.Encode())
	if p.doc.Find(`[data-testid="migrate-instance"][data-valid="true"]`).Length() != 2 {
		t.Fatalf("validation: %s", p.testid("migrate-validation").Text())
	}
	if got := p.doc.Find(`[data-testid="migrate-run-form"] input[name="map:msg"]`).AttrOr("value", ""); got != "msg2" {
		t.Errorf("the run form carries map:msg=%q", got)
	}
	if b.instance(a.ID).ProcessVersion != 1 {
		t.Fatalf("validating migrated an instance")
	}

	// Run: the progress page, then every instance at v2 with its history.
	p = b.post("/processes/migr/migrate", url.Values{"from": {"1"}, "to": {"2"}, "map:msg": {"msg2"}})
	if p.status != http.StatusOK || !strings.HasPrefix(p.text("flash"), "Migrating 2 instances of migr from v1 to v2") {
		t.Fatalf("run: %d %q", p.status, p.text("flash"))
	}
	id := p.url[strings.LastIndex(p.url, "/")+1:]
	if err := b.rt.AwaitMigration(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	p = b.mustGet("/migrations/" + id)
	if p.text("status") != "completed" || p.text("migration-migrated") != "2" || p.text("migration-pending") != "0" ||
		p.doc.Find(`[data-testid="migration-item"][data-status="migrated"]`).Length() != 2 {
		t.Errorf("progress: %s", p.testid("migration").Text())
	}
	wantLabels(p, "migration-item", "migration-item-link")
	for _, id := range []runtime.InstanceID{a.ID, c.ID} {
		if v := b.instance(id).ProcessVersion; v != 2 {
			t.Errorf("%s at v%d", id, v)
		}
	}
	inst := b.mustGet("/instances/" + string(a.ID))
	if inst.doc.Find(`[data-testid="fact"][data-kind="instance-migrated"]`).Length() != 1 {
		t.Errorf("the history does not record the migration")
	}
	if got := b.get("/migrations/nope").status; got != http.StatusNotFound {
		t.Errorf("unknown migration: %d", got)
	}
}
