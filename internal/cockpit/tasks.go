package cockpit

import (
	"context"
	"net/http"
	"slices"
	"sort"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// inboxLimit caps each task query of the inbox.
const inboxLimit = 500

func (h *handler) tasks(w http.ResponseWriter, r *http.Request) {
	p := templates.TasksPage{Layout: h.layout(w, r, "Tasks", templates.NavTasks)}
	a := h.actor(r)
	if a.User == "" {
		p.Live.NoUser = true
	} else {
		inbox, err := h.inbox(r.Context(), a)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		p.Live = inbox
	}
	h.render(w, r, http.StatusOK, templates.Tasks(p))
}

// inbox gathers the tasks of a: assigned to the user, and claimable — offered
// to the user or one of the groups, or to anyone (no candidates). What the
// user may do with each follows the runtime's claim rules; the runtime
// still decides when the user acts.
func (h *handler) inbox(ctx context.Context, a runtime.Actor) (templates.TasksLive, error) {
	var live templates.TasksLive
	seen := map[string]bool{}
	add := func(f runtime.TaskFilter) error {
		f.Limit = inboxLimit
		ts, _, err := h.svc.Tasks(ctx, f)
		if err != nil {
			return err
		}
		for _, t := range ts {
			if seen[t.ID] {
				continue
			}
			seen[t.ID] = true
			it := taskItem(t, a)
			switch {
			case t.Assignee == a.User:
				live.Assigned = append(live.Assigned, it)
			case t.Assignee == "" && it.CanClaim:
				live.Claimable = append(live.Claimable, it)
			}
		}
		return nil
	}
	filters := []runtime.TaskFilter{{Assignee: a.User}, {CandidateUser: a.User}}
	for _, g := range a.Groups {
		filters = append(filters, runtime.TaskFilter{CandidateGroup: g})
	}
	filters = append(filters, runtime.TaskFilter{}) // tasks open to anyone
	for _, f := range filters {
		if err := add(f); err != nil {
			return live, err
		}
	}
	byAge := func(s []templates.TaskItem) {
		sort.SliceStable(s, func(i, j int) bool { return s[i].CreatedAt.Before(s[j].CreatedAt) })
	}
	byAge(live.Assigned)
	byAge(live.Claimable)
	return live, nil
}

// taskItem maps a task with what a may do with it, by the runtime's rules:
// a candidate (anyone when there are none) claims an unassigned task, the
// assignee unclaims and completes, and anyone completes a task with neither.
func taskItem(t runtime.TaskView, a runtime.Actor) templates.TaskItem {
	open := len(t.CandidateUsers) == 0 && len(t.CandidateGroups) == 0
	candidate := open || slices.Contains(t.CandidateUsers, a.User)
	for _, g := range a.Groups {
		candidate = candidate || slices.Contains(t.CandidateGroups, g)
	}
	return templates.TaskItem{
		ID: t.ID, Name: t.Name, NodeID: t.NodeID, InstanceID: string(t.InstanceID), Assignee: t.Assignee,
		CandidateUsers: t.CandidateUsers, CandidateGroups: t.CandidateGroups, CreatedAt: t.CreatedAt, DueAt: t.DueAt,
		CanClaim:    t.Assignee == "" && candidate,
		CanUnclaim:  t.Assignee != "" && t.Assignee == a.User,
		CanComplete: (t.Assignee != "" && t.Assignee == a.User) || (t.Assignee == "" && open),
	}
}

// requireUser refuses an act on a task without an acting user.
func (h *handler) requireUser(w http.ResponseWriter, r *http.Request) (runtime.Actor, bool) {
	a := h.actor(r)
	if a.User == "" {
		h.done(w, r, templates.RouteTasks, "error", "Choose who you are acting as (top right) before working on tasks.")
		return a, false
	}
	return a, true
}

func (h *handler) claim(w http.ResponseWriter, r *http.Request) {
	a, ok := h.requireUser(w, r)
	if !ok {
		return
	}
	t, err := h.svc.ClaimTask(r.Context(), chi.URLParam(r, "id"), a)
	if err != nil {
		h.actFailed(w, r, templates.RouteTasks, err)
		return
	}
	h.done(w, r, templates.RouteTasks, "ok", "You claimed "+taskName(t)+".")
}

func (h *handler) unclaim(w http.ResponseWriter, r *http.Request) {
	a, ok := h.requireUser(w, r)
	if !ok {
		return
	}
	t, err := h.svc.UnclaimTask(r.Context(), chi.URLParam(r, "id"), a)
	if err != nil {
		h.actFailed(w, r, templates.RouteTasks, err)
		return
	}
	h.done(w, r, templates.RouteTasks, "ok", "You gave back "+taskName(t)+".")
}

func (h *handler) complete(w http.ResponseWriter, r *http.Request) {
	a, ok := h.requireUser(w, r)
	if !ok {
		return
	}
	id := chi.URLParam(r, "id")
	vars, err := parseVariables(r.PostFormValue("variables"))
	if err != nil {
		h.done(w, r, templates.RouteTasks, "error", err.Error())
		return
	}
	if err := h.svc.CompleteTask(r.Context(), id, a, vars); err != nil {
		h.actFailed(w, r, templates.RouteTasks, err)
		return
	}
	h.done(w, r, templates.RouteTasks, "ok", "Task completed; the instance moved on.")
}

func taskName(t runtime.TaskView) string {
	if t.Name != "" {
		return "“" + t.Name + "”"
	}
	return "task " + t.NodeID
}
