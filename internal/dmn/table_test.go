package dmn

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// col describes a decision table output for tableModel.
type col struct {
	name, typeRef, values, def string
}

// tableModel builds a DMN 1.5 document with one decision "d" holding a
// decision table. inputs are the input expressions (over plain inputs,
// Camunda style); each rule lists its input entries, then its output
// entries.
func tableModel(hitPolicy, aggregation string, inputs []string, outputs []col, rules [][]string) string {
	var b strings.Builder
	b.WriteString(`<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" id="defs" name="t" namespace="urn:t">` + "\n")
	b.WriteString(`<decision id="d" name="Result">` + "\n")
	fmt.Fprintf(&b, `<decisionTable id="table" hitPolicy=%q`, hitPolicy)
	if aggregation != "" {
		fmt.Fprintf(&b, ` aggregation=%q`, aggregation)
	}
	b.WriteString(">\n")
	for _, in := range inputs {
		fmt.Fprintf(&b, "<input><inputExpression><text>%s</text></inputExpression></input>\n", xmlEscape(in))
	}
	for _, o := range outputs {
		b.WriteString("<output")
		if o.name != "" {
			fmt.Fprintf(&b, " name=%q", o.name)
		}
		if o.typeRef != "" {
			fmt.Fprintf(&b, " typeRef=%q", o.typeRef)
		}
		b.WriteString(">")
		if o.values != "" {
			fmt.Fprintf(&b, "<outputValues><text>%s</text></outputValues>", xmlEscape(o.values))
		}
		if o.def != "" {
			fmt.Fprintf(&b, "<defaultOutputEntry><text>%s</text></defaultOutputEntry>", xmlEscape(o.def))
		}
		b.WriteString("</output>\n")
	}
	for i, r := range rules {
		fmt.Fprintf(&b, `<rule id="r%d">`, i+1)
		for j, e := range r {
			tag := "inputEntry"
			if j >= len(inputs) {
				tag = "outputEntry"
			}
			fmt.Fprintf(&b, "<%s><text>%s</text></%s>", tag, xmlEscape(e), tag)
		}
		b.WriteString("</rule>\n")
	}
	b.WriteString("</decisionTable></decision></definitions>\n")
	return b.String()
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// num is a json.Number literal for expectations.
func num(s string) json.Number { return json.Number(s) }

// sameValue compares JSON-shaped values, numbers by decimal value.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		dx, _, err1 := apd.NewFromString(string(x))
		dy, _, err2 := apd.NewFromString(string(y))
		return err1 == nil && err2 == nil && dx.Cmp(dy) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if !sameValue(x[k], y[k]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func ruleIDs(ms []MatchedRule) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.RuleID)
	}
	return out
}

