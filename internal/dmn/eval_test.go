package dmn

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestDRGOrder(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "drg.dmn")
	res, err := defs.Evaluate("top", map[string]any{"x": 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err() != nil {
		t.Fatal(res.Err())
	}
	// base = x+1 = 2, left = 4, right = 6, top = 10.
	want := map[string]any{"base": num("2"), "left": num("4"), "right": num("6"), "top": num("10")}
	if !sameValue(res.Decisions, want) {
		t.Errorf("decisions = %v, want %v", res.Decisions, want)
	}
	if !sameValue(res.Value, num("10")) {
		t.Errorf("value = %v", res.Value)
	}
	// base is required twice but evaluated once: its rule matched once.
	if got := ruleIDs(res.Matched); !reflect.DeepEqual(got, []string{"base_r1"}) {
		t.Errorf("matched = %v, want [base_r1]", got)
	}
	if res.Matched[0].DecisionID != "base" || res.Matched[0].RuleIndex != 1 {
		t.Errorf("matched = %+v", res.Matched[0])
	}
	if len(res.Entries) != 1 || !sameValue(res.Entries[0]["top"], num("10")) {
		t.Errorf("entries = %v", res.Entries)
	}
	if _, err := defs.Evaluate("nope", nil); !errors.Is(err, ErrUnknownDecision) {
		t.Errorf("unknown decision: err = %v", err)
	}
}

func TestBKM(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "bkm.dmn")
	app := func(age, score any) map[string]any {
		return map[string]any{"Applicant": map[string]any{"age": age, "credit score": score}}
	}
	tests := []struct {
		decision string
		inputs   map[string]any
		want     any
		matched  []MatchedRule
	}{
		{"d_risk", app(30, 720), "Low", []MatchedRule{{"b_risk", "risk_low", 1}}},
		{"d_risk", app(20, 720), "High", []MatchedRule{{"b_risk", "risk_high", 2}}},
		{"d_risk", app(30.0, 600), "Medium", []MatchedRule{{"b_risk", "risk_mid", 3}}},
		{"d_label", app(30, 720), "risk: Low", []MatchedRule{{"b_risk", "risk_low", 1}}},
		{"d_context", app(30, 720), map[string]any{
			"double":      nil, // a function has no JSON form
			"doubled age": num("60"),
			"ages":        []any{num("30"), num("60")},
			"table":       []any{map[string]any{"k": "a", "v": num("1")}, map[string]any{"k": "b", "v": num("60")}},
		}, nil},
		{"d_result", nil, num("42"), nil},
	}
	for _, tt := range tests {
		res, err := defs.Evaluate(tt.decision, tt.inputs)
		if err != nil {
			t.Fatal(err)
		}
		if res.Err() != nil {
			t.Errorf("%s: %v", tt.decision, res.Err())
		}
		if !sameValue(res.Value, tt.want) {
			t.Errorf("%s %v: value = %#v, want %#v", tt.decision, tt.inputs, res.Value, tt.want)
		}
		if tt.matched != nil && !reflect.DeepEqual(res.Matched, tt.matched) {
			t.Errorf("%s: matched = %+v, want %+v", tt.decision, res.Matched, tt.matched)
		}
	}
	// An argument of the wrong type is null with an error; the BKM table then
	// matches nothing.
	res, _ := defs.Evaluate("d_risk", app("old", 720))
	if res.Value != nil || res.Err() == nil {
		t.Errorf("wrong-typed component: value = %v, errors = %v", res.Value, res.Err())
	}
}

func TestInputCoercion(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "dmn11_prefixed.dmn")
	tests := []struct {
		amount  any
		want    any
		wantErr string
	}{
		{500, num("0"), ""},
		{5000, num("50"), ""},
		{5000.0, num("50"), ""},
		{int64(5000), num("50"), ""},
		{[]any{5000}, num("50"), ""}, // from singleton list
		{2000000, nil, "allowed values"},
		{"5000", nil, "is not a number"},
		{nil, nil, "cannot multiply a null and a number"}, // null * 0.01 is an error
	}
	for _, tt := range tests {
		res, err := defs.Evaluate("d_fee", map[string]any{"Loan Amount": tt.amount})
		if err != nil {
			t.Fatal(err)
		}
		if !sameValue(res.Value, tt.want) {
			t.Errorf("amount %v: value = %#v, want %#v", tt.amount, res.Value, tt.want)
		}
		if (tt.wantErr == "") != (res.Err() == nil) || (tt.wantErr != "" && !strings.Contains(res.Err().Error(), tt.wantErr)) {
			t.Errorf("amount %v: errors = %v, want %q", tt.amount, res.Err(), tt.wantErr)
		}
		if tt.wantErr != "" && tt.amount != nil && res.Errors[0].Element != "i_amount" {
			t.Errorf("error element = %q, want i_amount", res.Errors[0].Element)
		}
	}
}

