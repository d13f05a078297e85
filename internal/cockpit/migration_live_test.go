package cockpit_test

import (
	"net/http"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// A finished batch's live region answers with its progress (it once came
// back empty, blanking the page that watched the batch finish), marked
// final so the page stops refreshing it.
func TestMigrationLiveRegionAfterTheBatchFinished(t *testing.T) {
	t.Parallel()
	b := setup(t)
	path := "/migrations/" + finishedMigration(t, b)
	p := b.livePoll(path)
	if p.status != http.StatusOK || p.text("status") != runtime.MigrationCompleted || p.text("migration-migrated") != "1" {
		t.Fatalf("the live poll of the finished batch: %d %q", p.status, p.body)
	}
	if got := p.testid("migration").AttrOr("data-live", ""); got != templates.LiveFinal {
		t.Errorf("the finished batch's region says data-live=%q, want %q", got, templates.LiveFinal)
	}
	if b.mustGet(path).doc.Find(`#live [data-testid="migration"]`).Length() != 1 {
		t.Errorf("the finished batch's page has no live region holding its progress")
	}
}
