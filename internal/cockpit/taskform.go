package cockpit

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/gobpm/gobpm/web/templates"
)

// formComponent is one field of a generated Camunda Form.
type formComponent struct {
	Type     string         `json:"type"`
	ID       string         `json:"id"`
	Key      string         `json:"key,omitempty"`
	Label    string         `json:"label,omitempty"`
	Text     string         `json:"text,omitempty"`
	Validate map[string]any `json:"validate,omitempty"`
}

// generatedForm builds a Camunda Form for a task without one: a field for
// each variable the task sees whose value a field can hold (a checkbox
// for a boolean, a number field for a number, a text field for a string),
// prefilled with it, and a required field for each declared output it
// does not see yet. Lists and objects stay in the variables table.
func generatedForm(title string, vars map[string]any, outputs []string) []byte {
	comps := []formComponent{}
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	declared := map[string]bool{}
	for _, o := range outputs {
		declared[o] = true
	}
	for _, k := range names {
		c := formComponent{ID: "field_" + k, Key: k, Label: k}
		switch v := vars[k].(type) {
		case bool:
			c.Type = "checkbox"
		case json.Number, float64, int, int64:
			c.Type = "number"
		case string:
			c.Type = "textfield"
			if len(v) > 80 || strings.Contains(v, "\n") {
				c.Type = "textarea"
			}
		default:
			continue
		}
		if declared[k] {
			c.Validate = map[string]any{"required": true}
		}
		comps = append(comps, c)
	}
	for _, o := range outputs {
		if _, seen := vars[o]; !seen {
			comps = append(comps, formComponent{Type: "textfield", ID: "field_" + o, Key: o, Label: o, Validate: map[string]any{"required": true}})
		}
	}
	if len(comps) == 0 {
		comps = append(comps, formComponent{Type: "text", ID: "nothing", Text: "Nothing to fill in: complete the task when it is done."})
	}
	schema := struct {
		ID         string          `json:"id"`
		Type       string          `json:"type"`
		Components []formComponent `json:"components"`
	}{ID: "gobpm-generated", Type: "default", Components: comps}
	b, _ := json.Marshal(schema)
	return b
}

// formData is the variables a form is filled with, as JSON.
func formData(vars map[string]any) string {
	if len(vars) == 0 {
		return "{}"
	}
	b, err := json.Marshal(vars)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// varRows shows variables as a readable table: strings as text, other
// values as JSON.
func varRows(vars map[string]any) []templates.VarItem {
	items := varItems(vars)
	for i, it := range items {
		if s, ok := vars[it.Name].(string); ok {
			items[i].Value = s
		}
	}
	return items
}
