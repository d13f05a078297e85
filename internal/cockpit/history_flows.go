package cockpit

import "github.com/gobpm/gobpm/internal/runtime"

// flowWords names a flow an element took: by its name ("the flow «Yes,
// big»"), else by the elements it joins ("the flow from Big order? to
// Ship the order", each by name, else id), else by its id. flows are the
// model's sequence flows by id (runtime.Outline.Flows).
func flowWords(id string, names map[string]string, flows map[string]runtime.OutlineFlow) string {
	if n := names[id]; n != "" {
		return "the flow «" + n + "»"
	}
	if end, ok := flows[id]; ok && end.Source != "" && end.Target != "" {
		return "the flow from " + nameOf(end.Source, names) + " to " + nameOf(end.Target, names)
	}
	return "the flow " + id
}
