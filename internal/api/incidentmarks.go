package api

import (
	"net/http"
	"slices"

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
//
// An instance that called nothing (most answers of a start, a job's
// instance) has nothing below it: its marks come from its own incidents,
// without a query — the start answer stays a step's cost.
func (s *server) writeInstance(w http.ResponseWriter, r *http.Request, status int, view runtime.InstanceView) error {
	out, err := s.instanceBody(r, view)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, status, out)
	return nil
}

// instanceBody is the answer of GET /api/v1/instances/{id} for view: links
// the caller may not read hidden, incident marks set.
func (s *server) instanceBody(r *http.Request, view runtime.InstanceView) (Instance, error) {
	if err := s.hideUnreadableLinks(r, &view); err != nil {
		return Instance{}, err
	}
	out := toInstance(view)
	if len(view.Children) == 0 {
		out.IncidentsInTree = false
		out.Incident = slices.ContainsFunc(view.Incidents, func(in runtime.IncidentRow) bool { return in.ResolvedAt.IsZero() })
		return out, nil
	}
	page := []InstanceSummary{out.InstanceSummary}
	if err := s.markIncidents(r, page); err != nil {
		return Instance{}, err
	}
	out.InstanceSummary = page[0]
	return out, nil
}
