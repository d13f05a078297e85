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

// Tasks is what the user task endpoints need from the runtime;
// *runtime.Runtime implements it.
type Tasks interface {
	// Tasks returns a page of user tasks matching f and the total count.
	Tasks(ctx context.Context, f runtime.TaskFilter) ([]runtime.TaskView, int, error)
	// Task returns one user task; ENOTFOUND if absent.
	Task(ctx context.Context, id string) (runtime.TaskView, error)
	// ClaimTask makes a the assignee; EFORBIDDEN if a is not a candidate,
	// ECONFLICT if someone else has claimed the task.
	ClaimTask(ctx context.Context, id string, a runtime.Actor) (runtime.TaskView, error)
	// UnclaimTask clears the assignee; EFORBIDDEN if a is not the
	// assignee, ECONFLICT if the task is not claimed.
	UnclaimTask(ctx context.Context, id string, a runtime.Actor) (runtime.TaskView, error)
	// CompleteTask completes the task as a, merging vars into the process.
	CompleteTask(ctx context.Context, id string, a runtime.Actor, vars map[string]any) error
}

// maxTaskList bounds GET /task's page.
const maxTaskList = 500

// FormRef is Camunda 7's camundaFormRef of a task.
type FormRef struct {
	Key     string `json:"key"`
	Binding string `json:"binding"`
	Version *int   `json:"version"`
}

// UserTask is Camunda 7's TaskDto.
type UserTask struct {
	ID                  string   `json:"id"`
	Name                *string  `json:"name"`
	Assignee            *string  `json:"assignee"`
	Owner               *string  `json:"owner"`
	Created             string   `json:"created"`
	Due                 *string  `json:"due"`
	FollowUp            *string  `json:"followUp"`
	DelegationState     *string  `json:"delegationState"`
	Description         *string  `json:"description"`
	ExecutionID         string   `json:"executionId"`
	ParentTaskID        *string  `json:"parentTaskId"`
	Priority            int      `json:"priority"`
	ProcessDefinitionID string   `json:"processDefinitionId"`
	ProcessInstanceID   string   `json:"processInstanceId"`
	TaskDefinitionKey   string   `json:"taskDefinitionKey"`
	CaseExecutionID     *string  `json:"caseExecutionId"`
	CaseInstanceID      *string  `json:"caseInstanceId"`
	CaseDefinitionID    *string  `json:"caseDefinitionId"`
	Suspended           bool     `json:"suspended"`
	FormKey             *string  `json:"formKey"`
	CamundaFormRef      *FormRef `json:"camundaFormRef"`
	TenantID            *string  `json:"tenantId"`
}

// toUserTask renders a task; the execution id is the instance's (gobpm
// has no executions below the instance).
func toUserTask(t runtime.TaskView) UserTask {
	out := UserTask{ID: t.ID, Name: optional(t.Name), Assignee: optional(t.Assignee), Created: FormatDate(t.CreatedAt),
		ExecutionID: string(t.InstanceID), Priority: 50, ProcessDefinitionID: definitionID(t.ProcessKey, t.ProcessVersion),
		ProcessInstanceID: string(t.InstanceID), TaskDefinitionKey: t.NodeID}
	if !t.DueAt.IsZero() {
		due := FormatDate(t.DueAt)
		out.Due = &due
	}
	if t.FormID != "" {
		out.CamundaFormRef = &FormRef{Key: t.FormID, Binding: "deployment"}
	}
	return out
}

// actor is the caller as a task actor (user and groups).
func (h *handler) actor(r *http.Request) runtime.Actor {
	if h.guard == nil {
		return runtime.Actor{}
	}
	return h.guard.Actor(r)
}

// offered reports whether t is offered to a: assigned to them, or
// unassigned and claimable by them (no candidates, or among them).
func offered(t runtime.TaskView, a runtime.Actor) bool {
	if t.Assignee != "" {
		return t.Assignee == a.User
	}
	if len(t.CandidateUsers) == 0 && len(t.CandidateGroups) == 0 {
		return true
	}
	return slices.Contains(t.CandidateUsers, a.User) || slices.ContainsFunc(t.CandidateGroups, func(g string) bool { return slices.Contains(a.Groups, g) })
}

