package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gobpm/gobpm/internal/engine"
	"github.com/gobpm/gobpm/internal/scope"
)

func taskView(w WaitRow) TaskView {
	users, groups := w.CandidateUsers, w.CandidateGroups
	if users == nil {
		users = []string{}
	}
	if groups == nil {
		groups = []string{}
	}
	return TaskView{ID: w.ID, InstanceID: w.InstanceID, NodeID: w.NodeID, Name: w.Name, Assignee: w.Assignee,
		CandidateUsers: users, CandidateGroups: groups, CreatedAt: w.CreatedAt, DueAt: w.DueAt,
		ProcessKey: w.ProcessKey, ProcessVersion: w.ProcessVersion}
}

// Tasks lists open user tasks matching f and the total count.
func (r *Runtime) Tasks(ctx context.Context, f TaskFilter) ([]TaskView, int, error) {
	rows, total, err := r.store.Tasks(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	out := make([]TaskView, 0, len(rows))
	for _, w := range rows {
		out = append(out, taskView(w))
	}
	if err := r.describeTasks(ctx, out); err != nil {
		return nil, 0, fmt.Errorf("runtime: tasks: %w", err)
	}
	return out, total, nil
}

// Task returns one open user task; ENOTFOUND once it is completed or withdrawn.
func (r *Runtime) Task(ctx context.Context, id string) (TaskView, error) {
	row, err := r.store.Wait(ctx, id)
	if err != nil || row.Kind != WaitTask {
		if err == nil || ErrorCode(err) == ENOTFOUND {
			return TaskView{}, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("task %s not found: it was completed, withdrawn or never existed", id), Err: err}
		}
		return TaskView{}, err
	}
	out := []TaskView{taskView(row)}
	if err := r.describeTasks(ctx, out); err != nil {
		return TaskView{}, fmt.Errorf("runtime: task %s: %w", id, err)
	}
	return out[0], nil
}

// ClaimTask makes the actor the task's assignee: only a candidate may claim
// (anyone when the task has no candidates) → EFORBIDDEN; a task claimed by
// someone else → ECONFLICT.
func (r *Runtime) ClaimTask(ctx context.Context, id string, a Actor) (TaskView, error) {
	return r.taskAct(ctx, id, engine.TaskClaimed{TaskID: id, User: a.User, Groups: a.Groups})
}

// UnclaimTask returns the task to its candidates; only the assignee may.
func (r *Runtime) UnclaimTask(ctx context.Context, id string, a Actor) (TaskView, error) {
	return r.taskAct(ctx, id, engine.TaskUnclaimed{TaskID: id, User: a.User})
}

// CompleteTask completes a task with form variables: only the assignee may
// (anyone for a task without assignee and candidates).
func (r *Runtime) CompleteTask(ctx context.Context, id string, a Actor, vars map[string]any) error {
	if strings.TrimSpace(a.User) == "" {
		return &Error{Code: EFORBIDDEN, Message: "an acting user is required"}
	}
	t, err := r.Task(ctx, id)
	if err != nil {
		return err
	}
	_, err = r.step(withCompletion(ctx, t, a.User), t.InstanceID, engine.TaskCompleted{TaskID: id, User: a.User, Groups: a.Groups, Variables: vars}, nil)
	return err
}

func (r *Runtime) taskAct(ctx context.Context, id string, ev engine.Event) (TaskView, error) {
	t, err := r.Task(ctx, id)
	if err != nil {
		return TaskView{}, err
	}
	if _, err := r.step(ctx, t.InstanceID, ev, nil); err != nil {
		return TaskView{}, err
	}
	return r.Task(ctx, id)
}

// Waits returns a page of what an instance waits for: jobs, user tasks,
// timers, message and signal subscriptions and calls, in creation order,
// after the wait with id after ("" from the first), at most limit (0 means
// ViewLimit, capped at MaxPageLimit), and the cursor of the next page (""
// on the last). A job shows its public key (JobKey), the one the job
// routes take; the cursor is the last wait's id. ENOTFOUND for an unknown
// instance.
func (r *Runtime) Waits(ctx context.Context, id InstanceID, after string, limit int) ([]WaitRow, string, error) {
	limit = pageLimit(limit)
	waits, err := r.store.InstanceWaitsPage(ctx, id, after, limit+1)
	if err != nil {
		return nil, "", instanceErr(id, err)
	}
	next := ""
	if len(waits) > limit {
		waits = waits[:limit]
		next = waits[limit-1].ID
	}
	for i := range waits {
		waits[i].LockTokenHash = nil // a secret's hash: no view shows it
		if waits[i].Kind == WaitJob {
			if waits[i].ID, err = r.JobKey(ctx, waits[i].ID); err != nil {
				return nil, "", err
			}
		}
	}
	return waits, next, nil
}

// SetVariables writes variables into an instance's scope (the root when
// scopeID is empty); with local, into that scope itself instead of by the
// write rule. ENOTFOUND for an unknown instance or scope.
func (r *Runtime) SetVariables(ctx context.Context, id InstanceID, scopeID string, vars map[string]any, local bool) (InstanceView, error) {
	if len(vars) == 0 {
		return InstanceView{}, &Error{Code: EINVALID, Message: "variables must not be empty", Field: "variables"}
	}
	if _, err := r.step(ctx, id, engine.VariablesSet{ScopeID: scopeID, Variables: vars, Local: local, By: ActingUser(ctx)}, nil); err != nil {
		if errors.Is(err, scope.ErrUnknownScope) {
			return InstanceView{}, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("instance %s has no open scope %q", id, scopeID), Err: err}
		}
		return InstanceView{}, err
	}
	return r.Instance(ctx, id)
}

// WaitCounts returns how many waits of each kind are open across all
// instances (job, task, timer, message, signal, condition, call, offer —
// an offer is a manual ad-hoc region waiting for a person).
func (r *Runtime) WaitCounts(ctx context.Context) (map[string]int, error) {
	return r.store.WaitCounts(ctx)
}
