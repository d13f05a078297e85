package cockpit_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserHistoryNumbersShowWhole checks that each fact's number is
// drawn whole inside the scrolled history, also past 9 (the list's own
// markers sat left of the box and lost their first digit).
func TestBrowserHistoryNumbersShowWhole(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("parcel.bpmn")
	inst := b.start("parcel", "bk-1", nil)
	for i := 0; i < 8; i++ {
		if _, err := b.rt.SetVariables(context.Background(), inst.ID, "", map[string]any{fmt.Sprintf("v%d", i): i}, false); err != nil {
			t.Fatal(err)
		}
	}
	run(t, ctx, "open the instance",
		chromedp.Navigate(b.srv.URL+"/instances/"+string(inst.ID)),
		chromedp.WaitVisible(css(`[data-testid="history"]`)),
	)
	truthy(t, ctx, "the number of fact 12 lies inside the history box", `(() => {
		const ol = document.querySelector('[data-testid="history"]').getBoundingClientRect();
		const n = document.querySelector('[data-testid="fact"][data-seq="12"] [data-testid="fact-seq"]');
		if (!n || n.textContent.trim() !== '12') return false;
		const r = n.getBoundingClientRect();
		return r.width > 0 && r.left >= ol.left && r.right <= ol.right;
	})()`)
}
