package camunda8

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/gobpm/gobpm/internal/runtime"
)

// UserTask is a user task as the search answers it (Camunda 8's
// UserTaskResult); only open tasks are served (state CREATED).
type UserTask struct {
	Name                     string            `json:"name,omitempty"`
	State                    string            `json:"state"`
	Assignee                 string            `json:"assignee,omitempty"`
	ElementID                string            `json:"elementId"`
	CandidateGroups          []string          `json:"candidateGroups"`
	CandidateUsers           []string          `json:"candidateUsers"`
	ProcessDefinitionID      string            `json:"processDefinitionId"`
	CreationDate             string            `json:"creationDate"`
	DueDate                  *string           `json:"dueDate,omitempty"`
	TenantID                 string            `json:"tenantId"`
	ProcessDefinitionVersion int               `json:"processDefinitionVersion"`
	Priority                 int               `json:"priority"`
	UserTaskKey              string            `json:"userTaskKey"`
	ElementInstanceKey       string            `json:"elementInstanceKey"`
	ProcessName              string            `json:"processName"`
	ProcessDefinitionKey     string            `json:"processDefinitionKey"`
	ProcessInstanceKey       string            `json:"processInstanceKey"`
	CustomHeaders            map[string]string `json:"customHeaders"`
}

// offered reports whether t is offered to a: assigned to them, or
// unassigned with them among its candidates (or no candidates at all).
func offered(t runtime.TaskView, a runtime.Actor) bool {
	if t.Assignee != "" {
		return t.Assignee == a.User
	}
	if len(t.CandidateUsers) == 0 && len(t.CandidateGroups) == 0 {
		return true
	}
	return slices.Contains(t.CandidateUsers, a.User) || slices.ContainsFunc(t.CandidateGroups, func(g string) bool { return slices.Contains(a.Groups, g) })
}

// maxTaskSearch bounds the tasks one search reads.
const maxTaskSearch = 1000

// searchTasks handles POST /v2/user-tasks/search: filters state (CREATED;
// gobpm serves open tasks only), assignee, candidateUser, candidateGroup,
// processInstanceKey, processDefinitionId, elementId, userTaskKey; oldest
// first; paging from and limit. A caller who may not read every process
// sees the tasks offered to them.
func (h *handler) searchTasks(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Filter struct {
			State               string          `json:"state"`
			Assignee            string          `json:"assignee"`
			CandidateUser       string          `json:"candidateUser"`
			CandidateGroup      string          `json:"candidateGroup"`
			ProcessInstanceKey  json.RawMessage `json:"processInstanceKey"`
			ProcessDefinitionID string          `json:"processDefinitionId"`
			ElementID           string          `json:"elementId"`
			UserTaskKey         json.RawMessage `json:"userTaskKey"`
		} `json:"filter"`
		Page *searchPage `json:"page"`
	}
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	from, limit, err := pageOf(req.Page)
	if err != nil {
		return err
	}
	empty := func() error {
		return writeJSON(w, http.StatusOK, struct {
			Items []UserTask   `json:"items"`
			Page  PageResponse `json:"page"`
		}{Items: []UserTask{}})
	}
	switch req.Filter.State {
	case "", "CREATED":
	default:
		return empty() // gobpm keeps no ended tasks here
	}
	f := runtime.TaskFilter{Assignee: req.Filter.Assignee, CandidateUser: req.Filter.CandidateUser, CandidateGroup: req.Filter.CandidateGroup,
		ProcessKey: req.Filter.ProcessDefinitionID, Limit: maxTaskSearch}
	if k, err := keyOf(req.Filter.ProcessInstanceKey, "filter.processInstanceKey"); err != nil {
		return err
	} else if k != 0 {
		id, err := h.svc.ByNumericKey(r.Context(), runtime.KeyInstance, k)
		if runtime.ErrorCode(err) == runtime.ENOTFOUND {
			return empty()
		}
		if err != nil {
			return err
		}
		f.InstanceID = runtime.InstanceID(id)
	}
	taskID := ""
	if k, err := keyOf(req.Filter.UserTaskKey, "filter.userTaskKey"); err != nil {
		return err
	} else if k != 0 {
		id, err := h.svc.ByNumericKey(r.Context(), runtime.KeyUserTask, k)
		if runtime.ErrorCode(err) == runtime.ENOTFOUND {
			return empty()
		}
		if err != nil {
			return err
		}
		taskID = id
	}
	if !h.readsEverything(r) {
		a := h.actor(r)
		f.OfferedTo = &a
	}
	tasks, _, err := h.svc.Tasks(r.Context(), f)
	if err != nil {
		return err
	}
	tasks = slices.DeleteFunc(tasks, func(t runtime.TaskView) bool {
		return (taskID != "" && t.ID != taskID) || (req.Filter.ElementID != "" && t.NodeID != req.Filter.ElementID)
	})
	total := len(tasks)
	if from > len(tasks) {
		from = len(tasks)
	}
	tasks = tasks[from:min(len(tasks), from+limit)]
	items, err := h.toUserTasks(r, tasks)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, struct {
		Items []UserTask   `json:"items"`
		Page  PageResponse `json:"page"`
	}{Items: items, Page: PageResponse{TotalItems: int64(total), HasMoreTotalItems: total >= maxTaskSearch}})
}

