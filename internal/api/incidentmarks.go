package api

import (
	"net/http"

	"github.com/gobpm/gobpm/internal/runtime"
)

// markIncidents sets Incident and IncidentsInTree on a page of instance
// summaries with one lookup for the whole page.
func (s *server) markIncidents(r *http.Request, items []InstanceSummary) error {
	if len(items) == 0 {
		return nil
	}
	ids := make([]runtime.InstanceID, len(items))
	for i, it := range items {
		ids[i] = runtime.InstanceID(it.ID)
	}
	marks, err := s.svc.IncidentMarks(r.Context(), ids)
	if err != nil {
		return err
	}
	for i := range items {
		m := marks[ids[i]]
		items[i].Incident, items[i].IncidentsInTree = m.Own, m.InTree
	}
	return nil
}

// writeInstance answers with the full picture of an instance, its
// incident marks included.
func (s *server) writeInstance(w http.ResponseWriter, r *http.Request, status int, view runtime.InstanceView) error {
	out := toInstance(view)
	page := []InstanceSummary{out.InstanceSummary}
	if err := s.markIncidents(r, page); err != nil {
		return err
	}
	out.InstanceSummary = page[0]
	s.writeJSON(w, r, status, out)
	return nil
}
