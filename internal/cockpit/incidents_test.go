package cockpit_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/gobpm/gobpm/internal/runtime"
)

// stuckTree starts grandparent → caller → picky, whose gateway has no
// matching flow without an amount: the grandchild gets an incident. A
// picky instance started on its own gets one too, as its own root.
func stuckTree(t *testing.T, b *bundle) (root, lone runtime.InstanceView) {
	t.Helper()
	b.deploy("grandparent.bpmn", "caller.bpmn", "picky.bpmn")
	root = b.start("grandparent", "tree-1", nil)
	lone = b.start("picky", "lone-1", nil)
	return root, lone
}

// leafOf returns the picky instance below root.
func leafOf(t *testing.T, b *bundle, root runtime.InstanceView) runtime.InstanceID {
	t.Helper()
	mid := b.instance(root.ID).Children
	if len(mid) != 1 {
		t.Fatalf("grandparent children = %+v", mid)
	}
	leaf := b.instance(mid[0].InstanceID).Children
	if len(leaf) != 1 {
		t.Fatalf("caller children = %+v", leaf)
	}
	return leaf[0].InstanceID
}

func TestIncidentsRollUp(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root, lone := stuckTree(t, b)
	leaf := leafOf(t, b, root)

	// The dashboard counts, per process, the instances with an open
	// incident in themselves or below them — the grandparent, the caller
	// and both picky instances — and leads to those incidents.
	d := b.mustGet("/")
	stuck := func(key string) string {
		return strings.TrimSpace(d.doc.Find(`[data-testid="process-status-row"][data-key="` + key + `"] [data-testid="count-stuck"]`).Text())
	}
	if stuck("grandparent") != "⚠ 1" || stuck("picky") != "⚠ 2" || stuck("caller") != "⚠ 1" {
		t.Errorf("stuck: grandparent %q, picky %q, caller %q", stuck("grandparent"), stuck("picky"), stuck("caller"))
	}
	link := d.doc.Find(`[data-testid="process-status-row"][data-key="grandparent"] [data-testid="count-stuck"]`).AttrOr("href", "")
	if link != "/incidents?under=grandparent" {
		t.Fatalf("stuck link %q", link)
	}

	// Second click: the grandchild's incident with the root of its tree.
	p := b.mustGet(link)
	in := p.testid("incident")
	if in.Length() != 1 || in.AttrOr("data-instance", "") != string(leaf) ||
		p.testid("incident-root").AttrOr("href", "") != "/instances/"+string(root.ID) {
		t.Fatalf("incidents of the grandparent's tree:\n%s", p.body)
	}
	if el := in.Find(`[data-testid="element-name"]`); el.Text() != "Big or small?" || el.AttrOr("title", "") != "route" {
		t.Errorf("the incident names its element: %q %q", el.Text(), el.AttrOr("title", ""))
	}
	if got := p.text("incidents-total"); got != "1 of 2 open incidents" {
		t.Errorf("total %q", got)
	}

	// The list flags the root and the caller, not the lone instance.
	list := b.mustGet("/instances")
	row := func(id runtime.InstanceID) string {
		r := list.doc.Find(`[data-testid="instance-row"][data-id="` + string(id) + `"]`)
		return r.Find(`[data-testid="status"]`).Text() + "|" + r.Find(`[data-testid="incident-in-tree"]`).Text()
	}
	if got := row(root.ID); got != "running|⚠ incident below" {
		t.Errorf("root row %q", got)
	}
	if got := row(lone.ID); strings.Contains(got, "below") {
		t.Errorf("lone row %q", got)
	}
	leafPage := b.mustGet("/instances/" + string(leaf))
	if got := leafPage.doc.Find(`[data-testid="trace-item"] [data-testid="element-name"]`).First(); got.Text() != "Place the order" || got.AttrOr("title", "") != "callPicky" {
		t.Errorf("the trace names the call activities: %q %q", got.Text(), got.AttrOr("title", ""))
	}
	if got := b.mustGet("/instances/" + string(root.ID)).testid("summary").Find(`[data-testid="incident-in-tree"]`).Length(); got != 1 {
		t.Errorf("the root's page flags the incident below it")
	}

	// Filters.
	for _, tt := range []struct {
		query string
		want  int
	}{
		{"process=picky", 2},
		{"root=picky", 1},
		{"under=caller", 1},
		{"under=picky", 2},
		{"element=ROUT", 2},
		{"element=nowhere", 0},
		{"kind=nope", 0},
		{"age=1h", 0},
		{"age=1d&process=picky", 0},
	} {
		p := b.mustGet("/incidents?" + tt.query)
		if n := p.testid("incident").Length(); n != tt.want {
			t.Errorf("%s: %d incidents, want %d", tt.query, n, tt.want)
		}
		if tt.want == 0 && !strings.Contains(p.text("no-incidents"), "matches these filters") {
			t.Errorf("%s: the empty result says the filters hide them: %q", tt.query, p.text("no-incidents"))
		}
	}
	if bad := b.get("/incidents?age=forever"); bad.status != 400 {
		t.Errorf("a bad age filter: %d", bad.status)
	}
}

func TestBulkRetry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	root, lone := stuckTree(t, b)
	leaf := leafOf(t, b, root)

	p := b.mustGet("/incidents")
	var ids []string
	p.testid("incident-pick").Each(func(_ int, s *goquery.Selection) { ids = append(ids, s.AttrOr("value", "")) })
	if len(ids) != 2 || p.testid("bulk-retry").Length() != 1 {
		t.Fatalf("two incidents to pick:\n%s", p.body)
	}
	if r := b.post("/incidents/retry", url.Values{"return": {"/incidents"}}); !strings.Contains(r.text("flash"), "Select the incidents") {
		t.Errorf("nothing selected: %q", r.text("flash"))
	}

	// Fix both instances, then retry them with a third, unknown incident.
	for _, id := range []runtime.InstanceID{leaf, lone.ID} {
		if _, err := b.rt.SetVariables(context.Background(), id, "", map[string]any{"amount": jsonNumber("500")}, false); err != nil {
			t.Fatal(err)
		}
	}
	r := b.post("/incidents/retry", url.Values{"incident": append(ids, "nope-i1"), "retries": {"1"}, "return": {"/incidents?process=picky"}})
	if r.url != "/incidents?process=picky" || !strings.HasPrefix(r.text("flash"), "Retried 2 of 3 incidents. Not retried: nope-i1:") {
		t.Errorf("bulk retry: %s %q", r.url, r.text("flash"))
	}
	if r.testid("incident").Length() != 0 || r.text("no-incidents") != "No open incidents." {
		t.Errorf("incidents left:\n%s", r.body)
	}
	if got := b.mustGet("/instances").testid("incident-in-tree").Length(); got != 0 {
		t.Errorf("%d instances still flagged", got)
	}
}
