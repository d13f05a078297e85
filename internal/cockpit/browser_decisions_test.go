package cockpit_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// dmnDrawn: dmn-js drew the decision.
const dmnDrawn = `document.querySelector('#dmn') && document.querySelector('#dmn').dataset.rendered === 'true'`

// The decision page draws the table with dmn-js, evaluates it from the
// form and marks the matched rule; both pages pass axe-core.
func TestBrowserDecisions(t *testing.T) {
	ctx := browser(t)
	src := axeSource(t)
	b := setup(t)
	b.deploy("discount.dmn", "tiers.dmn")

	run(t, ctx, "open the decisions", chromedp.Navigate(b.srv.URL+"/decisions"), chromedp.WaitVisible(css(`[data-testid="decision-link"]`)))
	axeClean(t, ctx, src, "/decisions")
	run(t, ctx, "open the decision", chromedp.Click(css(`[data-testid="decision-link"]`)))
	waitFor(t, ctx, "the table is drawn", dmnDrawn, 10*time.Second)
	truthy(t, ctx, "its rules are shown", `document.querySelector('#dmn').dataset.view === 'decisionTable:discount' && document.querySelectorAll('#dmn td[data-row-id="vipLarge"]').length > 0`)
	run(t, ctx, "evaluate",
		chromedp.SendKeys(css(`[data-testid="evaluate-input"][data-name="customer"]`), "vip"),
		chromedp.SendKeys(css(`[data-testid="evaluate-input"][data-name="amount"]`), "1500"),
		chromedp.Focus(css(`[data-testid="evaluate"]`)),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(css(`[data-testid="evaluate-result"]`)),
	)
	waitFor(t, ctx, "the table is drawn again", dmnDrawn, 10*time.Second)
	truthy(t, ctx, "the matched rule is marked", `Number(document.querySelector('#dmn').dataset.marked) > 0 && !!document.querySelector('#dmn td.gobpm-matched[data-row-id="vipLarge"]') && !document.querySelector('#dmn td.gobpm-matched[data-row-id="regular"]')`)
	shoot(t, ctx, "decision.png")
	axeClean(t, ctx, src, "/decisions/discount after an evaluation")
	truthy(t, ctx, "a document without DMNDI offers no other view", `document.querySelectorAll('[data-testid="dmn-views"] button').length === 0`)

	// A decision that requires another, with DMNDI: its table first, and
	// the requirements diagram a click away.
	run(t, ctx, "open the rate", chromedp.Navigate(b.srv.URL+"/decisions/rate"))
	waitFor(t, ctx, "the table is drawn", dmnDrawn, 10*time.Second)
	truthy(t, ctx, "the rate's table", `document.querySelector('#dmn').dataset.view === 'decisionTable:rate'`)
	run(t, ctx, "show the requirements diagram", chromedp.Click(css(`[data-testid="dmn-views"] button[data-view="drd:tiers"]`)))
	waitFor(t, ctx, "the diagram is shown", `document.querySelector('#dmn').dataset.view === 'drd:tiers' && !!document.querySelector('#dmn [data-element-id="tier"]') && !!document.querySelector('#dmn [data-element-id="req1"]')`, 10*time.Second)
	shoot(t, ctx, "decision-drd.png")
	axeClean(t, ctx, src, "/decisions/rate with its requirements diagram")
}
