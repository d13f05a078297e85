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
	if err := readTaskFilters(r, &f); err != nil {
		return err
	}
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
	t, err := s.visibleTask(r, chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, toTask(t))
	return nil
}

// getTaskForm handles GET /api/v1/tasks/{id}/form: the Camunda Form the
// task links (404 when it links none or its form is not deployed), for
// those who may see the task.
func (s *server) getTaskForm(w http.ResponseWriter, r *http.Request) error {
	t, err := s.visibleTask(r, chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	if t.FormID == "" {
		return errorf(kindNotFound, "", "task "+t.ID+" links no form: its inbox form is generated from its variables")
	}
	f, err := s.svc.Form(r.Context(), t.ProcessKey, t.ProcessVersion, t.FormID)
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, TaskForm{ID: f.ID, Resource: f.Resource, Schema: f.Schema})
	return nil
}

// visibleTask returns task id if the caller may see it (mayseeTask). An
// unknown task and one the caller may not see answer the same 404, so a
// task id tells nobody whether it exists.
func (s *server) visibleTask(r *http.Request, id string) (runtime.TaskView, error) {
	t, err := s.svc.Task(r.Context(), id)
	if err != nil {
		return t, taskErr(err, id)
	}
	if ok, err := s.mayseeTask(r, t); err != nil {
		return t, err
	} else if !ok {
		return t, taskNotFound(id)
	}
	return t, nil
}

// mayActOnTask refuses an act on a task the caller may not see with the
// 404 of an unknown task: not the 403 or 409 the act itself would answer,
// which would say that the task exists. A caller who reads every process
// sees every task, so the act answers for itself.
func (s *server) mayActOnTask(r *http.Request, id string) error {
	if readsEverything(r) {
		return nil
	}
	_, err := s.visibleTask(r, id)
	return err
}

// taskNotFound is the 404 of an unknown or invisible task.
func taskNotFound(id string) error {
	return errorf(kindNotFound, "", "task "+id+" not found: it was completed, withdrawn or never existed")
}

// taskErr answers every ENOTFOUND of task id as taskNotFound (one shape
// however the task went missing) and passes other errors on.
func taskErr(err error, id string) error {
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return taskNotFound(id)
	}
	return err
}

// claimTask handles POST /api/v1/tasks/{id}/claim: the acting user becomes
// the assignee. Not a candidate → 403; claimed by someone else → 409;
// for a caller who may not read the task's process either is 404, as for
// an unknown task (mayActOnTask). Claiming one's own task again changes
// nothing.
func (s *server) claimTask(w http.ResponseWriter, r *http.Request) error {
	return s.actOnTask(w, r, s.svc.ClaimTask)
}

// unclaimTask handles POST /api/v1/tasks/{id}/unclaim: the assignee returns
// the task to its candidates. Not the assignee → 403; unclaimed → 409;
// 404 instead for a caller who may neither see the task nor read its
// process.
func (s *server) unclaimTask(w http.ResponseWriter, r *http.Request) error {
	return s.actOnTask(w, r, s.svc.UnclaimTask)
}

// actOnTask runs a claim or unclaim as the acting user and answers the task.
func (s *server) actOnTask(w http.ResponseWriter, r *http.Request, act func(ctx context.Context, id string, a runtime.Actor) (runtime.TaskView, error)) error {
	a, err := requireActor(r)
	if err != nil {
		return err
	}
	id := chi.URLParam(r, "id")
	if err := s.mayActOnTask(r, id); err != nil {
		return err
	}
	t, err := act(r.Context(), id, a)
	if err != nil {
		return taskErr(err, id)
	}
	s.writeJSON(w, r, http.StatusOK, toTask(t))
	return nil
}

// completeTask handles POST /api/v1/tasks/{id}/complete (variablesRequest). Only
// the assignee completes (anyone, for a task with neither assignee nor
// candidates); the form variables merge into the process. A task not
// offered to a caller who may not read its process is 404.
func (s *server) completeTask(w http.ResponseWriter, r *http.Request) error {
	a, err := requireActor(r)
	if err != nil {
		return err
	}
	id := chi.URLParam(r, "id")
	if err := s.mayActOnTask(r, id); err != nil {
		return err
	}
	var q variablesRequest
	if err := s.decodeBody(w, r, &q); err != nil {
		return err
	}
	if err := s.svc.CompleteTask(r.Context(), id, a, q.Variables); err != nil {
		return taskErr(err, id)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
