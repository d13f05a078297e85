package cockpit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/gobpm/gobpm/internal/runtime"
)

// deployExample deploys a model of the repository's examples folder.
func (b *bundle) deployExample(name string) {
	b.t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.rt.Deploy(context.Background(), []runtime.File{{Name: name, Content: data}}); err != nil {
		b.t.Fatalf("deploy %s: %v", name, err)
	}
}

// activateURL is where the Activate buttons of a region post.
func activateURL(id runtime.InstanceID, scope string) string {
	return "/instances/" + string(id) + "/adhoc/" + scope + "/activate"
}

func candidateIDs(p *page) []string {
	var out []string
	p.testid("candidate").Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("data-activity", "")) })
	return out
}

func TestAdHocRegionOnInstancePage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deployExample("investigation.bpmn")
	inst := b.start("investigation", "case-1", nil)
	path := "/instances/" + string(inst.ID)

	p := b.mustGet(path)
	region := p.testid("region")
	if region.Length() != 1 || region.AttrOr("data-node", "") != "investigate" {
		t.Fatalf("one region, investigate:\n%s", p.body)
	}
	scope := region.AttrOr("data-scope", "")
	if p.text("region-path") != "/investigate" || p.text("region-name") != "Investigate" ||
		p.text("region-selection") != "manual" || p.text("region-ordering") != "parallel" {
		t.Errorf("region head: %q %q %q %q", p.text("region-path"), p.text("region-name"), p.text("region-selection"), p.text("region-ordering"))
	}
	if got := strings.Join(candidateIDs(p), " "); got != "callCustomer checkTransactions askBank" {
		t.Errorf("candidates %q", got)
	}
	first := p.testid("candidate").First()
	if first.Find(`[data-testid="candidate-name"]`).Text() != "Call the customer" || first.Find(`[data-testid="activate"]`).Length() != 1 ||
		first.AttrOr("method", "") != "post" || first.AttrOr("action", "") != activateURL(inst.ID, scope) ||
		first.Find(`input[name="csrf"]`).AttrOr("value", "") == "" {
		t.Errorf("a candidate is a POST form with the CSRF token and an Activate button")
	}
	if p.text("region-running") != "0 running" || p.text("region-completed") != "0 completed" {
		t.Errorf("counts %q %q", p.text("region-running"), p.text("region-completed"))
	}
	if p.testid("adhoc-no-user").Length() != 1 {
		t.Errorf("without an identity the section asks for one")
	}
	if p.testid("adhoc-panel").Parents().Filter(`[data-testid="live"]`).Length() != 1 {
		t.Errorf("the section refreshes with the live region")
	}
	if got := p.doc.Find(`[data-testid="element"][data-node="investigate"] [data-testid="element-candidates"]`).Text(); got != "3 to activate" {
		t.Errorf("the region's element row counts its candidates: %q", got)
	}
	var state struct {
		Elements []struct {
			ID         string `json:"id"`
			Candidates int    `json:"candidates"`
		} `json:"elements"`
	}
	_ = json.Unmarshal([]byte(p.doc.Find("#diagram-state").AttrOr("data-state", "")), &state)
	offers := 0
	for _, e := range state.Elements {
		if e.ID == "investigate" {
			offers = e.Candidates
		}
	}
	if offers != 3 {
		t.Errorf("the diagram overlay data counts 3 candidates on investigate: %+v", state)
	}

	// No acting user: the runtime refuses (403) and the page says why.
	p = b.post(activateURL(inst.ID, scope), url.Values{"activity": {"callCustomer"}})
	if p.status != http.StatusForbidden || p.testid("flash").AttrOr("data-kind", "") != "error" ||
		!strings.Contains(p.text("flash"), "choose who you are acting as") {
		t.Fatalf("activation without a user: %d %q", p.status, p.text("flash"))
	}
	if p.testid("live").AttrOr("hx-get", "") != path || p.testid("identity-form").Find(`[name="return"]`).AttrOr("value", "") != path {
		t.Errorf("a refused activation's page keeps polling and returning to the instance: %q", p.testid("live").AttrOr("hx-get", ""))
	}
	if len(candidateIDs(p)) != 3 {
		t.Errorf("nothing changed")
	}

	// As ann: the activity starts, the page shows it running, the task is in the inbox.
	b.actAs("ann")
	p = b.post(activateURL(inst.ID, scope), url.Values{"activity": {"callCustomer"}})
	if p.status != http.StatusOK || p.url != path || p.text("flash") != "You started “Call the customer”." {
		t.Fatalf("activate: %d at %s %q", p.status, p.url, p.text("flash"))
	}
	if p.doc.Find(`[data-testid="running"][data-activity="callCustomer"]`).Text() != "Call the customer" || p.text("region-running") != "1 running" {
		t.Errorf("callCustomer runs:\n%s", p.testid("adhoc-panel").Text())
	}
	if got := strings.Join(candidateIDs(p), " "); got != "checkTransactions askBank" {
		t.Errorf("candidates after the activation %q", got)
	}
	if p.testid("adhoc-no-user").Length() != 0 {
		t.Errorf("an identity is set")
	}
	if p.doc.Find(`[data-testid="fact"][data-kind="adhoc-activity-activated"]`).Length() != 1 {
		t.Errorf("the history records the activation:\n%s", p.testid("history").Text())
	}
	inbox := b.mustGet("/tasks")
	if inbox.doc.Find(`[data-testid="task"][data-node="callCustomer"]`).Length() != 1 {
		t.Errorf("the activated task is in ann's inbox")
	}

	// Activating it again: 409, in plain words, and nothing changes.
	p = b.post(activateURL(inst.ID, scope), url.Values{"activity": {"callCustomer"}})
	if p.status != http.StatusConflict || !strings.HasPrefix(p.text("flash"), "“Call the customer” is no longer a candidate — ") {
		t.Fatalf("a second activation: %d %q", p.status, p.text("flash"))
	}
	if p.text("region-running") != "1 running" || len(candidateIDs(p)) != 2 {
		t.Errorf("a refused activation changes nothing")
	}
	p = b.post(activateURL(inst.ID, "s99"), url.Values{"activity": {"askBank"}})
	if p.status != http.StatusConflict || p.text("flash") != "“Ask the partner bank” was not started: its ad-hoc region has closed. Nothing changed." {
		t.Errorf("a closed region: %d %q", p.status, p.text("flash"))
	}
	if p = b.post(activateURL(inst.ID, scope), nil); p.status != http.StatusBadRequest {
		t.Errorf("no activity: %d %q", p.status, p.text("flash"))
	}
	if p = b.post(activateURL("nope", scope), url.Values{"activity": {"askBank"}}); p.status != http.StatusNotFound {
		t.Errorf("unknown instance: %d", p.status)
	}

	// Completing the task counts it as completed.
	task := onlyTask(t, b, inst.ID)
	if err := b.rt.CompleteTask(context.Background(), task.ID, runtime.Actor{User: "ann"}, nil); err != nil {
		t.Fatal(err)
	}
	p = b.mustGet(path)
	if p.text("region-completed") != "1 completed" || p.doc.Find(`[data-testid="completed"][data-activity="callCustomer"]`).Length() != 1 {
		t.Errorf("completed counts: %q", p.text("region-completed"))
	}

	// An instance of a model without regions shows no section.
	b.deploy("review.bpmn")
	if p := b.mustGet("/instances/" + string(b.start("review", "", nil).ID)); p.testid("adhoc-panel").Length() != 0 {
		t.Errorf("no ad-hoc section without regions")
	}
}

