package cockpit_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gobpm/gobpm/internal/runtime"
)

// badgeAboveShape: the token badge of an element sits above its shape, so
// the name drawn inside stays readable.
const badgeAboveShape = `(() => {
	const badge = document.querySelector('#diagram [data-testid="overlay-count"]');
	const shape = document.querySelector('#diagram [data-element-id="%s"] .djs-visual');
	if (!badge || !shape) return false;
	return badge.getBoundingClientRect().bottom <= shape.getBoundingClientRect().top + 1;
})()`

// The path taken is highlighted, names and sentences read well, and a
// model without diagram interchange is laid out in the browser.
func TestBrowserInstancePathAndAutoLayout(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("review.bpmn", "approvals.bpmn")
	inst := b.start("review", "claim-11", nil)
	claimAndComplete(t, b, inst.ID, runtime.Actor{User: "pat", Groups: []string{"clerks"}}, map[string]any{"approved": true})

	run(t, ctx, "open the instance", chromedp.Navigate(b.srv.URL+"/instances/"+string(inst.ID)))
	waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
	truthy(t, ctx, "the path taken is marked", `document.querySelector('#diagram').dataset.taken.split(' ').sort().join(' ') === 'check received toArchive toReview'`)
	truthy(t, ctx, "the taken flow is marked on the drawing", `!!document.querySelector('#diagram [data-element-id="toArchive"].gobpm-taken')`)
	truthy(t, ctx, "the token badge leaves the name readable", fmt.Sprintf(badgeAboveShape, "archive"))
	run(t, ctx, "unfold a fact's detail", chromedp.Click(css(`[data-testid="fact-raw"] summary`)))
	truthy(t, ctx, "the raw fact shows", `document.querySelector('[data-testid="fact-raw"][open] code').getBoundingClientRect().height > 0`)
	// A live refresh re-renders the history; the unfolded detail stays
	// unfolded, and only that one.
	truthy(t, ctx, "one fact's detail is unfolded", `(window.__opened = document.querySelector('[data-testid="fact-raw"][open]').dataset.key, document.querySelectorAll('[data-testid="fact-raw"][open]').length === 1)`)
	truthy(t, ctx, "a refresh of the live region is triggered",
		`(window.__history = document.querySelector('[data-testid="fact"]'), htmx.trigger(document.getElementById('live'), 'gobpm:changed'), true)`)
	waitFor(t, ctx, "the history was re-rendered", `document.querySelector('[data-testid="fact"]') !== window.__history`, 5*time.Second)
	truthy(t, ctx, "the same detail is still unfolded, and no other", `(() => {
		const open = document.querySelectorAll('[data-testid="fact-raw"][open]');
		return open.length === 1 && open[0].dataset.key === window.__opened;
	})()`)
	shoot(t, ctx, "instance-path.png")

	mi := b.start("approvals", "", map[string]any{"approvers": []any{"ann", "bob"}})
	run(t, ctx, "open an instance of a model without BPMNDI", chromedp.Navigate(b.srv.URL+"/instances/"+string(mi.ID)))
	waitFor(t, ctx, "laid out and drawn", diagramDrawn, 10*time.Second)
	truthy(t, ctx, "the layout drew the elements and flows", `!!document.querySelector('#diagram [data-element-id="approve"]') && !!document.querySelector('#diagram [data-element-id="f2"]')`)
	truthy(t, ctx, "the body counts its two iterations", `document.querySelector('#diagram [data-testid="overlay-count"]').textContent === '2'`)
	truthy(t, ctx, "the page says it was laid out here", `!!document.querySelector('[data-testid="auto-layout"]')`)
	shoot(t, ctx, "instance-auto-layout.png")
}
