package cockpit_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/gobpm/gobpm/internal/runtime"
)

// claimAndComplete claims the instance's only task as who and completes it
// with vars.
func claimAndComplete(t *testing.T, b *bundle, id runtime.InstanceID, who runtime.Actor, vars map[string]any) {
	t.Helper()
	task := onlyTask(t, b, id)
	if _, err := b.rt.ClaimTask(context.Background(), task.ID, who); err != nil {
		t.Fatal(err)
	}
	if err := b.rt.CompleteTask(context.Background(), task.ID, who, vars); err != nil {
		t.Fatal(err)
	}
}

// The instance page reads as sentences with the model's names, the raw
// facts folded beneath, and hands the path taken to the diagram.
func TestInstancePageTellsTheHistory(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	inst := b.start("review", "claim-3", nil)
	path := "/instances/" + string(inst.ID)
	pat := runtime.Actor{User: "pat", Groups: []string{"clerks"}}
	claimAndComplete(t, b, inst.ID, pat, map[string]any{"approved": true, "note": "ok"})

	p := b.mustGet(path)
	var sentences []string
	p.testid("fact-sentence").Each(func(_ int, s *goquery.Selection) {
		sentences = append(sentences, strings.Join(strings.Fields(s.Text()), " "))
	})
	want := "pat completed Check the claim with 2 variables (approved, note)"
	found := -1
	for i, s := range sentences {
		if s == want {
			found = i
		}
	}
	if found < 0 {
		t.Fatalf("no %q among\n%s", want, strings.Join(sentences, "\n"))
	}
	done := p.testid("fact").Eq(found)
	if lines := done.Find(`[data-testid="fact-raw"] code`); lines.Length() != 3 || !strings.Contains(lines.Eq(0).Text(), `variable-set check {"name":"approved"}`) {
		t.Errorf("the raw facts are folded under the sentence: %q", lines.Text())
	}
	if el := done.Find(`[data-testid="element-name"]`); el.AttrOr("title", "") != "check" || el.Text() != "Check the claim" {
		t.Errorf("the element is named, its id on hover: %q %q", el.Text(), el.AttrOr("title", ""))
	}
	if w := p.doc.Find(`[data-testid="wait"][data-node="archive"] [data-testid="element-name"]`); w.Text() != "Archive the claim" {
		t.Errorf("the wait names its element: %q", w.Text())
	}
	if el := p.doc.Find(`[data-testid="element"][data-node="archive"] [data-testid="element-name"]`); el.Text() != "Archive the claim" {
		t.Errorf("the element table names its element: %q", el.Text())
	}

	var state struct {
		Path struct{ Completed, Reached []string } `json:"path"`
	}
	if err := json.Unmarshal([]byte(p.doc.Find("#diagram-state").AttrOr("data-state", "")), &state); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(state.Path.Completed, " "); got != "check received" {
		t.Errorf("completed on the path: %q", got)
	}
	if got := strings.Join(state.Path.Reached, " "); got != "archive check received" {
		t.Errorf("reached on the path: %q", got)
	}

	// Ended: the root scope it keeps is shown as ended.
	claimAndComplete(t, b, inst.ID, pat, nil)
	p = b.mustGet(path)
	if got := p.doc.Find(`[data-testid="scope"][data-scope="root"] > .scope-head [data-testid="scope-state"]`).Text(); got != "ended" {
		t.Errorf("the completed instance's root scope is %q", got)
	}
	if p.testid("call-trace-panel").Length() != 0 {
		t.Errorf("nothing to trace, no call-trace card")
	}
}

// A multi-instance body counts its active iterations, not its own host
// token besides them.
func TestMultiInstanceTokenCount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("approvals.bpmn")
	inst := b.start("approvals", "", map[string]any{"approvers": []any{"ann", "bob", "cy"}})
	if got := b.mustGet("/instances/" + string(inst.ID)).elementActive("approve"); got != "3" {
		t.Errorf("three iterations: %q", got)
	}
	ts, _, err := b.rt.Tasks(context.Background(), runtime.TaskFilter{InstanceID: inst.ID})
	if err != nil || len(ts) != 3 {
		t.Fatalf("tasks %v %v", ts, err)
	}
	if err := b.rt.CompleteTask(context.Background(), ts[0].ID, runtime.Actor{User: "ann"}, nil); err != nil {
		t.Fatal(err)
	}
	p := b.mustGet("/instances/" + string(inst.ID))
	if got := p.elementActive("approve"); got != "2" {
		t.Errorf("two active, one completed iteration: %q tokens", got)
	}
	if got := b.mustGet("/processes/approvals").elementActive("approve"); got != "2" {
		t.Errorf("the process page counts the same: %q", got)
	}
}

// A business rule task's evaluation reads as a sentence with the rules it
// matched.
func TestInstancePageMatchedRules(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.upload(map[string][]byte{"rules.bpmn": runtimeFixture(t, "dmn", "rules.bpmn"), "discount.dmn": runtimeFixture(t, "dmn", "discount.dmn")})
	inst := b.start("rules", "", map[string]any{"customer": "vip", "amount": jsonNumber("1500")})
	p := b.mustGet("/instances/" + string(inst.ID))
	got := strings.Join(strings.Fields(p.doc.Find(`[data-testid="fact"][data-kind="decision-evaluated"] [data-testid="fact-sentence"]`).Text()), " ")
	if !strings.HasPrefix(got, "Evaluated decision discount version 1 at") || !strings.HasSuffix(got, "— matched rules: vipLarge") {
		t.Errorf("decision sentence %q", got)
	}
}
