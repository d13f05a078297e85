package camunda7

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Instances is what the process instance endpoints need from the
// runtime; *runtime.Runtime implements it.
type Instances interface {
	// ListInstances returns a page of instances matching f and the total.
	ListInstances(ctx context.Context, f runtime.InstanceFilter) ([]runtime.InstanceRow, int, error)
	// Cancel terminates an instance; ENOTFOUND if absent, ECONFLICT if it
	// already ended.
	Cancel(ctx context.Context, id runtime.InstanceID) (runtime.InstanceView, error)
}

// maxInstanceScan bounds the instances GET /process-instance reads per
// status (running, failed).
const maxInstanceScan = 1000

// noInstance is Camunda 7's 404 for an unknown (or ended) instance.
func noInstance(id string) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeNotFound, Msg: fmt.Sprintf("Process instance with id %s does not exist", id)}
}

// listInstances handles GET /process-instance: the running instances (an
// instance with an open incident runs too), oldest first; filters
// processDefinitionKey, processDefinitionId, businessKey,
// processInstanceIds (comma-separated); paging firstResult, maxResults.
// Only instances of processes the caller may read.
func (h *handler) listInstances(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := runtime.InstanceFilter{ProcessKey: q.Get("processDefinitionKey"), BusinessKey: q.Get("businessKey"), Limit: maxInstanceScan, Ascending: true}
	var ids []string
	if v := q.Get("processInstanceIds"); v != "" {
		ids = strings.Split(v, ",")
	}
	defID := q.Get("processDefinitionId")
	var rows []runtime.InstanceRow
	for _, status := range []string{runtime.StatusRunning, runtime.StatusFailed} {
		f.Status = status
		page, _, err := h.svc.ListInstances(r.Context(), f)
		if err != nil {
			return err
		}
		rows = append(rows, page...)
	}
	rows = slices.DeleteFunc(rows, func(row runtime.InstanceRow) bool {
		return !h.mayRead(r, row.ProcessKey) || (ids != nil && !slices.Contains(ids, string(row.ID))) ||
			(defID != "" && definitionID(row.ProcessKey, row.ProcessVersion) != defID)
	})
	slices.SortStableFunc(rows, func(a, b runtime.InstanceRow) int { return a.CreatedAt.Compare(b.CreatedAt) })
	first, err := queryInt(q.Get("firstResult"), "firstResult", 0)
	if err != nil {
		return err
	}
	max, err := queryInt(q.Get("maxResults"), "maxResults", len(rows))
	if err != nil {
		return err
	}
	out := []ProcessInstance{}
	for i := first; i < len(rows) && len(out) < max; i++ {
		out = append(out, toProcessInstance(r, rows[i]))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// runningInstance resolves {id} to a running instance the caller may
// read; an ended one is unknown, as in Camunda 7's runtime.
func (h *handler) runningInstance(r *http.Request) (runtime.InstanceView, error) {
	id := chi.URLParam(r, "id")
	view, err := h.svc.Instance(r.Context(), runtime.InstanceID(id))
	if runtime.ErrorCode(err) == runtime.ENOTFOUND || (err == nil && (!h.mayRead(r, view.ProcessKey) || ended(view.InstanceRow))) {
		return runtime.InstanceView{}, noInstance(id)
	}
	return view, err
}

// ended reports whether an instance completed or was cancelled.
func ended(row runtime.InstanceRow) bool {
	return row.Status == runtime.StatusCompleted || row.Status == runtime.StatusTerminated
}

// getInstance handles GET /process-instance/{id}.
func (h *handler) getInstance(w http.ResponseWriter, r *http.Request) error {
	view, err := h.runningInstance(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toProcessInstance(r, view.InstanceRow))
	return nil
}

// instanceVariables handles GET /process-instance/{id}/variables: the
// instance's top-level variables, typed.
func (h *handler) instanceVariables(w http.ResponseWriter, r *http.Request) error {
	view, err := h.runningInstance(r)
	if err != nil {
		return err
	}
	vars, err := ToTypedMap(view.Variables)
	if err != nil {
		return err
	}
	if vars == nil {
		vars = map[string]TypedValue{}
	}
	writeJSON(w, http.StatusOK, vars)
	return nil
}

// deleteInstance handles DELETE /process-instance/{id}: the instance is
// cancelled (gobpm keeps it, terminated, in its history), which needs
// operate on its process, as POST /api/v1/instances/{id}/cancel. 204.
func (h *handler) deleteInstance(w http.ResponseWriter, r *http.Request) error {
	view, err := h.runningInstance(r)
	if err != nil {
		return err
	}
	if h.guard != nil && !h.guard.MayOperate(r, view.ProcessKey) {
		return &Error{Status: http.StatusForbidden, Type: TypeAuthorization, Msg: fmt.Sprintf("the user may not cancel instances of process %s", view.ProcessKey)}
	}
	if _, err := h.svc.Cancel(r.Context(), view.ID); err != nil {
		if code := runtime.ErrorCode(err); code == runtime.ENOTFOUND || code == runtime.ECONFLICT {
			return noInstance(string(view.ID))
		}
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
