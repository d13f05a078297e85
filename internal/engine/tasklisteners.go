package engine

import (
	"fmt"
	"slices"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// User task listeners (bpmn.Node.TaskListeners, Camunda 8.8's
// zeebe:taskListener) run as jobs when a change of a user task is
// requested: an assignment (TaskClaimed, TaskUnclaimed; eventType
// assigning) or a completion (TaskCompleted; completing). The request is
// checked as it would be without listeners, then recorded on the task
// (Wait.TaskChange) and the first listener's job created on the task's
// track; the task stays as it was, and any other change of it is refused
// until the listeners finished. Each listener's job completes with a
// JobResult: Denied drops the change (the task stays as it was, the
// listeners after it do not run), Corrections are gathered; after the
// last listener the change applies with the corrections (a corrected
// assignee replaces the requested one). A failing listener job counts
// down its retries into an incident as any job; a listener job takes no
// variables and cannot throw a BPMN error. A boundary event that
// interrupts the task withdraws its listener's job with it.

// Task listener job headers, as Camunda 8.8 hands a task listener's
// worker the task it runs for.
const (
	headerUserTaskKey = "io.camunda.zeebe:userTaskKey"
	headerAssignee    = "io.camunda.zeebe:assignee"
	headerTaskEvent   = "io.camunda.zeebe:eventType"
)

// isTaskEvent reports whether a wait's Listener is a task listener event.
func isTaskEvent(ev string) bool {
	return ev == string(bpmn.ListenerAssigning) || ev == string(bpmn.ListenerCompleting)
}

// requestTaskChange records change c on task w (track t, node n) and
// creates its first listener's job, reporting false when n has no
// listeners of c's event: the caller applies the change itself then.
func (x *executor) requestTaskChange(t *Track, n *bpmn.Node, w *Wait, c *TaskChange) bool {
	if n == nil || len(listenersOf(n, bpmn.ListenerEvent(c.Event))) == 0 {
		return false
	}
	w.TaskChange = c
	x.touch(w.ID)
	x.createTaskListenerJob(t, n, w, 0)
	return true
}

// createTaskListenerJob creates the job of task listener i of the event
// of task w's pending change.
func (x *executor) createTaskListenerJob(t *Track, n *bpmn.Node, w *Wait, i int) {
	ev := bpmn.ListenerEvent(w.TaskChange.Event)
	l := listenersOf(n, ev)[i]
	j := x.newWait(t, WaitJob, n.ID)
	j.Name = l.Type
	j.Retries = l.Retries
	j.Listener, j.ListenerIndex = string(ev), i
	assignee := w.Assignee
	if ev == bpmn.ListenerAssigning {
		assignee = w.TaskChange.Assignee
	}
	if w.TaskChange.Corrections.Assignee != nil {
		assignee = *w.TaskChange.Corrections.Assignee
	}
	j.CustomHeaders = map[string]string{headerUserTaskKey: w.ID, headerTaskEvent: string(ev), headerAssignee: assignee}
	x.fact(FactJobCreated, n.ID, t.Scope, t.ID, map[string]any{"jobKey": j.ID, "type": j.Name, "listenerEventType": j.Listener, "taskId": w.ID})
	if j.Retries <= 0 {
		x.openIncident(t, j.ID, IncidentJobFailed, "the task listener's job was created with no retries")
	}
}

// pendingTask returns the user task of track t whose change task
// listener job j runs for.
func (x *executor) pendingTask(t *Track, j *Wait) (*Wait, error) {
	for _, w := range x.st.trackWaits(t.ID) {
		if w.Kind == WaitTask && w.NodeID == j.NodeID && w.TaskChange != nil {
			return w, nil
		}
	}
	return nil, fmt.Errorf("engine: task listener job %s has no task with a pending change: %w", j.ID, ErrCheckpoint)
}

// refusePending refuses a change of task w while another waits for its
// listeners.
func refusePending(w *Wait, what string) error {
	if w.TaskChange == nil {
		return nil
	}
	return fmt.Errorf("engine: %s task %s: its %s waits for its task listeners: %w", what, w.ID, w.TaskChange.Event, ErrInvalidTransition)
}

// taskListenerCompleted completes task listener job j on track t with
// e's result: the change is denied, or the next listener runs, or the
// change applies.
func (x *executor) taskListenerCompleted(t *Track, j *Wait, e JobCompleted) error {
	if len(e.Variables) > 0 {
		return fmt.Errorf("engine: complete task listener job %s: a task listener's job takes no variables (correct the task with the result's corrections): %w", j.ID, ErrInvalidTransition)
	}
	w, err := x.pendingTask(t, j)
	if err != nil {
		return err
	}
	n := x.node(t)
	if n == nil {
		return nil
	}
	x.recordCalls(t, j, e.Calls)
	x.removeWait(j)
	c := w.TaskChange
	res := e.Result
	if res == nil {
		res = &JobResult{}
	}
	if res.Denied {
		w.TaskChange = nil
		x.touch(w.ID)
		x.fact(FactTaskChangeDenied, w.NodeID, w.ScopeID, w.TrackID, map[string]any{"taskId": w.ID, "event": c.Event, "reason": res.DeniedReason, "jobKey": j.ID})
		return nil
	}
	mergeCorrections(&c.Corrections, res.Corrections)
	x.touch(w.ID)
	if next := j.ListenerIndex + 1; next < len(listenersOf(n, bpmn.ListenerEvent(c.Event))) {
		x.createTaskListenerJob(t, n, w, next)
		return nil
	}
	w.TaskChange = nil
	x.applyCorrections(w, c.Corrections)
	switch bpmn.ListenerEvent(c.Event) {
	case bpmn.ListenerAssigning:
		if c.Corrections.Assignee == nil {
			x.assign(w, c.Assignee)
		}
	case bpmn.ListenerCompleting:
		x.completeTask(t, n, w, c.Variables)
	}
	return nil
}

// mergeCorrections adds the corrections of one listener to those before.
func mergeCorrections(into *TaskCorrections, c TaskCorrections) {
	if c.Assignee != nil {
		into.Assignee = c.Assignee
	}
	if c.DueAt != nil {
		into.DueAt = c.DueAt
	}
	if c.CandidateUsers != nil {
		into.CandidateUsers = c.CandidateUsers
	}
	if c.CandidateGroups != nil {
		into.CandidateGroups = c.CandidateGroups
	}
}

// applyCorrections sets the corrected fields of task w.
func (x *executor) applyCorrections(w *Wait, c TaskCorrections) {
	if c.Assignee != nil {
		x.assign(w, *c.Assignee)
	}
	if c.DueAt != nil {
		w.DueAt = *c.DueAt
	}
	if c.CandidateUsers != nil {
		w.CandidateUsers = slices.Clone(*c.CandidateUsers)
	}
	if c.CandidateGroups != nil {
		w.CandidateGroups = slices.Clone(*c.CandidateGroups)
	}
	x.touch(w.ID)
}

// assign makes user the assignee of task w ("" unassigns it), recording
// the change.
func (x *executor) assign(w *Wait, user string) {
	if w.Assignee == user {
		return
	}
	prev := w.Assignee
	w.Assignee = user
	x.touch(w.ID)
	if user == "" {
		x.fact(FactTaskUnclaimed, w.NodeID, w.ScopeID, w.TrackID, map[string]any{"taskId": w.ID, "user": prev})
		return
	}
	x.fact(FactTaskClaimed, w.NodeID, w.ScopeID, w.TrackID, map[string]any{"taskId": w.ID, "user": user})
}
