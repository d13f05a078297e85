package api_test

import (
	"context"

	"github.com/gobpm/gobpm/internal/runtime"
)

// IncidentMarks walks up from every instance with an open incident, as
// the store does.
func (f *fakeService) IncidentMarks(_ context.Context, ids []runtime.InstanceID) (map[runtime.InstanceID]runtime.IncidentMark, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	want := map[runtime.InstanceID]bool{}
	for _, id := range ids {
		want[id] = true
	}
	out := map[runtime.InstanceID]runtime.IncidentMark{}
	for _, id := range f.order {
		open := false
		for _, inc := range f.instances[id].Incidents {
			open = open || inc.ResolvedAt.IsZero()
		}
		if !open {
			continue
		}
		for depth, cur := 0, id; cur != "" && depth < 1000; depth++ {
			if want[cur] {
				m := out[cur]
				m.Own, m.InTree = m.Own || depth == 0, m.InTree || depth > 0
				out[cur] = m
			}
			v, ok := f.instances[cur]
			if !ok {
				break
			}
			cur = v.ParentID
		}
	}
	return out, nil
}
