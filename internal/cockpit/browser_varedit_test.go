package cockpit_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// editorOf selects a part of the root variables panel's open editor of
// a variable.
func editorOf(name, part string) string {
	return `[data-testid="variables"] [data-name="` + name + `"] #var-edit ` + part
}

// editLink selects the root variables panel's edit link of a variable.
func editLink(name string) string {
	return `[data-testid="variables"] [data-name="` + name + `"] [data-testid="variable-edit-link"]`
}

// A number variable is edited by typing and one click; an invalid number
// is refused in the page before it is sent; a string variable is added.
// The page reports no problem meanwhile.
func TestBrowserEditsVariables(t *testing.T) {
	ctx := browser(t)
	w := watchPages(t, ctx)
	b := setup(t)
	b.deploy("review.bpmn")
	inst := b.start("review", "claim-9", map[string]any{"amount": 42})
	path := "/instances/" + string(inst.ID)
	value := `document.querySelector('[data-testid="variables"] [data-name="%s"] [data-testid="variable-value"]')?.textContent`

	run(t, ctx, "open the instance", chromedp.Navigate(b.srv.URL+path), chromedp.WaitVisible(css(`[data-testid="variables"]`)))
	run(t, ctx, "edit the amount and save",
		chromedp.Click(css(editLink("amount"))),
		chromedp.WaitVisible(css(editorOf("amount", `[name="value"]`))),
		chromedp.Clear(css(editorOf("amount", `[name="value"]`))),
		chromedp.SendKeys(css(editorOf("amount", `[name="value"]`)), "43"),
		chromedp.Click(css(editorOf("amount", `[data-testid="var-save"]`))),
	)
	waitFor(t, ctx, "the new amount shows", `document.querySelector('[data-testid="flash"]')?.textContent === 'Set amount.' && `+fmt.Sprintf(value, "amount")+` === '43'`, 10*time.Second)
	w.clean(path)

	truthy(t, ctx, "mark the page", `(window.__samePage = true)`)
	run(t, ctx, "try an invalid number",
		chromedp.Click(css(editLink("amount"))),
		chromedp.WaitVisible(css(editorOf("amount", `[name="value"]`))),
		chromedp.Clear(css(editorOf("amount", `[name="value"]`))),
		chromedp.SendKeys(css(editorOf("amount", `[name="value"]`)), "abc"),
		chromedp.Click(css(editorOf("amount", `[data-testid="var-save"]`))),
	)
	waitFor(t, ctx, "the message shows", `(() => {
		const e = document.querySelector('`+editorOf("amount", `[data-testid="var-error"]`)+`');
		return !!e && !e.hidden && e.textContent === '"abc" is not a number: write one such as 42, -3.5 or 1e6.';
	})()`, 10*time.Second)
	truthy(t, ctx, "nothing was sent", `window.__samePage === true && `+fmt.Sprintf(value, "amount")+` === '43'`)
	shoot(t, ctx, "variable-invalid-number.png")

	add := `[data-testid="variables-panel"] > [data-testid="variable-add"] `
	run(t, ctx, "add a string variable",
		chromedp.Click(css(add+"summary")),
		chromedp.WaitVisible(css(add+`[name="name"]`)),
		chromedp.SendKeys(css(add+`[name="name"]`), "city"),
		chromedp.SendKeys(css(add+`[name="value"]`), "Berlin"),
		chromedp.Click(css(add+`[data-testid="var-save"]`)),
	)
	waitFor(t, ctx, "the new variable shows", fmt.Sprintf(value, "city")+` === '"Berlin"'`, 10*time.Second)
	truthy(t, ctx, "it is a string", `document.querySelector('[data-testid="variables"] [data-name="city"]').dataset.type === 'string'`)
	w.clean(path)
}