func TestNestedAndSequentialRegions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("casework.bpmn")
	inst := b.start("casework", "", nil)
	path := "/instances/" + string(inst.ID)
	b.actAs("ann")

	p := b.mustGet(path)
	outer := p.doc.Find(`[data-testid="region"][data-node="outer"]`)
	if got := strings.Join(candidateIDs(p), " "); got != "interview inner" {
		t.Fatalf("outer offers interview and the nested region: %q", got)
	}
	p = b.post(activateURL(inst.ID, outer.AttrOr("data-scope", "")), url.Values{"activity": {"inner"}})
	if p.text("flash") != "You started “Gather evidence”." {
		t.Fatalf("activate the nested region: %q", p.text("flash"))
	}
	regions := p.testid("region")
	if regions.Length() != 2 || regions.Eq(1).AttrOr("data-node", "") != "inner" {
		t.Fatalf("both regions are listed, outer first:\n%s", p.testid("adhoc-panel").Text())
	}
	inner := regions.Eq(1)
	if !strings.Contains(inner.Text(), "inside /outer") || inner.Find(`[data-testid="region-ordering"]`).Text() != "sequential" {
		t.Errorf("the nested region names its parent and ordering: %q", strings.Join(strings.Fields(inner.Text()), " "))
	}
	innerScope := inner.AttrOr("data-scope", "")
	p = b.post(activateURL(inst.ID, innerScope), url.Values{"activity": {"photos"}})
	if p.status != http.StatusOK {
		t.Fatalf("activate photos: %d %q", p.status, p.text("flash"))
	}
	p = b.post(activateURL(inst.ID, innerScope), url.Values{"activity": {"samples"}})
	if p.status != http.StatusConflict || !strings.Contains(p.text("flash"), "runs one activity at a time and photos is still running") {
		t.Errorf("a second activation in a sequential region: %d %q", p.status, p.text("flash"))
	}
}

