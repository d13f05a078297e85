package cockpit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/gobpm/gobpm/internal/runtime"
)

// completeOnly completes the one open user task of node in the instance.
func completeOnly(t *testing.T, b *bundle, id runtime.InstanceID, node string, vars map[string]any) {
	t.Helper()
	ts, _, err := b.rt.Tasks(context.Background(), runtime.TaskFilter{InstanceID: id})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range ts {
		if task.NodeID == node {
			if err := b.rt.CompleteTask(context.Background(), task.ID, runtime.Actor{User: "ann"}, vars); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no open task at %s among %+v", node, ts)
}

// scopeLabels lists the labels of the scope tree, in order.
func scopeLabels(p *page) []string {
	var out []string
	p.testid("scope-label").Each(func(_ int, s *goquery.Selection) { out = append(out, s.Text()) })
	return out
}

// factDetail returns the detail shown for the first fact of kind.
func factDetail(p *page, kind string) string {
	return strings.TrimSpace(p.doc.Find(`[data-testid="fact"][data-kind="` + kind + `"] .detail`).First().Text())
}

func TestTransactionAndCompensationInTheCockpit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("transaction.bpmn")
	inst := b.start("booking", "", nil)

	p := b.mustGet("/instances/" + string(inst.ID))
	if got := scopeLabels(p); len(got) != 1 || got[0] != "tx · transaction" {
		t.Fatalf("scope labels %q, want the transaction's", got)
	}

	// Not confirmed: the cancel end event compensates the booking, whose
	// handler is a user task; meanwhile the tree shows the run and the handler.
	completeOnly(t, b, inst.ID, "confirm", map[string]any{"confirmed": false})
	p = b.mustGet("/instances/" + string(inst.ID))
	want := []string{"tx · transaction", "cancelled · compensation", "undoHotel · compensation handler"}
	if got := scopeLabels(p); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("scope labels %q\nwant         %q", got, want)
	}
	if got := factDetail(p, "compensation-thrown"); got != "undoes bookHotel, the latest first; the transaction is cancelled" {
		t.Errorf("compensation-thrown reads %q", got)
	}
	if got := factDetail(p, "compensation-started"); got != "undone by undoHotel; thrown by cancelled" {
		t.Errorf("compensation-started reads %q", got)
	}

	completeOnly(t, b, inst.ID, "undoHotel", nil)
	p = b.mustGet("/instances/" + string(inst.ID))
	if got := factDetail(p, "compensation-completed"); got != "done; thrown by cancelled" {
		t.Errorf("compensation-completed reads %q", got)
	}
	if got := scopeLabels(p); len(got) != 0 {
		t.Errorf("scopes left after the transaction: %q", got)
	}
	if p.doc.Find(`[data-testid="fact"][data-kind="element-activated"] [data-node-id="afterCancel"]`).Length() != 1 {
		t.Error("the history does not show the cancel boundary's path")
	}
}
