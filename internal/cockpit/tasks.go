package cockpit

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// inboxPageSize is how many tasks a page of the inbox shows per list.
const inboxPageSize = 50

// maxInboxPage bounds the page number (its offset must stay small).
const maxInboxPage = 100000

func (h *handler) tasks(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := templates.TaskFilter{Show: q.Get("show"), Process: q.Get("process"), Due: q.Get("due"), Sort: q.Get("sort"), Task: q.Get("task"),
		Var: strings.TrimSpace(q.Get("var"))}
	if !oneOf(f.Show, "", templates.TasksMine, templates.TasksGroups, templates.TasksUnassigned, templates.TasksCompleted) ||
		!oneOf(f.Due, "", templates.DueOverdue, templates.DueToday, templates.DueWeek) ||
		!oneOf(f.Sort, templates.SortOldest, templates.SortNewest, templates.SortDue) {
		h.fail(w, r, http.StatusBadRequest, "The inbox filter is not one the page offers: show mine, groups, unassigned or completed; due overdue, today or week; sort newest or due.")
		return
	}
	if _, err := inboxVariables(f); err != nil {
		msg := err.Error()
		h.fail(w, r, http.StatusBadRequest, strings.ToUpper(msg[:1])+msg[1:]+".")
		return
	}
	if raw := q.Get("page"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxInboxPage {
			h.fail(w, r, http.StatusBadRequest, fmt.Sprintf("The page must be a whole number from 1 to %d.", maxInboxPage))
			return
		}
		f.Page = n
	}
	p := templates.TasksPage{Layout: h.layout(w, r, "Tasks", templates.NavTasks), Filter: f}
	a := h.actor(r)
	if a.User == "" {
		p.Live.NoUser = true
		h.render(w, r, http.StatusOK, templates.Tasks(p))
		return
	}
	if f.Show == templates.TasksCompleted {
		h.completedTasksPage(w, r, p, a)
		return
	}
	ctx := r.Context()
	now := h.svc.Clock().Now
	inbox, err := h.inbox(ctx, a, f, now)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	if err := h.describeTasks(ctx, inbox.Assigned, inbox.Claimable); err != nil {
		h.failErr(w, r, err)
		return
	}
	seen := map[string]string{}
	var open *templates.TaskItem
	dress := func(items []templates.TaskItem) {
		for i := range items {
			it := &items[i]
			it.Age = age(now.Sub(it.CreatedAt))
			it.Overdue = !it.DueAt.IsZero() && it.DueAt.Before(now)
			opened := f
			opened.Task = it.ID
			it.OpenURL = templates.TasksURL(opened)
			seen[it.ProcessKey] = it.ProcessName
			if it.ID == f.Task {
				cp := *it
				open = &cp
			}
		}
	}
	dress(inbox.Assigned)
	dress(inbox.Claimable)
	p.Live = inbox
	if p.Processes, err = h.inboxProcesses(ctx, r, seen, f.Process); err != nil {
		h.failErr(w, r, err)
		return
	}
	if f.Task != "" && open == nil {
		// A task opened from another page of the list: show it when it
		// is still offered to the person.
		if open, err = h.offeredTask(ctx, a, f); err != nil {
			h.failErr(w, r, err)
			return
		}
	}
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

// inboxProcesses lists the processes the inbox's process filter offers: the
// processes of the tasks shown, the one filtered on, and every process the
// person may read (a task worker who may read none sees those of their
// tasks), by key.
func (h *handler) inboxProcesses(ctx context.Context, r *http.Request, seen map[string]string, selected string) ([]templates.ProcessOption, error) {
	defs, err := h.svc.Processes(ctx)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, d := range defs {
		if h.may(r, auth.PermRead, auth.KindProcess, d.Key) {
			names[d.Key] = d.Name
		}
	}
	for key, name := range seen {
		names[key] = name
	}
	if _, ok := names[selected]; selected != "" && !ok {
		names[selected] = ""
	}
	out := make([]templates.ProcessOption, 0, len(names))
	for key, name := range names {
		out = append(out, templates.ProcessOption{Key: key, Name: name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// offeredTask finds the task f opens among the tasks offered to a, as an
// inbox item (nil when it is not offered to them, or gone).
func (h *handler) offeredTask(ctx context.Context, a runtime.Actor, f templates.TaskFilter) (*templates.TaskItem, error) {
	t, err := h.svc.Task(ctx, f.Task)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	it := taskItem(t, a)
	if t.Assignee != a.User && !(t.Assignee == "" && it.CanClaim) {
		return nil, nil
	}
	items := []templates.TaskItem{it}
	if err := h.describeTasks(ctx, items); err != nil {
		return nil, err
	}
	it = items[0]
	it.OpenURL = templates.TasksURL(f)
	return &it, nil
}

// oneOf reports whether s is one of the allowed values.
func oneOf(s string, allowed ...string) bool { return slices.Contains(allowed, s) }

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
	model, err := h.svc.Outline(ctx, v.ProcessKey, v.ProcessVersion)
	if err != nil {
		return nil, err
	}
	link := model.Elements[it.NodeID]
	if link.FormRef != "" {
		form, err := h.svc.Form(ctx, v.ProcessKey, v.ProcessVersion, link.FormRef)
		switch {
		case err == nil:
			d.FormSchema, d.FormID, d.FormResource = string(form.Schema), form.ID, form.Resource
		case runtime.ErrorCode(err) == runtime.ENOTFOUND:
			d.FormMissing = link.FormRef
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

// inbox reads the page of a's tasks the filter asks for, in two lists:
// those assigned to the user, and those the user may claim (unassigned and
// offered to the user, one of the groups, or anyone: no candidates), each
// filtered, sorted and counted by the store, so every count is exact
// whatever the number of tasks. The filter "mine" pages the assigned list,
// and every other the claimable one (the assigned list shows its first
// page). What the user may do with each follows the runtime's claim rules;
// the runtime still decides when the user acts.
func (h *handler) inbox(ctx context.Context, a runtime.Actor, f templates.TaskFilter, now time.Time) (templates.TasksLive, error) {
	live := templates.TasksLive{Paged: "claimable"}
	if f.Show == templates.TasksMine {
		live.Paged = "assigned"
	}
	page := max(f.Page, 1)
	vars, err := inboxVariables(f)
	if err != nil {
		return live, err
	}
	base := runtime.TaskFilter{ProcessKey: f.Process, DueBefore: dueBefore(f.Due, now), Variables: vars, Limit: inboxPageSize}
	switch f.Sort {
	case templates.SortNewest:
		base.Order = runtime.TaskOrderNewest
	case templates.SortDue:
		base.Order = runtime.TaskOrderDue
	}
	list := func(tf runtime.TaskFilter, paged bool) ([]templates.TaskItem, int, error) {
		if paged {
			tf.Offset = (page - 1) * inboxPageSize
		}
		ts, total, err := h.svc.Tasks(ctx, tf)
		if err != nil {
			return nil, 0, err
		}
		items := make([]templates.TaskItem, 0, len(ts))
		for _, t := range ts {
			items = append(items, taskItem(t, a))
		}
		return items, total, nil
	}
	if f.Show == "" || f.Show == templates.TasksMine {
		mine := base
		mine.Assignee = a.User
		if live.Assigned, live.AssignedTotal, err = list(mine, live.Paged == "assigned"); err != nil {
			return live, err
		}
	}
	if f.Show != templates.TasksMine {
		claim := base
		claim.OfferedTo, claim.Unassigned = &a, true
		if f.Show == templates.TasksGroups {
			claim.CandidateGroupsAny = a.Groups
		}
		// A person in no group has no task offered to a group of theirs.
		if f.Show != templates.TasksGroups || len(a.Groups) > 0 {
			if live.Claimable, live.ClaimableTotal, err = list(claim, live.Paged == "claimable"); err != nil {
				return live, err
			}
		}
	}
	// Every task offered to the person, to say how many the filter leaves out.
	_, offered, err := h.svc.Tasks(ctx, runtime.TaskFilter{OfferedTo: &a, Limit: 1})
	if err != nil {
		return live, err
	}
	live.Hidden = max(offered-live.AssignedTotal-live.ClaimableTotal, 0)
	total, shown := live.ClaimableTotal, len(live.Claimable)
	if live.Paged == "assigned" {
		total, shown = live.AssignedTotal, len(live.Assigned)
	}
	if shown > 0 {
		live.First = (page-1)*inboxPageSize + 1
		live.Last = live.First + shown - 1
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

// dueBefore is the due date bound of an inbox filter (zero: none): overdue
// is before now, today before the end of the day, week before the end of
// the sixth day after today.
func dueBefore(due string, now time.Time) time.Time {
	y, m, d := now.Date()
	endOfDay := time.Date(y, m, d+1, 0, 0, 0, 0, now.Location())
	switch due {
	case templates.DueOverdue:
		return now
	case templates.DueToday:
		return endOfDay
	case templates.DueWeek:
		return endOfDay.AddDate(0, 0, 6)
	}
	return time.Time{}
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

// inboxVariables is the inbox's variable filter (none when f.Var is
// empty); the error is a sentence for the person.
func inboxVariables(f templates.TaskFilter) ([]runtime.VariableFilter, error) {
	if f.Var == "" {
		return nil, nil
	}
	vf, err := runtime.ParseVariableFilter(f.Var)
	if err != nil {
		return nil, err
	}
	return []runtime.VariableFilter{vf}, nil
}
