package cockpit_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserDiagramClicks: a click on an element of the process page's
// diagram lists the instances of that version waiting or failed there; a
// click on a call activity of an instance page opens the instance it
// called.
func TestBrowserDiagramClicks(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	root, lone := stuckTree(t, b)
	leaf := leafOf(t, b, root)
	mid := b.instance(root.ID).Children[0].InstanceID

	run(t, ctx, "open picky v1", chromedp.Navigate(b.srv.URL+"/processes/picky?version=1"))
	waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
	run(t, ctx, "click the gateway", chromedp.Click(css(`#diagram [data-element-id="route"]`)))
	waitFor(t, ctx, "the filtered list", `location.pathname === '/instances' && new URLSearchParams(location.search).get('element') === 'route'`, 10*time.Second)
	truthy(t, ctx, "filtered by this version", `new URLSearchParams(location.search).get('process') === 'picky' && new URLSearchParams(location.search).get('version') === '1'`)
	truthy(t, ctx, "both stuck instances listed", `(() => {
		const ids = [...document.querySelectorAll('[data-testid="instance-row"]')].map(r => r.dataset.id).sort();
		return ids.join(',') === ['`+string(leaf)+`', '`+string(lone.ID)+`'].sort().join(',');
	})()`)

	run(t, ctx, "open the caller", chromedp.Navigate(b.srv.URL+"/instances/"+string(mid)))
	waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
	run(t, ctx, "click the call activity", chromedp.Click(css(`#diagram [data-element-id="callPicky"]`)))
	waitFor(t, ctx, "the called instance", `location.pathname === '/instances/`+string(leaf)+`'`, 10*time.Second)
}
