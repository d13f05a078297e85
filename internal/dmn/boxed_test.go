package dmn

import (
	"encoding/json"
	"strings"
	"testing"
)

// jsonText renders a JSON-shaped value compactly.
func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// boxedModel wraps decisions in a DMN 1.5 definitions element.
func boxedModel(decisions string) string {
	return `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" id="boxed" name="boxed" namespace="urn:boxed">` +
		`<inputData id="i_xs" name="xs"/>` + decisions + `</definitions>`
}

func lit(text string) string {
	return `<literalExpression><text>` + xmlEscape(text) + `</text></literalExpression>`
}

func TestBoxedExpressions(t *testing.T) {
	t.Parallel()
	req := `<informationRequirement><requiredInput href="#i_xs"/></informationRequirement>`
	defs := MustParse(t, boxedModel(
		`<decision id="cond" name="cond">`+req+`<conditional><if>`+lit(`count(xs) > 2`)+`</if><then>`+lit(`"many"`)+`</then><else>`+lit(`"few"`)+`</else></conditional></decision>`+
			`<decision id="badcond" name="badcond"><conditional><if>`+lit(`"yes"`)+`</if><then>`+lit(`1`)+`</then><else>`+lit(`2`)+`</else></conditional></decision>`+
			`<decision id="filter" name="filter">`+req+`<filter><in>`+lit(`xs`)+`</in><match>`+lit(`item >= 2`)+`</match></filter></decision>`+
			`<decision id="badfilter" name="badfilter">`+req+`<filter><in>`+lit(`xs`)+`</in><match>`+lit(`"x"`)+`</match></filter></decision>`+
			`<decision id="for" name="for">`+req+`<for iteratorVariable="x"><in>`+lit(`xs`)+`</in><return>`+lit(`x * 10`)+`</return></for></decision>`+
			`<decision id="some" name="some">`+req+`<some iteratorVariable="x"><in>`+lit(`xs`)+`</in><satisfies>`+lit(`x > 2`)+`</satisfies></some></decision>`+
			`<decision id="every" name="every">`+req+`<every iteratorVariable="x"><in>`+lit(`xs`)+`</in><satisfies>`+lit(`x > 0`)+`</satisfies></every></decision>`+
			`<decision id="badevery" name="badevery">`+req+`<every iteratorVariable="x"><in>`+lit(`xs`)+`</in><satisfies>`+lit(`x`)+`</satisfies></every></decision>`+
			`<decision id="typed" name="typed"><literalExpression typeRef="string"><text>1 + 1</text></literalExpression></decision>`+
			`<decision id="java" name="java"><context><contextEntry><variable name="f"/><functionDefinition kind="Java"><formalParameter name="x"/><context/></functionDefinition></contextEntry>`+
			`<contextEntry>`+lit(`f(1)`)+`</contextEntry></context></decision>`))
	xs := map[string]any{"xs": []any{1, 2, 3}}
	tests := []struct {
		decision string
		want     string
		wantErr  string
	}{
		{"cond", `"many"`, ""},
		{"badcond", `null`, "not a boolean"},
		{"filter", `[2,3]`, ""},
		{"badfilter", `null`, "not a boolean"},
		{"for", `[10,20,30]`, ""},
		{"some", `true`, ""},
		{"every", `true`, ""},
		{"badevery", `null`, "not a boolean"},
		{"typed", `null`, "not a string"},
		{"java", `null`, `kind "Java"`},
	}
	for _, tt := range tests {
		res, err := defs.Evaluate(tt.decision, xs)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonText(t, res.Value); got != tt.want {
			t.Errorf("%s = %s, want %s", tt.decision, got, tt.want)
		}
		if (tt.wantErr == "") != (res.Err() == nil) || (tt.wantErr != "" && !strings.Contains(res.Err().Error(), tt.wantErr)) {
			t.Errorf("%s: errors = %v, want %q", tt.decision, res.Err(), tt.wantErr)
		}
	}
	found := false
	for _, w := range defs.Warnings {
		found = found || (w.Element == "java" && w.Rule == RuleUnsupported)
	}
	if !found {
		t.Errorf("warnings = %v, want the Java function", defs.Warnings)
	}
}

// TestFEELErrorsInResult checks that FEEL runtime errors reach
// Result.Errors under the decision, with the value null.
func TestFEELErrorsInResult(t *testing.T) {
	t.Parallel()
	defs := MustParse(t, boxedModel(
		`<decision id="add" name="add">`+lit(`1 + "a"`)+`</decision>`+
			`<decision id="missing" name="missing">`+lit(`{a: 1}.b`)+`</decision>`+
			`<decision id="ok" name="ok">`+lit(`[{a: 1}, {b: 2}].a`)+`</decision>`))
	for _, tt := range []struct{ id, want string }{{"add", "cannot add a number and a string"}, {"missing", `no entry "b"`}} {
		res, _ := defs.Evaluate(tt.id, nil)
		if res.Value != nil || len(res.Errors) != 1 || res.Errors[0].Element != tt.id || !strings.Contains(res.Errors[0].Message, tt.want) {
			t.Errorf("%s: value %v, errors %+v", tt.id, res.Value, res.Errors)
		}
	}
	res, _ := defs.Evaluate("ok", nil)
	if res.Err() != nil || jsonText(t, res.Value) != `[1,null]` {
		t.Errorf("projection: %v %v", res.Value, res.Err())
	}
}
