package cockpit

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// inboxLimit caps each task query of the inbox.
const inboxLimit = 500

func (h *handler) tasks(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := templates.TaskFilter{Show: q.Get("show"), Process: q.Get("process"), Due: q.Get("due"), Sort: q.Get("sort"), Task: q.Get("task")}
	if !oneOf(f.Show, "", templates.TasksMine, templates.TasksGroups, templates.TasksUnassigned) ||
		!oneOf(f.Due, "", templates.DueOverdue, templates.DueToday, templates.DueWeek) ||
		!oneOf(f.Sort, templates.SortOldest, templates.SortNewest, templates.SortDue) {
		h.fail(w, r, http.StatusBadRequest, "The inbox filter is not one the page offers: show mine, groups or unassigned; due overdue, today or week; sort newest or due.")
		return
	}
	p := templates.TasksPage{Layout: h.layout(w, r, "Tasks", templates.NavTasks), Filter: f}
	a := h.actor(r)
	if a.User == "" {
		p.Live.NoUser = true
		h.render(w, r, http.StatusOK, templates.Tasks(p))
		return
	}
	ctx := r.Context()
	inbox, err := h.inbox(ctx, a)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	if err := h.describeTasks(ctx, inbox.Assigned, inbox.Claimable); err != nil {
		h.failErr(w, r, err)
		return
	}
	now := h.svc.Clock().Now
	seen := map[string]string{}
	var open *templates.TaskItem
	keep := func(items []templates.TaskItem) []templates.TaskItem {
		var out []templates.TaskItem
		for _, it := range items {
			it.Age = age(now.Sub(it.CreatedAt))
			it.Overdue = !it.DueAt.IsZero() && it.DueAt.Before(now)
			opened := f
			opened.Task = it.ID
			it.OpenURL = templates.TasksURL(opened)
			seen[it.ProcessKey] = it.ProcessName
			if it.ID == f.Task {
				cp := it
				open = &cp
			}
			if !taskMatches(f, it, a, now) {
				p.Live.Hidden++
				continue
			}
			out = append(out, it)
		}
		sortTasks(out, f.Sort)
		return out
	}
	p.Live.Assigned, p.Live.Claimable = keep(inbox.Assigned), keep(inbox.Claimable)
	for key, name := range seen {
		p.Processes = append(p.Processes, templates.ProcessOption{Key: key, Name: name})
	}
	sort.Slice(p.Processes, func(i, j int) bool { return p.Processes[i].Key < p.Processes[j].Key })
	if open != nil && !isLivePoll(r) {
		back := f
		back.Task = ""
		if p.Open, err = h.taskDetail(ctx, *open, templates.TasksURL(back)); err != nil {
			h.failErr(w, r, err)
			return
		}
	}
	h.render(w, r, http.StatusOK, templates.Tasks(p))
}

// oneOf reports whether s is one of the allowed values.
func oneOf(s string, allowed ...string) bool { return slices.Contains(allowed, s) }

// taskMatches reports whether a task passes the inbox filter.
func taskMatches(f templates.TaskFilter, it templates.TaskItem, a runtime.Actor, now time.Time) bool {
	switch f.Show {
	case templates.TasksMine:
		if it.Assignee != a.User {
			return false
		}
	case templates.TasksGroups:
		mine := false
		for _, g := range a.Groups {
			mine = mine || slices.Contains(it.CandidateGroups, g)
		}
		if it.Assignee != "" || !mine {
			return false
		}
	case templates.TasksUnassigned:
		if it.Assignee != "" {
			return false
		}
	}
	if f.Process != "" && it.ProcessKey != f.Process {
		return false
	}
	y, m, d := now.Date()
	endOfDay := time.Date(y, m, d+1, 0, 0, 0, 0, now.Location())
	switch f.Due {
	case templates.DueOverdue:
		return it.Overdue
	case templates.DueToday:
		return !it.DueAt.IsZero() && it.DueAt.Before(endOfDay)
	case templates.DueWeek:
		return !it.DueAt.IsZero() && it.DueAt.Before(endOfDay.AddDate(0, 0, 6))
	}
	return true
}

// sortTasks orders the inbox: oldest first (the default), newest first,
// or by due date (tasks without one last), the oldest first on a tie.
func sortTasks(items []templates.TaskItem, by string) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		switch by {
		case templates.SortNewest:
			return a.CreatedAt.After(b.CreatedAt)
		case templates.SortDue:
			if a.DueAt.IsZero() != b.DueAt.IsZero() {
				return !a.DueAt.IsZero()
			}
			if !a.DueAt.Equal(b.DueAt) {
				return a.DueAt.Before(b.DueAt)
			}
		}
		return a.CreatedAt.Before(b.CreatedAt)
	})
}

// age says how long a task has waited, roughly: "just now", "5 minutes",
// "3 hours", "2 days".
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return counted(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return counted(int(d/time.Hour), "hour")
	}
	return counted(int(d/(24*time.Hour)), "day")
}

