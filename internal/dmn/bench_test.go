package dmn

import (
	"fmt"
	"strings"
	"testing"
)

// hundredRules builds a 100-rule table over x: rule i matches
// [i*10..i*10+10) for FIRST, >= i for COLLECT SUM (so x = 50 hits 51 rules).
func hundredRules(b *testing.B, hitPolicy, aggregation string) *Definitions {
	b.Helper()
	rules := make([][]string, 100)
	for i := range rules {
		if aggregation == "" {
			rules[i] = []string{fmt.Sprintf("[%d..%d)", i*10, i*10+10), fmt.Sprintf(`"rule %d"`, i)}
		} else {
			rules[i] = []string{fmt.Sprintf(">= %d", i), fmt.Sprint(i)}
		}
	}
	return MustParse(b, tableModel(hitPolicy, aggregation, []string{"x"}, []col{{}}, rules))
}

func BenchmarkFirst100Rules(b *testing.B) {
	defs := hundredRules(b, "FIRST", "")
	inputs := map[string]any{"x": 505} // hits rule 51 after 50 misses
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := defs.Evaluate("d", inputs)
		if err != nil || res.Value != "rule 50" {
			b.Fatalf("%v %v", res.Value, err)
		}
	}
}

func BenchmarkCollectSum100Rules(b *testing.B) {
	defs := hundredRules(b, "COLLECT", "SUM")
	inputs := map[string]any{"x": 50} // 0+1+…+50 = 1275
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := defs.Evaluate("d", inputs)
		if err != nil || fmt.Sprint(res.Value) != "1275" {
			b.Fatalf("%v %v", res.Value, err)
		}
	}
}

func BenchmarkRuleOrder100Rules(b *testing.B) {
	rules := make([][]string, 100)
	for i := range rules {
		rules[i] = []string{fmt.Sprintf(">= %d", i), fmt.Sprint(i)}
	}
	defs := MustParse(b, tableModel("RULE ORDER", "", []string{"x"}, []col{{}}, rules))
	inputs := map[string]any{"x": 50} // rules 1..51 match, in rule order
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := defs.Evaluate("d", inputs)
		if err != nil || len(res.Value.([]any)) != 51 {
			b.Fatalf("%v %v", res.Value, err)
		}
	}
}

// drgModel builds a chain of ten decisions d0 … d9 over the input x:
// d0 = step0(x), d(i) = step(i)(d(i-1)), each step a business knowledge
// model (a three-rule decision table for the even ones, a literal
// expression for the odd ones).
func drgModel() string {
	var b strings.Builder
	b.WriteString(`<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" id="drg10" name="drg10" namespace="urn:drg10">`)
	b.WriteString(`<inputData id="i_x" name="x"><variable name="x" typeRef="number"/></inputData>`)
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, `<businessKnowledgeModel id="b%d" name="step%d"><encapsulatedLogic><formalParameter name="n" typeRef="number"/>`, i, i)
		if i%2 == 0 {
			fmt.Fprintf(&b, `<decisionTable hitPolicy="FIRST"><input><inputExpression typeRef="number"><text>n</text></inputExpression></input><output typeRef="number"/>`+
				`<rule><inputEntry><text>&lt; 0</text></inputEntry><outputEntry><text>0</text></outputEntry></rule>`+
				`<rule><inputEntry><text>[0..1000]</text></inputEntry><outputEntry><text>n + %d</text></outputEntry></rule>`+
				`<rule><inputEntry><text>-</text></inputEntry><outputEntry><text>n</text></outputEntry></rule></decisionTable>`, i)
		} else {
			fmt.Fprintf(&b, `<literalExpression typeRef="number"><text>n * 2 - %d</text></literalExpression>`, i)
		}
		b.WriteString(`</encapsulatedLogic></businessKnowledgeModel>`)
	}
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, `<decision id="d%d" name="d%d"><variable name="d%d" typeRef="number"/>`, i, i, i)
		if i == 0 {
			b.WriteString(`<informationRequirement><requiredInput href="#i_x"/></informationRequirement>`)
		} else {
			fmt.Fprintf(&b, `<informationRequirement><requiredDecision href="#d%d"/></informationRequirement>`, i-1)
		}
		fmt.Fprintf(&b, `<knowledgeRequirement><requiredKnowledge href="#b%d"/></knowledgeRequirement>`, i)
		arg := "x"
		if i > 0 {
			arg = fmt.Sprintf("d%d", i-1)
		}
		fmt.Fprintf(&b, `<literalExpression><text>step%d(%s)</text></literalExpression></decision>`, i, arg)
	}
	b.WriteString(`</definitions>`)
	return b.String()
}

func BenchmarkDRG10DecisionsWithBKMs(b *testing.B) {
	defs := MustParse(b, drgModel())
	inputs := map[string]any{"x": 3}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := defs.Evaluate("d9", inputs)
		if err != nil || res.Err() != nil || len(res.Decisions) != 10 {
			b.Fatalf("%v %v %v", res.Value, err, res.Err())
		}
	}
}

func BenchmarkParseTCKStyle(b *testing.B) {
	src := []byte(tableModel("UNIQUE", "", []string{"x", "y"}, []col{{name: "a"}, {name: "b"}},
		[][]string{{"< 10", `"low"`, `"x"`, "1"}, {">= 10", "-", `"y"`, "2"}}))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}