func TestHitPolicies(t *testing.T) {
	t.Parallel()
	letters := [][]string{{"< 10", `"a"`}, {"< 20", `"b"`}, {">= 20", `"c"`}}
	prio := []col{{values: `"c", "b", "a"`}}
	numbers := [][]string{{"< 10", "1"}, {"< 20", "2"}, {">= 0", "4"}}
	agree := [][]string{{"< 10", `"same"`}, {"< 20", `"same"`}, {">= 20", `"c"`}}
	tests := []struct {
		name        string
		hitPolicy   string
		aggregation string
		outputs     []col
		rules       [][]string
		x           any
		want        any
		matched     []string
		wantErr     string
	}{
		{"unique one match", "UNIQUE", "", nil, letters, 15, "b", []string{"r2"}, ""},
		{"unique violated", "UNIQUE", "", nil, letters, 5, nil, []string{"r1", "r2"}, "UNIQUE violated: rules 1, 2"},
		{"unique no match", "UNIQUE", "", nil, letters, nil, nil, []string{}, ""},
		{"any agreeing", "ANY", "", nil, agree, 5, "same", []string{"r1", "r2"}, ""},
		{"any disagreeing", "ANY", "", nil, letters, 5, nil, []string{"r1", "r2"}, "ANY violated"},
		{"priority", "PRIORITY", "", prio, letters, 5, "b", []string{"r2"}, ""},
		{"priority single", "PRIORITY", "", prio, letters, 25, "c", []string{"r3"}, ""},
		{"first", "FIRST", "", nil, letters, 5, "a", []string{"r1"}, ""},
		{"rule order", "RULE ORDER", "", nil, letters, 5, []any{"a", "b"}, []string{"r1", "r2"}, ""},
		{"output order", "OUTPUT ORDER", "", prio, letters, 5, []any{"b", "a"}, []string{"r2", "r1"}, ""},
		{"collect", "COLLECT", "", nil, letters, 5, []any{"a", "b"}, []string{"r1", "r2"}, ""},
		{"collect sum", "COLLECT", "SUM", nil, numbers, 5, num("7"), []string{"r1", "r2", "r3"}, ""},
		{"collect min", "COLLECT", "MIN", nil, numbers, 5, num("1"), []string{"r1", "r2", "r3"}, ""},
		{"collect max", "COLLECT", "MAX", nil, numbers, 15, num("4"), []string{"r2", "r3"}, ""},
		{"collect count", "COLLECT", "COUNT", nil, numbers, 5, num("3"), []string{"r1", "r2", "r3"}, ""},
		{"collect sum no match", "COLLECT", "SUM", nil, numbers, nil, nil, []string{}, ""},
		{"collect count no match", "COLLECT", "COUNT", nil, numbers, nil, num("0"), []string{}, ""},
		{"default output", "UNIQUE", "", []col{{def: `"none"`}}, letters, nil, "none", []string{}, ""},
		{"default output collect", "COLLECT", "", []col{{def: `"none"`}}, letters, nil, "none", []string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			outs := tt.outputs
			if outs == nil {
				outs = []col{{}}
			}
			defs := MustParse(t, tableModel(tt.hitPolicy, tt.aggregation, []string{"x"}, outs, tt.rules))
			res, err := defs.Evaluate("d", map[string]any{"x": tt.x})
			if err != nil {
				t.Fatal(err)
			}
			if !sameValue(res.Value, tt.want) {
				t.Errorf("value = %#v, want %#v", res.Value, tt.want)
			}
			if got := ruleIDs(res.Matched); !reflect.DeepEqual(got, tt.matched) {
				t.Errorf("matched = %v, want %v", got, tt.matched)
			}
			switch {
			case tt.wantErr == "" && res.Err() != nil:
				t.Errorf("unexpected errors: %v", res.Err())
			case tt.wantErr != "" && (res.Err() == nil || !strings.Contains(res.Err().Error(), tt.wantErr)):
				t.Errorf("errors = %v, want %q", res.Err(), tt.wantErr)
			}
			if tt.wantErr != "" && res.Errors[0].Element != "d" {
				t.Errorf("error element = %q, want d", res.Errors[0].Element)
			}
		})
	}
}

func TestUnaryTestForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		entry string
		in    any
		want  bool
	}{
		{"-", 5, true},
		{"-", nil, true},
		{"", "anything", true},
		{"5", 5, true},
		{"5", 6, false},
		{`"vip"`, "vip", true},
		{`"vip"`, "VIP", false},
		{`"a", "b"`, "b", true},
		{`"a", "b"`, "c", false},
		{"true", true, true},
		{"false", true, false},
		{"< 10", 9.5, true},
		{"< 10", 10, false},
		{"<= 10", 10, true},
		{"> 10", 10, false},
		{">= 10", 10, true},
		{"[1..10]", 1, true},
		{"[1..10]", 10, true},
		{"[1..10]", 11, false},
		{"(1..10]", 1, false},
		{"(1..10]", 10, true},
		{"]1..10[", 10, false},
		{"]1..10[", 5, true},
		{"[1..10)", 10, false},
		{"1, 2, 3", 2, true},
		{"1, 2, 3", 4, false},
		{"< 0, > 100", 101, true},
		{"< 0, > 100", 50, false},
		{"not(1, 2)", 3, true},
		{"not(1, 2)", 1, false},
		{"not([1..5])", 6, true},
		{"? > 5 and ? < 8", 6, true},
		{"? > 5 and ? < 8", 9, false},
		{"? * 2 = 10", 5, true},
		{"< y", 3, true},
		{"< y", 4, false},
		{"null", nil, true},
		{"null", 1, false},
		{`[date("2024-01-01")..date("2024-12-31")]`, "2024-06-30", true},
		{`[date("2024-01-01")..date("2024-12-31")]`, "2025-01-01", false},
		{`starts with(?, "ab")`, "abc", true},
		{`list contains(?, 2)`, []any{1, 2}, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%v", tt.entry, tt.in), func(t *testing.T) {
			t.Parallel()
			expr := "x"
			if strings.Contains(tt.entry, "date(") {
				expr = "date(x)"
			}
			src := tableModel("FIRST", "", []string{expr}, []col{{def: "false"}}, [][]string{{tt.entry, "true"}})
			defs := MustParse(t, src)
			res, err := defs.Evaluate("d", map[string]any{"x": tt.in, "y": 4})
			if err != nil {
				t.Fatal(err)
			}
			if res.Err() != nil {
				t.Fatalf("errors: %v", res.Err())
			}
			if res.Value != tt.want {
				t.Errorf("%q matches %v = %v, want %v", tt.entry, tt.in, res.Value, tt.want)
			}
		})
	}
}

