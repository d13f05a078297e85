package cockpit_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// The inbox pages its tasks with exact counts, however many there are:
// 120 claimable tasks show as 50, 50 and 20 with "1–50 of 120" and links
// between the pages; the dashboard counts all of them; the filters and the
// sort apply to every page, not to a sample.
func TestInboxPagesWithExactCounts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	for i := range 120 {
		b.start("review", fmt.Sprintf("claim-%03d", i), nil)
	}
	b.actAs("ann", "clerks")

	p := b.mustGet("/tasks")
	if got := p.testid("task").Length(); got != 50 {
		t.Fatalf("page 1 shows %d tasks, want 50", got)
	}
	if p.text("claimable-total") != "(120)" || p.text("inbox-shown") != "1–50 of 120" || p.testid("inbox-prev").Length() != 0 {
		t.Errorf("page 1 says %q %q", p.text("claimable-total"), p.text("inbox-shown"))
	}
	next := p.testid("inbox-next").AttrOr("href", "")
	var keys []string
	for page := 2; next != ""; page++ {
		p = b.mustGet(next)
		keys = append(keys, p.doc.Find(`[data-testid="task-business-key"]`).First().Text())
		next = p.testid("inbox-next").AttrOr("href", "")
		if page == 3 && (p.testid("task").Length() != 20 || p.text("inbox-shown") != "101–120 of 120" || next != "") {
			t.Errorf("page 3: %d tasks, %q, next %q", p.testid("task").Length(), p.text("inbox-shown"), next)
		}
		if page > 3 {
			t.Fatal("more than 3 pages")
		}
	}
	if strings.Join(keys, " ") != "claim-050 claim-100" {
		t.Errorf("the pages begin with %v, want the oldest first across pages", keys)
	}
	if got := b.mustGet("/").text("card-tasks"); !strings.Contains(got, "(120 for ann)") {
		t.Errorf("the dashboard counts %q, want all 120", got)
	}

	// Newest first, across pages: the first task of page 1 is the last started.
	p = b.mustGet("/tasks?sort=newest")
	if first := p.doc.Find(`[data-testid="task-business-key"]`).First().Text(); first != "claim-119" {
		t.Errorf("newest first begins with %q", first)
	}
	// A filter that keeps nothing says how many it leaves out.
	p = b.mustGet("/tasks?due=overdue")
	if p.testid("task").Length() != 0 || p.text("claimable-total") != "(0)" || !strings.Contains(p.text("tasks-hidden"), "120 more") {
		t.Errorf("overdue: %d tasks, %q, %q", p.testid("task").Length(), p.text("claimable-total"), p.text("tasks-hidden"))
	}
	// A task opened from page 3's link stays open on its own page.
	p = b.mustGet("/tasks?page=3")
	open := p.testid("task").First().Find("a").AttrOr("href", "")
	if u, err := url.Parse(open); err != nil || u.Query().Get("page") != "3" {
		t.Errorf("a task's link keeps its page: %q", open)
	}
	for _, bad := range []string{"0", "-1", "x", "100001"} {
		if p := b.get("/tasks?page=" + bad); p.status != 400 {
			t.Errorf("page %q: %d, want 400", bad, p.status)
		}
	}
}
