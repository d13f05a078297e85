package cockpit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserInstanceNumbers checks that the instance list names each
// instance "<process> #<number>" instead of its id, keeps the full id in
// the link's title and a copy button, and finds "#2" through the number
// filter; the instance's page is titled the same way.
func TestBrowserInstanceNumbers(t *testing.T) {
	ctx := browser(t)
	b := setup(t)
	b.deploy("review.bpmn")
	first := b.start("review", "claim-1", nil)
	second := b.start("review", "claim-2", nil)
	if first.Number != 1 || second.Number != 2 {
		t.Fatalf("numbers %d and %d, want 1 and 2", first.Number, second.Number)
	}

	run(t, ctx, "open the instance list",
		chromedp.Navigate(b.srv.URL+"/instances"),
		chromedp.WaitVisible(css(`[data-testid="instances"]`)),
	)
	for _, v := range []struct {
		id   string
		want string
	}{{string(first.ID), "review #1"}, {string(second.ID), "review #2"}} {
		row := fmt.Sprintf(`document.querySelector('[data-testid="instance-row"][data-id="%s"]')`, v.id)
		if got := eval[string](t, ctx, "link text", row+`.querySelector('[data-testid="instance-link"]').textContent.trim()`); got != v.want {
			t.Errorf("row of %s shows %q, want %q", v.id, got, v.want)
		}
		truthy(t, ctx, "full id on hover", row+`.querySelector('[data-testid="instance-link"]').title === '`+v.id+`'`)
		truthy(t, ctx, "copy button", fmt.Sprintf(`(() => { const b = %s.querySelector('button[data-testid="copy-id"]');
			return !!b && b.dataset.copy === '%s' && b.getAttribute('aria-label').includes('%s'); })()`, row, v.id, v.id))
		if got := eval[string](t, ctx, "row text", row+`.textContent`); containsID(got, v.id) {
			t.Errorf("the row shows the raw id: %q", got)
		}
	}
	// Clicking the copy button copies (or, where the clipboard is not
	// granted, still answers in its title).
	run(t, ctx, "copy", chromedp.Click(css(`[data-testid="instance-row"][data-id="`+string(first.ID)+`"] button[data-testid="copy-id"]`)))
	waitFor(t, ctx, "the copy answered", `document.querySelector('[data-testid="instance-row"][data-id="`+string(first.ID)+`"] button[data-testid="copy-id"]').dataset.copied === 'true'`, step)

	run(t, ctx, "search #2",
		chromedp.SetValue(css(`[data-testid="filter-number"]`), "review #2"),
		chromedp.Submit(css(`[data-testid="filters"]`)),
		chromedp.WaitVisible(css(`[data-testid="instances"]`)),
	)
	if n := eval[int](t, ctx, "rows", `document.querySelectorAll('[data-testid="instance-row"]').length`); n != 1 {
		t.Fatalf("review #2 lists %d rows", n)
	}
	truthy(t, ctx, "the second", `document.querySelector('[data-testid="instance-row"]').dataset.id === '`+string(second.ID)+`'`)

	run(t, ctx, "open it",
		chromedp.Click(css(`[data-testid="instance-link"]`)),
		chromedp.WaitVisible(css(`[data-testid="instance-id"]`)),
	)
	if got := eval[string](t, ctx, "title", `document.querySelector('[data-testid="instance-id"]').textContent.trim()`); got != "review #2" {
		t.Errorf("instance page heading %q, want review #2", got)
	}
	truthy(t, ctx, "document title", `document.title.includes('review #2')`)
}

// containsID reports whether text shows id or its shortened form's head.
func containsID(text, id string) bool {
	return len(id) >= 8 && (strings.Contains(text, id) || strings.Contains(text, id[:8]+"…"))
}
