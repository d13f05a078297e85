package cockpit_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The instance list's filter leads to a batch: the page counts the
// matching instances before anything runs, the batch starts from its form
// and its page shows it finish with the outcome per instance.
func TestBrowserBatchFromTheList(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("review.bpmn")
	for _, region := range []string{"north", "north", "south"} {
		b.start("review", "", map[string]any{"region": region})
	}
	list := b.srv.URL + "/instances?process=review&var=" + url.QueryEscape(`region="north"`)
	run(t, ctx, "open the filtered list", chromedp.Navigate(list), chromedp.WaitVisible(css(`[data-testid="batch-from-filter"]`)))
	run(t, ctx, "follow the batch link", chromedp.Click(css(`[data-testid="batch-from-filter"]`)), chromedp.WaitVisible(css(`[data-testid="batch-form"]`)))
	truthy(t, ctx, "the count comes first", `document.querySelector('[data-testid="batch-count"] strong').textContent === '2'`)
	shoot(t, ctx, "batch-new.png")
	run(t, ctx, "start the batch", chromedp.Click(css(`[data-testid="batch-submit"]`)), chromedp.WaitVisible(css(`[data-testid="batch"]`)))
	waitFor(t, ctx, "the batch finishes in place",
		`document.querySelector('#live [data-testid="batch"]').dataset.state === 'completed' && document.querySelector('[data-testid="batch-done"]').textContent === '2'`, 10*time.Second)
	truthy(t, ctx, "each instance is done", `document.querySelectorAll('[data-testid="batch-item"][data-status="done"]').length === 2`)
	shoot(t, ctx, "batch-finished.png")
}
