package cockpit_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gobpm/gobpm/internal/runtime"
)

// The progress page of a running batch shows the batch finishing in
// place (its progress is not pushed: the page polls while it runs), and
// stops refreshing once it finished. The batch is stored as a run that
// has not begun (as after a restart, before the runtime resumes it), and
// its outcome is recorded as the runtime's batch runner records it, so
// the page is open while it runs.
func TestBrowserMigrationFinishesInPlace(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("migrate_v1.bpmn")
	inst := b.start("migr", "", map[string]any{"orderId": "o-1"})
	b.deploy("migrate_v2.bpmn")
	bg := context.Background()
	rec := runtime.MigrationRecord{ID: "batch-1", ProcessKey: "migr", SourceVersion: 1, TargetVersion: 2,
		Mapping: map[string]string{"msg": "msg2"}, Status: runtime.MigrationRunning, CreatedBy: "ann", CreatedAt: time.Now().UTC()}
	if err := b.db.CreateMigration(bg, rec, []runtime.InstanceID{inst.ID}); err != nil {
		t.Fatal(err)
	}

	run(t, ctx, "open the running batch", chromedp.Navigate(b.srv.URL+"/migrations/"+rec.ID), chromedp.WaitVisible(css(`[data-testid="migration"]`)))
	truthy(t, ctx, "it runs", `document.querySelector('#live [data-testid="status"]').textContent === 'running' && document.querySelector('[data-testid="migration-pending"]').textContent === '1'`)
	waitFor(t, ctx, "the push stream is open", `document.querySelector('#live').dataset.push === 'on'`, 10*time.Second)

	if err := b.db.SetMigrationItem(bg, rec.ID, runtime.MigrationItem{InstanceID: inst.ID, Status: runtime.MigrationMigrated}); err != nil {
		t.Fatal(err)
	}
	if err := b.db.FinishMigration(bg, rec.ID, time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the page refreshed after the batch finished",
		`Array.from(document.querySelectorAll('#live [data-testid="status"]')).some(s => s.textContent === 'completed') || !document.querySelector('#live [data-testid="migration"]')`, 10*time.Second)
	truthy(t, ctx, "the finished batch is shown in place", `!!document.querySelector('#live [data-testid="migration"]') &&
		document.querySelector('#live [data-testid="status"]').textContent === 'completed' &&
		document.querySelector('[data-testid="migration-migrated"]').textContent === '1' &&
		document.querySelector('[data-testid="migration-pending"]').textContent === '0' &&
		!!document.querySelector('[data-testid="migration-item"][data-status="migrated"]')`)
	shoot(t, ctx, "migration-finished.png")

	truthy(t, ctx, "record the refreshes", recordTriggers)
	if got := quiet(t, ctx, "finished", pollWindow); len(got) != 0 {
		t.Errorf("the finished batch's page still refreshes: %v", got)
	}
}