// toUserTasks maps tasks to the search's items with their keys.
func (h *handler) toUserTasks(r *http.Request, tasks []runtime.TaskView) ([]UserTask, error) {
	var ids, insts, procs []string
	for _, t := range tasks {
		ids = append(ids, t.ID)
		insts = append(insts, string(t.InstanceID))
		procs = append(procs, runtime.ProcessVersionID(t.ProcessKey, t.ProcessVersion))
	}
	taskKeys, err := h.svc.NumericKeys(r.Context(), runtime.KeyUserTask, ids)
	if err != nil {
		return nil, err
	}
	instKeys, err := h.svc.NumericKeys(r.Context(), runtime.KeyInstance, insts)
	if err != nil {
		return nil, err
	}
	procKeys, err := h.svc.NumericKeys(r.Context(), runtime.KeyProcessVersion, procs)
	if err != nil {
		return nil, err
	}
	out := make([]UserTask, 0, len(tasks))
	for i, t := range tasks {
		k, ok := taskKeys[t.ID]
		if !ok {
			continue
		}
		users, groups := t.CandidateUsers, t.CandidateGroups
		if users == nil {
			users = []string{}
		}
		if groups == nil {
			groups = []string{}
		}
		out = append(out, UserTask{Name: t.Name, State: "CREATED", Assignee: t.Assignee, ElementID: t.NodeID,
			CandidateGroups: groups, CandidateUsers: users, ProcessDefinitionID: t.ProcessKey, CreationDate: timeString(t.CreatedAt),
			DueDate: optTime(t.DueAt), TenantID: DefaultTenant, ProcessDefinitionVersion: t.ProcessVersion, Priority: 50,
			UserTaskKey: keyString(k), ElementInstanceKey: keyString(instKeys[insts[i]]), ProcessName: t.ProcessKey,
			ProcessDefinitionKey: keyString(procKeys[procs[i]]), ProcessInstanceKey: keyString(instKeys[insts[i]]),
			CustomHeaders: map[string]string{}})
	}
	return out, nil
}

// visibleTask resolves the path's user task key to a task the caller may
// see (offered to them, or of a process they may read).
func (h *handler) visibleTask(r *http.Request) (runtime.TaskView, error) {
	key, err := pathKey(r, "userTaskKey")
	if err != nil {
		return runtime.TaskView{}, err
	}
	gone := notFound(fmt.Sprintf("User task with key '%d' not found", key))
	id, err := h.svc.ByNumericKey(r.Context(), runtime.KeyUserTask, key)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return runtime.TaskView{}, gone
	}
	if err != nil {
		return runtime.TaskView{}, err
	}
	t, err := h.svc.Task(r.Context(), id)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return t, gone
	}
	if err != nil {
		return t, err
	}
	if !h.readsEverything(r) && !offered(t, h.actor(r)) && !h.mayRead(r, t.ProcessKey) {
		return t, gone
	}
	return t, nil
}

