package api

import (
	"context"
	"math"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Task paging bounds.
const (
	defaultTaskLimit = 50
	maxTaskLimit     = 500
)

// listTasks handles GET /api/v1/tasks?assignee=&candidateUser=&candidateGroup=&instanceId=&limit=&offset=.
// The filters say whose inbox to show. A caller who may not read every
// process sees only the tasks offered to them, whatever the filters.
func (s *server) listTasks(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := runtime.TaskFilter{
		Assignee:       q.Get("assignee"),
		CandidateUser:  q.Get("candidateUser"),
		CandidateGroup: q.Get("candidateGroup"),
		InstanceID:     runtime.InstanceID(q.Get("instanceId")),
	}
	limit, err := queryInt(r, "limit", defaultTaskLimit, 1, maxTaskLimit)
	if err != nil {
		return err
	}
	offset, err := queryInt(r, "offset", 0, 0, math.MaxInt32)
	if err != nil {
		return err
	}
	f.Limit, f.Offset = int(limit), int(offset)
	if !readsEverything(r) {
		a, _ := actorOf(r)
		f.OfferedTo = &a
	}

	tasks, total, err := s.svc.Tasks(r.Context(), f)
	if err != nil {
		return err
	}
	out := TaskPage{Items: make([]Task, 0, len(tasks)), Total: total, Limit: f.Limit, Offset: f.Offset}
	for _, t := range tasks {
		out.Items = append(out.Items, toTask(t))
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// getTask handles GET /api/v1/tasks/{id}: for the people it is offered to
// and for whoever may read its process; for anyone else it does not exist
// (404, not a hint that it does).
func (s *server) getTask(w http.ResponseWriter, r *http.Request) error {
	t, err := s.svc.Task(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	if ok, err := s.mayseeTask(r, t); err != nil {
		return err
	} else if !ok {
		return errorf(kindNotFound, "", "task "+t.ID+" not found")
	}
	s.writeJSON(w, r, http.StatusOK, toTask(t))
	return nil
}

// claimTask handles POST /api/v1/tasks/{id}/claim: the acting user becomes
// the assignee. Not a candidate → 403; claimed by someone else → 409.
// Claiming one's own task again changes nothing.
func (s *server) claimTask(w http.ResponseWriter, r *http.Request) error {
	return s.actOnTask(w, r, s.svc.ClaimTask)
}

// unclaimTask handles POST /api/v1/tasks/{id}/unclaim: the assignee returns
// the task to its candidates. Not the assignee → 403; unclaimed → 409.
func (s *server) unclaimTask(w http.ResponseWriter, r *http.Request) error {
	return s.actOnTask(w, r, s.svc.UnclaimTask)
}

// actOnTask runs a claim or unclaim as the acting user and answers the task.
func (s *server) actOnTask(w http.ResponseWriter, r *http.Request, act func(ctx context.Context, id string, a runtime.Actor) (runtime.TaskView, error)) error {
	a, err := requireActor(r)
	if err != nil {
		return err
	}
	t, err := act(r.Context(), chi.URLParam(r, "id"), a)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, toTask(t))
	return nil
}

// completeTask handles POST /api/v1/tasks/{id}/complete: {variables?}. Only
// the assignee completes (anyone, for a task with neither assignee nor
// candidates); the form variables merge into the process.
func (s *server) completeTask(w http.ResponseWriter, r *http.Request) error {
	a, err := requireActor(r)
	if err != nil {
		return err
	}
	members, err := s.readJSONObject(w, r)
	if err != nil {
		return err
	}
	vs, err := objectField(members, "variables")
	if err != nil {
		return err
	}
	if err := s.svc.CompleteTask(r.Context(), chi.URLParam(r, "id"), a, vs); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
