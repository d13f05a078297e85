package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// rateDMN is a one-rule decision "rate" answering rate.
func rateDMN(rate string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="rates" name="Rates" namespace="urn:gobpm:test">
  <decision id="rate" name="Rate">
    <decisionTable id="dt" hitPolicy="FIRST">
      <input id="i1"><inputExpression id="ie1" typeRef="number"><text>amount</text></inputExpression></input>
      <output id="o1" name="rate" typeRef="number"/>
      <rule id="r1"><inputEntry id="e1"><text>-</text></inputEntry><outputEntry id="oe1"><text>` + rate + `</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`
}

// An evaluation names the version it evaluates: the body's version, the
// latest without one; an unknown version is 404 and a malformed one 400.
func TestIntegrationEvaluateDecisionVersion(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postMultipart("/api/v1/deployments", part{filename: "rates.dmn", content: rateDMN("1")}).wantStatus(t, http.StatusCreated)
	b.postMultipart("/api/v1/deployments", part{filename: "rates.dmn", content: rateDMN("2")}).wantStatus(t, http.StatusCreated)

	for _, tc := range []struct{ body, want string }{
		{`{"variables":{"amount":5}}`, `{"key":"rate","version":2,"result":2,"matchedRules":["r1"]}`},
		{`{"variables":{"amount":5},"version":1}`, `{"key":"rate","version":1,"result":1,"matchedRules":["r1"]}`},
		{`{"variables":{"amount":5},"version":2}`, `{"key":"rate","version":2,"result":2,"matchedRules":["r1"]}`},
	} {
		if got := string(b.postJSON("/api/v1/decisions/rate/evaluate", tc.body).wantStatus(t, http.StatusOK).Body); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.body, got, tc.want)
		}
	}
	if p := b.postJSON("/api/v1/decisions/rate/evaluate", `{"version":3}`).problem(t, http.StatusNotFound, "not-found"); !strings.Contains(p.Detail, "no version 3") {
		t.Errorf("version 3: %+v", p)
	}
	for _, body := range []string{`{"version":0}`, `{"version":"1"}`, `{"version":1.5}`} {
		if p := b.postJSON("/api/v1/decisions/rate/evaluate", body).problem(t, http.StatusBadRequest, "invalid-request"); p.Field != "version" {
			t.Errorf("%s: %+v", body, p)
		}
	}
}
