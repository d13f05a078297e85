package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

const baseDMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="base" name="base" namespace="urn:gobpm:base">
  <decision id="rate" name="rate"><variable name="rate" typeRef="number"/><literalExpression><text>0.1</text></literalExpression></decision>
</definitions>`

const mainDMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="main" name="main" namespace="urn:gobpm:main">
  <import namespace="urn:gobpm:base" name="base" importType="https://www.omg.org/spec/DMN/20191111/MODEL/"/>
  <decision id="price" name="price">
    <variable name="price" typeRef="number"/>
    <informationRequirement id="ir1"><requiredDecision href="urn:gobpm:base#rate"/></informationRequirement>
    <literalExpression><text>100 * (1 - base.rate)</text></literalExpression>
  </decision>
</definitions>`

// TestDecisionImportsAcrossFiles: a DMN file that imports another of the
// same deployment deploys and evaluates — also after a restart, when the
// runtime reads it again from the store with its deployment's other files.
func TestDecisionImportsAcrossFiles(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	mustDeploy(t, b.rt, runtime.File{Name: "main.dmn", Content: []byte(mainDMN)}, runtime.File{Name: "base.dmn", Content: []byte(baseDMN)})
	check := func(when string) {
		res, err := b.rt.EvaluateDecision(ctx, "price", 0, nil)
		if err != nil || res.Result != json.Number("90") {
			t.Errorf("%s: price = %v, %v; want 90", when, res.Result, err)
		}
	}
	check("after deploying")
	b.close(t)
	b.open(t)
	check("after a restart")
	if _, err := b.rt.Deploy(ctx, []runtime.File{{Name: "alone.dmn", Content: []byte(mainDMN)}}); err == nil {
		t.Error("a file importing a model missing from its deployment deployed")
	}
}

// TestDecisionWithoutIDIsRefused: gobpm registers decisions by id, which
// DMN makes optional; a decision without one is refused, naming it.
func TestDecisionWithoutIDIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const noID = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="d" namespace="urn:gobpm:noid">
  <decision name="anonymous"><literalExpression><text>1</text></literalExpression></decision>
</definitions>`
	_, err := b.rt.Deploy(context.Background(), []runtime.File{{Name: "noid.dmn", Content: []byte(noID)}})
	var derr *runtime.DeploymentError
	if !errors.As(err, &derr) || len(derr.Problems) != 1 || derr.Problems[0].Rule != "missing-id" || derr.Problems[0].Element != "anonymous" {
		t.Fatalf("deploy: %v", err)
	}
}
