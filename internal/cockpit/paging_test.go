package cockpit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/gobpm/gobpm/internal/cockpit"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// scopeIDs lists the data-scope of every scope a page shows.
func (p *page) scopeIDs() []string {
	var ids []string
	p.testid("scope").Each(func(_ int, s *goquery.Selection) {
		ids = append(ids, s.AttrOr("data-scope", ""))
	})
	return ids
}

// elementActive is the token count the element table shows for a node.
func (p *page) elementActive(node string) string {
	return strings.TrimSpace(p.doc.Find(`[data-testid="element"][data-node="` + node + `"] [data-testid="element-active"]`).Text())
}

// livePoll asks for a page's live fragment as htmx's 2-second refresh does.
func (b *bundle) livePoll(path string) *page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.srv.URL+path, nil)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Target", "live")
	p := b.do(req)
	if p.status != http.StatusOK {
		b.t.Fatalf("poll %s: %d\n%s", path, p.status, p.body)
	}
	return p
}

// An instance with more scopes and tokens than a page shows the first page
// of each with how many there are, pages on by cursor links, and refreshes
// only the page shown.
func TestInstancePageByPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("many.bpmn", "review.bpmn")
	inst := b.start("many", "", nil)
	path := "/instances/" + string(inst.ID)

	first := b.mustGet(path)
	if got := first.text("scopes-shown"); got != "Showing 100 of 252 scopes" {
		t.Errorf("scopes note %q", got)
	}
	if got := first.text("tracks-shown"); got != "Showing 100 of 251 tokens" {
		t.Errorf("tokens note %q", got)
	}
	ids := first.scopeIDs()
	if len(ids) != 100 || ids[0] != "root" {
		t.Fatalf("the first page shows the first 100 scopes from the root: %d %v", len(ids), ids[:min(len(ids), 3)])
	}
	if first.testid("scopes-first").Length() != 0 {
		t.Errorf("the first page links no first page")
	}
	// The shown 100 tokens are the body's host and 99 iterations; the host
	// is not counted, the iterations are.
	if first.testid("elements-partial").Length() != 1 || first.elementActive("work") != "99" {
		t.Errorf("the element counts are over the shown 100 tokens and say so: %q", first.elementActive("work"))
	}
	if state := first.doc.Find("#diagram-state").AttrOr("data-state", ""); !strings.Contains(state, `"partial":true`) {
		t.Errorf("the diagram overlays are marked as lower bounds: %s", state)
	}
	next := first.testid("scopes-next").AttrOr("href", "")
	if want := path + "?scopes=" + ids[99]; next != want {
		t.Fatalf("next scopes link %q, want %q", next, want)
	}

	// Page on through the scopes: each once, in order, 100 + 100 + 52.
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	second := b.mustGet(next)
	ids2 := second.scopeIDs()
	if len(ids2) != 100 || seen[ids2[0]] {
		t.Fatalf("the second page shows the next 100 scopes: %d, starting %v", len(ids2), ids2[:min(len(ids2), 1)])
	}
	if got := second.text("scopes-shown"); got != "Showing 100 of 252 scopes after "+ids[99] {
		t.Errorf("second page note %q", got)
	}
	if href := second.testid("scopes-first").AttrOr("href", ""); href != path {
		t.Errorf("first page link %q", href)
	}
	if second.testid("scope-label").First().Text() == "" || !strings.Contains(second.testid("scope-tree").Text(), "of 250") {
		t.Errorf("iterations whose body is on another page are still named:\n%s", second.testid("scope-tree").Text())
	}
	if !strings.Contains(second.testid("variables-scope").Text(), "/") || second.testid("variables-scope").Find(`option[value="root"]`).Length() != 1 {
		t.Errorf("the root stays a target of the variables form on a later page")
	}
	// The live refresh of a later page re-reads that page, not every page.
	poll := b.livePoll(next)
	if got := poll.scopeIDs(); len(got) != 100 || got[0] != ids2[0] {
		t.Errorf("the refresh of the second page shows that page: %d from %v", len(got), got[:min(len(got), 1)])
	}
	if live := second.testid("live").AttrOr("hx-get", ""); live != next {
		t.Errorf("the live region polls the shown page: %q", live)
	}
	for _, id := range ids2 {
		seen[id] = true
	}
	third := b.mustGet(second.testid("scopes-next").AttrOr("href", ""))
	ids3 := third.scopeIDs()
	if len(ids3) != 52 || third.testid("scopes-next").Length() != 0 {
		t.Errorf("the last page shows the last 52 scopes and no next link: %d", len(ids3))
	}
	for _, id := range ids3 {
		seen[id] = true
	}
	if len(seen) != 252 {
		t.Errorf("the pages show %d distinct scopes, want all 252", len(seen))
	}

	// Tokens page on the same way; the scopes' page is kept.
	tnext := second.testid("tracks-next").AttrOr("href", "")
	u, err := url.Parse(tnext)
	if err != nil || u.Query().Get("scopes") != ids[99] || u.Query().Get("tracks") == "" {
		t.Fatalf("next tokens link %q keeps the scopes page", tnext)
	}
	tp := b.mustGet(tnext)
	if tp.elementActive("work") != "100" || !strings.HasPrefix(tp.text("tracks-shown"), "Showing 100 of 251 tokens after ") {
		t.Errorf("second token page: %q %q", tp.elementActive("work"), tp.text("tracks-shown"))
	}
	last := b.mustGet(tp.testid("tracks-next").AttrOr("href", ""))
	if last.elementActive("work") != "51" || last.testid("tracks-next").Length() != 0 {
		t.Errorf("last token page: %q", last.elementActive("work"))
	}

	if first.testid("wait").Length() != 100 || first.text("waits-shown") != "Showing the first 100 of 250 waits." {
		t.Errorf("the waits are cut to a page too: %d %q", first.testid("wait").Length(), first.text("waits-shown"))
	}

	if bad := b.get(path + "?scopes=bogus"); bad.status != http.StatusBadRequest || !strings.Contains(bad.text("error-message"), "not a scope cursor") {
		t.Errorf("a malformed cursor is refused in words: %d %q", bad.status, bad.text("error-message"))
	}

	// A small instance shows everything and no pager.
	small := b.mustGet("/instances/" + string(b.start("review", "", nil).ID))
	if small.testid("scopes-pager").Length() != 0 || small.testid("tracks-pager").Length() != 0 || small.testid("elements-partial").Length() != 0 {
		t.Errorf("a small instance needs no paging:\n%s", small.testid("live").Text())
	}
}