func TestScopeTreeShowsIterations(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("approvals.bpmn")
	inst := b.start("approvals", "", map[string]any{"approvers": []any{"ann", "bob", "cy"}})
	p := b.mustGet("/instances/" + string(inst.ID))

	body := p.doc.Find(`[data-testid="scope"][data-kind="body"]`)
	if body.Length() != 1 || body.Find(`[data-testid="scope-label"]`).First().Text() != "Approve · multi-instance body" ||
		body.Find(`[data-testid="scope-counters"]`).First().Text() != "3 instances: 3 active, 0 completed, 0 terminated" {
		t.Fatalf("the body and its counters:\n%s", p.testid("scope-tree").Text())
	}
	second := body.Find(`[data-testid="scope"][data-kind="iteration"][data-index="2"]`)
	if second.Find(`[data-testid="scope-label"]`).Text() != "Approve · iteration 2 of 3" || second.Find(`[data-testid="scope-loop-counter"]`).Text() != "loopCounter 2" {
		t.Errorf("iteration 2: %q %q", second.Find(`[data-testid="scope-label"]`).Text(), second.Find(`[data-testid="scope-loop-counter"]`).Text())
	}
	if body.Find(`[data-testid="scope"][data-kind="iteration"]`).Length() != 3 {
		t.Errorf("three iterations under the body")
	}
	if !strings.Contains(p.testid("variables-scope").Text(), "Approve · iteration 3 of 3") {
		t.Errorf("the variables form names the iterations: %q", p.testid("variables-scope").Text())
	}

	// Finish the approvals; the standard loop shows its iteration without a total.
	ts, _, err := b.rt.Tasks(context.Background(), runtime.TaskFilter{InstanceID: inst.ID})
	if err != nil || len(ts) != 3 {
		t.Fatalf("three approval tasks: %v %d", err, len(ts))
	}
	for _, task := range ts {
		if err := b.rt.CompleteTask(context.Background(), task.ID, runtime.Actor{User: "ann"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	p = b.mustGet("/instances/" + string(inst.ID))
	loop := p.doc.Find(`[data-testid="scope"][data-kind="body"]`)
	if loop.Find(`[data-testid="scope-label"]`).First().Text() != "Remind · loop body" {
		t.Errorf("the loop body:\n%s", p.testid("scope-tree").Text())
	}
	if got := loop.Find(`[data-testid="scope"][data-kind="iteration"] [data-testid="scope-label"]`).Text(); got != "Remind · iteration 1" {
		t.Errorf("the loop's iteration %q", got)
	}
}

func TestDashboardCountsOpenRegions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if got := b.mustGet("/").text("card-adhoc"); got != "0 open ad-hoc regions" {
		t.Errorf("empty: %q", got)
	}
	b.deployExample("investigation.bpmn")
	b.deploy("casework.bpmn")
	b.start("investigation", "", nil)
	b.start("investigation", "", nil)
	b.start("casework", "", nil)
	p := b.mustGet("/")
	if got := p.text("card-adhoc"); got != "3 open ad-hoc regions" {
		t.Errorf("card %q", got)
	}
	if href := p.testid("card-adhoc").AttrOr("href", ""); href != "/instances?status=running" {
		t.Errorf("the card links the running instances: %q", href)
	}
	if p.testid("card-adhoc").Parents().Filter(`[data-testid="live"]`).Length() != 1 {
		t.Errorf("the count refreshes with the live region")
	}
}

// TestRouterJobRegionOnInstancePage: a region steered by a router job
// shows its router and that it waits for a decision, and the history names
// the router job and its worker as the decider of each activation.
func TestRouterJobRegionOnInstancePage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.deployExample("triage.bpmn")
	inst := b.start("incident-triage", "inc-1", map[string]any{"severity": "critical"})
	path := "/instances/" + string(inst.ID)

	p := b.mustGet(path)
	if p.text("region-router") != "job router" || p.testid("region-deciding").Length() != 1 {
		t.Fatalf("region head:\n%s", p.testid("adhoc-panel").Text())
	}
	jobs, err := b.rt.ActivateJobs(ctx, runtime.ActivateRequest{Type: "triage-router", Worker: "rules-7", MaxJobs: 1, LockDuration: time.Minute})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("router jobs %v %v", jobs, err)
	}
	answer := runtime.RouterAnswer{Activate: []runtime.Activation{{ActivityID: "collectLogs"}}}
	if err := b.rt.CompleteRouterJob(ctx, jobs[0].Key, runtime.JobHolder{Token: jobs[0].LockToken}, answer); err != nil {
		t.Fatal(err)
	}
	p = b.mustGet(path)
	if p.testid("region-deciding").Length() != 0 {
		t.Errorf("still deciding after the answer")
	}
	if got := p.text("fact-by"); got != "activated by router job triage-router (worker rules-7)" {
		t.Errorf("decider %q", got)
	}
}
