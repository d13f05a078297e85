package dmn

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MustParseFile parses testdata/name or fails the test.
func MustParseFile(tb testing.TB, name string) *Definitions {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	defs, err := Parse(data)
	if err != nil {
		tb.Fatalf("Parse(%s): %v", name, err)
	}
	return defs
}

// MustParse parses src or fails the test.
func MustParse(tb testing.TB, src string) *Definitions {
	tb.Helper()
	defs, err := Parse([]byte(src))
	if err != nil {
		tb.Fatalf("Parse: %v\n%s", err, src)
	}
	return defs
}

func validationError(t *testing.T, err error) *ValidationError {
	t.Helper()
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("err = %v (%T), want *ValidationError", err, err)
	}
	return verr
}

func TestParseAccepts(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"dmn11_prefixed.dmn", "camunda13.dmn", "drg.dmn", "bkm.dmn"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			MustParseFile(t, name)
		})
	}
}

func TestParseModel(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "dmn11_prefixed.dmn")
	if defs.ID != "dmn11" || defs.Namespace != "urn:test" {
		t.Errorf("definitions = %q %q", defs.ID, defs.Namespace)
	}
	d := defs.Decision("d_fee")
	if d == nil || d.Name != "Fee" || d.Kind != "decisionTable" || d.Table == nil {
		t.Fatalf("decision d_fee = %+v", d)
	}
	if d.Table.HitPolicy != HitFirst || len(d.Table.Rules) != 2 || d.Table.Rules[0].InputEntries[0] != "< 1000" {
		t.Errorf("table = %+v, rule 1 = %+v", d.Table, d.Table.Rules[0])
	}
	if len(d.RequiredInputs) != 1 || d.RequiredInputs[0].Name != "Loan Amount" || d.RequiredInputs[0].TypeRef != "tns:tAmount" {
		t.Errorf("required inputs = %+v", d.RequiredInputs)
	}
	if defs.DecisionByName("Fee") != d {
		t.Error("DecisionByName(Fee) is not d_fee")
	}
	if len(defs.ItemDefinitions) != 1 || defs.ItemDefinitions[0].AllowedValues != "[0..1000000]" {
		t.Errorf("item definitions = %+v", defs.ItemDefinitions)
	}
	b := MustParseFile(t, "bkm.dmn")
	if len(b.BusinessKnowledgeModels) != 2 || b.BusinessKnowledgeModels[0].Table == nil ||
		len(b.BusinessKnowledgeModels[0].Parameters) != 2 || b.BusinessKnowledgeModels[1].RequiredKnowledge[0].ID != "b_risk" {
		t.Errorf("BKMs = %+v", b.BusinessKnowledgeModels)
	}
}

func TestParseCollectsAllProblems(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/invalid_many.dmn")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(data)
	verr := validationError(t, err)
	want := []struct {
		element string
		rule    Rule
		detail  string
	}{
		{"tLoop", RuleCycle, "itself"},
		{"i_a", RuleMissingReference, "tNoSuchType"},
		{"i_dup", RuleDuplicateName, `"a"`},
		{"d_syntax", RuleInvalidExpression, "1 + + ("},
		{"d_href", RuleMissingReference, "nowhere"},
		{"d_table", RuleInvalidTable, "SOMETIMES"},
		{"d_table", RuleInvalidTable, "2 input entries for 1 inputs"},
		{"d_table", RuleInvalidExpression, "rule 2 (bad_entry) input entry 1"},
		{"d_c1", RuleCycle, "d_c1 → d_c2 → d_c1"},
		{"d_nologic", RuleMissingLogic, "no decision logic"},
		{"d_java", RuleUnsupported, "javascript"},
		{"d_for", RuleInvalidExpression, "<for> has no <in>"},
		{"ds1", RuleMissingLogic, "no output decision"},
		{"decision no id", RuleMissingID, "no id"},
		{"d_agg", RuleInvalidTable, "needs hit policy COLLECT"},
		{"d_agg", RuleInvalidTable, "output 2 has no name"},
		{"d_agg", RuleInvalidTable, "exactly one output"},
		{"d_prio", RuleInvalidTable, "outputValues"},
		{"b1", RuleCycle, "b1 → b2 → b1"},
	}
	for _, w := range want {
		found := false
		for _, p := range verr.Problems {
			if strings.HasPrefix(p.Element, w.element) && p.Rule == w.rule && strings.Contains(p.Detail, w.detail) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("missing problem %s: %s: …%s…", w.element, w.rule, w.detail)
		}
	}
	if t.Failed() {
		for _, p := range verr.Problems {
			t.Log(p)
		}
	}
	if !strings.Contains(verr.Error(), "problems") || !verr.Has("d_href", RuleMissingReference) {
		t.Errorf("Error() = %q", verr.Error())
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	deep := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString(`<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" id="x" namespace="x">`)
		for i := 0; i < n; i++ {
			b.WriteString("<extensionElements>")
		}
		for i := 0; i < n; i++ {
			b.WriteString("</extensionElements>")
		}
		b.WriteString("</definitions>")
		return b.Bytes()
	}
	big := make([]byte, MaxDocumentSize+1)
	tests := []struct {
		name string
		doc  string
		rule Rule
	}{
		{"doctype", `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "boom">]><definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/">&e;</definitions>`, RuleDoctype},
		{"malformed", `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/"><decision></definitions>`, RuleMalformed},
		{"not dmn", `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"/>`, RuleNotDMN},
		{"unknown namespace", `<definitions xmlns="https://www.omg.org/spec/DMN/29990101/MODEL/"/>`, RuleNotDMN},
		{"too deep", string(deep(MaxDepth)), RuleTooDeep},
		{"too large", string(big), RuleTooLarge},
		{"unsupported charset", `<?xml version="1.0" encoding="Shift_JIS"?><definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/"/>`, RuleMalformed},
		{"foreign href", `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" namespace="x"><decision id="d" name="d"><informationRequirement><requiredDecision href="other#d"/></informationRequirement><literalExpression><text>1</text></literalExpression></decision></definitions>`, RuleMissingReference},
		{"duplicate id", `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" namespace="x"><inputData id="a" name="a"/><inputData id="a" name="b"/></definitions>`, RuleDuplicateID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.doc))
			verr := validationError(t, err)
			if !verr.Has("", tt.rule) {
				t.Errorf("problems = %v, want rule %s", verr.Problems, tt.rule)
			}
		})
	}
	if _, err := Parse(deep(MaxDepth - 2)); err != nil {
		t.Errorf("depth %d: %v", MaxDepth-2, err)
	}
}

