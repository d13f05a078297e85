package cockpit_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gobpm/gobpm/internal/runtime"
)

// axeFile is npm axe-core (a devDependency: make vendor's npm ci installs
// it), injected into the pages of the browser tests.
var axeFile = filepath.Join("..", "..", "node_modules", "axe-core", "axe.min.js")

// axeSource reads axe-core; without it the check is skipped, except in CI.
func axeSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(axeFile)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("axe-core is missing (%v): run make vendor (npm ci)", err)
		}
		t.Skipf("axe-core is missing (%v): run make vendor (npm ci)", err)
	}
	return string(b)
}

// axeRun checks the page for violations of WCAG 2.0/2.1 levels A and AA;
// it returns them as "rule: help (targets)".
const axeRun = `(async () => {
	const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
	return JSON.stringify(r.violations.map(v => v.id + ': ' + v.help + ' (' + v.nodes.map(n => n.target.join(' ')).slice(0, 4).join(', ') + ')'));
})()`

// axeClean injects axe-core into the open page and fails the test on any
// violation of WCAG A or AA.
func axeClean(t *testing.T, ctx context.Context, src, page string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	if _, err := chromedp.Run(sctx, chromedp.Evaluate[bool](src+";true")); err != nil {
		t.Fatalf("inject axe-core into %s: %v", page, err)
	}
	out, err := chromedp.Run(sctx, chromedp.Evaluate[string](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe on %s: %v", page, err)
	}
	var violations []string
	if err := json.Unmarshal([]byte(out), &violations); err != nil {
		t.Fatalf("axe on %s: %v", page, err)
	}
	if len(violations) > 0 {
		t.Errorf("%s breaks WCAG A/AA:\n  %s", page, strings.Join(violations, "\n  "))
	}
}

// Every page of the cockpit passes axe-core's WCAG A and AA rules, in the
// states a person sees them: with a diagram, an opened task and its form,
// incidents, a refused deployment.
func TestBrowserAccessibility(t *testing.T) {
	ctx := browser(t)
	src := axeSource(t)
	b := setup(t)
	b.deploy("grandparent.bpmn", "caller.bpmn", "picky.bpmn", "review.bpmn", "parcel.bpmn", "pack.form", "approvals.bpmn")
	root, _ := stuckTree(t, b)
	review := b.start("review", "claim-1", nil)
	parcel := b.start("parcel", "order-1", map[string]any{"customer": "Ada"})
	b.start("approvals", "", map[string]any{"approvers": []any{"ann"}})
	pack := taskOf(t, b, parcel.ID, "pack")
	if _, err := b.rt.ClaimTask(context.Background(), pack.ID, runtime.Actor{User: "ann", Groups: []string{"clerks"}}); err != nil {
		t.Fatal(err)
	}
	// A migration batch of one instance of migr, and another left to plan.
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

	run(t, ctx, "act as ann of the clerks",
		chromedp.Navigate(b.srv.URL+"/tasks"),
		chromedp.WaitVisible(css(`[data-testid="no-user"]`)),
	)
	axeClean(t, ctx, src, "/tasks without a user")
	run(t, ctx, "set the identity",
		chromedp.SetValue(css(`[data-testid="identity-user"]`), "ann"),
		chromedp.SetValue(css(`[data-testid="identity-groups"]`), "clerks"),
		chromedp.Click(css(`[data-testid="identity-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="task-open"]`)),
	)
	for _, pg := range []struct{ path, ready, diagram string }{
		{"/", `[data-testid="process-status"]`, ""},
		{"/processes", `[data-testid="processes"]`, ""},
		{"/processes/review", `[data-testid="elements"]`, diagramDrawn},
		{"/processes/review?overlay=count&element=check", `[data-testid="element-detail"]`, diagramDrawn + ` && document.querySelector('[data-testid="overlay-heat"]')`},
		{"/processes/migr/compare?a=1&b=2", `[data-testid="compare-form"]`, ""},
		{"/instances", `[data-testid="instances"]`, ""},
		{"/instances/" + string(review.ID), `[data-testid="history"]`, diagramDrawn},
		{"/instances/" + string(root.ID), `[data-testid="call-trace"]`, diagramDrawn},
		{"/tasks", `[data-testid="task"]`, ""},
		{"/tasks?task=" + pack.ID, `[data-testid="task-form"]`, formReady},
		{"/incidents", `[data-testid="incident"]`, ""},
		{"/processes/migr/migrate?from=1&to=2&map%3Amsg=msg2", `[data-testid="migrate-instance-link"]`, ""},
		{"/migrations/" + batch.ID, `[data-testid="migration-item-link"]`, ""},
		{"/nowhere", `[data-testid="error-message"]`, ""},
	} {
		run(t, ctx, "open "+pg.path, chromedp.Navigate(b.srv.URL+pg.path), chromedp.WaitVisible(css(pg.ready)))
		if pg.diagram != "" {
			waitFor(t, ctx, "drawn", pg.diagram, 10*time.Second)
		}
		axeClean(t, ctx, src, pg.path)
	}
}
