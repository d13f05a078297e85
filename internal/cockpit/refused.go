package cockpit

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// refusedModel picks the uploaded BPMN file to draw beside a refusal: the
// first with a problem naming one of its elements (nil when none does).
// Its problems' elements are marked on the diagram.
func refusedModel(files []runtime.File, problems []runtime.Problem) *templates.RefusedModel {
	for _, f := range files {
		ext := strings.ToLower(path.Ext(f.Name))
		if ext != ".bpmn" && ext != ".xml" {
			continue
		}
		ids := idsInDocument(f.Content, "")
		type marked struct {
			ID     string `json:"id"`
			Detail string `json:"detail"`
		}
		var marks []marked
		for _, pr := range problems {
			if pr.Resource == f.Name && ids[pr.Element] {
				marks = append(marks, marked{ID: pr.Element, Detail: pr.Rule + ": " + pr.Detail})
			}
		}
		if len(marks) == 0 {
			continue
		}
		state, _ := json.Marshal(struct {
			Elements []struct{} `json:"elements"`
			Problems []marked   `json:"problems"`
		}{Elements: []struct{}{}, Problems: marks})
		return &templates.RefusedModel{Name: f.Name, XML: string(f.Content), HasDiagram: hasDiagram(f.Content), State: string(state)}
	}
	return nil
}
