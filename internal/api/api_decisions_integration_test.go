package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readTestdata returns testdata/name.
func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// badDMN has a rule whose input entry is not a FEEL unary test.
const badDMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="bad" name="Bad" namespace="urn:gobpm:test">
  <decision id="broken" name="broken">
    <decisionTable id="dtBroken" hitPolicy="UNIQUE">
      <input id="i1"><inputExpression id="ie1" typeRef="number"><text>a</text></inputExpression></input>
      <output id="o1" name="out" typeRef="number"/>
      <rule id="badEntry"><inputEntry id="badTest"><text>&gt;&gt; 3 (</text></inputEntry><outputEntry id="o1e"><text>1</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`

func TestIntegrationDecisions(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	table := readTestdata(t, "discount.dmn")

	// A .dmn alone, then again (no new version).
	dep := b.postMultipart("/api/v1/deployments", part{filename: "discount.dmn", content: table}).wantStatus(t, http.StatusCreated).object(t)
	if got := mustJSON(t, dep["decisions"]); got != `[{"key":"discount","version":1}]` {
		t.Fatalf("decisions = %s", got)
	}
	if got := mustJSON(t, dep["processes"]); got != `[]` {
		t.Errorf("processes = %s, want []", got)
	}
	again := b.postMultipart("/api/v1/deployments", part{filename: "discount.dmn", content: table}).wantStatus(t, http.StatusCreated).object(t)
	if got := mustJSON(t, again["decisions"]); got != `[{"key":"discount","version":1}]` {
		t.Errorf("redeploy decisions = %s, want version 1 again", got)
	}

	// Listed, with versions and the verbatim document.
	items := b.get("/api/v1/decisions").wantStatus(t, http.StatusOK).items(t)
	if len(items) != 1 {
		t.Fatalf("decisions = %v", items)
	}
	if d := items[0].(map[string]any); d["key"] != "discount" || d["name"] != "Discount rate" || d["version"] != json.Number("1") || d["deployedAt"] != "2025-03-01T12:00:00Z" {
		t.Errorf("decision = %v", d)
	}
	versions := b.get("/api/v1/decisions/discount/versions").wantStatus(t, http.StatusOK).items(t)
	if len(versions) != 1 || versions[0].(map[string]any)["deploymentId"] != dep["id"] {
		t.Errorf("versions = %v, want one from deployment %v", versions, dep["id"])
	}
	xml := b.get("/api/v1/decisions/discount/versions/1/xml").wantStatus(t, http.StatusOK)
	if string(xml.Body) != table || xml.Header.Get("Content-Type") != "application/xml" {
		t.Errorf("XML is not the deployed document verbatim (Content-Type %q)", xml.Header.Get("Content-Type"))
	}
	b.get("/api/v1/decisions/discount/versions/2/xml").problem(t, http.StatusNotFound, "not-found")
	b.get("/api/v1/decisions/nope/versions").problem(t, http.StatusNotFound, "not-found")
	b.get("/api/v1/decisions/nope/versions/1/xml").problem(t, http.StatusNotFound, "not-found")

	// Evaluate: one match, its rule id, the number exact.
	got := b.postJSON("/api/v1/decisions/discount/evaluate", `{"variables":{"customer":"vip","amount":1000}}`).wantStatus(t, http.StatusOK).object(t)
	if s := mustJSON(t, got); s != `{"key":"discount","matchedRules":["vipLarge"],"result":0.15,"version":1}` {
		t.Errorf("evaluation = %s", s)
	}
	got = b.postJSON("/api/v1/decisions/discount/evaluate", `{"variables":{"customer":"regular","amount":10}}`).wantStatus(t, http.StatusOK).object(t)
	if s := mustJSON(t, got["matchedRules"]); s != `["regular"]` || got["result"] != json.Number("0") {
		t.Errorf("regular evaluation = %v", got)
	}

	// No rule matches: a null result, no rules.
	none := b.postJSON("/api/v1/decisions/discount/evaluate", `{"variables":{"customer":"guest","amount":10}}`).wantStatus(t, http.StatusOK).object(t)
	if none["result"] != nil || mustJSON(t, none["matchedRules"]) != `[]` {
		t.Errorf("no-match evaluation = %v", none)
	}

	// Two matches in a UNIQUE table: 422 with the reasons.
	p := b.postJSON("/api/v1/decisions/discount/evaluate", `{"variables":{"customer":"regular","amount":6000}}`).
		problem(t, http.StatusUnprocessableEntity, "decision-failed")
	// The runtime names the matching rules by position (3 and 4: regular, overlap).
	if !strings.Contains(p.Detail, "discount") || !strings.Contains(p.Detail, "UNIQUE") || !strings.Contains(p.Detail, "3, 4") {
		t.Errorf("detail = %q, want the decision, the hit policy and both matching rules", p.Detail)
	}
	if p.Field != "variables" {
		t.Errorf("field = %q, want variables", p.Field)
	}

	// Unknown key.
	b.postJSON("/api/v1/decisions/nope/evaluate", `{"variables":{}}`).problem(t, http.StatusNotFound, "not-found")
}

func TestIntegrationDecisionsWithProcess(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	dep := b.postMultipart("/api/v1/deployments",
		part{filename: "rules.bpmn", content: readTestdata(t, "rules.bpmn")},
		part{filename: "discount.dmn", content: readTestdata(t, "discount.dmn")},
	).wantStatus(t, http.StatusCreated).object(t)
	if got := mustJSON(t, dep["processes"]); got != `[{"key":"rules","version":1}]` {
		t.Errorf("processes = %s", got)
	}
	if got := mustJSON(t, dep["decisions"]); got != `[{"key":"discount","version":1}]` {
		t.Errorf("decisions = %s", got)
	}
	if n := len(b.get("/api/v1/processes").items(t)); n != 1 {
		t.Errorf("%d processes listed, want 1", n)
	}
	if n := len(b.get("/api/v1/decisions").items(t)); n != 1 {
		t.Errorf("%d decisions listed, want 1", n)
	}

	// The business rule task evaluates the same table the API evaluates.
	inst := b.postJSON("/api/v1/processes/rules/instances", `{"variables":{"customer":"vip","amount":10}}`).wantStatus(t, http.StatusCreated).object(t)
	if inst["status"] != "completed" || inst["variables"].(map[string]any)["rate"] != json.Number("0.05") {
		t.Errorf("instance = %v, want completed with rate 0.05", inst)
	}
	direct := b.postJSON("/api/v1/decisions/discount/evaluate", `{"variables":{"customer":"vip","amount":10}}`).wantStatus(t, http.StatusOK).object(t)
	if direct["result"] != json.Number("0.05") {
		t.Errorf("direct evaluation = %v", direct)
	}
}

// TestIntegrationInvalidDecision: a DMN expression that does not compile no
// longer refuses the deployment (DMN evaluates that element to null with an
// error); the deployment lists it as a warning, a direct evaluation answers
// 422 with the reason, and a business rule task raises an incident. A file
// that is not DMN at all is still refused.
func TestIntegrationInvalidDecision(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	dep := b.postMultipart("/api/v1/deployments",
		part{filename: "rules.bpmn", content: readTestdata(t, "rules.bpmn")},
		part{filename: "bad.dmn", content: badDMN},
	).wantStatus(t, http.StatusCreated).object(t)
	named := false
	for _, w := range dep["warnings"].([]any) {
		e := w.(map[string]any)
		if e["resource"] != "bad.dmn" || e["element"] == "" || e["rule"] == "" || e["detail"] == "" {
			t.Errorf("warning lacks members: %+v", e)
		}
		named = named || strings.Contains(fmt.Sprint(e["element"], e["detail"]), "badEntry") || strings.Contains(fmt.Sprint(e["element"]), "badTest")
	}
	if !named {
		t.Errorf("warnings do not name the broken rule: %v", dep["warnings"])
	}
	b.postJSON("/api/v1/decisions/broken/evaluate", `{"variables":{"a":5}}`).problem(t, http.StatusUnprocessableEntity, "decision-failed")
	b.postMultipart("/api/v1/deployments", part{filename: "junk.dmn", content: "<definitions"}).problem(t, http.StatusUnprocessableEntity, "invalid-model")
}
