package cockpit_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Safari and Firefox on macOS do not focus a button that is clicked, so
// the field typed in last is never left (no blur) before the form is
// submitted. The form must still submit every key typed: the weight,
// typed last and clicked away from at once, is there, and the required
// check does not refuse a field that holds a value.
func TestBrowserFormSubmitsWhatWasJustTyped(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("parcel.bpmn", "pack.form")
	inst := b.start("parcel", "order-2001", map[string]any{"customer": "Ada"})

	run(t, ctx, "act as ann of the clerks",
		chromedp.Navigate(b.srv.URL+"/tasks"),
		chromedp.WaitVisible(css(`[data-testid="no-user"]`)),
		chromedp.SetValue(css(`[data-testid="identity-user"]`), "ann"),
		chromedp.SetValue(css(`[data-testid="identity-groups"]`), "clerks"),
		chromedp.Click(css(`[data-testid="identity-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="task"][data-node="pack"] [data-testid="task-open"]`)),
	)
	run(t, ctx, "open the task and claim it",
		chromedp.Click(css(`[data-testid="task"][data-node="pack"] [data-testid="task-open"]`)),
		chromedp.WaitVisible(css(`[data-testid="task-detail"] [data-testid="claim"]`)),
		chromedp.Click(css(`[data-testid="task-detail"] [data-testid="claim"]`)),
		chromedp.WaitVisible(css(`[data-testid="task-form"]`)),
	)
	waitFor(t, ctx, "the Camunda Form is drawn", formReady, 10*time.Second)
	truthy(t, ctx, "the Complete button does not take the focus when clicked, as on macOS",
		`(document.querySelector('[data-testid="complete"]').addEventListener('mousedown', e => e.preventDefault()), true)`)
	run(t, ctx, "type the note, then the weight, and click Complete at once",
		chromedp.SendKeys(css(`#task-form .fjs-form-field-textfield input`), "Leave at the door"),
		chromedp.SendKeys(css(`#task-form .fjs-form-field-number input`), "2.5"),
		chromedp.Click(css(`[data-testid="complete"]`)),
	)
	waitFor(t, ctx, "completed, or refused", flashText+`.startsWith('Task completed') || !document.querySelector('[data-testid="form-errors"]').hidden`, 30*time.Second)
	if eval[bool](t, ctx, "refused?", `!!document.querySelector('[data-testid="form-errors"]:not([hidden])')`) {
		t.Fatalf("the form refused what was typed: %q (the weight field shows %q)",
			eval[string](t, ctx, "the refusal", `document.querySelector('[data-testid="form-errors"]').textContent`),
			eval[string](t, ctx, "the weight", `document.querySelector('#task-form .fjs-form-field-number input').value`))
	}
	v := b.instance(inst.ID)
	if v.Variables["weight"] != jsonNumber("2.5") || v.Variables["note"] != "Leave at the door" {
		t.Fatalf("the submitted values: weight %#v, note %#v", v.Variables["weight"], v.Variables["note"])
	}
}
