package cockpit_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// heatBadges lists the heatmap badges on the diagram as "node=text".
const heatBadges = `[...document.querySelectorAll('#diagram [data-testid="overlay-heat"]')].map(b => b.dataset.node + '=' + b.textContent).sort().join(' ')`

// TestBrowserHeatmap: on the seeded process the heatmap overlays appear
// with the numbers of the element table, the switch changes them and the
// legend, and a click on an element while a heatmap is shown lists its
// slowest and failed instances.
func TestBrowserHeatmap(t *testing.T) {
	ctx := browser(t)
	b, v1 := setupInsight(t)

	run(t, ctx, "open insight v1", chromedp.Navigate(b.srv.URL+"/processes/insight?version=1&stats=1&period=24h"))
	waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
	truthy(t, ctx, "no heatmap by default", `document.querySelectorAll('#diagram [data-testid="overlay-heat"]').length === 0`)

	run(t, ctx, "pick activations", chromedp.Click(css(`[data-testid="overlay-choice-count"]`)))
	waitFor(t, ctx, "activation badges", heatBadges+` === 'check=4 done=3 route=4 start=4'`, 5*time.Second)
	truthy(t, ctx, "the activations legend", `(() => {
		const shown = [...document.querySelectorAll('[data-testid="heatmap-legend"]')].filter(l => !l.hidden);
		return shown.length === 1 && shown[0].dataset.kind === 'count' && shown[0].textContent.includes('4');
	})()`)
	truthy(t, ctx, "the choice is kept in the address", `new URLSearchParams(location.search).get('overlay') === 'count'`)

	run(t, ctx, "pick the incident rate with the keyboard",
		chromedp.Focus(css(`[data-testid="overlay-choice-count"]`)),
		chromedp.KeyEvent(kb.ArrowDown), // the next radio: active p50
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.KeyEvent(kb.ArrowDown),
	)
	waitFor(t, ctx, "incident rate badges", heatBadges+` === 'check=0 % done=0 % route=25 % start=0 %'`, 5*time.Second)

	// The badges show the table's numbers.
	run(t, ctx, "pick active p90", chromedp.Click(css(`[data-testid="overlay-choice-active-p90"]`)))
	truthy(t, ctx, "active p90 as in the table", `(() => {
		const badge = document.querySelector('#diagram [data-testid="overlay-heat"][data-node="check"]');
		const cell = document.querySelector('[data-testid="insight-element"][data-node="check"] [data-testid="stat-active-p90"]');
		return badge && cell && badge.textContent === cell.textContent.trim();
	})()`)

	shoot(t, ctx, "heatmap.png")
	run(t, ctx, "click check", chromedp.Click(css(`#diagram [data-element-id="check"]`)))
	waitFor(t, ctx, "the drill-down", `document.querySelector('[data-testid="element-detail"][data-node="check"]') !== null`, 10*time.Second)
	truthy(t, ctx, "the slowest first", `document.querySelector('[data-testid="slowest-run"]').dataset.instance === '`+string(v1[3])+`'`)
	truthy(t, ctx, "the overlay is still shown", `new URLSearchParams(location.search).get('overlay') === 'active-p90'`)
	waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
	run(t, ctx, "click route", chromedp.Click(css(`#diagram [data-element-id="route"]`)))
	waitFor(t, ctx, "route's drill-down", `document.querySelector('[data-testid="element-detail"][data-node="route"]') !== null`, 10*time.Second)
	truthy(t, ctx, "the failed instance", `(() => {
		const runs = [...document.querySelectorAll('[data-testid="failed-run"]')];
		return runs.length === 1 && runs[0].dataset.instance === '`+string(v1[0])+`';
	})()`)
	shoot(t, ctx, "heatmap-detail.png")

	run(t, ctx, "compare the versions", chromedp.Click(css(`[data-testid="compare-link"]`)),
		chromedp.WaitVisible(css(`[data-testid="compare-elements"]`)))
	truthy(t, ctx, "v2's task is slower", `document.querySelector('[data-testid="compare-elements"] [data-node="check"] td.trend-worse') !== null`)
	shoot(t, ctx, "heatmap-compare.png")
}