// describeTasks fills each task's process, its name and the business key
// of its instance: one read of the instances for the whole inbox.
func (h *handler) describeTasks(ctx context.Context, lists ...[]templates.TaskItem) error {
	var ids []runtime.InstanceID
	for _, l := range lists {
		for _, it := range l {
			ids = append(ids, runtime.InstanceID(it.InstanceID))
		}
	}
	rows, err := h.svc.InstanceRows(ctx, ids)
	if err != nil {
		return err
	}
	defs, err := h.svc.Processes(ctx)
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, d := range defs {
		names[d.Key] = d.Name
	}
	for _, l := range lists {
		for i := range l {
			row := rows[runtime.InstanceID(l[i].InstanceID)]
			l[i].ProcessKey, l[i].BusinessKey, l[i].ProcessName = row.ProcessKey, row.BusinessKey, names[row.ProcessKey]
			l[i].InstanceNumber = row.Number
		}
	}
	return nil
}

// taskDetail reads what the opened task shows: the variables it sees (its
// scope's and those above it) and the form that completes it — the
// Camunda Form its model links, else one generated from those variables
// and the task's declared outputs.
func (h *handler) taskDetail(ctx context.Context, it templates.TaskItem, back string) (*templates.TaskDetail, error) {
	d := &templates.TaskDetail{TaskItem: it, Return: it.OpenURL, Back: back}
	id := runtime.InstanceID(it.InstanceID)
	v, err := h.svc.Instance(ctx, id)
	if err != nil {
		return nil, err
	}
	wait, err := h.taskWait(ctx, id, it.ID)
	if err != nil {
		return nil, err
	}
	vars := visibleVars(v, wait.ScopeID)
	d.Variables = varRows(vars)
	def, err := h.svc.Definition(ctx, v.ProcessKey, v.ProcessVersion)
	if err != nil {
		return nil, err
	}
	link := taskFormOf(def.XML, it.NodeID)
	if link.FormID != "" {
		form, err := h.svc.Form(ctx, v.ProcessKey, v.ProcessVersion, link.FormID)
		switch {
		case err == nil:
			d.FormSchema, d.FormID, d.FormResource = string(form.Schema), form.ID, form.Resource
		case runtime.ErrorCode(err) == runtime.ENOTFOUND:
			d.FormMissing = link.FormID
		default:
			return nil, err
		}
	}
	if d.FormSchema == "" {
		d.FormSchema, d.Generated = string(generatedForm(it.Name, vars, link.Outputs)), true
	}
	d.FormData = formData(vars)
	return d, nil
}

// maxWaitPages bounds the pages of waits read to find a task's own.
const maxWaitPages = 100

// taskWait finds the wait row of a task among its instance's waits.
func (h *handler) taskWait(ctx context.Context, id runtime.InstanceID, taskID string) (runtime.WaitRow, error) {
	after := ""
	for page := 0; page < maxWaitPages; page++ {
		rows, next, err := h.svc.Waits(ctx, id, after, runtime.ViewLimit)
		if err != nil {
			return runtime.WaitRow{}, err
		}
		for _, w := range rows {
			if w.ID == taskID {
				return w, nil
			}
		}
		if next == "" {
			break
		}
		after = next
	}
	return runtime.WaitRow{}, &runtime.Error{Code: runtime.ENOTFOUND, Message: "task " + taskID + " is no longer open"}
}

// visibleVars merges the variables a scope sees: the root's, then each
// scope down to it, an inner one hiding an outer one of the same name.
func visibleVars(v runtime.InstanceView, scopeID string) map[string]any {
	byID := map[string]runtime.ScopeView{}
	for _, s := range v.Scopes {
		byID[s.ID] = s
	}
	var chain []runtime.ScopeView
	for id, n := scopeID, 0; id != "" && n < maxTraceDepth; n++ {
		s, ok := byID[id]
		if !ok {
			break
		}
		chain = append(chain, s)
		id = s.ParentID
	}
	out := map[string]any{}
	for k, val := range v.Variables {
		out[k] = val
	}
	for i := len(chain) - 1; i >= 0; i-- {
		for k, val := range chain[i].Variables {
			out[k] = val
		}
	}
	return out
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
	to := localPath(r.PostFormValue("return"), templates.RouteTasks)
	t, err := h.svc.ClaimTask(r.Context(), chi.URLParam(r, "id"), a)
	if err != nil {
		h.actFailed(w, r, to, err)
		return
	}
	h.done(w, r, to, "ok", "You claimed "+taskName(t)+".")
}

func (h *handler) unclaim(w http.ResponseWriter, r *http.Request) {
	a, ok := h.requireUser(w, r)
	if !ok {
		return
	}
	to := localPath(r.PostFormValue("return"), templates.RouteTasks)
	t, err := h.svc.UnclaimTask(r.Context(), chi.URLParam(r, "id"), a)
	if err != nil {
		h.actFailed(w, r, to, err)
		return
	}
	h.done(w, r, to, "ok", "You gave back "+taskName(t)+".")
}

func (h *handler) complete(w http.ResponseWriter, r *http.Request) {
	a, ok := h.requireUser(w, r)
	if !ok {
		return
	}
	id := chi.URLParam(r, "id")
	to := localPath(r.PostFormValue("return"), templates.RouteTasks)
	vars, err := parseVariables(r.PostFormValue("variables"))
	if err != nil {
		h.done(w, r, to, "error", err.Error())
		return
	}
	if err := h.svc.CompleteTask(r.Context(), id, a, vars); err != nil {
		h.actFailed(w, r, to, err)
		return
	}
	h.done(w, r, to, "ok", "Task completed; the instance moved on.")
}

func taskName(t runtime.TaskView) string {
	if t.Name != "" {
		return "“" + t.Name + "”"
	}
	return "task " + t.NodeID
}
