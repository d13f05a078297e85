package dmn

import (
	"fmt"
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
