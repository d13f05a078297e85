package dmn

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseCamundaCellInput checks that an input entry using Camunda 7's
// name for the input value (cellInput, or camunda:inputVariable) is
// refused: gobpm binds no such name, so the rule would never match.
// Naming a model element, or only mentioning the name in a string, is fine.
func TestParseCamundaCellInput(t *testing.T) {
	t.Parallel()
	base, err := os.ReadFile(filepath.Join("testdata", "camunda13.dmn"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, from, to, want string
	}{
		{"declared variable", `<text>"Fall"</text>`, `<text>cellInput = "Fall"</text>`, `rule 1 (row1) input entry 1 "cellInput = \"Fall\"" uses "cellInput"`},
		{"default variable", `<text>&lt;= 8</text>`, `<text>cellInput &lt;= 8</text>`, `uses "cellInput"`},
		{"custom variable", `camunda:inputVariable="cellInput"`, `camunda:inputVariable="season2"`, ""},
		{"in a string", `<text>"Fall"</text>`, `<text>"cellInput"</text>`, ""},
		{"longer name", `<text>&lt;= 8</text>`, `<text>&lt;= cellInputs</text>`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := strings.Replace(string(base), tt.from, tt.to, 1)
			if tt.name == "custom variable" {
				doc = strings.Replace(doc, `<text>"Fall"</text>`, `<text>season2 = "Fall"</text>`, 1)
				tt.want = `uses "season2"`
			}
			_, err := Parse([]byte(doc))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("err = %v, want a ValidationError", err)
			}
			if len(verr.Problems) != 1 || verr.Problems[0].Element != "dish-decision" || verr.Problems[0].Rule != RuleUnsupported ||
				!strings.Contains(verr.Problems[0].Detail, tt.want) || !strings.Contains(verr.Problems[0].Detail, `"?"`) {
				t.Errorf("problems = %+v, want one on dish-decision containing %q", verr.Problems, tt.want)
			}
		})
	}
}

// TestParseNotDMNNamesRoot checks that a wrong root element is named.
func TestParseNotDMNNamesRoot(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte(`<definitions id="d1" xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"/>`))
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Problems) != 1 || verr.Problems[0].Element != "d1" || verr.Problems[0].Rule != RuleNotDMN {
		t.Fatalf("err = %v, want not-dmn naming d1", err)
	}
}
