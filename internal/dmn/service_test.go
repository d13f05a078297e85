package dmn

import (
	"errors"
	"strings"
	"testing"
)

// serviceModel has a decision service "greet" with one input data
// (name) and one input decision (salutation), whose output decision
// joins them; a decision that calls the service; and a service with two
// outputs.
const serviceModel = `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" id="svc" name="svc" namespace="urn:svc">
  <inputData id="i_name" name="name"><variable name="name" typeRef="string"/></inputData>
  <decision id="salutation" name="salutation"><variable name="salutation" typeRef="string"/>
    <literalExpression><text>"Hello"</text></literalExpression></decision>
  <decision id="greeting" name="greeting"><variable name="greeting" typeRef="string"/>
    <informationRequirement><requiredDecision href="#salutation"/></informationRequirement>
    <informationRequirement><requiredInput href="#i_name"/></informationRequirement>
    <literalExpression><text>salutation + ", " + name</text></literalExpression></decision>
  <decision id="length" name="length">
    <informationRequirement><requiredDecision href="#greeting"/></informationRequirement>
    <literalExpression><text>string length(greeting)</text></literalExpression></decision>
  <decisionService id="greet" name="greet">
    <outputDecision href="#greeting"/>
    <inputDecision href="#salutation"/>
    <inputData href="#i_name"/>
  </decisionService>
  <decisionService id="both" name="both">
    <outputDecision href="#greeting"/><outputDecision href="#length"/>
    <encapsulatedDecision href="#salutation"/>
    <inputData href="#i_name"/>
  </decisionService>
  <decision id="caller" name="caller">
    <knowledgeRequirement><requiredKnowledge href="#greet"/></knowledgeRequirement>
    <literalExpression><text>greet("Ann", "Hi") + " / " + greet(salutation: "Bye", name: "Bob")</text></literalExpression></decision>
  <decision id="badcall" name="badcall">
    <knowledgeRequirement><requiredKnowledge href="#greet"/></knowledgeRequirement>
    <literalExpression><text>greet(1, "Hi")</text></literalExpression></decision>
</definitions>`

func TestDecisionServices(t *testing.T) {
	t.Parallel()
	defs := MustParse(t, serviceModel)
	s := defs.DecisionService("greet")
	if s == nil || strings.Join(s.Parameters(), ",") != "name,salutation" || defs.DecisionService("both") == nil {
		t.Fatalf("services = %+v", defs.DecisionServices)
	}

	// Invoked directly: the input decision is the given value, never
	// evaluated; missing, it is null.
	res, err := defs.EvaluateRequest(Request{Service: "greet", Inputs: map[string]any{"name": "Ann", "salutation": "Hey"}})
	if err != nil || res.Err() != nil || res.Value != "Hey, Ann" || res.Outputs["greeting"] != "Hey, Ann" {
		t.Errorf("greet: %v %v %v %v", res.Value, res.Outputs, err, res.Err())
	}
	res, _ = defs.EvaluateRequest(Request{Service: "greet", Inputs: map[string]any{"name": "Ann"}})
	if res.Value != nil || res.Err() == nil {
		t.Errorf("greet without salutation: %v %v", res.Value, res.Err())
	}
	// Several outputs: a context; encapsulated decisions are evaluated.
	res, _ = defs.EvaluateRequest(Request{Service: "both", Inputs: map[string]any{"name": "Ann"}})
	if jsonText(t, res.Value) != `{"greeting":"Hello, Ann","length":10}` || res.Err() != nil {
		t.Errorf("both: %v %v", res.Value, res.Err())
	}
	// Called from FEEL, positionally (input data first) and by name.
	res, _ = defs.Evaluate("caller", nil)
	if res.Value != "Hi, Ann / Bye, Bob" || res.Err() != nil {
		t.Errorf("caller: %v %v", res.Value, res.Err())
	}
	// An argument that does not conform: the service is not invoked.
	res, _ = defs.Evaluate("badcall", nil)
	if res.Value != nil || res.Err() == nil || !strings.Contains(res.Err().Error(), "does not conform") {
		t.Errorf("badcall: %v %v", res.Value, res.Err())
	}
	if _, err := defs.EvaluateRequest(Request{Service: "nope"}); !errors.Is(err, ErrUnknownDecision) {
		t.Errorf("unknown service: %v", err)
	}
}