// cappedService answers every list of instances with a full page and a
// total whose count stopped (maxListTotal+1, "more than maxListTotal").
type cappedService struct {
	cockpit.Service
}

func (cappedService) ListInstances(_ context.Context, f runtime.InstanceFilter) ([]runtime.InstanceRow, int, error) {
	if f.ParentID != "" {
		return nil, 0, nil
	}
	rows := make([]runtime.InstanceRow, f.Limit)
	for i := range rows {
		rows[i] = runtime.InstanceRow{ID: runtime.InstanceID(fmt.Sprintf("i-%d", f.Offset+i)), ProcessKey: "review", ProcessVersion: 1, Status: runtime.StatusRunning}
	}
	return rows, runtime.MaxListTotal + 1, nil
}

// setupService is setup with the cockpit reading through wrap(runtime).
func setupService(t *testing.T, wrap func(cockpit.Service) cockpit.Service) *bundle {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	srv := httptest.NewServer(cockpit.New(wrap(rt), nil, cockpit.Options{}))
	jar, _ := cookiejar.New(nil)
	t.Cleanup(func() {
		srv.Close()
		_ = rt.Close()
		_ = db.Close()
	})
	return &bundle{t: t, db: db, rt: rt, srv: srv, client: &http.Client{Jar: jar}}
}

// Totals the list stopped counting read "10,000+", and the instance list
// still pages on past them while pages come back full.
func TestCappedTotals(t *testing.T) {
	t.Parallel()
	b := setupService(t, func(s cockpit.Service) cockpit.Service { return cappedService{s} })
	b.deploy("review.bpmn")

	dash := b.mustGet("/")
	row := dash.doc.Find(`[data-testid="process-status-row"][data-key="review"]`)
	for _, id := range []string{"count-running", "count-failed", "count-completed", "count-terminated"} {
		if got := strings.TrimSpace(row.Find(`[data-testid="` + id + `"]`).Text()); got != "10,000+" {
			t.Errorf("dashboard %s = %q, want 10,000+", id, got)
		}
	}

	if got := b.mustGet("/processes/review").text("running-count"); !strings.HasPrefix(got, "20,000+ running or failed instances") {
		t.Errorf("process page %q", got)
	}

	list := b.mustGet("/instances")
	if got := list.text("instances-total"); got != "10,000+ instances" {
		t.Errorf("list total %q", got)
	}
	if got := list.text("pager-page"); got != "page 1" {
		t.Errorf("a capped list names no last page: %q", got)
	}
	// Past the counted 200 pages, a full page still leads on.
	far := b.mustGet("/instances?page=250")
	if href := far.testid("pager-next").AttrOr("href", ""); href != "/instances?page=251" {
		t.Errorf("next past the counted total %q", href)
	}
	if far.testid("instance-row").First().AttrOr("data-id", "") != "i-12450" {
		t.Errorf("page 250 starts at offset 12450: %q", far.testid("instance-row").First().AttrOr("data-id", ""))
	}
}
