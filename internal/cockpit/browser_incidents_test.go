package cockpit_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gobpm/gobpm/internal/runtime"
)

// An operator finds a stuck tree from the dashboard in two clicks, and
// retries its incidents in bulk with the keyboard.
func TestBrowserIncidentsRollUpAndBulkRetry(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	root, lone := stuckTree(t, b)
	leaf := leafOf(t, b, root)

	run(t, ctx, "the dashboard flags the grandparent",
		chromedp.Navigate(b.srv.URL+"/"),
		chromedp.WaitVisible(css(`[data-testid="process-status-row"][data-key="grandparent"] a[data-testid="count-stuck"]`)),
	)
	shoot(t, ctx, "dashboard-stuck.png")
	run(t, ctx, "click 1: the stuck count",
		chromedp.Click(css(`[data-testid="process-status-row"][data-key="grandparent"] a[data-testid="count-stuck"]`)),
		chromedp.WaitVisible(css(`[data-testid="incident-root"]`)),
	)
	truthy(t, ctx, "only the grandchild's incident", `document.querySelectorAll('[data-testid="incident"]').length === 1 && document.querySelector('[data-testid="incident"]').dataset.instance === '`+string(leaf)+`'`)
	shoot(t, ctx, "incidents-of-a-tree.png")
	run(t, ctx, "click 2: the root of the tree",
		chromedp.Click(css(`[data-testid="incident-root"]`)),
		chromedp.WaitVisible(css(`[data-testid="summary"] [data-testid="incident-in-tree"]`)),
	)
	truthy(t, ctx, "the root's own status stays running", `document.querySelector('[data-testid="summary"] [data-testid="status"]').textContent === 'running'`)

	run(t, ctx, "the instance list flags the tree",
		chromedp.Navigate(b.srv.URL+"/instances"),
		chromedp.WaitVisible(css(`[data-testid="instance-row"][data-id="`+string(root.ID)+`"] [data-testid="incident-in-tree"]`)),
	)
	shoot(t, ctx, "instances-flagged.png")

	for _, id := range []runtime.InstanceID{leaf, lone.ID} {
		if _, err := b.rt.SetVariables(context.Background(), id, "", map[string]any{"amount": jsonNumber("5")}, false); err != nil {
			t.Fatal(err)
		}
	}
	run(t, ctx, "select every incident and retry them with the keyboard",
		chromedp.Navigate(b.srv.URL+"/incidents"),
		chromedp.WaitVisible(css(`[data-testid="select-all"]`)),
		chromedp.Focus(css(`[data-testid="select-all"]`)),
		chromedp.KeyEvent("\r"),
	)
	truthy(t, ctx, "both picked", `Array.from(document.querySelectorAll('[data-testid="incident-pick"]')).every(x => x.checked)`)
	run(t, ctx, "submit", chromedp.Focus(css(`[data-testid="bulk-retry-submit"]`)), chromedp.KeyEvent("\r"))
	waitFor(t, ctx, "the outcome is shown", `(document.querySelector('[data-testid="flash"]') || {textContent: ''}).textContent === 'Retried 2 of 2 incidents.'`, 10*time.Second)
	truthy(t, ctx, "no incident left", `!document.querySelector('[data-testid="incident"]')`)
	shoot(t, ctx, "incidents-retried.png")
}
