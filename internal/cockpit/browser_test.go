package cockpit_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web"
)

// The browser tests drive Debian's chromium (never a browser a test tool
// downloads) against the cockpit on 127.0.0.1:0. Without chromium they are
// skipped, except in CI (CI=true), where .ci/run installs it.

// screenshotDir is where the browser tests save screenshots
// (GOBPM_SCREENSHOTS, else testdata/out, ignored by git).
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("GOBPM_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join("testdata", "out")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	return ""
}

// browser starts headless chromium at 1280×800; the context ends with the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed, and CI must run the browser tests: .ci/run installs Debian's chromium")
		}
		t.Skip("chromium is not installed (make chromium, or apt-get install chromium): browser tests skipped")
	}
	if !web.VendorReady() {
		if os.Getenv("CI") == "true" {
			t.Fatal("the cockpit's npm files are missing: " + web.VendorHelpOnMiss)
		}
		t.Skip("browser tests skipped: " + web.VendorHelpOnMiss)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
	})
	// The first call starts the browser; it must run without a deadline.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// step bounds one browser step in time.
const step = 20 * time.Second

// shoot saves a full-page PNG screenshot.
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	png, err := chromedp.Run(sctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(screenshotDir(t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", path)
}

// run does browser steps in order, within the step time.
func run(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates JS in the page.
func eval[T any](t *testing.T, ctx context.Context, what, js string) T {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	v, err := chromedp.Run(sctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func truthy(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	if !eval[bool](t, ctx, what, js) {
		t.Fatalf("%s: %s is false", what, js)
	}
}

// waitFor evaluates a JS expression every 50 ms until it is true or the
// timeout passes; errors while the page navigates are retried.
func waitFor(t *testing.T, ctx context.Context, what, js string, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	var last error
	for time.Since(start) < timeout {
		ectx, cancel := context.WithTimeout(ctx, time.Second)
		ok, err := chromedp.Run(ectx, chromedp.Evaluate[bool]("!!("+js+")"))
		cancel()
		if err == nil && ok {
			return time.Since(start)
		}
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: %s not true within %v (last error: %v)", what, js, timeout, last)
	return 0
}

// css is a CSS selector.
func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

const diagramDrawn = `document.querySelector('#diagram') && document.querySelector('#diagram').dataset.rendered === 'true'`

// watermarkVisible checks the bpmn.io watermark its licence requires.
const watermarkVisible = `(() => {
	const e = document.querySelector('#diagram .bjs-powered-by');
	if (!e) return false;
	const r = e.getBoundingClientRect(), s = getComputedStyle(e);
	return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none' && s.opacity !== '0';
})()`

func TestBrowserInstanceDiagramAndLiveRefresh(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("review.bpmn")
	inst := b.start("review", "claim-7", nil)

	run(t, ctx, "open the instance", chromedp.Navigate(b.srv.URL+"/instances/"+string(inst.ID)))
	waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
	truthy(t, ctx, "active element marked", `!!document.querySelector('#diagram [data-element-id="check"].gobpm-active')`)
	truthy(t, ctx, "token count overlay", `document.querySelector('#diagram [data-testid="overlay-count"]').textContent === '1'`)
	truthy(t, ctx, "watermark", watermarkVisible)
	shoot(t, ctx, "instance.png")

	// Type into the variables form, leave the field, and let the page refresh
	// while the task is completed elsewhere.
	run(t, ctx, "fill the variables form",
		chromedp.Click(css(`#variables-edit summary`)),
		chromedp.SendKeys(css(`[data-testid="variables-json"]`), `{"typed": 1}`),
	)
	truthy(t, ctx, "remember the drawn diagram", `(window.__svg = document.querySelector('#diagram svg'), document.activeElement.blur(), true)`)
	task := onlyTask(t, b, inst.ID)
	ann := runtime.Actor{User: "ann", Groups: []string{"clerks"}}
	if _, err := b.rt.ClaimTask(context.Background(), task.ID, ann); err != nil {
		t.Fatal(err)
	}
	if err := b.rt.CompleteTask(context.Background(), task.ID, ann, nil); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, ctx, "live refresh moves the marker", `document.querySelector('#diagram').dataset.active === 'archive'`, 5*time.Second)
	t.Logf("the diagram showed the next element %v after the task was completed", took.Round(10*time.Millisecond))
	if took > 3500*time.Millisecond {
		t.Errorf("live refresh took %v; the page polls every 2 s", took)
	}
	truthy(t, ctx, "the diagram was not re-imported", `document.querySelector('#diagram svg') === window.__svg`)
	truthy(t, ctx, "the typed form survived the refresh", `document.querySelector('[data-testid="variables-json"]').value === '{"typed": 1}'`)
	truthy(t, ctx, "the scope tree refreshed", `!!document.querySelector('[data-testid="track"][data-node="archive"]')`)
}

func TestBrowserInboxCompletesTask(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("review.bpmn")
	inst := b.start("review", "claim-8", nil)

	run(t, ctx, "act as ann of the clerks",
		chromedp.Navigate(b.srv.URL+"/tasks"),
		chromedp.WaitVisible(css(`[data-testid="no-user"]`)),
		chromedp.SetValue(css(`[data-testid="identity-user"]`), "ann"),
		chromedp.SetValue(css(`[data-testid="identity-groups"]`), "clerks"),
		chromedp.Click(css(`[data-testid="identity-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="claimable"] [data-testid="claim"]`)),
	)
	run(t, ctx, "claim and open the task",
		chromedp.Click(css(`[data-testid="claimable"] [data-testid="claim"]`)),
		chromedp.WaitVisible(css(`[data-testid="assigned"] [data-testid="task-open"]`)),
		chromedp.Click(css(`[data-testid="assigned"] [data-testid="task-open"]`)),
		chromedp.WaitVisible(css(`[data-testid="complete-json"] summary`)),
		// The task's form is drawn after the page loads, above the JSON
		// panel: wait for it so the panel does not move under the click.
		chromedp.WaitVisible(css(`[data-testid="task-form"][data-rendered]`)),
		chromedp.Click(css(`[data-testid="complete-json"] summary`)),
		chromedp.WaitVisible(css(`[data-testid="complete-variables"]`)),
		chromedp.SendKeys(css(`[data-testid="complete-variables"]`), `{"approved": true}`),
	)
	shoot(t, ctx, "tasks.png")
	run(t, ctx, "complete", chromedp.Click(css(`[data-testid="complete-json-submit"]`)))
	waitFor(t, ctx, "the outcome is shown", `(document.querySelector('[data-testid="flash"]') || {textContent: ''}).textContent.startsWith('Task completed')`, 5*time.Second)
	truthy(t, ctx, "the task left the inbox", `!document.querySelector('[data-testid="task"][data-node="check"]')`)
	v := b.instance(inst.ID)
	if got := activeNodes(v); len(got) != 1 || got[0] != "archive" || v.Variables["approved"] != true {
		t.Fatalf("the instance should wait at archive with approved=true: %v %v", got, v.Variables)
	}
	run(t, ctx, "the instance page shows the next step",
		chromedp.Navigate(b.srv.URL+"/instances/"+string(inst.ID)))
	waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
	truthy(t, ctx, "archive marked", `document.querySelector('#diagram').dataset.active === 'archive'`)
}

func TestBrowserChildIncidentOnParent(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("caller.bpmn", "picky.bpmn", "review.bpmn")
	parent := b.start("caller", "order-7", nil)
	b.start("review", "claim-9", nil)
	child := parent.Children[0].InstanceID

	run(t, ctx, "open the parent", chromedp.Navigate(b.srv.URL+"/instances/"+string(parent.ID)))
	waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
	truthy(t, ctx, "the child's incident is flagged on the parent", `!!document.querySelector('[data-testid="child"] [data-testid="child-incident"]')`)
	truthy(t, ctx, "the call activity carries an incident marker", `document.querySelector('#diagram').dataset.incidents === 'callPicky' && !!document.querySelector('#diagram [data-element-id="callPicky"].gobpm-incident')`)
	shoot(t, ctx, "parent-with-child-incident.png")

	run(t, ctx, "follow the call to the child",
		chromedp.Click(css(`[data-testid="child-link"]`)),
		chromedp.WaitVisible(css(`[data-testid="retry"]`)),
	)
	waitFor(t, ctx, "child diagram drawn", diagramDrawn, 10*time.Second)
	truthy(t, ctx, "the trace leads back to the parent", `document.querySelector('[data-testid="trace-item"]').getAttribute('data-id') === '`+string(parent.ID)+`'`)
	truthy(t, ctx, "the gateway is marked", `!!document.querySelector('#diagram [data-element-id="route"].gobpm-incident')`)
	shoot(t, ctx, "child-incident.png")

	// The other pages, for people to look at.
	for _, pg := range []struct{ path, file, ready string }{
		{"/", "dashboard.png", `[data-testid="process-status"]`},
		{"/processes", "processes.png", `[data-testid="processes"]`},
		{"/processes/review", "process.png", `[data-testid="elements"]`},
		{"/instances", "instances.png", `[data-testid="instances"]`},
		{"/incidents", "incidents.png", `[data-testid="incident"]`},
	} {
		run(t, ctx, "open "+pg.path, chromedp.Navigate(b.srv.URL+pg.path), chromedp.WaitVisible(css(pg.ready)))
		if strings.HasPrefix(pg.path, "/processes/") {
			waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
			truthy(t, ctx, "watermark", watermarkVisible)
		}
		shoot(t, ctx, pg.file)
	}

	// Phone width.
	run(t, ctx, "phone width", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(b.srv.URL+"/instances/"+string(child)))
	waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
	truthy(t, ctx, "no horizontal scrolling at phone width", `document.documentElement.scrollWidth <= window.innerWidth + 1`)
	shoot(t, ctx, "instance-phone.png")
}

func TestBrowserAdHocActivate(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deployExample("investigation.bpmn")
	inst := b.start("investigation", "case-42", nil)
	path := "/instances/" + string(inst.ID)

	run(t, ctx, "act as ann on the instance page",
		chromedp.Navigate(b.srv.URL+path),
		chromedp.WaitVisible(css(`[data-testid="adhoc-no-user"]`)),
		chromedp.SetValue(css(`[data-testid="identity-user"]`), "ann"),
		chromedp.Click(css(`[data-testid="identity-submit"]`)),
	)
	// The page before the identity form had no flash; the one after has.
	waitFor(t, ctx, "back on the instance page as ann", `location.pathname === '`+path+`' && (document.querySelector('[data-testid="flash"]') || {textContent: ''}).textContent.startsWith('You are acting as ann')`, 5*time.Second)
	waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
	truthy(t, ctx, "an Activate button per candidate", `document.querySelectorAll('[data-testid="candidate"] [data-testid="activate"]').length === 3 && !document.querySelector('[data-testid="adhoc-no-user"]')`)
	truthy(t, ctx, "the region is marked with its candidates", `document.querySelector('#diagram').dataset.offers === 'investigate' && document.querySelector('#diagram [data-testid="overlay-offer"]').textContent === '3 to activate'`)
	shoot(t, ctx, "adhoc-offer.png")

	// With the keyboard: focus the button, press Enter.
	run(t, ctx, "activate “Call the customer”",
		chromedp.Focus(css(`[data-testid="candidate"][data-activity="callCustomer"] [data-testid="activate"]`)),
		chromedp.KeyEvent("\r"))
	took := waitFor(t, ctx, "the activity shows running", `document.querySelector('[data-testid="running"][data-activity="callCustomer"]')`, 5*time.Second)
	t.Logf("the page showed the activity running %v after the click", took.Round(10*time.Millisecond))
	if took > 2*time.Second {
		t.Errorf("the activity showed running after %v, want within 2 s", took)
	}
	waitFor(t, ctx, "the diagram marks it", `document.querySelector('#diagram').dataset.rendered === 'true' && document.querySelector('#diagram').dataset.active.split(' ').includes('callCustomer')`, 5*time.Second)
	truthy(t, ctx, "the outcome is shown", `document.querySelector('[data-testid="flash"]').textContent === 'You started “Call the customer”.'`)
	truthy(t, ctx, "it is no longer offered", `!document.querySelector('[data-testid="candidate"][data-activity="callCustomer"]') && document.querySelectorAll('[data-testid="candidate"]').length === 2`)
	shoot(t, ctx, "adhoc-activated.png")

	run(t, ctx, "the task is in the inbox",
		chromedp.Navigate(b.srv.URL+"/tasks"),
		chromedp.WaitVisible(css(`[data-testid="task"][data-node="callCustomer"]`)),
	)
}

// A large instance: the diagram's count is marked as a lower bound, the
// scopes page on by link, and the live refresh keeps the shown page.
func TestBrowserLargeInstancePages(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("many.bpmn")
	inst := b.start("many", "", nil)

	run(t, ctx, "open the instance", chromedp.Navigate(b.srv.URL+"/instances/"+string(inst.ID)))
	waitFor(t, ctx, "diagram drawn", diagramDrawn, 10*time.Second)
	// The shown 100 tokens are the body's host and 99 iterations: the host
	// is not counted (the iterations are the body's tokens).
	truthy(t, ctx, "the count over the shown tokens is a lower bound", `document.querySelector('#diagram [data-testid="overlay-count"]').textContent === '99+'`)
	truthy(t, ctx, "the first 100 scopes", `document.querySelectorAll('[data-testid="scope"]').length === 100`)
	run(t, ctx, "next scopes", chromedp.Click(css(`[data-testid="scopes-next"]`)))
	waitFor(t, ctx, "the second page", `location.search.startsWith('?scopes=') && document.querySelector('[data-testid="scopes-first"]')`, 5*time.Second)
	truthy(t, ctx, "watch the live refresh", `(window.__first = document.querySelector('[data-testid="scope"]').dataset.scope,
		document.addEventListener('htmx:afterSettle', () => { window.__settled = true }), window.__first !== 'root')`)
	// Nothing changes in the instance, so nothing is pushed (and the poll
	// waits 30 s while the stream is open): refresh as a pushed change does.
	waitFor(t, ctx, "the page's scripts ran", `document.readyState === 'complete' && typeof htmx !== 'undefined'`, 5*time.Second)
	truthy(t, ctx, "refresh the live region", `(htmx.trigger(document.getElementById('live'), 'gobpm:changed'), true)`)
	waitFor(t, ctx, "a live refresh", `window.__settled`, 5*time.Second)
	truthy(t, ctx, "the refresh keeps the shown page", `document.querySelector('[data-testid="scope"]').dataset.scope === window.__first &&
		document.querySelectorAll('[data-testid="scope"]').length === 100`)
	shoot(t, ctx, "large-instance.png")
}

// settled waits until the page in front has loaded, so a screenshot
// right after a form's answer sees the whole page.
func settled(t *testing.T, ctx context.Context) {
	t.Helper()
	waitFor(t, ctx, "the page loaded", `document.readyState === 'complete' && document.documentElement.clientWidth > 0`, 5*time.Second)
}

// flashText is the flash message's text ("" when there is none).
const flashText = `(document.querySelector('[data-testid="flash"]') || {textContent: ''}).textContent`

func TestBrowserFirstRunLoginLogout(t *testing.T) {
	ctx := browser(t)
	b := setupAuth(t, nil, nil)
	token := b.acc.SetupToken()
	axe := axeSource(t)

	run(t, ctx, "a new server asks for its first administrator",
		chromedp.Navigate(b.srv.URL+"/instances"),
		chromedp.WaitVisible(css(`[data-testid="setup-form"]`)),
	)
	truthy(t, ctx, "no navigation before a login", `!document.querySelector('[data-testid="nav"]') && !document.querySelector('[data-testid="identity-form"]')`)
	settled(t, ctx)
	shoot(t, ctx, "first-run.png")
	axeClean(t, ctx, axe, "first run")
	run(t, ctx, "create the administrator",
		chromedp.SendKeys(css(`[data-testid="setup-token"]`), token),
		chromedp.SendKeys(css(`[data-testid="setup-user"]`), "ada"),
		chromedp.SendKeys(css(`[data-testid="setup-password"]`), password),
		chromedp.SendKeys(css(`[data-testid="setup-repeat"]`), password),
		chromedp.Click(css(`[data-testid="setup-submit"]`)),
	)
	waitFor(t, ctx, "logged in as the administrator", `location.pathname === '/admin/users' && document.querySelector('[data-testid="session-user"]').textContent === 'ada'`, 5*time.Second)
	settled(t, ctx)
	shoot(t, ctx, "admin-users.png")
	axeClean(t, ctx, axe, "/admin/users")

	run(t, ctx, "create a clerk",
		chromedp.SendKeys(css(`[data-testid="user-id"]`), "cleo"),
		chromedp.SendKeys(css(`[data-testid="user-password"]`), password),
		chromedp.Click(css(`[data-testid="user-submit"]`)),
	)
	waitFor(t, ctx, "the clerk's page", `location.pathname === '/admin/users/cleo'`, 5*time.Second)
	settled(t, ctx)
	shoot(t, ctx, "admin-user.png")
	axeClean(t, ctx, axe, "/admin/users/cleo")
	// The other admin pages, for people to look at.
	for _, pg := range []struct{ path, file, ready string }{
		{"/admin/groups", "admin-groups.png", `[data-testid="group-form"]`},
		{"/admin/grants", "admin-grants.png", `[data-testid="grant-form"]`},
		{"/admin/tokens", "admin-tokens.png", `[data-testid="token-form"]`},
		{"/admin/audit", "admin-audit.png", `[data-testid="audit-entry"]`},
	} {
		run(t, ctx, "open "+pg.path, chromedp.Navigate(b.srv.URL+pg.path), chromedp.WaitVisible(css(pg.ready)))
		shoot(t, ctx, pg.file)
		axeClean(t, ctx, axe, pg.path)
	}

	run(t, ctx, "log out", chromedp.Click(css(`[data-testid="logout"]`)))
	waitFor(t, ctx, "on the login page", `location.pathname === '/login' && `+flashText+` === 'You are logged out.'`, 5*time.Second)
	run(t, ctx, "a page asks for the login again", chromedp.Navigate(b.srv.URL+"/tasks"))
	waitFor(t, ctx, "the login page returns to the tasks", `location.pathname === '/login' && location.search === '?next=%2Ftasks'`, 5*time.Second)

	run(t, ctx, "a wrong password",
		chromedp.SendKeys(css(`[data-testid="login-user"]`), "cleo"),
		chromedp.SendKeys(css(`[data-testid="login-password"]`), "not the password"),
		chromedp.Click(css(`[data-testid="login-submit"]`)),
	)
	waitFor(t, ctx, "refused", flashText+` === 'Wrong user name or password.'`, 5*time.Second)
	settled(t, ctx)
	shoot(t, ctx, "login-refused.png")
	axeClean(t, ctx, axe, "/login refused")
	truthy(t, ctx, "the refused form keeps the name, not the password", `document.querySelector('[data-testid="login-user"]').value === 'cleo' && document.querySelector('[data-testid="login-password"]').value === ''`)
	run(t, ctx, "the right one",
		chromedp.SendKeys(css(`[data-testid="login-password"]`), password),
		chromedp.Click(css(`[data-testid="login-submit"]`)),
	)
	waitFor(t, ctx, "back at the tasks as cleo", `location.pathname === '/tasks' && document.querySelector('[data-testid="session-user"]').textContent === 'cleo'`, 5*time.Second)
	truthy(t, ctx, "a clerk sees the dashboard and the tasks only", `document.querySelectorAll('[data-testid="nav"] a').length === 2`)
	settled(t, ctx)
	shoot(t, ctx, "logged-in-clerk.png")
	axeClean(t, ctx, axe, "/tasks of a clerk")
}

func TestBrowserOperatorCannotDeploy(t *testing.T) {
	ctx := browser(t)
	b := setupAuth(t, map[string]auth.Role{"olga": auth.RoleOperator}, nil)
	b.deploy("review.bpmn")
	inst := b.start("review", "claim-5", nil)

	run(t, ctx, "log in as the operator",
		chromedp.Navigate(b.srv.URL+"/processes"),
		chromedp.WaitVisible(css(`[data-testid="login-form"]`)),
		chromedp.SendKeys(css(`[data-testid="login-user"]`), "olga"),
		chromedp.SendKeys(css(`[data-testid="login-password"]`), password),
		chromedp.Click(css(`[data-testid="login-submit"]`)),
	)
	waitFor(t, ctx, "the processes page", `location.pathname === '/processes' && !!document.querySelector('[data-testid="process"]')`, 5*time.Second)
	truthy(t, ctx, "no deploy form", `!document.querySelector('[data-testid="deploy-form"]')`)
	settled(t, ctx)
	shoot(t, ctx, "operator-processes.png")

	// Forge the deployment form in the page: the server refuses it.
	truthy(t, ctx, "forge a deployment", `(() => {
		const f = document.createElement('form');
		f.method = 'post'; f.action = '/processes'; f.enctype = 'multipart/form-data';
		const c = document.createElement('input'); c.type = 'hidden'; c.name = 'csrf';
		c.value = document.querySelector('[data-testid="session"] input[name="csrf"]').value;
		f.appendChild(c); document.body.appendChild(f); f.submit(); return true;
	})()`)
	waitFor(t, ctx, "refused", `(document.querySelector('[data-testid="error-message"]') || {textContent: ''}).textContent.startsWith('Not allowed: olga may not deploy')`, 5*time.Second)
	settled(t, ctx)
	shoot(t, ctx, "operator-deploy-refused.png")

	// What an operator may do, they do.
	run(t, ctx, "cancel an instance",
		chromedp.Navigate(b.srv.URL+"/instances/"+string(inst.ID)),
		chromedp.Click(css(`[data-testid="cancel"] summary`)),
		chromedp.Click(css(`[data-testid="cancel-confirm"]`)),
	)
	waitFor(t, ctx, "cancelled", flashText+`.startsWith('The instance was cancelled')`, 5*time.Second)
	if e := b.lastAudit("cockpit: cancel instance"); e.Actor != "olga" || e.Outcome != "ok" {
		t.Errorf("the cancel is recorded as %+v", e)
	}
	if e := b.lastAudit("cockpit: deploy"); e.Actor != "olga" || e.Outcome != "denied" {
		t.Errorf("the forged deployment is recorded as %+v", e)
	}
}
