package cockpit_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// The decisions pages list the deployed decisions and evaluate one with a
// form built from its table's inputs, values typed, matched rules named.
func TestDecisionPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if p := b.mustGet("/decisions"); p.testid("no-decisions").Length() != 1 {
		t.Errorf("nothing deployed yet:\n%s", p.body)
	}
	b.deploy("discount.dmn")
	list := b.mustGet("/decisions")
	if list.doc.Find(`[data-testid="decision"][data-key="discount"] [data-testid="decision-version"]`).Length() != 1 {
		t.Fatalf("the decision is listed:\n%s", list.body)
	}
	if list.doc.Find(`[data-testid="nav"] a[href="/decisions"]`).Length() != 1 {
		t.Errorf("the navigation leads to the decisions")
	}
	p := b.mustGet("/decisions/discount")
	if p.testid("dmn").AttrOr("data-xml-url", "") != "/decisions/discount/versions/1/xml" || p.testid("dmn").AttrOr("data-decision", "") != "discount" {
		t.Errorf("the viewer's container:\n%s", p.body)
	}
	var fields []string
	p.testid("evaluate-input").Each(func(_ int, s *goquery.Selection) {
		fields = append(fields, s.AttrOr("data-name", "")+":"+s.AttrOr("type", "select"))
	})
	if strings.Join(fields, " ") != "customer:text amount:number" {
		t.Errorf("form fields %v", fields)
	}
	xml := b.get("/decisions/discount/versions/1/xml")
	if xml.status != http.StatusOK || !strings.Contains(xml.body, `id="vipLarge"`) {
		t.Errorf("the DMN document: %d", xml.status)
	}

	r := b.post("/decisions/discount/evaluate", url.Values{"input.customer": {"vip"}, "input.amount": {"1500"}})
	if r.status != http.StatusOK || strings.TrimSpace(r.text("evaluate-value")) != "0.15" ||
		r.text("evaluate-matched") != "Matched rules: vipLarge (marked in the table)." || r.testid("dmn").AttrOr("data-matched", "") != "vipLarge" {
		t.Errorf("evaluation: %d %q %q", r.status, r.text("evaluate-value"), r.text("evaluate-matched"))
	}
	if v := r.doc.Find(`[data-testid="evaluate-input"][data-name="amount"]`).AttrOr("value", ""); v != "1500" {
		t.Errorf("the form keeps what was typed: %q", v)
	}
	r = b.post("/decisions/discount/evaluate", url.Values{"input.customer": {"regular"}, "input.amount": {"9000"}})
	if r.status != http.StatusBadRequest || !strings.Contains(r.text("evaluate-error"), "UNIQUE") {
		t.Errorf("a failed evaluation says why: %d %q", r.status, r.text("evaluate-error"))
	}
	r = b.post("/decisions/discount/evaluate", url.Values{"input.amount": {"lots"}})
	if r.status != http.StatusBadRequest || r.text("evaluate-error") != "amount: not a number" {
		t.Errorf("a bad number: %d %q", r.status, r.text("evaluate-error"))
	}
	if nf := b.get("/decisions/nope"); nf.status != http.StatusNotFound {
		t.Errorf("unknown decision: %d", nf.status)
	}
}

// A decision that requires another asks for the inputs of both, less what
// the required one provides.
func TestDecisionRequirementsInputs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("tiers.dmn")
	var fields []string
	b.mustGet("/decisions/rate").testid("evaluate-input").Each(func(_ int, s *goquery.Selection) {
		fields = append(fields, s.AttrOr("data-name", ""))
	})
	if strings.Join(fields, " ") != "spent" {
		t.Errorf("form fields %v", fields)
	}
	r := b.post("/decisions/rate/evaluate", url.Values{"input.spent": {"1200"}})
	if strings.TrimSpace(r.text("evaluate-value")) != "0.1" || r.text("evaluate-matched") != "Matched rules: gold, goldRate (marked in the table)." {
		t.Errorf("evaluation: %d %q %q %q", r.status, r.text("evaluate-value"), r.text("evaluate-matched"), r.text("evaluate-error"))
	}
}
