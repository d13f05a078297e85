package cockpit_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gobpm/gobpm/internal/runtime"
)

// pollWindow is longer than two polls (every 2 s without a push stream):
// a page that polls while its stream is open refreshes within it.
const pollWindow = 5 * time.Second

// quiet waits d in the page (a timer there, so a busy machine stretches
// both alike) and returns the refreshes recorded meanwhile.
func quiet(t *testing.T, ctx context.Context, what string, d time.Duration) []string {
	t.Helper()
	truthy(t, ctx, what+": start the window", `(window.__quiet = false, setTimeout(() => { window.__quiet = true }, `+strconv.FormatInt(d.Milliseconds(), 10)+`), true)`)
	waitFor(t, ctx, what+": the window passed", `window.__quiet`, d+10*time.Second)
	return eval[[]string](t, ctx, what+": the refreshes", `window.__triggers`)
}

// While the push stream is open the live region does not poll: with no
// change to push, it is not re-rendered at all.
func TestBrowserNoPollWhilePushed(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("review.bpmn")
	inst := b.start("review", "claim-21", nil)

	for _, path := range []string{"/", "/instances/" + string(inst.ID)} {
		run(t, ctx, "open "+path, chromedp.Navigate(b.srv.URL+path), chromedp.WaitVisible(css(`#live`)))
		waitFor(t, ctx, path+": the push stream is open", `document.querySelector('#live').dataset.push === 'on'`, 10*time.Second)
		truthy(t, ctx, path+": record the refreshes", recordTriggers)
		if got := quiet(t, ctx, path, pollWindow); len(got) != 0 {
			t.Errorf("%s refreshed its live region %d times with the push stream open and nothing changed: %v", path, len(got), got)
		}
	}
}

// A pushed change waits while the person types in the live region or has
// a panel with fields open there, and is shown once they are done.
func TestBrowserLiveRefreshWaitsForThePerson(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("review.bpmn")
	inst := b.start("review", "claim-22", nil)
	ann := runtime.Actor{User: "ann", Groups: []string{"clerks"}}

	run(t, ctx, "open the instance", chromedp.Navigate(b.srv.URL+"/instances/"+string(inst.ID)))
	waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
	waitFor(t, ctx, "the push stream is open", `document.querySelector('#live').dataset.push === 'on'`, 10*time.Second)
	run(t, ctx, "start typing in the variables form",
		chromedp.Click(css(`#variables-edit summary`)),
		chromedp.SendKeys(css(`[data-testid="variables-json"]`), `{"typed": 1`),
	)
	truthy(t, ctx, "record the refreshes", recordTriggers)
	claimAndComplete(t, b, inst.ID, ann, nil)
	waitFor(t, ctx, "the change was pushed", `Number(document.querySelector('#live').dataset.pushed || 0) >= 1`, 10*time.Second)
	if got := quiet(t, ctx, "while typing", pollWindow); len(got) != 0 {
		t.Fatalf("the region refreshed while the person typed in it: %v", got)
	}
	truthy(t, ctx, "the field still has the focus", `document.activeElement === document.querySelector('[data-testid="variables-json"]')`)
	truthy(t, ctx, "leave the field", `(document.activeElement.blur(), true)`)
	waitFor(t, ctx, "the held change is shown", `document.querySelector('#diagram').dataset.active === 'archive'`, 10*time.Second)
	truthy(t, ctx, "by the pushed event", `window.__triggers.length === 1 && window.__triggers[0] === 'gobpm:changed'`)
	truthy(t, ctx, "what was typed is kept", `document.querySelector('[data-testid="variables-json"]').value === '{"typed": 1'`)

	// A panel with fields, open in the region and not preserved by the
	// swap (the ones the cockpit draws there are): a refresh would discard
	// what it holds, so it waits until the panel is closed.
	truthy(t, ctx, "open a panel with a field in the region", `(() => {
		const d = document.createElement('details');
		d.open = true;
		d.innerHTML = '<summary>note</summary><label>Note <input data-testid="panel-field"></label>';
		document.querySelector('#live').appendChild(d);
		window.__triggers = [];
		return true;
	})()`)
	second := onlyTask(t, b, inst.ID)
	if _, err := b.rt.ClaimTask(context.Background(), second.ID, ann); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the claim was pushed", `Number(document.querySelector('#live').dataset.pushed || 0) >= 2`, 10*time.Second)
	if got := quiet(t, ctx, "with the panel open", pollWindow); len(got) != 0 {
		t.Fatalf("the region refreshed while a panel with fields was open in it: %v", got)
	}
	truthy(t, ctx, "close the panel", `(document.querySelector('#live details:not([id]):not([data-testid])').open = false, true)`)
	waitFor(t, ctx, "the held change is shown", `window.__triggers.length === 1 && !document.querySelector('[data-testid="panel-field"]')`, 10*time.Second)
}
