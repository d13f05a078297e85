package api

import (
	"math"
	"net/http"

	"github.com/gobpm/gobpm/internal/runtime"
)

// listCompletedTasks handles GET /api/v1/completed-tasks?completedBy=&processKey=&limit=&offset=:
// the user tasks people completed, the latest first. A caller who may not
// read every process sees only the tasks they completed themselves.
func (s *server) listCompletedTasks(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := runtime.CompletedTaskFilter{CompletedBy: q.Get("completedBy"), ProcessKey: q.Get("processKey")}
	limit, err := queryInt(r, "limit", defaultTaskLimit, 1, maxTaskLimit)
	if err != nil {
		return err
	}
	offset, err := queryInt(r, "offset", 0, 0, math.MaxInt32)
	if err != nil {
		return err
	}
	f.Limit, f.Offset = int(limit), int(offset)
	out := CompletedTaskPage{Items: []CompletedTask{}, Limit: f.Limit, Offset: f.Offset}
	if !readsEverything(r) {
		a, _ := actorOf(r)
		if a.User == "" || (f.CompletedBy != "" && f.CompletedBy != a.User) {
			s.writeJSON(w, r, http.StatusOK, out) // nobody's completions are theirs to see
			return nil
		}
		f.CompletedBy = a.User
	}
	rows, total, err := s.svc.CompletedTasks(r.Context(), f)
	if err != nil {
		return err
	}
	out.Total = total
	for _, c := range rows {
		out.Items = append(out.Items, CompletedTask{ID: c.TaskID, InstanceID: string(c.InstanceID), NodeID: c.NodeID, Name: c.Name,
			ProcessKey: c.ProcessKey, BusinessKey: nullable(c.BusinessKey), CompletedBy: c.CompletedBy,
			CreatedAt: timestamp(c.CreatedAt), CompletedAt: timestamp(c.CompletedAt)})
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}
