package cockpit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gobpm/gobpm/internal/runtime"
)

// connectorCalls runs restcall with two attempts of its REST connector
// task as the built-in worker settles them: a failed call without an
// answer, then one answered 200 and completed.
func connectorCalls(t *testing.T, b *bundle) runtime.InstanceView {
	t.Helper()
	ctx := context.Background()
	b.deploy("restcall.bpmn")
	inst := b.start("restcall", "", nil)
	const url = "https://api.example.com/customers/7?key={{secrets.CRM_KEY}}"
	attempt := func() runtime.JobView {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			jobs, err := b.rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "gobpm:http", Worker: "gobpm-http-connector", MaxJobs: 1, LockDuration: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) == 1 {
				return jobs[0]
			}
			if time.Now().After(deadline) {
				t.Fatal("no job to activate")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	j := attempt()
	two := 2
	if err := b.rt.FailJob(ctx, j.Key, runtime.JobHolder{Token: j.LockToken}, runtime.FailRequest{Retries: &two, RetryBackoff: time.Millisecond,
		ErrorMessage: url + ": timed out", Calls: []runtime.ConnectorCall{{Method: "GET", URL: url, Error: "timed out", Duration: 20 * time.Second}}}); err != nil {
		t.Fatal(err)
	}
	j = attempt()
	if err := b.rt.CompleteJobWithCalls(ctx, runtime.JobRef{Key: j.Key}, runtime.JobHolder{Token: j.LockToken}, nil,
		[]runtime.ConnectorCall{{Method: "GET", URL: url, Status: 200, StartedAt: time.Now(), Duration: 120 * time.Millisecond}}); err != nil {
		t.Fatal(err)
	}
	return inst
}

// The instance page tells each HTTP call of the REST connector: method,
// URL as written (secrets as placeholders), status or why there was
// none, duration, and the attempt after the first.
func TestInstancePageShowsConnectorCalls(t *testing.T) {
	t.Parallel()
	b := setup(t)
	inst := connectorCalls(t, b)
	got := sentences(b.mustGet("/instances/" + string(inst.ID)))["connector-call"]
	want := []string{
		"Called GET https://api.example.com/customers/7?key={{secrets.CRM_KEY}} from Look up the customer — no answer: timed out in 20.0 s",
		"Called GET https://api.example.com/customers/7?key={{secrets.CRM_KEY}} from Look up the customer — 200 OK in 120 ms (attempt 2)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("connector calls told as\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// In the browser the calls read on the instance page, a long URL wrapped
// inside the history panel rather than running out of it.
func TestBrowserInstanceConnectorCalls(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	inst := connectorCalls(t, b)
	run(t, ctx, "open the instance", chromedp.Navigate(b.srv.URL+"/instances/"+string(inst.ID)))
	waitFor(t, ctx, "the history shows the calls", `document.querySelectorAll('[data-testid="fact"][data-kind="connector-call"]').length === 2`, 10*time.Second)
	truthy(t, ctx, "the answered call reads with its status and duration", `(() => {
		const s = document.querySelectorAll('[data-testid="fact"][data-kind="connector-call"] [data-testid="fact-sentence"]')[1];
		return s.innerText.includes('GET https://api.example.com/customers/7?key={{secrets.CRM_KEY}}') && s.innerText.includes('200 OK in 120 ms') && s.getBoundingClientRect().height > 0;
	})()`)
	truthy(t, ctx, "a call stays inside the history panel", `(() => {
		const panel = document.querySelector('[data-testid="history-panel"]').getBoundingClientRect();
		return [...document.querySelectorAll('[data-testid="fact"][data-kind="connector-call"] [data-testid="fact-sentence"]')]
			.every(s => s.getBoundingClientRect().right <= panel.right + 1);
	})()`)
	shoot(t, ctx, "instance-connector-calls.png")
}
