package cockpit_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gobpm/gobpm/internal/runtime"
)

// startFormReady: form-js drew the start form and Start is enabled.
const startFormReady = `document.querySelector('#task-form') && document.querySelector('#task-form').dataset.rendered === 'true' &&
	!document.querySelector('[data-testid="start-submit"]').disabled`

// A person starts a process from the inbox through its start event's
// Camunda Form, typing and clicking at once, follows the link to the
// first task, completes it and finds it under Completed.
func TestBrowserInboxStartCompleteAndCompleted(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("request.bpmn", "request.form")

	run(t, ctx, "act as ann",
		chromedp.Navigate(b.srv.URL+"/tasks"),
		chromedp.WaitVisible(css(`[data-testid="no-user"]`)),
		chromedp.SetValue(css(`[data-testid="identity-user"]`), "ann"),
		chromedp.Click(css(`[data-testid="identity-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="tab-start"]`)),
	)
	run(t, ctx, "open Start a process and choose the leave request",
		chromedp.Click(css(`[data-testid="tab-start"]`)),
		chromedp.WaitVisible(css(`[data-testid="startable-process"][data-key="request"] [data-testid="startable-open"]`)),
		chromedp.Click(css(`[data-testid="startable-process"][data-key="request"] [data-testid="startable-open"]`)),
		chromedp.WaitVisible(css(`[data-testid="start-form"]`)),
	)
	waitFor(t, ctx, "the start form is drawn", startFormReady, 10*time.Second)
	// Type and click at once, as a quick person does.
	run(t, ctx, "fill in the start form and start",
		chromedp.SendKeys(css(`[data-testid="start-business-key"]`), "L-42"),
		chromedp.SendKeys(css(`#task-form .fjs-form-field-textfield input`), "Ann"),
		chromedp.SendKeys(css(`#task-form .fjs-form-field-number input`), "5"),
		chromedp.Click(css(`[data-testid="start-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="started-task"]`)),
	)
	id := eval[string](t, ctx, "the new instance", `document.querySelector('[data-testid="started-instance"]').getAttribute('title')`)
	v := b.instance(runtimeID(id))
	if v.BusinessKey != "L-42" || v.Variables["who"] != "Ann" || v.Variables["days"] != jsonNumber("5") {
		t.Fatalf("the started instance: %q %#v", v.BusinessKey, v.Variables)
	}
	run(t, ctx, "open the first task",
		chromedp.Click(css(`[data-testid="started-task"]`)),
		chromedp.WaitVisible(css(`[data-testid="task-form"]`)),
	)
	waitFor(t, ctx, "the task's form is drawn", formReady, 10*time.Second)
	run(t, ctx, "complete", chromedp.Click(css(`[data-testid="complete"]`)))
	waitFor(t, ctx, "completed", `(document.querySelector('[data-testid="flash"]') || {textContent: ''}).textContent.startsWith('Task completed')`, 30*time.Second)
	run(t, ctx, "open Completed",
		chromedp.Click(css(`[data-testid="tab-completed"]`)),
		chromedp.WaitVisible(css(`[data-testid="completed-task"]`)),
	)
	if got := eval[string](t, ctx, "who completed", `document.querySelector('[data-testid="completed-task"] [data-testid="completed-by"]').textContent`); got != "ann" {
		t.Errorf("completed by %q", got)
	}
	if got := eval[string](t, ctx, "which task", `document.querySelector('[data-testid="completed-task"] [data-testid="completed-name"]').textContent + ' ' +
		document.querySelector('[data-testid="completed-task"] [data-testid="completed-business-key"]').textContent`); got != "Handle the request L-42" {
		t.Errorf("the completed task: %q", got)
	}
	if got := eval[string](t, ctx, "its instance link", `document.querySelector('[data-testid="completed-instance"]').getAttribute('href')`); got != "/instances/"+id {
		t.Errorf("the instance link: %q", got)
	}
}

// runtimeID names an instance by the id a page shows.
func runtimeID(id string) runtime.InstanceID { return runtime.InstanceID(id) }