const importedModel = `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" id="lib" name="lib" namespace="urn:lib">
  <itemDefinition name="tPerson">
    <itemComponent name="name"><typeRef>string</typeRef></itemComponent>
    <itemComponent name="age"><typeRef>number</typeRef></itemComponent>
  </itemDefinition>
  <inputData id="i_rate" name="rate"><variable name="rate" typeRef="number"/></inputData>
  <businessKnowledgeModel id="hello" name="Say Hello"><encapsulatedLogic>
    <formalParameter name="p" typeRef="tPerson"/>
    <literalExpression><text>"Hello " + p.name</text></literalExpression>
  </encapsulatedLogic></businessKnowledgeModel>
  <decision id="scaled" name="scaled"><informationRequirement><requiredInput href="#i_rate"/></informationRequirement>
    <literalExpression><text>rate * 100</text></literalExpression></decision>
</definitions>`

const importingModel = `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" id="app" name="app" namespace="urn:app">
  <import name="lib" namespace="urn:lib" importType="https://www.omg.org/spec/DMN/20230324/MODEL/"/>
  <inputData id="i_person" name="person"><variable name="person" typeRef="lib.tPerson"/></inputData>
  <decision id="greeting" name="greeting">
    <informationRequirement><requiredInput href="#i_person"/></informationRequirement>
    <knowledgeRequirement><requiredKnowledge href="urn:lib#hello"/></knowledgeRequirement>
    <literalExpression><text>lib.Say Hello(person) + (if person instance of lib.tPerson then "!" else "?")</text></literalExpression>
  </decision>
  <decision id="percent" name="percent">
    <informationRequirement><requiredDecision href="urn:lib#scaled"/></informationRequirement>
    <literalExpression><text>lib.scaled + 1</text></literalExpression>
  </decision>
</definitions>`

func TestImports(t *testing.T) {
	t.Parallel()
	// The importing document first: ParseAll orders them.
	defs, errs := ParseAll(Document{Name: "app.dmn", Data: []byte(importingModel)}, Document{Name: "lib.dmn", Data: []byte(importedModel)})
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	app := defs[0]
	if len(app.Imports) != 1 || app.Imports[0].Model != defs[1] {
		t.Fatalf("imports = %+v", app.Imports)
	}
	res, err := app.Evaluate("greeting", map[string]any{"person": map[string]any{"name": "Ann", "age": 30}})
	if err != nil || res.Err() != nil || res.Value != "Hello Ann!" {
		t.Errorf("greeting: %v %v %v", res.Value, err, res.Err())
	}
	// An imported model's input data: by namespace, or under the import's name.
	for _, req := range []Request{
		{Decision: "percent", Imported: map[string]map[string]any{"urn:lib": {"rate": 0.25}}},
		{Decision: "percent", Inputs: map[string]any{"lib": map[string]any{"rate": 0.25}}},
	} {
		res, err = app.EvaluateRequest(req)
		if err != nil || res.Err() != nil || jsonText(t, res.Value) != "26" {
			t.Errorf("percent %+v: %v %v %v", req, res.Value, err, res.Err())
		}
	}

	// Alone, the import is unresolved: a warning, and the href is a problem.
	if _, err := Parse([]byte(importingModel)); err == nil || !strings.Contains(err.Error(), "not imported") {
		t.Errorf("Parse alone: %v", err)
	}
	// An import cycle refuses both documents.
	a := strings.Replace(importedModel, `<itemDefinition`, `<import name="app" namespace="urn:app" importType="https://www.omg.org/spec/DMN/20230324/MODEL/"/><itemDefinition`, 1)
	_, errs = ParseAll(Document{Data: []byte(importingModel)}, Document{Data: []byte(a)})
	if errs[0] == nil && errs[1] == nil {
		t.Error("an import cycle was accepted")
	}
}
