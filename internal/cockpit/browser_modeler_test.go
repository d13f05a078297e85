package cockpit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gobpm/gobpm/internal/runtime"
)

// modelerReady: the modeler drew the model and may deploy it.
const modelerReady = `document.querySelector('#modeler') && document.querySelector('#modeler').dataset.rendered === 'true' && !document.querySelector('[data-testid="modeler-deploy"]').disabled`

// A modeller opens a deployed version in the browser, sets an element's
// gobpm attribute in the panel, deploys version 2, sees it listed and
// starts it; a model the deployment refuses has its problems marked on
// the elements they name.
func TestBrowserModelerRoundTrip(t *testing.T) {
	ctx := browser(t)
	src := axeSource(t)
	b := setup(t)
	b.deploy("review.bpmn")

	run(t, ctx, "open the process and its modeler",
		chromedp.Navigate(b.srv.URL+"/processes/review"),
		chromedp.WaitVisible(css(`[data-testid="edit-link"]`)),
		chromedp.Click(css(`[data-testid="edit-link"]`)),
	)
	waitFor(t, ctx, "the modeler is ready", modelerReady, 15*time.Second)
	run(t, ctx, "select “Archive the claim” and offer it to the clerks",
		chromedp.Click(css(`#modeler [data-element-id="archive"]`)),
		chromedp.WaitVisible(css(`[data-testid="prop"][data-attr="gobpm:candidateGroups"]`)),
		chromedp.SendKeys(css(`[data-testid="prop"][data-attr="gobpm:candidateGroups"]`), "clerks"),
		chromedp.KeyEvent("\t"),
	)
	shoot(t, ctx, "modeler.png")
	axeClean(t, ctx, src, "/processes/review/edit")
	run(t, ctx, "deploy it with the keyboard", chromedp.Focus(css(`[data-testid="modeler-deploy"]`)), chromedp.KeyEvent("\r"))
	waitFor(t, ctx, "version 2 is shown", `location.pathname === '/processes/review' && location.search === '?version=2' && `+flashText+` === 'Deployed from the modeler: review v2.'`, 15*time.Second)
	def, err := b.rt.Definition(context.Background(), "review", 2)
	if err != nil || !strings.Contains(string(def.XML), `gobpm:candidateGroups="clerks"`) {
		t.Fatalf("version 2 carries the attribute: %v\n%s", err, def.XML)
	}
	run(t, ctx, "version 2 is listed; start it",
		chromedp.Navigate(b.srv.URL+"/processes"),
		chromedp.WaitVisible(css(`[data-testid="process"][data-key="review"] [data-testid="process-version"]:nth-child(2)`)),
		chromedp.Navigate(b.srv.URL+"/processes/review?version=2"),
		chromedp.WaitVisible(css(`[data-testid="start-submit"]`)),
		chromedp.Click(css(`[data-testid="start-submit"]`)),
	)
	waitFor(t, ctx, "the instance of version 2 is open", `location.pathname.startsWith('/instances/')`, 10*time.Second)
	rows, _, err := b.rt.ListInstances(context.Background(), runtime.InstanceFilter{ProcessKey: "review", ProcessVersion: 2})
	if err != nil || len(rows) != 1 {
		t.Fatalf("one instance of version 2: %v %v", rows, err)
	}

	run(t, ctx, "break the model", chromedp.Navigate(b.srv.URL+"/processes/review/edit?version=2"))
	waitFor(t, ctx, "the modeler is ready", modelerReady, 15*time.Second)
	run(t, ctx, "an assignee that is no expression",
		chromedp.Click(css(`#modeler [data-element-id="check"]`)),
		chromedp.WaitVisible(css(`[data-testid="prop"][data-attr="gobpm:assignee"]`)),
		chromedp.SendKeys(css(`[data-testid="prop"][data-attr="gobpm:assignee"]`), "=("),
		chromedp.KeyEvent("\t"),
		chromedp.Click(css(`[data-testid="modeler-deploy"]`)),
	)
	waitFor(t, ctx, "the problem is marked on the task", `document.querySelector('#modeler').dataset.problems === 'check' && !!document.querySelector('#modeler [data-element-id="check"].gobpm-problem')`, 15*time.Second)
	truthy(t, ctx, "and said in words", `document.querySelector('[data-testid="modeler-outcome"]').textContent.includes('check')`)
	shoot(t, ctx, "modeler-refused.png")
	if _, err := b.rt.Definition(context.Background(), "review", 3); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("the refused model registered a version: %v", err)
	}
}
