package cockpit_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// problemHook runs in every document before its scripts: it notes each
// Content-Security-Policy violation and each error event of htmx (a
// refused eval, a trigger it cannot parse, a failed swap), which htmx
// reports with an event and not always with a console message.
const problemHook = `window.__problems = [];
document.addEventListener('securitypolicyviolation', function (e) {
	window.__problems.push('CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber);
}, true);
['htmx:error', 'htmx:syntax:error', 'htmx:evalDisallowedError'].forEach(function (name) {
	document.addEventListener(name, function (e) {
		var d = e.detail || {};
		var info = d.errorInfo || d;
		window.__problems.push(name + ': ' + (info.error || '') + ' ' + (info.source || info.token || ''));
	}, true);
});`

// pageWatch gathers what the pages of one browser report as broken: the
// console's errors and uncaught exceptions, and what problemHook noted.
type pageWatch struct {
	t   *testing.T
	ctx context.Context
	mu  sync.Mutex
	got []chromedp.ConsoleMessage // console errors since the last check, owned under mu
	// barrier carries the text of every info message the console logs:
	// clean logs a marker and waits for it, so every message a page logged
	// before it has been read.
	barrier chan string
	marks   int
}

// watchPages installs problemHook in every new document of the browser
// and starts reading its console.
func watchPages(t *testing.T, ctx context.Context) *pageWatch {
	t.Helper()
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: problemHook}); err != nil {
		t.Fatalf("install the problem hook: %v", err)
	}
	w := &pageWatch{t: t, ctx: ctx, barrier: make(chan string, 16)}
	cctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	msgs := chromedp.Console(cctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleInfo && strings.HasPrefix(m.Text, barrierPrefix) {
				w.barrier <- m.Text
				continue
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				w.mu.Lock()
				w.got = append(w.got, m)
				w.mu.Unlock()
			}
		}
	}()
	return w
}

// barrierPrefix begins the console markers of pageWatch.clean.
const barrierPrefix = "gobpm-console-barrier-"

// clean fails the test with every problem the page at path reported since
// the last check. The browser logs a page answered with an error status
// (404 for an unknown page, 422 for a refused upload) as a failed load:
// that status is the page's message, not a problem of it.
func (w *pageWatch) clean(path string) {
	w.t.Helper()
	noted := eval[[]string](w.t, w.ctx, "the noted problems", `(() => { const p = window.__problems || []; window.__problems = []; return p; })()`)
	here := eval[string](w.t, w.ctx, "the page's address", `location.href`)
	// Console messages travel on their own: log a marker and wait for it,
	// so the messages the page logged before it have all been read.
	w.marks++
	mark := fmt.Sprintf("%s%d", barrierPrefix, w.marks)
	eval[bool](w.t, w.ctx, "the console marker", `(console.info(`+strconv.Quote(mark)+`), true)`)
	guard := time.After(30 * time.Second) // against a hang, not a timing
	for seen := ""; seen != mark; {
		select {
		case seen = <-w.barrier:
		case <-guard:
			w.t.Fatalf("%s: the console never delivered its marker %q", path, mark)
		}
	}
	w.mu.Lock()
	msgs := w.got
	w.got = nil
	w.mu.Unlock()
	for _, m := range msgs {
		if m.Source == "network" && m.URL == here {
			continue
		}
		noted = append(noted, m.String()+" ("+m.URL+")")
	}
	if len(noted) > 0 {
		w.t.Errorf("%s reports problems:\n  %s", path, strings.Join(noted, "\n  "))
	}
}

// visit opens path, waits until it is ready (and drawn), lets its live
// region refresh once when it has one, and checks it reported nothing.
func (w *pageWatch) visit(base, path, ready, drawn string) {
	w.t.Helper()
	run(w.t, w.ctx, "open "+path, chromedp.Navigate(base+path), chromedp.WaitVisible(css(ready)))
	if drawn != "" {
		waitFor(w.t, w.ctx, path+" drawn", drawn, 10*time.Second)
	}
	if eval[bool](w.t, w.ctx, "a live region?", `!!document.querySelector('#live')`) {
		waitFor(w.t, w.ctx, path+": the push stream is open", `document.querySelector('#live').dataset.push === 'on'`, 10*time.Second)
		refreshOnce(w.t, w.ctx, path)
	}
	w.clean(path)
}

