package runtime_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// outlinedDecisions is a decision requiring another: the top table reads
// what the required one provides (its name and its output) and two plain
// names; the required one reads a number, and one input is an expression.
const outlinedDecisions = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="D" namespace="urn:d">
  <decision id="price" name="Price">
    <informationRequirement><requiredDecision href="#tier"/></informationRequirement>
    <decisionTable>
      <input label="Tier"><inputExpression typeRef="string"><text>Tier</text></inputExpression></input>
      <input label="Member"><inputExpression typeRef="boolean"><text> member </text></inputExpression></input>
      <input><inputExpression typeRef="string"><text>region</text></inputExpression></input>
      <input label="Discount"><inputExpression typeRef="number"><text>discount</text></inputExpression></input>
      <output name="price" typeRef="number"/>
      <rule><inputEntry><text>-</text></inputEntry><inputEntry><text>-</text></inputEntry>
        <inputEntry><text>-</text></inputEntry><inputEntry><text>-</text></inputEntry>
        <outputEntry><text>1</text></outputEntry></rule>
    </decisionTable>
  </decision>
  <decision id="tier" name="Tier">
    <decisionTable>
      <input label="Spent"><inputExpression typeRef="integer"><text>spent</text></inputExpression></input>
      <input label="Twice"><inputExpression typeRef="number"><text>spent * 2</text></inputExpression></input>
      <input label="Region again"><inputExpression typeRef="string"><text>region</text></inputExpression></input>
      <output name="discount" typeRef="number"/>
      <rule><inputEntry><text>-</text></inputEntry><inputEntry><text>-</text></inputEntry>
        <inputEntry><text>-</text></inputEntry><outputEntry><text>0</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`

// A decision version's outline lists the inputs an evaluation asks for:
// its table's plain-name inputs and those of the decisions it requires,
// each once, less what a required decision provides, typed from their
// typeRefs and labelled by their names when the table gives no label; an
// unknown version is ENOTFOUND.
func TestDecisionOutline(t *testing.T) {
	t.Parallel()
	c := setupClocked(t)
	ctx := context.Background()
	mustDeploy(t, c.rt, runtime.File{Name: "price.dmn", Content: []byte(outlinedDecisions)})
	o, err := c.rt.DecisionOutline(ctx, "price", 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.Key != "price" || o.Version != 1 || o.Name != "Price" {
		t.Errorf("outline of %s version %d named %q", o.Key, o.Version, o.Name)
	}
	want := []runtime.DecisionInput{
		{Name: "member", Label: "Member", Type: runtime.InputBoolean},
		{Name: "region", Label: "region", Type: runtime.InputString},
		{Name: "spent", Label: "Spent", Type: runtime.InputNumber},
	}
	if !reflect.DeepEqual(o.Inputs, want) {
		t.Errorf("inputs\n got %+v\nwant %+v", o.Inputs, want)
	}
	required, err := c.rt.DecisionOutline(ctx, "tier", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(required.Inputs) != 2 || required.Inputs[0].Name != "spent" || required.Inputs[1].Label != "Region again" {
		t.Errorf("required decision's own inputs: %+v", required.Inputs)
	}
	if _, err := c.rt.DecisionOutline(ctx, "price", 2); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("unknown version: %v", err)
	}
	if _, err := c.rt.DecisionOutline(ctx, "nope", 0); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("unknown decision: %v", err)
	}
}