// taskActor is who acts on a task: the caller, or — without
// authentication — the user named (the assignee); naming someone else
// than the caller is refused (gobpm assigns a task only to the caller).
func (h *handler) taskActor(r *http.Request, user string) (runtime.Actor, error) {
	a := h.actor(r)
	switch {
	case a.User == "" && user != "":
		a.User = user
	case a.User == "":
		return a, invalid("No assignee provided.")
	case user != "" && user != a.User:
		return a, NewProblem(http.StatusForbidden, TitleForbidden, fmt.Sprintf("user '%s' may not assign a task to '%s': gobpm assigns a task only to the caller", a.User, user))
	}
	return a, nil
}

// taskRefusal maps a refused task act: a task someone else holds is 409.
func taskRefusal(err error) error {
	if runtime.ErrorCode(err) == runtime.ECONFLICT {
		return NewProblem(http.StatusConflict, TitleInvalidState, messageOf(err))
	}
	return err
}

// assignTask handles POST /v2/user-tasks/{key}/assignment {assignee,
// allowOverride}: the assignee claims the task (with allowOverride, after
// the current assignee — who must be the same caller — gives it back).
func (h *handler) assignTask(w http.ResponseWriter, r *http.Request) error {
	t, err := h.visibleTask(r)
	if err != nil {
		return err
	}
	var req struct {
		Assignee      string `json:"assignee"`
		AllowOverride *bool  `json:"allowOverride"`
		Action        string `json:"action"`
	}
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	if req.Assignee == "" {
		return invalid("No assignee provided.")
	}
	a, err := h.taskActor(r, req.Assignee)
	if err != nil {
		return err
	}
	switch {
	case t.Assignee == a.User:
		return noContent(w)
	case t.Assignee != "" && req.AllowOverride != nil && !*req.AllowOverride:
		return NewProblem(http.StatusConflict, TitleInvalidState, fmt.Sprintf("the user task is assigned to '%s' and allowOverride is false", t.Assignee))
	}
	if _, err := h.svc.ClaimTask(r.Context(), t.ID, a); err != nil {
		return taskRefusal(err)
	}
	return noContent(w)
}

// unassignTask handles DELETE /v2/user-tasks/{key}/assignee: the
// assignee gives the task back to its candidates.
func (h *handler) unassignTask(w http.ResponseWriter, r *http.Request) error {
	t, err := h.visibleTask(r)
	if err != nil {
		return err
	}
	if t.Assignee == "" {
		return noContent(w)
	}
	a, err := h.taskActor(r, t.Assignee)
	if err != nil {
		return err
	}
	if _, err := h.svc.UnclaimTask(r.Context(), t.ID, a); err != nil {
		return taskRefusal(err)
	}
	return noContent(w)
}

// completeTask handles POST /v2/user-tasks/{key}/completion {variables}:
// the caller (without authentication: the assignee) completes the task.
func (h *handler) completeTask(w http.ResponseWriter, r *http.Request) error {
	t, err := h.visibleTask(r)
	if err != nil {
		return err
	}
	var req struct {
		Variables json.RawMessage `json:"variables"`
		Action    string          `json:"action"`
	}
	if err := h.readBody(r, &req); err != nil {
		return err
	}
	vars, err := variables(req.Variables, "variables")
	if err != nil {
		return err
	}
	who := t.Assignee
	if who == "" && h.actor(r).User == "" {
		who = "anonymous" // a task without assignee, without authentication
	}
	a, err := h.taskActor(r, who)
	if err != nil {
		return err
	}
	if err := h.svc.CompleteTask(r.Context(), t.ID, a, vars); err != nil {
		return taskRefusal(err)
	}
	return noContent(w)
}