func TestMultipleOutputs(t *testing.T) {
	t.Parallel()
	src := tableModel("RULE ORDER", "", []string{"x"},
		[]col{{name: "Status", typeRef: "string"}, {name: "Rate", typeRef: "number"}},
		[][]string{{"< 10", `"low"`, "1.5"}, {"-", `"any"`, ""}})
	defs := MustParse(t, src)
	res, err := defs.Evaluate("d", map[string]any{"x": 5})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		map[string]any{"Status": "low", "Rate": num("1.5")},
		map[string]any{"Status": "any", "Rate": nil},
	}
	if !sameValue(res.Value, want) {
		t.Errorf("value = %#v, want %#v", res.Value, want)
	}
	if len(res.Entries) != 2 || res.Entries[0]["Status"] != "low" || res.Entries[1]["Rate"] != nil {
		t.Errorf("entries = %#v", res.Entries)
	}
	// An output of the wrong type is null with an error.
	src = tableModel("FIRST", "", []string{"x"}, []col{{name: "n", typeRef: "number"}}, [][]string{{"-", `"text"`}})
	res, _ = MustParse(t, src).Evaluate("d", map[string]any{"x": 1})
	if res.Value != nil || res.Err() == nil || !strings.Contains(res.Err().Error(), "is not a number") {
		t.Errorf("value = %v, errors = %v", res.Value, res.Err())
	}
}

func TestTableInputChecks(t *testing.T) {
	t.Parallel()
	src := `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" id="defs" namespace="urn:t">
<decision id="d" name="d"><decisionTable>
  <input><inputExpression typeRef="string"><text>x</text></inputExpression><inputValues><text>"a", "b"</text></inputValues></input>
  <output/>
  <rule id="r1"><inputEntry><text>-</text></inputEntry><outputEntry><text>"hit"</text></outputEntry></rule>
</decisionTable></decision></definitions>`
	defs := MustParse(t, src)
	for _, tt := range []struct {
		x       any
		want    any
		wantErr string
	}{
		{"a", "hit", ""},
		{"c", nil, "not among its input values"},
		{42, nil, "is not a string"},
		{nil, "hit", ""},
	} {
		res, err := defs.Evaluate("d", map[string]any{"x": tt.x})
		if err != nil {
			t.Fatal(err)
		}
		if res.Value != tt.want {
			t.Errorf("x=%v: value = %v, want %v", tt.x, res.Value, tt.want)
		}
		if (tt.wantErr == "") != (res.Err() == nil) || (tt.wantErr != "" && !strings.Contains(res.Err().Error(), tt.wantErr)) {
			t.Errorf("x=%v: errors = %v, want %q", tt.x, res.Err(), tt.wantErr)
		}
	}
}

func TestSplitTests(t *testing.T) {
	t.Parallel()
	got := splitTests(`"a, b", [1..2], f(1, 2), "c\"d"`)
	want := []string{`"a, b"`, `[1..2]`, `f(1, 2)`, `"c\"d"`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("splitTests = %q, want %q", got, want)
	}
}
