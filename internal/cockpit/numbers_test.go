package cockpit_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestInstanceLabels checks that the cockpit names instances
// "<process> #<number>" wherever it points at one: the call trace of a
// grandchild (its ancestors too), the children, the parent column and the
// incidents, each with the full id in its title.
var label = regexp.MustCompile(`^\S+ #\d+`)

func TestInstanceLabels(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root, lone := stuckTree(t, b)
	leaf := leafOf(t, b, root)

	p := b.mustGet("/instances/" + string(leaf))
	var trace []string
	p.testid("trace-item").Each(func(_ int, s *goquery.Selection) {
		trace = append(trace, label.FindString(strings.TrimSpace(s.Text())))
	})
	if want := []string{"grandparent #1", "caller #1", "picky #1"}; strings.Join(trace, " › ") != strings.Join(want, " › ") {
		t.Errorf("call trace %v, want %v", trace, want)
	}
	if p.testid("trace-item").First().AttrOr("title", "") != string(root.ID) {
		t.Errorf("the root's breadcrumb lacks its id in the title")
	}
	if got := p.text("instance-id"); got != "picky #1" {
		t.Errorf("heading %q", got)
	}
	if !strings.Contains(p.doc.Find("title").Text(), "picky #1") {
		t.Errorf("page title %q", p.doc.Find("title").Text())
	}

	mid := b.mustGet("/instances/" + string(root.ID))
	if got := mid.text("child-link"); got != "caller #1" {
		t.Errorf("child link %q", got)
	}

	list := b.mustGet("/instances?process=picky")
	if got := list.text("parent-link"); got != "caller #1" {
		t.Errorf("parent column %q", got)
	}
	incidents := b.mustGet("/incidents")
	var seen []string
	incidents.testid("incident-instance").Each(func(_ int, s *goquery.Selection) { seen = append(seen, strings.TrimSpace(s.Text())) })
	if strings.Join(seen, ",") != "picky #2,picky #1" && strings.Join(seen, ",") != "picky #1,picky #2" {
		t.Errorf("incident instances %v (lone %s is picky #%d)", seen, lone.ID, lone.Number)
	}
	if got := incidents.text("incident-root"); got != "grandparent #1" {
		t.Errorf("incident root %q", got)
	}

	// The number filter: "#2" alone, with the key, and nonsense.
	if got := b.mustGet("/instances?number=picky+%232").testid("instance-row"); got.Length() != 1 || got.AttrOr("data-id", "") != string(lone.ID) {
		t.Errorf("picky #2 lists %d rows", got.Length())
	}
	if got := b.mustGet("/instances?number=%231").testid("instance-row"); got.Length() != 3 {
		t.Errorf("#1 lists %d rows, want one per process key (3)", got.Length())
	}
	if p := b.get("/instances?number=%23x"); p.status != http.StatusBadRequest {
		t.Errorf("#x answered %d", p.status)
	}
}
