package cockpit_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// rateDMN is a one-rule decision "rate" answering rate.
func rateDMN(rate string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="rates" name="Rates" namespace="urn:gobpm:test">
  <decision id="rate" name="Rate">
    <decisionTable id="dt" hitPolicy="FIRST">
      <input id="i1"><inputExpression id="ie1" typeRef="number"><text>amount</text></inputExpression></input>
      <output id="o1" name="rate" typeRef="number"/>
      <rule id="r1"><inputEntry id="e1"><text>-</text></inputEntry><outputEntry id="oe1"><text>` + rate + `</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`)
}

// The decision page evaluates the version it shows: an older version's
// form carries that version and its answer is that version's.
func TestDecisionPageEvaluatesTheVersionShown(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, rate := range []string{"1", "2"} {
		if _, err := b.rt.Deploy(context.Background(), []runtime.File{{Name: "rates.dmn", Content: rateDMN(rate)}}); err != nil {
			t.Fatal(err)
		}
	}
	p := b.mustGet("/decisions/rate?version=1")
	if v := p.testid("evaluate-form").Find(`input[name="version"]`).AttrOr("value", ""); v != "1" {
		t.Fatalf("the form of version 1 carries version %q", v)
	}
	if !strings.Contains(p.text("evaluate-version"), "version 1") {
		t.Errorf("the page says which version it evaluates: %q", p.text("evaluate-version"))
	}
	for _, tc := range []struct{ version, want, says string }{
		{"1", "1", "Version 1 answered"},
		{"2", "2", "Version 2 answered"},
		{"", "2", "Version 2 answered"},
	} {
		got := b.post("/decisions/rate/evaluate", url.Values{"version": {tc.version}, "input.amount": {"5"}})
		if got.text("evaluate-value") != tc.want || !strings.Contains(got.text("evaluate-result"), tc.says) {
			t.Errorf("version %q: %q %q, want %q", tc.version, got.text("evaluate-value"), got.text("evaluate-result"), tc.want)
		}
	}
	if got := b.post("/decisions/rate/evaluate", url.Values{"version": {"3"}}); got.status != 404 {
		t.Errorf("version 3: %d", got.status)
	}
}
