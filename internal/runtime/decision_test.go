package runtime_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

func dmnFixture(t *testing.T, name string) runtime.File {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "dmn", name))
	if err != nil {
		t.Fatal(err)
	}
	return runtime.File{Name: name, Content: data}
}

func TestBusinessRuleTask(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	res := mustDeploy(t, c.rt, dmnFixture(t, "discount.dmn"), dmnFixture(t, "rules.bpmn"))
	if len(res.Decisions) != 1 || res.Decisions[0] != (runtime.DefinitionRef{Key: "discount", Version: 1}) {
		t.Fatalf("decisions %+v", res.Decisions)
	}
	inst := start(t, c.rt, "rules", map[string]any{"customer": "vip", "amount": json.Number("1500")})
	if inst.Status != runtime.StatusCompleted || inst.Variables["rate"] != json.Number("0.15") {
		t.Fatalf("instance %s %v", inst.Status, inst.Variables)
	}
	hist, _ := c.rt.History(ctx, inst.ID, 0, 0)
	found := false
	for _, f := range hist {
		if f.Kind == "decision-evaluated" && strings.Contains(string(f.Detail), `"vipLarge"`) && strings.Contains(string(f.Detail), `"version":1`) {
			found = true
		}
	}
	if !found {
		t.Fatal("no decision-evaluated fact naming the matched rule and version")
	}
	// UNIQUE with two matches is an error: the task stops in an incident.
	bad := start(t, c.rt, "rules", map[string]any{"customer": "regular", "amount": json.Number("6000")})
	if bad.Status != runtime.StatusFailed || len(bad.Incidents) != 1 || bad.Incidents[0].NodeID != "decide" {
		t.Fatalf("unique violation: %s %+v", bad.Status, bad.Incidents)
	}
	// The decision evaluated directly.
	out, err := c.rt.EvaluateDecision(ctx, "discount", 0, map[string]any{"customer": "vip", "amount": json.Number("10")})
	if err != nil || out.Result != json.Number("0.05") || len(out.MatchedRules) != 1 || out.MatchedRules[0] != "vipSmall" {
		t.Fatalf("evaluate: %v %+v", err, out)
	}
	if _, err := c.rt.EvaluateDecision(ctx, "nope", 0, nil); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Fatalf("unknown decision: %v", err)
	}
	if _, err := c.rt.EvaluateDecision(ctx, "discount", 0, map[string]any{"customer": "regular", "amount": json.Number("6000")}); runtime.ErrorCode(err) != runtime.EINVALID {
		t.Fatalf("unique violation evaluated directly: %v", err)
	}
	// A missing decision: an incident naming it.
	if _, err := c.rt.Deploy(ctx, []runtime.File{{Name: "bad.dmn", Content: []byte("<nope/>")}}); err == nil {
		t.Fatal("an invalid DMN file deployed")
	}
}
