package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/timer"
)

// applyRunning makes a candidate the assignee of a user task.
func (e TaskClaimed) applyRunning(x *executor) error {
	w, t, err := x.openWait(e.TaskID, WaitTask)
	if err != nil {
		return err
	}
	if err := refusePending(w, "claim"); err != nil {
		return err
	}
	return x.claimTask(t, w, e)
}

// applyRunning returns a claimed task to its candidates.
func (e TaskUnclaimed) applyRunning(x *executor) error {
	w, t, err := x.openWait(e.TaskID, WaitTask)
	if err != nil {
		return err
	}
	if err := refusePending(w, "unclaim"); err != nil {
		return err
	}
	if w.Assignee == "" {
		return fmt.Errorf("engine: unclaim task %s: not claimed: %w", w.ID, ErrInvalidTransition)
	}
	if w.Assignee != e.User {
		return fmt.Errorf("engine: unclaim task %s: %q is not the assignee: %w", w.ID, e.User, ErrForbidden)
	}
	if x.requestTaskChange(t, x.proc.Node(w.NodeID), w, &TaskChange{Event: string(bpmn.ListenerAssigning)}) {
		return nil // it is unassigned when its assigning listeners completed
	}
	x.assign(w, "")
	return nil
}

// applyRunning completes a user task with its form variables.
func (e TaskCompleted) applyRunning(x *executor) error {
	w, t, err := x.openWait(e.TaskID, WaitTask)
	if err != nil {
		return err
	}
	if err := refusePending(w, "complete"); err != nil {
		return err
	}
	if err := mayComplete(w, e.User); err != nil {
		return err
	}
	n := x.proc.Node(t.Node)
	if x.requestTaskChange(t, n, w, &TaskChange{Event: string(bpmn.ListenerCompleting), User: e.User, Variables: e.Variables}) {
		return nil // it completes when its completing listeners completed
	}
	x.completeTask(t, n, w, e.Variables)
	return nil
}

// completeTask completes user task w of track t at node n with vars.
func (x *executor) completeTask(t *Track, n *bpmn.Node, w *Wait, vars map[string]any) {
	x.deliver(t, n, vars)
	if !x.stillActive(t, n) {
		return // a condition the variables satisfied interrupted the task
	}
	x.finishActivity(t, w)
}

func (x *executor) createTask(t *Track, n *bpmn.Node) {
	def := n.UserTask
	if def == nil {
		def = &bpmn.UserTaskDef{}
	}
	assignee, err := x.bindingList(t, def.Assignee)
	if err != nil {
		x.incident(t, IncidentExpression, fmt.Sprintf("assignee of %s: %v", n.ID, err))
		return
	}
	users, err := x.bindingList(t, def.CandidateUsers)
	if err != nil {
		x.incident(t, IncidentExpression, fmt.Sprintf("candidate users of %s: %v", n.ID, err))
		return
	}
	groups, err := x.bindingList(t, def.CandidateGroups)
	if err != nil {
		x.incident(t, IncidentExpression, fmt.Sprintf("candidate groups of %s: %v", n.ID, err))
		return
	}
	var due time.Time
	if def.DueDate != nil {
		txt, err := x.bindingText(t, def.DueDate)
		if err == nil && txt != "" {
			due, err = parseDueDate(txt, x.now)
		}
		if err != nil {
			x.incident(t, IncidentExpression, fmt.Sprintf("due date of %s: %v", n.ID, err))
			return
		}
	}
	w := x.newWait(t, WaitTask, n.ID)
	w.Name = n.Name
	if w.Name == "" {
		w.Name = n.ID
	}
	if len(assignee) > 0 {
		w.Assignee = assignee[0]
	}
	w.CandidateUsers, w.CandidateGroups, w.DueAt = users, groups, due
	t.State = TrackWaiting
	x.fact(FactTaskCreated, n.ID, t.Scope, t.ID, map[string]any{"taskId": w.ID})
	x.armBoundaries(t, n)
}

// parseDueDate reads a due date as an ISO 8601 date-time or a duration from now.
func parseDueDate(txt string, now time.Time) (time.Time, error) {
	kind := timer.Kind(bpmn.TimerDate)
	if strings.HasPrefix(strings.TrimSpace(txt), "P") {
		kind = timer.Kind(bpmn.TimerDuration)
	}
	spec, err := timer.Parse(kind, txt)
	if err != nil {
		return time.Time{}, err
	}
	due, ok := spec.First(now)
	if !ok {
		return time.Time{}, fmt.Errorf("due date %q never comes", txt)
	}
	return due, nil
}

func (x *executor) claimTask(t *Track, w *Wait, e TaskClaimed) error {
	if e.User == "" {
		return fmt.Errorf("engine: claim task %s: no user: %w", w.ID, ErrForbidden)
	}
	if w.Assignee == e.User {
		return nil
	}
	if w.Assignee != "" {
		return fmt.Errorf("engine: claim task %s: already claimed by %q: %w", w.ID, w.Assignee, ErrInvalidTransition)
	}
	if !isCandidate(w, e.User, e.Groups) {
		return fmt.Errorf("engine: claim task %s: %q is not a candidate: %w", w.ID, e.User, ErrForbidden)
	}
	if t != nil && x.requestTaskChange(t, x.proc.Node(w.NodeID), w, &TaskChange{Event: string(bpmn.ListenerAssigning), Assignee: e.User}) {
		return nil // it is assigned when its assigning listeners completed
	}
	x.assign(w, e.User)
	return nil
}

// isCandidate reports whether a user may claim a task: anyone when it has no
// candidates, else a candidate user or a member of a candidate group.
func isCandidate(w *Wait, user string, groups []string) bool {
	if len(w.CandidateUsers) == 0 && len(w.CandidateGroups) == 0 {
		return true
	}
	if slices.Contains(w.CandidateUsers, user) {
		return true
	}
	for _, g := range groups {
		if slices.Contains(w.CandidateGroups, g) {
			return true
		}
	}
	return false
}

// mayComplete: only the assignee completes; an unassigned task without
// candidates may be completed by anyone; an unassigned offered task must be claimed first.
func mayComplete(w *Wait, user string) error {
	switch {
	case w.Assignee != "" && w.Assignee != user:
		return fmt.Errorf("engine: complete task %s: %q is not the assignee: %w", w.ID, user, ErrForbidden)
	case w.Assignee == "" && (len(w.CandidateUsers) > 0 || len(w.CandidateGroups) > 0):
		return fmt.Errorf("engine: complete task %s: claim it first: %w", w.ID, ErrInvalidTransition)
	}
	return nil
}