// TestParseWarns checks that problems confined to one element load the
// model with a warning, and that the element is then null with an error
// while the others evaluate.
func TestParseWarns(t *testing.T) {
	t.Parallel()
	const head = `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" namespace="x">`
	tests := []struct {
		name, doc string
		rule      Rule
		element   string // evaluated: null with an error
	}{
		{"import", head + `<import namespace="y" name="y" importType="https://www.omg.org/spec/DMN/20230324/MODEL/"/></definitions>`, RuleMissingReference, ""},
		{"java function", head + `<businessKnowledgeModel id="b" name="b"><encapsulatedLogic kind="Java"><context/></encapsulatedLogic></businessKnowledgeModel>
			<decision id="d" name="d"><knowledgeRequirement><requiredKnowledge href="#b"/></knowledgeRequirement><literalExpression><text>b()</text></literalExpression></decision></definitions>`, RuleUnsupported, "d"},
		{"syntax", head + `<decision id="d" name="d"><literalExpression><text>1 +</text></literalExpression></decision></definitions>`, RuleInvalidExpression, "d"},
		{"arity", head + `<decision id="d" name="d"><literalExpression><text>abs(1, 2)</text></literalExpression></decision></definitions>`, RuleInvalidExpression, "d"},
		{"unknown function", head + `<decision id="d" name="d"><literalExpression><text>nope(1)</text></literalExpression></decision></definitions>`, RuleInvalidExpression, "d"},
		{"duplicate key", head + `<decision id="d" name="d"><literalExpression><text>{a: 1, a: 2}</text></literalExpression></decision></definitions>`, RuleInvalidExpression, "d"},
		{"no logic", head + `<decision id="d" name="d"/></definitions>`, RuleMissingLogic, "d"},
		{"no id", head + `<decision name="d"><literalExpression><text>1</text></literalExpression></decision></definitions>`, RuleMissingID, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			defs, err := Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, w := range defs.Warnings {
				found = found || w.Rule == tt.rule
			}
			if !found {
				t.Errorf("warnings = %v, want rule %s", defs.Warnings, tt.rule)
			}
			if tt.element == "" {
				return
			}
			res, err := defs.Evaluate(tt.element, nil)
			if err != nil || res.Value != nil || res.Err() == nil {
				t.Errorf("Evaluate: %v, value %v, errors %v", err, res.Value, res.Err())
			}
		})
	}
	defs, err := Parse([]byte(head + `<decision name="ok"><literalExpression><text>1</text></literalExpression></decision>
		<decision id="bad" name="bad"><literalExpression><text>1 +</text></literalExpression></decision></definitions>`))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := defs.EvaluateRequest(Request{Decision: "ok"}); err != nil || res.Err() != nil || fmt.Sprint(res.Value) != "1" {
		t.Errorf("ok by name: %v %v %v", res.Value, err, res.Err())
	}
}

func TestParseNamespaces(t *testing.T) {
	t.Parallel()
	for _, ns := range []string{NamespaceDMN11, NamespaceDMN12, NamespaceDMN13, NamespaceDMN14, NamespaceDMN15,
		strings.Replace(NamespaceDMN13, "https", "http", 1)} {
		src := `<x:definitions xmlns:x="` + ns + `" id="d" name="d" namespace="urn:x">
  <x:decision id="one" name="one"><x:literalExpression><x:text>1</x:text></x:literalExpression></x:decision>
</x:definitions>`
		defs, err := Parse([]byte(src))
		if err != nil {
			t.Errorf("%s: %v", ns, err)
			continue
		}
		if defs.Decision("one") == nil {
			t.Errorf("%s: decision not found", ns)
		}
	}
}

func TestParseUTF16(t *testing.T) {
	t.Parallel()
	src := `<?xml version="1.0" encoding="UTF-16"?><definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" namespace="x"><decision id="d" name="Grüße"><literalExpression><text>"ä"</text></literalExpression></decision></definitions>`
	var b []byte
	b = append(b, 0xFF, 0xFE)
	for _, r := range src {
		b = append(b, byte(r), byte(r>>8))
	}
	defs, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if defs.Decision("d").Name != "Grüße" {
		t.Errorf("name = %q", defs.Decision("d").Name)
	}
}
