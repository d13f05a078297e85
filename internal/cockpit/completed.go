package cockpit

import (
	"context"
	"net/http"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// completedTasksPage serves the inbox's "Completed" view: the tasks the
// person completed, or everyone's for someone who may read every process
// (or the process the filter names), the latest first, paged with an
// exact count.
func (h *handler) completedTasksPage(w http.ResponseWriter, r *http.Request, p templates.TasksPage, a runtime.Actor) {
	ctx := r.Context()
	live, err := h.completedInbox(ctx, r, a, p.Filter)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	seen := map[string]string{}
	for _, it := range live.Completed {
		seen[it.ProcessKey] = it.ProcessName
	}
	p.Live = live
	if p.Processes, err = h.inboxProcesses(ctx, r, seen, p.Filter.Process); err != nil {
		h.failErr(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.Tasks(p))
}

// completedInbox reads the page of completed tasks the filter asks for.
func (h *handler) completedInbox(ctx context.Context, r *http.Request, a runtime.Actor, f templates.TaskFilter) (templates.TasksLive, error) {
	live := templates.TasksLive{Paged: templates.TasksCompleted}
	page := max(f.Page, 1)
	cf := runtime.CompletedTaskFilter{ProcessKey: f.Process, Limit: inboxPageSize, Offset: (page - 1) * inboxPageSize}
	live.CompletedByAnyone = h.readsAll(r) || (f.Process != "" && h.may(r, auth.PermRead, auth.KindProcess, f.Process))
	if !live.CompletedByAnyone {
		cf.CompletedBy = a.User
	}
	rows, total, err := h.svc.CompletedTasks(ctx, cf)
	if err != nil {
		return live, err
	}
	names, err := h.processNames(ctx)
	if err != nil {
		return live, err
	}
	live.CompletedTotal = total
	live.Completed = make([]templates.CompletedTaskItem, 0, len(rows))
	for _, c := range rows {
		live.Completed = append(live.Completed, templates.CompletedTaskItem{ID: c.TaskID, Name: c.Name, NodeID: c.NodeID,
			InstanceID: string(c.InstanceID), InstanceNumber: c.InstanceNumber, ProcessKey: c.ProcessKey,
			ProcessName: names[c.ProcessKey], BusinessKey: c.BusinessKey, CompletedBy: c.CompletedBy,
			CompletedAt: c.CompletedAt, CreatedAt: c.CreatedAt})
	}
	if len(rows) > 0 {
		live.First = (page-1)*inboxPageSize + 1
		live.Last = live.First + len(rows) - 1
	}
	at := func(n int) string {
		g := f
		g.Task, g.Page = "", n
		return templates.TasksURL(g)
	}
	if page > 1 {
		live.PrevURL = at(min(page-1, max((total+inboxPageSize-1)/inboxPageSize, 1)))
	}
	if page*inboxPageSize < total {
		live.NextURL = at(page + 1)
	}
	return live, nil
}

// processNames maps each deployed process key to its name.
func (h *handler) processNames(ctx context.Context) (map[string]string, error) {
	defs, err := h.svc.Processes(ctx)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(defs))
	for _, d := range defs {
		names[d.Key] = d.Name
	}
	return names, nil
}
