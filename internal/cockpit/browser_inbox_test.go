package cockpit_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// formReady: form-js drew the opened task's form and Complete is enabled.
const formReady = `document.querySelector('#task-form') && document.querySelector('#task-form').dataset.rendered === 'true' &&
	!document.querySelector('[data-testid="complete"]').disabled`

// A clerk completes a task through its Camunda Form and the next through
// a generated form, by keyboard, without typing JSON; the form refuses to
// complete while a required field is empty.
func TestBrowserInboxForms(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("parcel.bpmn", "pack.form")
	inst := b.start("parcel", "order-1042", map[string]any{"customer": "Ada"})

	run(t, ctx, "act as ann of the clerks",
		chromedp.Navigate(b.srv.URL+"/tasks"),
		chromedp.WaitVisible(css(`[data-testid="no-user"]`)),
		chromedp.SetValue(css(`[data-testid="identity-user"]`), "ann"),
		chromedp.SetValue(css(`[data-testid="identity-groups"]`), "clerks"),
		chromedp.Click(css(`[data-testid="identity-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="task"][data-node="pack"] [data-testid="task-open"]`)),
	)
	run(t, ctx, "open the task and claim it with the keyboard",
		chromedp.Click(css(`[data-testid="task"][data-node="pack"] [data-testid="task-open"]`)),
		chromedp.WaitVisible(css(`[data-testid="task-detail"] [data-testid="claim"]`)),
		chromedp.Focus(css(`[data-testid="task-detail"] [data-testid="claim"]`)),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(css(`[data-testid="task-form"]`)),
	)
	waitFor(t, ctx, "the Camunda Form is drawn", formReady, 10*time.Second)
	truthy(t, ctx, "the linked form's fields", `!!document.querySelector('#task-form .fjs-form-field-number input') && !!document.querySelector('#task-form .fjs-form-field-checkbox input')`)
	run(t, ctx, "complete with the required weight empty", chromedp.Focus(css(`[data-testid="complete"]`)), chromedp.KeyEvent("\r"))
	waitFor(t, ctx, "the form says what is missing", `!document.querySelector('[data-testid="form-errors"]').hidden`, 5*time.Second)
	if got := eval[string](t, ctx, "the form's message", `document.querySelector('[data-testid="form-errors"]').textContent`); got != "Check 1 field of the form before completing: Weight (kg): Field is required." {
		t.Errorf("the form's message: %q", got)
	}
	if v := b.instance(inst.ID); len(activeNodes(v)) != 1 || activeNodes(v)[0] != "pack" {
		t.Fatalf("the invalid form completed the task: %v", activeNodes(v))
	}
	shoot(t, ctx, "task-form-invalid.png")
	run(t, ctx, "fill the form",
		chromedp.SendKeys(css(`#task-form .fjs-form-field-number input`), "2.5"),
		chromedp.Focus(css(`#task-form .fjs-form-field-checkbox input`)),
		chromedp.KeyEvent(" "),
	)
	waitFor(t, ctx, "fragile is ticked", `document.querySelector('#task-form .fjs-form-field-checkbox input').checked`, 5*time.Second)
	shoot(t, ctx, "task-form.png")
	run(t, ctx, "complete", chromedp.Focus(css(`[data-testid="complete"]`)), chromedp.KeyEvent("\r"))
	waitFor(t, ctx, "completed", `(document.querySelector('[data-testid="flash"]') || {textContent: ''}).textContent.startsWith('Task completed')`, 30*time.Second)
	v := b.instance(inst.ID)
	if v.Variables["weight"] != jsonNumber("2.5") || v.Variables["fragile"] != true || activeNodes(v)[0] != "label" {
		t.Fatalf("the form's typed values: %T %#v, %T %#v at %v", v.Variables["weight"], v.Variables["weight"], v.Variables["fragile"], v.Variables["fragile"], activeNodes(v))
	}

	run(t, ctx, "open the next task, which has no form of its own",
		chromedp.WaitVisible(css(`[data-testid="task"][data-node="label"] [data-testid="task-open"]`)),
		chromedp.Click(css(`[data-testid="task"][data-node="label"] [data-testid="task-open"]`)),
		chromedp.WaitVisible(css(`[data-testid="task-detail"] [data-testid="claim"]`)),
		chromedp.Click(css(`[data-testid="task-detail"] [data-testid="claim"]`)),
		chromedp.WaitVisible(css(`[data-testid="form-generated"]`)),
	)
	waitFor(t, ctx, "the generated form is drawn", formReady, 10*time.Second)
	truthy(t, ctx, "the weight is offered as a number, filled in", `document.querySelector('#task-form .fjs-form-field-number input').value === '2.5'`)
	shoot(t, ctx, "task-form-generated.png")
	// Type and click at once, as a quick person does: the form must submit
	// every key, also while it is still settling after being drawn.
	run(t, ctx, "fill in the declared output and complete",
		chromedp.SendKeys(css(`#task-form input[id$="trackingNumber"]`), "TRK-9"),
		chromedp.Click(css(`[data-testid="complete"]`)),
	)
	waitFor(t, ctx, "completed", `(document.querySelector('[data-testid="flash"]') || {textContent: ''}).textContent.startsWith('Task completed')`, 30*time.Second)
	v = b.instance(inst.ID)
	if v.Variables["trackingNumber"] != "TRK-9" || v.Variables["weight"] != jsonNumber("2.5") {
		t.Fatalf("the generated form's values: %#v %#v", v.Variables["trackingNumber"], v.Variables["weight"])
	}
}