// refreshOnce sets off one refresh of the live region, as a pushed change
// does, and waits until htmx swapped the answer in.
func refreshOnce(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	truthy(t, ctx, what+": refresh the live region", `(window.__settled = false,
		document.addEventListener('htmx:afterSettle', function done() { window.__settled = true; document.removeEventListener('htmx:afterSettle', done); }),
		document.querySelector('#live').dispatchEvent(new CustomEvent('gobpm:changed')), true)`)
	waitFor(t, ctx, what+": the live region refreshed", `window.__settled`, 10*time.Second)
}

// Every page of the cockpit loads, draws and refreshes without a console
// error, an uncaught exception, a Content-Security-Policy violation (the
// policy allows no eval) or an htmx error, without logins and with them.
func TestBrowserPagesReportNoErrors(t *testing.T) {
	t.Run("no logins", func(t *testing.T) {
		ctx := browser(t)
		w := watchPages(t, ctx)
		b := setup(t)
		b.deploy("grandparent.bpmn", "caller.bpmn", "picky.bpmn", "review.bpmn", "parcel.bpmn", "pack.form", "discount.dmn", "tiers.dmn",
			"zeebepay.bpmn", "camundaship.bpmn", "request.bpmn", "request.form")
		root, _ := stuckTree(t, b)
		review := b.start("review", "claim-1", nil)
		parcel := b.start("parcel", "order-1", map[string]any{"customer": "Ada"})
		pack := taskOf(t, b, parcel.ID, "pack")
		if _, err := b.rt.ClaimTask(context.Background(), pack.ID, runtime.Actor{User: "ann", Groups: []string{"clerks"}}); err != nil {
			t.Fatal(err)
		}
		batch := finishedMigration(t, b)

		run(t, ctx, "act as ann of the clerks",
			chromedp.Navigate(b.srv.URL+"/tasks"),
			chromedp.WaitVisible(css(`[data-testid="no-user"]`)),
			chromedp.SetValue(css(`[data-testid="identity-user"]`), "ann"),
			chromedp.SetValue(css(`[data-testid="identity-groups"]`), "clerks"),
			chromedp.Click(css(`[data-testid="identity-submit"]`)),
			chromedp.WaitVisible(css(`[data-testid="task-open"]`)),
		)
		w.clean("/tasks without a user")
		for _, pg := range []struct{ path, ready, drawn string }{
			{"/", `[data-testid="process-status"]`, ""},
			{"/processes", `[data-testid="processes"]`, ""},
			{"/processes/review", `[data-testid="elements"]`, diagramDrawn},
			{"/processes/review/edit", `#modeler`, modelerReady},
			{"/processes/zeebepay/edit", `#modeler`, modelerReady},
			{"/processes/camundaship/edit", `#modeler`, modelerReady},
			{"/instances", `[data-testid="instances"]`, ""},
			{"/instances/" + string(review.ID), `[data-testid="history"]`, diagramDrawn},
			{"/instances/" + string(root.ID), `[data-testid="call-trace"]`, diagramDrawn},
			{"/tasks", `[data-testid="task"]`, ""},
			{"/tasks?task=" + pack.ID, `[data-testid="task-form"]`, formReady},
			{"/tasks?show=completed", `[data-testid="completed-heading"]`, ""},
			{"/tasks/start", `[data-testid="startable"]`, ""},
			{"/tasks/start/request", `[data-testid="start-form"]`, startFormReady},
			{"/tasks/start/review", `[data-testid="start-json-form"]`, ""},
			{"/tasks/start?started=" + string(review.ID), `[data-testid="started"]`, ""},
			{"/incidents", `[data-testid="incident"]`, ""},
			{"/decisions", `[data-testid="decision-link"]`, ""},
			{"/decisions/discount", `#dmn`, dmnDrawn},
			{"/processes/migr/migrate?from=1&to=2&map%3Amsg=msg2", `[data-testid="migrate-instance-link"]`, ""},
			{"/migrations/" + batch, `[data-testid="migration-item-link"]`, ""},
			{"/nowhere", `[data-testid="error-message"]`, ""},
		} {
			w.visit(b.srv.URL, pg.path, pg.ready, pg.drawn)
		}
		// A refused deployment: the page drawn from the upload's answer.
		run(t, ctx, "deploy a broken model", chromedp.Navigate(b.srv.URL+"/processes"), chromedp.WaitVisible(css(`[data-testid="deploy-file"]`)))
		truthy(t, ctx, "post a broken model as the form does", `(() => {
			const f = document.querySelector('[data-testid="deploy-file"]');
			const dt = new DataTransfer();
			dt.items.add(new File(['<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"><process id="p"><startEvent id="s"/><sequenceFlow id="f" sourceRef="s" targetRef="nowhere"/></process></definitions>'], 'broken.bpmn'));
			f.files = dt.files;
			document.querySelector('[data-testid="deploy-submit"]').click();
			return true;
		})()`)
		waitFor(t, ctx, "the refusal is drawn", `!!document.querySelector('[data-testid="problem-link"]') && `+diagramDrawn, 10*time.Second)
		w.clean("/processes with a refused deployment")
	})

	t.Run("builtin logins", func(t *testing.T) {
		ctx := browser(t)
		w := watchPages(t, ctx)
		b := setupAuth(t, map[string]auth.Role{"ada": auth.RoleAdmin}, map[string][]string{"ada": {"clerks"}})
		b.deploy("review.bpmn")
		b.start("review", "claim-2", nil)

		w.visit(b.srv.URL, "/tasks", `[data-testid="login-form"]`, "")
		run(t, ctx, "log in as the administrator",
			chromedp.SendKeys(css(`[data-testid="login-user"]`), "ada"),
			chromedp.SendKeys(css(`[data-testid="login-password"]`), password),
			chromedp.Click(css(`[data-testid="login-submit"]`)),
		)
		waitFor(t, ctx, "logged in", `location.pathname === '/tasks' && !!document.querySelector('[data-testid="session-user"]')`, 10*time.Second)
		w.clean("/login")
		for _, pg := range []struct{ path, ready string }{
			{"/", `[data-testid="process-status"]`},
			{"/tasks", `[data-testid="task"]`},
			{"/tasks?show=completed", `[data-testid="completed-heading"]`},
			{"/tasks/start", `[data-testid="startable"]`},
			{"/admin/users", `[data-testid="user-form"]`},
			{"/admin/users/ada", `[data-testid="session-user"]`},
			{"/admin/groups", `[data-testid="group-form"]`},
			{"/admin/groups/clerks", `[data-testid="session-user"]`},
			{"/admin/grants", `[data-testid="grant-form"]`},
			{"/admin/tokens", `[data-testid="token-form"]`},
			{"/admin/audit", `[data-testid="audit-entry"]`},
		} {
			w.visit(b.srv.URL, pg.path, pg.ready, "")
		}
	})
}

// finishedMigration moves one instance of migr from v1 to v2, leaves
// another to plan, and returns the finished batch's id.
func finishedMigration(t *testing.T, b *bundle) string {
	t.Helper()
	b.deploy("migrate_v1.bpmn")
	moved := b.start("migr", "", map[string]any{"orderId": "o-1"})
	b.start("migr", "", map[string]any{"orderId": "o-2"})
	b.deploy("migrate_v2.bpmn")
	batch, _, err := b.rt.StartMigration(context.Background(), runtime.MigrationPlan{ProcessKey: "migr", SourceVersion: 1, TargetVersion: 2,
		Mapping: map[string]string{"msg": "msg2"}, InstanceIDs: []runtime.InstanceID{moved.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.rt.AwaitMigration(context.Background(), batch.ID); err != nil {
		t.Fatal(err)
	}
	return batch.ID
}