func TestCamundaStyle(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "camunda13.dmn")
	for _, tt := range []struct {
		season string
		guests any
		want   string
	}{
		{"Fall", 3, "Spareribs"},
		{"Spring", 6, "Steak"},
		{"Spring", 9, "Stew"},
		{"Summer", 100, "Light Salad and a nice Steak"},
	} {
		res, err := defs.Evaluate("dish-decision", map[string]any{"season": tt.season, "guestCount": tt.guests})
		if err != nil {
			t.Fatal(err)
		}
		if res.Value != tt.want || res.Err() != nil {
			t.Errorf("%s/%v: value = %v, errors = %v", tt.season, tt.guests, res.Value, res.Err())
		}
		if len(res.Entries) != 1 || res.Entries[0]["desiredDish"] != tt.want {
			t.Errorf("entries = %v", res.Entries)
		}
	}
}

const typedModel = `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" id="defs" namespace="urn:t">
  <itemDefinition name="tNames" isCollection="true"><typeRef>string</typeRef><allowedValues><text>"ann", "bob"</text></allowedValues></itemDefinition>
  <itemDefinition name="tPerson">
    <itemComponent name="name"><typeRef>string</typeRef></itemComponent>
    <itemComponent name="tags" isCollection="true"><typeRef>string</typeRef></itemComponent>
  </itemDefinition>
  <inputData id="i_day" name="day"><variable name="day" typeRef="date"/></inputData>
  <inputData id="i_names" name="names"><variable name="names" typeRef="tNames"/></inputData>
  <inputData id="i_person" name="person"><variable name="person" typeRef="tPerson"/></inputData>
  <decision id="next" name="next day">
    <variable name="next day" typeRef="date"/>
    <informationRequirement><requiredInput href="#i_day"/></informationRequirement>
    <literalExpression><text>day + duration("P1D")</text></literalExpression>
  </decision>
  <decision id="count" name="count">
    <variable name="count" typeRef="number"/>
    <informationRequirement><requiredInput href="#i_names"/></informationRequirement>
    <literalExpression><text>count(names)</text></literalExpression>
  </decision>
  <decision id="tags" name="tags">
    <informationRequirement><requiredInput href="#i_person"/></informationRequirement>
    <literalExpression><text>person.tags</text></literalExpression>
  </decision>
  <decision id="wrong" name="wrong">
    <variable name="wrong" typeRef="boolean"/>
    <literalExpression><text>"not a boolean"</text></literalExpression>
  </decision>
</definitions>`

func TestTypes(t *testing.T) {
	t.Parallel()
	defs := MustParse(t, typedModel)
	tests := []struct {
		decision string
		inputs   map[string]any
		want     any
		wantErr  string
	}{
		{"next", map[string]any{"day": "2024-02-28"}, "2024-02-29", ""},
		{"next", map[string]any{"day": "not a date"}, nil, "not a valid date"},
		{"count", map[string]any{"names": []any{"ann", "bob"}}, num("2"), ""},
		{"count", map[string]any{"names": "ann"}, num("1"), ""}, // to singleton list
		{"count", map[string]any{"names": []any{"ann", "eve"}}, nil, "allowed values"},
		{"tags", map[string]any{"person": map[string]any{"name": "x", "tags": "solo"}}, []any{"solo"}, ""},
		{"tags", map[string]any{"person": "x"}, nil, "not a context"},
		{"wrong", nil, nil, "is not a boolean"},
	}
	for _, tt := range tests {
		res, err := defs.Evaluate(tt.decision, tt.inputs)
		if err != nil {
			t.Fatal(err)
		}
		if !sameValue(res.Value, tt.want) {
			t.Errorf("%s %v: value = %#v, want %#v", tt.decision, tt.inputs, res.Value, tt.want)
		}
		if (tt.wantErr == "") != (res.Err() == nil) || (tt.wantErr != "" && !strings.Contains(res.Err().Error(), tt.wantErr)) {
			t.Errorf("%s %v: errors = %v, want %q", tt.decision, tt.inputs, res.Err(), tt.wantErr)
		}
	}
}

func TestEvaluateConcurrently(t *testing.T) {
	t.Parallel()
	defs := MustParseFile(t, "bkm.dmn")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(age int) {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				res, err := defs.Evaluate("d_label", map[string]any{"Applicant": map[string]any{"age": age, "credit score": 720}})
				if err != nil || res.Err() != nil {
					t.Errorf("age %d: %v %v", age, err, res.Err())
					return
				}
				want := "risk: Low"
				if age < 25 {
					want = "risk: High"
				}
				if res.Value != want {
					t.Errorf("age %d: %v", age, res.Value)
					return
				}
			}
		}(18 + i*3)
	}
	wg.Wait()
}