// readsEverything reports whether the caller may read every process.
func (h *handler) readsEverything(r *http.Request) bool {
	return h.guard == nil || h.guard.ReadsEverything(r)
}

// noTask is the 404 of an unknown task, or one the caller may not see.
func noTask(id string) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeInvalidRequest, Msg: fmt.Sprintf("No matching task with id %s", id)}
}

// visibleTask resolves {id} to a task the caller may see: offered to them,
// or of a process they may read; anything else is unknown.
func (h *handler) visibleTask(r *http.Request) (runtime.TaskView, error) {
	id := chi.URLParam(r, "id")
	t, err := h.svc.Task(r.Context(), id)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return t, noTask(id)
	}
	if err != nil {
		return t, err
	}
	if !h.readsEverything(r) && !offered(t, h.actor(r)) && !h.mayRead(r, t.ProcessKey) {
		return t, noTask(id)
	}
	return t, nil
}

// listTasks handles GET /task: filters assignee, candidateGroup,
// candidateUser, processInstanceId, processDefinitionKey; paging
// firstResult, maxResults (at most 500). A caller who may not read every
// process sees only the tasks offered to them.
func (h *handler) listTasks(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	first, err := queryInt(q.Get("firstResult"), "firstResult", 0)
	if err != nil {
		return err
	}
	max, err := queryInt(q.Get("maxResults"), "maxResults", maxTaskList)
	if err != nil {
		return err
	}
	f := runtime.TaskFilter{Assignee: q.Get("assignee"), CandidateUser: q.Get("candidateUser"), CandidateGroup: q.Get("candidateGroup"),
		InstanceID: runtime.InstanceID(q.Get("processInstanceId")), ProcessKey: q.Get("processDefinitionKey"),
		Limit: min(max, maxTaskList), Offset: first}
	if !h.readsEverything(r) {
		a := h.actor(r)
		f.OfferedTo = &a
	}
	out := []UserTask{}
	if f.Limit > 0 {
		tasks, _, err := h.svc.Tasks(r.Context(), f)
		if err != nil {
			return err
		}
		for _, t := range tasks {
			out = append(out, toUserTask(t))
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getTask handles GET /task/{id}.
func (h *handler) getTask(w http.ResponseWriter, r *http.Request) error {
	t, err := h.visibleTask(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toUserTask(t))
	return nil
}

// taskActor is who acts on a task: the caller, or — without
// authentication — the userId of the body; a userId naming someone else
// than the caller is refused (gobpm claims only for oneself).
func (h *handler) taskActor(r *http.Request, userID string) (runtime.Actor, error) {
	a := h.actor(r)
	switch {
	case a.User == "" && userID != "":
		a.User = userID
	case a.User == "":
		return a, invalid("userId is required")
	case userID != "" && userID != a.User:
		return a, &Error{Status: http.StatusForbidden, Type: TypeAuthorization, Msg: fmt.Sprintf("user %s may not claim a task for %s: gobpm claims only for the caller", a.User, userID)}
	}
	return a, nil
}

// taskRefusal answers a refused task act as Camunda 7 documents it: a
// task claimed by someone else is 500 TaskAlreadyClaimedException.
func taskRefusal(err error, id string) error {
	switch runtime.ErrorCode(err) {
	case runtime.ENOTFOUND:
		return noTask(id)
	case runtime.ECONFLICT:
		return &Error{Status: http.StatusInternalServerError, Type: "TaskAlreadyClaimedException", Msg: fmt.Sprintf("Task '%s': %s", id, messageOf(err))}
	}
	return err
}

// claimBody is the body of claim and complete.
type claimBody struct {
	UserID                string                `json:"userId"`
	Variables             map[string]TypedValue `json:"variables"`
	WithVariablesInReturn bool                  `json:"withVariablesInReturn"`
}

// claimTask handles POST /task/{id}/claim {userId}: the caller becomes
// the assignee. 204.
func (h *handler) claimTask(w http.ResponseWriter, r *http.Request) error {
	var body claimBody
	t, a, err := h.taskAct(r, &body, func(runtime.TaskView) string { return body.UserID })
	if err != nil {
		return err
	}
	if _, err := h.svc.ClaimTask(r.Context(), t.ID, a); err != nil {
		return taskRefusal(err, t.ID)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// taskAct is the preamble of the task acts: it resolves the visible task
// {id}, reads the request's body into body (none when body is nil), and
// returns the actor acting as the user userOf names (taskActor).
func (h *handler) taskAct(r *http.Request, body *claimBody, userOf func(runtime.TaskView) string) (runtime.TaskView, runtime.Actor, error) {
	t, err := h.visibleTask(r)
	if err != nil {
		return t, runtime.Actor{}, err
	}
	if body != nil {
		if err := h.readBody(r, body); err != nil {
			return t, runtime.Actor{}, err
		}
	}
	a, err := h.taskActor(r, userOf(t))
	return t, a, err
}

// assigneeOf is the task's assignee: unclaim and complete act as them.
func assigneeOf(t runtime.TaskView) string { return t.Assignee }

// unclaimTask handles POST /task/{id}/unclaim: the assignee returns the
// task to its candidates. 204.
func (h *handler) unclaimTask(w http.ResponseWriter, r *http.Request) error {
	t, a, err := h.taskAct(r, nil, assigneeOf)
	if err != nil {
		return err
	}
	if _, err := h.svc.UnclaimTask(r.Context(), t.ID, a); err != nil {
		return taskRefusal(err, t.ID)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// completeTask handles POST /task/{id}/complete {variables,
// withVariablesInReturn}: 204, or 200 with the instance's variables.
func (h *handler) completeTask(w http.ResponseWriter, r *http.Request) error {
	var body claimBody
	t, a, err := h.taskAct(r, &body, assigneeOf)
	if err != nil {
		return err
	}
	vars, err := FromTypedMap(body.Variables)
	if err != nil {
		return err
	}
	if err := h.svc.CompleteTask(r.Context(), t.ID, a, vars); err != nil {
		return taskRefusal(err, t.ID)
	}
	if !body.WithVariablesInReturn {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	view, err := h.svc.Instance(r.Context(), t.InstanceID)
	if err != nil {
		return fmt.Errorf("camunda7: read instance %s after task %s: %w", t.InstanceID, t.ID, err)
	}
	return h.writeVariables(w, view.Variables, "")
}

// formVariables handles GET /task/{id}/form-variables (variableNames,
// comma-separated): the variables the task's form starts from, which in
// gobpm are its instance's top-level variables.
func (h *handler) formVariables(w http.ResponseWriter, r *http.Request) error {
	t, err := h.visibleTask(r)
	if err != nil {
		return err
	}
	view, err := h.svc.Instance(r.Context(), t.InstanceID)
	if err != nil {
		return fmt.Errorf("camunda7: read instance %s of task %s: %w", t.InstanceID, t.ID, err)
	}
	return h.writeVariables(w, view.Variables, r.URL.Query().Get("variableNames"))
}

// writeVariables answers vars typed, only those named (comma-separated)
// when names is not empty.
func (h *handler) writeVariables(w http.ResponseWriter, vars map[string]any, names string) error {
	if names != "" {
		keep := strings.Split(names, ",")
		picked := map[string]any{}
		for k, v := range vars {
			if slices.Contains(keep, k) {
				picked[k] = v
			}
		}
		vars = picked
	}
	typed, err := ToTypedMap(vars)
	if err != nil {
		return err
	}
	if typed == nil {
		typed = map[string]TypedValue{}
	}
	writeJSON(w, http.StatusOK, typed)
	return nil
}
