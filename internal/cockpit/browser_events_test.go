package cockpit_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gobpm/gobpm/internal/runtime"
)

// recordTriggers notes what set off each refresh of the live region.
const recordTriggers = `(window.__triggers = [], document.body.addEventListener('htmx:beforeRequest', e => {
	const t = e.detail.requestConfig && e.detail.requestConfig.triggeringEvent;
	window.__triggers.push(t ? t.type : 'poll');
}), true)`

// An open page hears a change by push and refreshes at once, set off by
// the pushed event (not by the poll, which stops while the stream is
// open); the inbox likewise.
func TestBrowserPushedUpdates(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("review.bpmn")
	inst := b.start("review", "claim-12", nil)
	ann := runtime.Actor{User: "ann", Groups: []string{"clerks"}}

	run(t, ctx, "open the instance", chromedp.Navigate(b.srv.URL+"/instances/"+string(inst.ID)))
	waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
	waitFor(t, ctx, "the push stream is open", `document.querySelector('#live').dataset.push === 'on'`, 10*time.Second)
	truthy(t, ctx, "record the refreshes", recordTriggers)
	claimAndComplete(t, b, inst.ID, ann, nil)
	waitFor(t, ctx, "the pushed change moves the marker", `document.querySelector('#diagram').dataset.active === 'archive'`, 10*time.Second)
	truthy(t, ctx, "the refresh came from the pushed event", `window.__triggers[0] === 'gobpm:changed'`)

	run(t, ctx, "open the inbox as ann",
		chromedp.Navigate(b.srv.URL+"/tasks"),
		chromedp.WaitVisible(css(`[data-testid="identity-user"]`)),
		chromedp.SetValue(css(`[data-testid="identity-user"]`), "ann"),
		chromedp.SetValue(css(`[data-testid="identity-groups"]`), "clerks"),
		chromedp.Click(css(`[data-testid="identity-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="task"][data-node="archive"]`)),
	)
	waitFor(t, ctx, "the inbox's stream is open", `document.querySelector('#live').dataset.push === 'on'`, 10*time.Second)
	truthy(t, ctx, "record the refreshes", recordTriggers)
	second := b.start("review", "claim-13", nil)
	waitFor(t, ctx, "the new task appears by push", `document.querySelectorAll('[data-testid="task"][data-node="check"]').length === 1`, 10*time.Second)
	truthy(t, ctx, "set off by the pushed event", `window.__triggers[0] === 'gobpm:changed'`)
	if _, err := b.rt.Cancel(context.Background(), second.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the cancelled task leaves by push", `!document.querySelector('[data-testid="task"][data-node="check"]')`, 10*time.Second)
}
