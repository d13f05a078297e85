package cockpit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gobpm/gobpm/internal/runtime"
)

// In a browser, a person filters the instance list by a variable's value,
// selects the two instances it shows, migrates them with "migrate
// selected" (choosing the mapping of the renamed element on the migration
// page), and the two end at v2 while the instance the filter left out
// stays at v1.
func TestBrowserFilterByVariableAndMigrateSelected(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("migrate_v1.bpmn")
	a := b.start("migr", "", map[string]any{"orderId": "o-1", "region": "north"})
	c := b.start("migr", "", map[string]any{"orderId": "o-2", "region": "north"})
	south := b.start("migr", "", map[string]any{"orderId": "o-3", "region": "south"})
	b.deploy("migrate_v2.bpmn")

	run(t, ctx, "open the list", chromedp.Navigate(b.srv.URL+"/instances"), chromedp.WaitVisible(css(`[data-testid="filters"]`)))
	run(t, ctx, "filter by region",
		chromedp.SetValue(css(`[data-testid="filter-var"]`), `region="north"`),
		chromedp.Submit(css(`[data-testid="filter-var"]`)))
	waitFor(t, ctx, "the filtered list", `location.search.includes('var=') && document.querySelectorAll('[data-testid="instance-row"]').length === 2`, 10*time.Second)
	truthy(t, ctx, "it shows the north instances", `['`+string(a.ID)+`','`+string(c.ID)+`'].every(id => !!document.querySelector('[data-testid="instance-row"][data-id="'+id+'"]')) &&
		!document.querySelector('[data-testid="instance-row"][data-id="`+string(south.ID)+`"]') &&
		document.querySelectorAll('[data-testid="filter-var"]')[0].value === 'region="north"'`)
	shoot(t, ctx, "instances-by-variable.png")

	run(t, ctx, "select both and migrate them",
		chromedp.Click(css(`[data-testid="select-all"]`)),
		chromedp.Click(css(`[data-testid="bulk-migrate-submit"]`)))
	waitFor(t, ctx, "the migration page of the selection", `!!document.querySelector('[data-testid="migrate-selected"]') &&
		document.querySelectorAll('[data-testid="migrate-instance"]').length === 2`, 10*time.Second)
	run(t, ctx, "map msg to msg2 and validate",
		chromedp.SetValue(css(`[data-testid="mapping-row"][data-source="msg"] select`), "msg2"),
		chromedp.Click(css(`[data-testid="migrate-check"]`)))
	waitFor(t, ctx, "both pass", `document.querySelectorAll('[data-testid="migrate-instance"][data-valid="true"]').length === 2 &&
		!!document.querySelector('[data-testid="migrate-run"]')`, 10*time.Second)
	truthy(t, ctx, "the run names two instances", `document.querySelector('[data-testid="migrate-run"]').textContent.includes('Migrate 2 instances to v2')`)
	run(t, ctx, "run", chromedp.Click(css(`[data-testid="migrate-run"]`)))
	waitFor(t, ctx, "the batch's page", `location.pathname.startsWith('/migrations/')`, 10*time.Second)
	path := eval[string](t, ctx, "read the batch", `location.pathname`)
	if err := b.rt.AwaitMigration(context.Background(), strings.TrimPrefix(path, "/migrations/")); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[runtime.InstanceID]int{a.ID: 2, c.ID: 2, south.ID: 1} {
		if got := b.instance(id).ProcessVersion; got != want {
			t.Errorf("%s at v%d, want v%d", id, got, want)
		}
	}
}
