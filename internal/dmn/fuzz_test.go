package dmn

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no document makes Parse panic, and that every
// decision of a document that parses evaluates without panicking.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.dmn"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(typedModel))
	f.Add([]byte(serviceModel))
	f.Add([]byte(importingModel))
	f.Add([]byte(boxedModel(`<decision id="f" name="f"><for iteratorVariable="x"><in>` + lit(`xs`) + `</in><return>` + lit(`x + 1`) + `</return></for></decision>`)))
	f.Add([]byte(tableModel("COLLECT", "SUM", []string{"x"}, []col{{}}, [][]string{{"< 10", "1"}, {"-", "2"}})))
	f.Add([]byte(tableModel("PRIORITY", "", []string{"x", "y"}, []col{{name: "a", values: `"x","y"`}, {name: "b"}},
		[][]string{{"[1..2]", "not(3)", `"x"`, "1"}, {"-", "? > y", `"y"`, "2"}})))
	f.Add([]byte(`<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/"/>`))
	f.Add([]byte(`<?xml version="1.0" encoding="UTF-16"?><a/>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defs, err := Parse(data)
		if err != nil {
			if defs != nil {
				t.Fatal("Parse returned both a model and an error")
			}
			return
		}
		inputs := map[string]any{"x": 5, "y": "y", "Applicant": map[string]any{"age": 30}, "day": "2024-01-01", "xs": []any{1, 2}}
		for _, d := range defs.Decisions {
			if d.ID == "" && d.Name == "" {
				continue // nothing to name it by
			}
			if _, err := defs.EvaluateRequest(Request{Decision: elementOr(d.ID, d.Name), Inputs: inputs}); err != nil {
				t.Fatalf("Evaluate(%s): %v", d.ID, err)
			}
		}
		for _, s := range defs.DecisionServices {
			if s.ID == "" && s.Name == "" {
				continue
			}
			if _, err := defs.EvaluateRequest(Request{Service: elementOr(s.ID, s.Name), Inputs: inputs}); err != nil {
				t.Fatalf("Evaluate(%s): %v", s.ID, err)
			}
		}
	})
}
