package cockpit_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// In a browser, a person filters the instance list by a variable
// comparison, saves the filter under a name, clears the list, applies the
// saved filter from its link (the list shows the matches again) and
// deletes it.
func TestBrowserSavedFilters(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("review.bpmn")
	big := b.start("review", "big", map[string]any{"amount": jsonNumber("500")})
	b.start("review", "small", map[string]any{"amount": jsonNumber("5")})

	run(t, ctx, "act as ann",
		chromedp.Navigate(b.srv.URL+"/tasks"),
		chromedp.WaitVisible(css(`[data-testid="no-user"]`)),
		chromedp.SetValue(css(`[data-testid="identity-user"]`), "ann"),
		chromedp.Click(css(`[data-testid="identity-submit"]`)),
		chromedp.WaitNotPresent(css(`[data-testid="no-user"]`)),
	)
	run(t, ctx, "filter by amount > 100",
		chromedp.Navigate(b.srv.URL+"/instances"),
		chromedp.WaitVisible(css(`[data-testid="filters"]`)),
		chromedp.SetValue(css(`[data-testid="filter-var"]`), `amount:gt:100`),
		chromedp.Submit(css(`[data-testid="filter-var"]`)))
	onlyBig := `document.querySelectorAll('[data-testid="instance-row"]').length === 1 && !!document.querySelector('[data-testid="instance-row"][data-id="` + string(big.ID) + `"]')`
	waitFor(t, ctx, "the filtered list", `location.search.includes('var=') && `+onlyBig, 10*time.Second)
	run(t, ctx, "save it as big orders",
		chromedp.SetValue(css(`[data-testid="save-filter-name"]`), "big orders"),
		chromedp.Click(css(`[data-testid="save-filter-submit"]`)))
	waitFor(t, ctx, "the saved filter is listed", `[...document.querySelectorAll('[data-testid="saved-filter-apply"]')].some(a => a.textContent === 'big orders')`, 10*time.Second)
	shoot(t, ctx, "instances-saved-filters.png")

	run(t, ctx, "clear the filters", chromedp.Navigate(b.srv.URL+"/instances"))
	waitFor(t, ctx, "both instances", `document.querySelectorAll('[data-testid="instance-row"]').length === 2`, 10*time.Second)
	run(t, ctx, "apply the saved filter", chromedp.Click(css(`[data-testid="saved-filter-apply"]`)))
	waitFor(t, ctx, "the saved filter applied", `location.search.includes('var=') && `+onlyBig+` && document.querySelector('[data-testid="filter-var"]').value === 'amount:gt:100'`, 10*time.Second)

	run(t, ctx, "delete it", chromedp.Click(css(`[data-testid="saved-filter-delete"]`)))
	waitFor(t, ctx, "no saved filter left", `location.pathname === '/instances' && !document.querySelector('[data-testid="saved-filter"]')`, 10*time.Second)
}
