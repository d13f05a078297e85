package engine

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
	"github.com/gobpm/gobpm/internal/timer"
)

// Default retry schedule of a failed job without an explicit backoff.
const (
	retryBase = time.Second
	retryMax  = 5 * time.Minute
)

// applyWaitEvent applies the events that act on an open wait or incident.
func (x *executor) applyWaitEvent(ev Event) error {
	switch e := ev.(type) {
	case JobCompleted:
		w, t, err := x.openWait(e.Key, WaitJob)
		if err != nil {
			return err
		}
		n := x.proc.Node(t.Node)
		x.deliver(t, n, e.Variables)
		if !x.stillActive(t, n) {
			return nil // a condition the variables satisfied interrupted the task
		}
		x.finishActivity(t, w)
	case JobFailed:
		w, t, err := x.openWait(e.Key, WaitJob)
		if err != nil {
			return err
		}
		x.failJob(t, w, e)
	case JobErrorThrown:
		w, t, err := x.openWait(e.Key, WaitJob)
		if err != nil {
			return err
		}
		x.mergeVars(t, e.Variables)
		x.removeWait(w)
		detail := e.ErrorMessage
		if detail == "" {
			detail = "thrown by the worker of job " + w.ID
		}
		x.throwError(t, t.Scope, e.Code, detail, true)
	case IncidentRetried:
		x.by = e.By
		defer func() { x.by = "" }()
		return x.retryIncident(e)
	case TaskClaimed:
		w, _, err := x.openWait(e.TaskID, WaitTask)
		if err != nil {
			return err
		}
		return x.claimTask(w, e)
	case TaskUnclaimed:
		w, _, err := x.openWait(e.TaskID, WaitTask)
		if err != nil {
			return err
		}
		if w.Assignee == "" {
			return fmt.Errorf("engine: unclaim task %s: not claimed: %w", w.ID, ErrInvalidTransition)
		}
		if w.Assignee != e.User {
			return fmt.Errorf("engine: unclaim task %s: %q is not the assignee: %w", w.ID, e.User, ErrForbidden)
		}
		w.Assignee = ""
		x.touch(w.ID)
		x.fact(FactTaskUnclaimed, w.NodeID, w.ScopeID, w.TrackID, map[string]any{"taskId": w.ID, "user": e.User})
	case TaskCompleted:
		w, t, err := x.openWait(e.TaskID, WaitTask)
		if err != nil {
			return err
		}
		if err := mayComplete(w, e.User); err != nil {
			return err
		}
		n := x.proc.Node(t.Node)
		x.deliver(t, n, e.Variables)
		if !x.stillActive(t, n) {
			return nil // a condition the variables satisfied interrupted the task
		}
		x.finishActivity(t, w)
	case TimerFired:
		w, _, err := x.openWait(e.WaitID, WaitTimer)
		if err != nil {
			return err
		}
		if x.now.Before(w.DueAt) {
			return fmt.Errorf("engine: timer %s is due at %s, not before: %w", w.ID, w.DueAt.Format(time.RFC3339Nano), ErrInvalidTransition)
		}
		x.fire(w, nil)
	case MessageDelivered:
		w, _, err := x.openWait(e.WaitID, WaitMessage)
		if err != nil {
			return err
		}
		x.fire(w, e.Variables)
	case VariablesSet:
		s := scope.ID(e.ScopeID)
		if s == "" {
			s = scope.RootID
		}
		sc := x.st.Scopes.Get(s)
		if sc == nil {
			return fmt.Errorf("engine: set variables in scope %s: %w", s, scope.ErrUnknownScope)
		}
		names := make([]string, 0, len(e.Variables))
		for k := range e.Variables {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			at := s
			if e.Local {
				sc.Vars[k] = scope.CloneValue(e.Variables[k])
				x.st.Scopes.Touch(sc.ID)
			} else if at, _ = x.st.Scopes.Set(s, k, scope.CloneValue(e.Variables[k])); at == "" {
				continue
			}
			by := e.By
			if by == "" {
				by = "operator"
			}
			x.fact(FactVariableSet, sc.NodeID, at, "", map[string]any{"name": k, "by": by})
		}
	case SignalDelivered:
		var hits []*Wait
		for _, w := range x.st.Waits {
			if w.Kind == WaitSignal && w.Name == e.Name {
				hits = append(hits, w)
			}
		}
		for _, w := range hits {
			if x.st.Wait(w.ID) != nil { // an earlier firing may have withdrawn it
				x.fire(w, e.Variables)
			}
		}
	default:
		return fmt.Errorf("engine: event %T: %w", ev, ErrInvalidTransition)
	}
	return nil
}

// openWait finds an open wait of a kind and its track.
func (x *executor) openWait(id string, kind WaitKind) (*Wait, *Track, error) {
	w := x.st.Wait(id)
	if w == nil || w.Kind != kind {
		return nil, nil, fmt.Errorf("engine: %s %s in instance %s: %w", kind, id, x.st.InstanceID, ErrUnknownWait)
	}
	if w.Handler {
		return w, nil, nil // an event sub-process's wait belongs to its scope
	}
	t := x.st.Track(w.TrackID)
	if t == nil {
		return nil, nil, fmt.Errorf("engine: %s %s has no track: %w", kind, id, ErrCheckpoint)
	}
	x.markTrack(t) // an event on a wait moves its track on
	return w, t, nil
}

// finishActivity completes the activity a job or user task belongs to.
func (x *executor) finishActivity(t *Track, w *Wait) {
	n := x.node(t)
	if n == nil {
		return
	}
	t.State = TrackReady
	switch {
	case n.Kind == bpmn.KindEndEvent:
		x.finishEndEvent(t, n)
	case n.Kind == bpmn.KindIntermediateThrowEvent:
		x.thrown(t, n) // the message is sent; a multiple throw throws the rest
	default:
		x.complete(t, n)
	}
}

// countFailure records a failed attempt on job w: one failure more, the
// retries left, the error message and the backoff until it may be
// activated again.
func (x *executor) countFailure(w *Wait, e JobFailed) {
	w.Failures++
	if e.Decrement {
		w.Retries = max(w.Retries-1, 0)
	} else {
		w.Retries = max(e.Retries, 0)
	}
	w.ErrorMessage = e.ErrorMessage
	backoff := e.Backoff
	if backoff <= 0 {
		backoff = defaultBackoff(w.Failures, e.Jitter)
	}
	w.DueAt = x.now.Add(backoff)
	x.touch(w.ID)
}

func (x *executor) failJob(t *Track, w *Wait, e JobFailed) {
	x.countFailure(w, e)
	x.fact(FactJobFailed, w.NodeID, w.ScopeID, t.ID, map[string]any{"jobKey": w.ID, "retries": w.Retries, "errorMessage": e.ErrorMessage})
	if w.Retries == 0 {
		w.DueAt = time.Time{}
		msg := e.ErrorMessage
		if msg == "" {
			msg = "the job failed and has no retries left"
		}
		x.openIncident(t, w.ID, IncidentJobFailed, msg)
	}
}

// defaultBackoff is 1 s doubling per failure up to 5 min, scaled by 1 ± jitter/5.
func defaultBackoff(failures int, jitter float64) time.Duration {
	d := float64(retryBase) * math.Pow(2, float64(max(failures-1, 0)))
	d = min(d, float64(retryMax))
	if jitter >= 0 && jitter < 1 {
		d *= 1 + (jitter*2-1)/5
	}
	return time.Duration(d)
}

func (x *executor) retryIncident(e IncidentRetried) error {
	var in *Incident
	for _, o := range x.st.Incidents {
		if o.ID == e.IncidentID {
			in = o
		}
	}
	if in == nil {
		return fmt.Errorf("engine: retry incident %s: %w", e.IncidentID, ErrUnknownIncident)
	}
	if in.WaitID != "" {
		w := x.st.Wait(in.WaitID)
		if w == nil {
			return fmt.Errorf("engine: retry incident %s: job %s is gone: %w", in.ID, in.WaitID, ErrUnknownWait)
		}
		w.Retries = max(e.Retries, 1)
		w.DueAt = time.Time{}
		x.touch(w.ID)
		x.resolveIncidentID(in.ID, "retried")
		return nil
	}
	t := x.st.Track(in.TrackID)
	if t != nil {
		x.markTrack(t)
	}
	x.resolveIncidentID(in.ID, "retried")
	if in.TrackID == "" && in.Kind == IncidentRouter {
		x.retryRegion(in.ScopeID) // the region's router is asked again
		return nil
	}
	if t != nil && t.State == TrackIncident {
		t.Incident = ""
		if b := x.st.body(t.Child); b != nil && t.Child != "" {
			// A loop condition failed between iterations: the body is still
			// open, so the loop resumes where it stopped (entering the
			// activity again would leave this body behind).
			t.State = TrackInScope
			if n := x.proc.Node(b.NodeID); n != nil && n.Loop != nil && n.Loop.Standard && b.Active == 0 {
				x.nextLoop(b, n)
			}
			return nil
		}
		if t.Done {
			// The element had completed; what failed came after it (its
			// output mappings, a completion condition, a router).
			t.Done, t.State = false, TrackReady
			if n := x.proc.Node(t.Node); n != nil && !x.entryPending(t, n) {
				x.skipEntry = t.ID // its compensation entry was recorded when it completed
			}
			if n := x.proc.Node(t.Node); n != nil && n.Kind == bpmn.KindEndEvent {
				x.finishEndEvent(t, n)
			} else if n != nil {
				x.leave(t, n)
			}
			return nil
		}
		// The activity runs again from its start: the waits of the failed
		// attempt (boundary events still armed, gateway subscriptions) go,
		// it arms its own again.
		x.withdrawWaits(t)
		t.State = TrackReady
		x.queue = append(x.queue, t.ID)
	}
	return nil
}

func (x *executor) claimTask(w *Wait, e TaskClaimed) error {
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
	w.Assignee = e.User
	x.touch(w.ID)
	x.fact(FactTaskClaimed, w.NodeID, w.ScopeID, w.TrackID, map[string]any{"taskId": w.ID, "user": e.User})
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

// ---- creating waits ----

func (x *executor) newWait(t *Track, kind WaitKind, nodeID string) *Wait {
	return x.allocTrackWait(kind, nodeID, t.Scope, t.ID)
}

// newCallWait adds the wait of call activity nodeID on track t. Its id is
// the child instance's id: minted fresh by Options.MintIDFunc (or, without
// one, NameBasedID), never built from this instance's id, so ids stay
// short however deep a call chain goes. Its counter goes to Seq.
func (x *executor) newCallWait(t *Track, nodeID string) *Wait {
	return x.addWait(&Wait{Kind: WaitCall, NodeID: nodeID, ScopeID: t.Scope, TrackID: t.ID}, true)
}

// allocWait adds a wait. Ids are zero-padded so that, within one step (equal
// CreatedAt), their text order is their creation order: subscriptions are
// served oldest first.
func (x *executor) allocWait(kind WaitKind, nodeID string, s scope.ID) *Wait {
	return x.allocTrackWait(kind, nodeID, s, "")
}

// allocTrackWait adds a wait of track (none for "").
func (x *executor) allocTrackWait(kind WaitKind, nodeID string, s scope.ID, track string) *Wait {
	return x.addWait(&Wait{Kind: kind, NodeID: nodeID, ScopeID: s, TrackID: track}, false)
}

// addWait numbers w, names it (a fresh id for a call wait, else
// "<instance>-w%06d") and adds it to the state.
func (x *executor) addWait(w *Wait, call bool) *Wait {
	x.st.NextWait++
	w.CreatedAt = x.now
	switch {
	case !call:
		w.ID = fmt.Sprintf("%s-w%06d", x.st.InstanceID, x.st.NextWait)
	case x.opts.MintIDFunc != nil:
		w.ID, w.Seq = x.opts.MintIDFunc(), int64(x.st.NextWait)
	default:
		w.ID, w.Seq = NameBasedID(x.st.InstanceID, int64(x.st.NextWait)), int64(x.st.NextWait)
	}
	track := w.TrackID
	x.st.Waits = append(x.st.Waits, w)
	if x.st.callWaits != nil && call {
		x.st.callWaits[w.ID] = w
	}
	if x.st.waitsOf != nil && track != "" {
		x.st.waitsOf[track] = append(x.st.waitsOf[track], w)
	}
	x.touch(w.ID)
	return w
}

func (x *executor) createJob(t *Track, n *bpmn.Node) {
	typ := n.Job.Type
	if n.Job.TypeExpr != nil {
		// A job type given as an expression is evaluated in the scope the
		// job is created in (its inputs included), once per job.
		v, err := n.Job.TypeExpr.Eval(x.view(t.Scope))
		if err != nil {
			x.incident(t, IncidentExpression, fmt.Sprintf("job type of %s: %v", n.ID, err))
			return
		}
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" {
			x.incident(t, IncidentExpression, fmt.Sprintf("job type of %s: %s yields %s, not a non-empty string", n.ID, n.Job.TypeExpr.Source(), describeValue(v)))
			return
		}
		typ = s
	}
	w := x.newWait(t, WaitJob, n.ID)
	w.Name = typ
	w.CustomHeaders = maps.Clone(n.Job.Headers)
	w.Retries = n.Job.Retries
	t.State = TrackWaiting
	x.fact(FactJobCreated, n.ID, t.Scope, t.ID, map[string]any{"jobKey": w.ID, "type": w.Name})
	if w.Retries <= 0 {
		x.openIncident(t, w.ID, IncidentJobFailed, "the job was created with no retries")
	}
	x.armBoundaries(t, n)
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

// catchEvent parks a track on an intermediate catch event or receive task.
func (x *executor) catchEvent(t *Track, n *bpmn.Node) {
	if n.Kind == bpmn.KindReceiveTask && n.Event == nil {
		x.awaitTrigger(t, n)
		return
	}
	if n.Event == nil || n.Event.Kind == bpmn.TriggerLink {
		// A link catch is reached from its throw and passes straight on.
		x.complete(t, n)
		return
	}
	for _, ev := range n.Event.Triggers() {
		// A multiple catch waits for each of its definitions.
		if !x.subscribe(t, n, ev, false, false) {
			x.withdrawWaits(t) // those armed so far; the retry arms them again
			return
		}
	}
	t.State = TrackWaiting
	if n.Kind == bpmn.KindReceiveTask {
		x.armBoundaries(t, n)
	}
}

// subscribe creates the wait of a catching event definition for track t.
// It reports false when an incident was raised instead.
func (x *executor) subscribe(t *Track, n *bpmn.Node, ev *bpmn.EventDef, boundary, gateway bool) bool {
	s := t.Scope
	if boundary {
		// A boundary event belongs to the scope its activity sits in, not
		// to the activity's io scope (boundariesArmable evaluated it there).
		s = x.flowScope(t)
	}
	w, err := x.arm(s, n, ev, func() *Wait { return x.allocTrackWait("", n.ID, s, t.ID) })
	if err != nil {
		x.incident(t, IncidentTimer, err.Error())
		return false
	}
	if w != nil {
		w.Boundary, w.Gateway = boundary, gateway
	}
	return true
}

// arm creates the wait for a catching event definition ev of node n,
// evaluating expressions in scope s; alloc makes the (track or scope owned)
// wait. Errors and escalations need no wait (they are matched when thrown):
// arm returns nil for them.
func (x *executor) arm(s scope.ID, n *bpmn.Node, ev *bpmn.EventDef, alloc func() *Wait) (*Wait, error) {
	switch ev.Kind {
	case bpmn.TriggerTimer:
		due, spec, err := x.timerDue(s, ev.Timer)
		if err != nil {
			return nil, fmt.Errorf("timer of %s: %w", n.ID, err)
		}
		w := alloc()
		w.Kind = WaitTimer
		w.DueAt, w.TimerKind, w.TimerText = due, string(ev.Timer.Kind), spec
		x.fact(FactTimerArmed, n.ID, s, w.TrackID, map[string]any{"dueAt": due.Format(time.RFC3339Nano)})
		return w, nil
	case bpmn.TriggerMessage:
		key := ""
		if ev.CorrelationKey != nil {
			v, err := ev.CorrelationKey.Eval(x.view(s))
			if err != nil {
				return nil, fmt.Errorf("correlation key of %s: %w", n.ID, err)
			}
			key = keyText(v)
		}
		w := alloc()
		w.Kind = WaitMessage
		w.Name, w.CorrelationKey = ev.MessageName, key
		return w, nil
	case bpmn.TriggerSignal:
		w := alloc()
		w.Kind = WaitSignal
		w.Name = ev.SignalName
		return w, nil
	case bpmn.TriggerConditional:
		w := alloc()
		w.Kind = WaitCondition // evaluated when the step settles (evalConditions)
		return w, nil
	}
	return nil, nil
}

// timerDue computes the first due time of a timer definition armed now.
func (x *executor) timerDue(s scope.ID, def *bpmn.TimerDef) (time.Time, string, error) {
	text := def.Text
	if def.Expr != nil {
		v, err := def.Expr.Eval(x.view(s))
		if err != nil {
			return time.Time{}, "", err
		}
		str, ok := v.(string)
		if !ok {
			return time.Time{}, "", fmt.Errorf("expression %q yields %v, not a timer text", def.Expr.Source(), v)
		}
		text = str
	}
	spec, err := timer.Parse(timer.Kind(def.Kind), text)
	if err != nil {
		return time.Time{}, "", err
	}
	if floor := x.opts.MinTimerPeriod; def.Expr != nil && floor > 0 {
		// A literal was held to the floor at deployment; what an
		// expression yields is held to it now.
		if period, ok := spec.Period(); ok && period < floor {
			return time.Time{}, "", fmt.Errorf("timer %q fires every %v; the minimum timer period is %v (the timer floor)", text, period, floor)
		}
	}
	due, ok := spec.First(x.now)
	if !ok {
		return time.Time{}, "", fmt.Errorf("timer %q never fires", text)
	}
	return due, text, nil
}

// boundariesArmable evaluates the timers and correlation keys of the
// boundary events of activity n before track t starts it, so that a
// boundary that cannot be armed stops the activity in an incident before it
// created anything (a job, a task, a child, a seeded scope): the retry then
// starts it once. armBoundaries evaluates the same expressions on the same
// data later in the step.
func (x *executor) boundariesArmable(t *Track, n *bpmn.Node) bool {
	if t.Inner {
		return true // a loop's boundary events guard the body, armed on its host
	}
	s := x.flowScope(t) // where armBoundaries evaluates them
	for _, b := range n.Boundaries {
		for _, ev := range b.Event.Triggers() {
			var err error
			switch ev.Kind {
			case bpmn.TriggerTimer:
				if _, _, err = x.timerDue(s, ev.Timer); err != nil {
					err = fmt.Errorf("timer of %s: %w", b.ID, err)
				}
			case bpmn.TriggerMessage:
				if ev.CorrelationKey != nil {
					if _, err = ev.CorrelationKey.Eval(x.view(s)); err != nil {
						err = fmt.Errorf("correlation key of %s: %w", b.ID, err)
					}
				}
			}
			if err != nil {
				x.incident(t, IncidentTimer, err.Error())
				return false
			}
		}
	}
	return true
}

// armBoundaries arms the timer, message and signal boundary events of the
// activity n that track t now executes.
func (x *executor) armBoundaries(t *Track, n *bpmn.Node) {
	if t.Inner {
		return // a loop's boundary events guard the body, armed on its host
	}
	for _, b := range n.Boundaries {
		for _, ev := range b.Event.Triggers() {
			switch ev.Kind {
			case bpmn.TriggerTimer, bpmn.TriggerMessage, bpmn.TriggerSignal, bpmn.TriggerConditional:
				if !x.subscribe(t, b, ev, true, false) {
					return
				}
			}
		}
	}
}

func (x *executor) throwEvent(t *Track, n *bpmn.Node) {
	if n.Job != nil {
		x.createJob(t, n) // message throw: a job; the track leaves on completion
		return
	}
	x.thrown(t, n)
}

// thrown throws what intermediate throw event n throws besides a message
// (whose job completed, if it has one) and completes it.
func (x *executor) thrown(t *Track, n *bpmn.Node) {
	if n.Event != nil && n.Event.Kind == bpmn.TriggerCompensation {
		if x.throwCompensation(t, n) {
			return // it completes when the handlers finished (finishRun)
		}
	} else if !x.throwAll(t, n) {
		return
	}
	x.complete(t, n)
}

// throwAll throws the signal and escalation definitions of throw event n,
// in document order (a multiple throw throws every one). It reports false
// when an interrupting catch of an escalation cancelled the thrower.
func (x *executor) throwAll(t *Track, n *bpmn.Node) bool {
	for _, ev := range n.Event.Triggers() {
		switch ev.Kind {
		case bpmn.TriggerSignal:
			x.throwSignal(t, ev.SignalName)
		case bpmn.TriggerEscalation:
			x.throwEscalation(t, ev.Code)
			if x.st.Track(t.ID) == nil {
				return false
			}
		}
	}
	return true
}

func (x *executor) throwSignal(t *Track, name string) {
	x.fx.Signals = append(x.fx.Signals, SignalThrow{Name: name})
	x.fact(FactSignalThrown, t.Node, t.Scope, t.ID, map[string]any{"signal": name})
}

func (x *executor) eventGateway(t *Track, n *bpmn.Node) {
	t.State = TrackWaiting
	for _, f := range n.Outgoing {
		target := f.Target
		for _, ev := range target.Event.Triggers() {
			if !x.subscribe(t, target, ev, false, true) {
				return
			}
		}
	}
	x.fact(FactElementCompleted, n.ID, t.Scope, t.ID, nil)
}

// ---- firing ----

// fire triggers a timer, message, signal or condition wait.
func (x *executor) fire(w *Wait, vars map[string]any) {
	if w.Handler {
		x.fireHandler(w, vars)
		return
	}
	t := x.st.Track(w.TrackID)
	n := x.proc.Node(w.NodeID)
	if t == nil || n == nil {
		return
	}
	x.markTrack(t)
	x.fx.Fired++
	detail := map[string]any{"kind": string(w.Kind), "waitId": w.ID}
	if w.Kind == WaitTrigger && x.by != "" {
		detail["by"] = x.by
	}
	x.fact(FactEventTriggered, n.ID, w.ScopeID, t.ID, detail)
	switch {
	case w.Boundary && n.Event.Kind == bpmn.TriggerParallelMultiple:
		// An interrupting parallel multiple boundary event (bpmn refuses a
		// non-interrupting one) fires once all its events occurred; each
		// wait it no longer has is an event that did.
		x.removeWait(w)
		x.mergeVars(t, vars)
		if !x.awaiting(t, n, true) {
			x.fireBoundary(t, w, n, nil)
		}
	case w.Boundary:
		x.fireBoundary(t, w, n, vars)
	case w.Gateway:
		// The first event wins: withdraw the others and run the chosen catch.
		x.withdrawWaits(t)
		t.Node, t.State, t.Via = n.ID, TrackReady, ""
		x.fact(FactElementActivated, n.ID, t.Scope, t.ID, map[string]any{"type": string(n.Kind)})
		x.runEvent(t, n, vars)
	default:
		x.removeWait(w)
		x.deliver(t, n, vars)
		// Only a payload is a change of its own; a conditional catch fired
		// by evalConditions itself brings none.
		if len(vars) > 0 && !x.stillActive(t, n) {
			return // a condition the payload satisfied interrupted the catch
		}
		if n.Event != nil && n.Event.Kind == bpmn.TriggerParallelMultiple && x.awaiting(t, n, false) {
			return // a parallel multiple catch waits for all its events
		}
		t.State = TrackReady
		x.complete(t, n)
	}
}

// awaiting reports whether track t still has a wait for node n (its
// boundary waits when boundary): a parallel multiple event whose other
// events have not all occurred.
func (x *executor) awaiting(t *Track, n *bpmn.Node, boundary bool) bool {
	for _, w := range x.st.trackWaits(t.ID) {
		if w.NodeID == n.ID && w.Boundary == boundary && (x.sw == nil || !x.sw.goneWaits[w]) {
			return true
		}
	}
	return false
}

// fireBoundary runs a boundary event b of the activity hosted by track host.
func (x *executor) fireBoundary(host *Track, w *Wait, b *bpmn.Node, vars map[string]any) {
	if b.CancelActivity {
		x.interrupt(host, b)
		x.fact(FactElementActivated, b.ID, host.Scope, host.ID, map[string]any{"type": string(b.Kind)})
		x.runEvent(host, b, vars)
		return
	}
	// Non-interrupting: a timer cycle re-arms, a duration or date fires once;
	// message and signal boundaries stay armed while the activity runs.
	if w.Kind == WaitTimer {
		x.rearm(w)
	}
	t := x.newTrackAt(x.flowScope(host), b.ID)
	x.fact(FactElementActivated, b.ID, t.Scope, t.ID, map[string]any{"type": string(b.Kind)})
	x.runEvent(t, b, vars)
}

// newTrackAt creates a track on a node without queueing it: the caller runs it.
func (x *executor) newTrackAt(s scope.ID, node string) *Track {
	x.st.NextTrack++
	t := &Track{ID: "t" + strconv.Itoa(x.st.NextTrack), Scope: s, Node: node, State: TrackReady}
	x.st.Tracks = append(x.st.Tracks, t)
	x.countTrack(s, 1)
	x.markTrack(t)
	return t
}

// rearm schedules the next firing of a cycle timer or removes the wait.
func (x *executor) rearm(w *Wait) {
	w.Fired++
	if w.TimerKind == string(bpmn.TimerCycle) {
		if spec, err := timer.Parse(timer.KindCycle, w.TimerText); err == nil {
			if next, ok := spec.Next(x.now, w.Fired); ok {
				w.DueAt = next
				x.touch(w.ID)
				return
			}
		}
	}
	x.removeWait(w)
}

// interrupt cancels the activity of host for an interrupting boundary event
// b: its waits are withdrawn, a hosted scope is cancelled, and the track
// moves onto the boundary event.
func (x *executor) interrupt(host *Track, b *bpmn.Node) {
	x.stopActivity(host, "boundary "+b.ID, "activity interrupted", b.ID)
	host.Node, host.State, host.Via = b.ID, TrackReady, ""
}

// stopActivity ends the activity track t runs without completing it: its
// waits are withdrawn, its incident resolved (why), a hosted scope
// cancelled and an I/O scope left without outputs (cause), and an
// element-terminated fact names by. The track itself stays for the caller
// to move or remove.
func (x *executor) stopActivity(t *Track, cause, why, by string) {
	x.markTrack(t)
	x.withdrawWaits(t)
	if t.Incident != "" {
		x.resolveIncidentID(t.Incident, why)
		t.Incident = ""
	}
	t.Done = false
	if t.Child != "" {
		// A hosted scope, also while its host stops in an incident (a
		// loop condition or output mapping that failed).
		if x.st.Scopes.Get(t.Child) != nil {
			x.cancelScope(t.Child, cause)
		}
		t.Child = ""
	}
	if io := x.ioScope(t); io != nil {
		x.exitIO(t, io, cause) // its locals are discarded, no outputs
	}
	x.fact(FactElementTerminated, t.Node, t.Scope, t.ID, map[string]any{"by": by})
}

// ---- errors and escalations ----

// throwError propagates a BPMN error from track t (DESIGN §5.4): first the
// error boundaries of t's activity (when atActivity), then scope by scope
// outward from scope from: an error event sub-process declared in the scope,
// or an error boundary on the scope's host sub-process. At one level a
// matching code beats a catch-all, and an event sub-process beats a boundary
// of the same rank. Uncaught → incident naming the code and the thrower.
func (x *executor) throwError(t *Track, from scope.ID, code, detail string, atActivity bool) {
	x.fact(FactErrorThrown, t.Node, t.Scope, t.ID, map[string]any{"errorCode": code, "message": detail})
	if atActivity && !t.Inner {
		if n := x.proc.Node(t.Node); n != nil {
			if b, _ := matchBoundary(n, bpmn.TriggerError, code); b != nil {
				x.interrupt(t, b)
				x.fact(FactElementActivated, b.ID, t.Scope, t.ID, map[string]any{"type": string(b.Kind)})
				x.runEvent(t, b, nil)
				return
			}
		}
	}
	if x.catchAtLevels(t, from, bpmn.TriggerError, code) {
		return
	}
	// Uncaught: a called child ends and hands the error to its caller;
	// otherwise the thrower stops in an incident naming the code.
	if x.st.Parent != nil {
		x.failInstance(code, fmt.Sprintf("BPMN error %q thrown at %s was not caught: %s", code, t.Node, detail))
		return
	}
	if x.st.Track(t.ID) == nil {
		return
	}
	msg := fmt.Sprintf("BPMN error %q thrown at %s was not caught: %s", code, t.Node, detail)
	if code == "" {
		msg = fmt.Sprintf("a BPMN error without code thrown at %s was not caught: %s", t.Node, detail)
	}
	x.incident(t, IncidentUnhandled, msg)
}

// throwEscalation propagates an escalation from track t outward like an
// error. A non-interrupting catch lets the thrower continue; an
// interrupting one cancels the scope (and the thrower with it). Uncaught
// escalation is recorded and is not a failure.
func (x *executor) throwEscalation(t *Track, code string) {
	x.fact(FactEscalationThrown, t.Node, t.Scope, t.ID, map[string]any{"escalationCode": code})
	if !x.catchAtLevels(t, t.Scope, bpmn.TriggerEscalation, code) {
		x.fact(FactEscalationUncaught, t.Node, t.Scope, t.ID, map[string]any{"escalationCode": code})
	}
}

// catchAtLevels walks the scope chain from scope from to the root looking
// for an event sub-process or host boundary catching an error or escalation
// thrown by t, and runs the first it finds. It reports whether one caught it.
func (x *executor) catchAtLevels(t *Track, from scope.ID, kind bpmn.TriggerKind, code string) bool {
	// skip is the event sub-process whose handler scope the walk just left:
	// an event a handler re-throws goes past it to the next level (DESIGN
	// §5.5, absorb vs re-throw), it never catches its own re-throw.
	skip := ""
	for s := from; s != ""; {
		sc := x.st.Scopes.Get(s)
		if sc == nil {
			return false
		}
		espExact, espAll := x.matchHandler(s, kind, code, skip)
		var host *Track
		var hostNode, bExact, bAll *bpmn.Node
		if s != scope.RootID {
			if host = x.hostOf(s); host != nil && !host.Inner { // an iteration's boundaries guard the body
				if hostNode = x.proc.Node(host.Node); hostNode != nil {
					if b, exact := matchBoundary(hostNode, kind, code); exact {
						bExact = b
					} else {
						bAll = b
					}
				}
			}
		}
		switch {
		case espExact != nil:
			x.catchByHandler(t, s, espExact)
			return true
		case bExact != nil:
			x.catchByBoundary(t, host, bExact)
			return true
		case espAll != nil:
			x.catchByHandler(t, s, espAll)
			return true
		case bAll != nil:
			x.catchByBoundary(t, host, bAll)
			return true
		}
		if s == scope.RootID {
			return false
		}
		skip = ""
		if n := x.proc.Node(sc.NodeID); n != nil && n.TriggeredByEvent && sc.Kind == "" {
			skip = n.ID
		}
		s = sc.Parent
	}
	return false
}

// catchByHandler runs event sub-process esp of scope s for an error or
// escalation thrown by t; an interrupting one cancels t with the scope.
func (x *executor) catchByHandler(t *Track, s scope.ID, esp *bpmn.Node) {
	if esp.Interrupting {
		x.interruptScope(s, esp)
	}
	x.startHandler(s, esp, nil)
}

// catchByBoundary runs boundary b of host for an error or escalation thrown
// inside host's scope by t.
func (x *executor) catchByBoundary(t *Track, host *Track, b *bpmn.Node) {
	if !b.CancelActivity {
		nt := x.newTrackAt(host.Scope, b.ID)
		x.fact(FactElementActivated, b.ID, nt.Scope, nt.ID, map[string]any{"type": string(b.Kind)})
		x.runEvent(nt, b, nil)
		return
	}
	if x.st.Track(t.ID) != nil && t != host {
		x.removeTrack(t)
	}
	x.interrupt(host, b)
	x.fact(FactElementActivated, b.ID, host.Scope, host.ID, map[string]any{"type": string(b.Kind)})
	x.runEvent(host, b, nil)
}

// matchBoundary returns the boundary event of activity n catching a trigger
// with the code: an exact code match first (exact), else a catch-all.
func matchBoundary(n *bpmn.Node, kind bpmn.TriggerKind, code string) (b *bpmn.Node, exact bool) {
	var all *bpmn.Node
	for _, c := range n.Boundaries {
		ex, any := catchesCode(c.Event, kind, code)
		if ex {
			return c, true
		}
		if any && all == nil {
			all = c
		}
	}
	return all, false
}

// ---- inclusive gateway ----

func (x *executor) inclusiveGateway(t *Track, n *bpmn.Node) {
	if len(n.Incoming) > 1 {
		t.State = TrackJoining
		x.markTrack(t)
		return // fireInclusiveJoins decides when the queue is empty
	}
	x.inclusiveFork(t, n)
}

func (x *executor) inclusiveFork(t *Track, n *bpmn.Node) {
	if taken, ok := x.takenFlows(t, n, "inclusive gateway "+n.ID); ok {
		x.fact(FactElementCompleted, n.ID, t.Scope, t.ID, nil)
		x.fork(t, taken)
	}
}

// fireInclusiveJoins fires every inclusive join that has tokens waiting and
// that no other track of its scope can still reach. It reports whether any fired.
func (x *executor) fireInclusiveJoins() bool {
	if !x.proc.HasInclusiveJoins() {
		return false // no join to fire: a step over n tracks must not scan them
	}
	fired := false
	for _, t := range slices.Clone(x.st.Tracks) {
		if t.State != TrackJoining || x.st.Track(t.ID) == nil {
			continue
		}
		n := x.proc.Node(t.Node)
		if n == nil || n.Kind != bpmn.KindInclusiveGateway {
			continue
		}
		if x.canStillArrive(n, t.Scope) {
			continue
		}
		// Consume one waiting token per incoming flow; t carries on.
		seen := map[string]bool{t.Via: true}
		for _, o := range slices.Clone(x.st.Tracks) {
			if o != t && o.State == TrackJoining && o.Node == n.ID && o.Scope == t.Scope && !seen[o.Via] {
				seen[o.Via] = true
				x.removeTrack(o)
			}
		}
		t.State = TrackReady
		x.markTrack(t)
		x.inclusiveFork(t, n)
		fired = true
	}
	return fired
}

// canStillArrive reports whether a track of scope s that is not waiting at
// the join g could still reach it.
func (x *executor) canStillArrive(g *bpmn.Node, s scope.ID) bool {
	for _, o := range x.st.Tracks {
		if x.flowScope(o) != s || (o.Node == g.ID && o.State == TrackJoining) {
			continue
		}
		if n := x.proc.Node(o.Node); n != nil && reaches(n, g) {
			return true
		}
	}
	return false
}

// reaches reports whether g is reachable from n over sequence flows (and the
// flows of n's boundary events, and links) within one graph.
func reaches(n, g *bpmn.Node) bool {
	seen := map[*bpmn.Node]bool{}
	stack := []*bpmn.Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[c] {
			continue
		}
		seen[c] = true
		next := slices.Clone(c.Outgoing)
		for _, b := range c.Boundaries {
			next = append(next, b.Outgoing...)
		}
		for _, f := range next {
			if f.Target == g {
				return true
			}
			stack = append(stack, f.Target)
		}
		if c.LinkTarget != nil {
			stack = append(stack, c.LinkTarget) // a link catch is never a join
		}
	}
	return false
}

// ---- bookkeeping ----

// withdrawWaits removes every wait of track t (its own and its boundaries').
func (x *executor) withdrawWaits(t *Track) {
	if x.sw != nil {
		for _, w := range x.sw.waits[t.ID] {
			if !x.sw.goneWaits[w] {
				x.removeWait(w)
			}
		}
		return
	}
	for _, w := range slices.Clone(x.st.trackWaits(t.ID)) {
		x.removeWait(w)
	}
}

func (x *executor) removeWait(w *Wait) {
	if x.sw != nil {
		x.sw.goneWaits[w] = true // endSweep drops it from the list
	} else if i := x.st.waitIndex(w); i >= 0 {
		x.st.Waits = slices.Delete(x.st.Waits, i, i+1)
		if x.st.waitsOf != nil && w.TrackID != "" {
			mine := slices.DeleteFunc(x.st.waitsOf[w.TrackID], func(o *Wait) bool { return o == w })
			if len(mine) == 0 {
				delete(x.st.waitsOf, w.TrackID)
			} else {
				x.st.waitsOf[w.TrackID] = mine
			}
		}
	}
	x.touch(w.ID)
	for _, in := range slices.Clone(x.st.Incidents) {
		if in.WaitID == w.ID {
			x.resolveIncidentID(in.ID, "job withdrawn")
		}
	}
	if w.Kind == WaitCall && !slices.Contains(x.consumed, w.ID) {
		x.fx.CancelChildren = append(x.fx.CancelChildren, w.ID) // the call was withdrawn: cascade
	}
}

func (x *executor) touch(id string) {
	if x.touchedSet == nil {
		x.touchedSet = map[string]bool{}
	}
	if !x.touchedSet[id] {
		x.touchedSet[id] = true
		x.touched = append(x.touched, id)
	}
}

// finishWaits turns the touched wait ids into the step's wait effects.
func (x *executor) finishWaits() {
	for _, id := range x.touched {
		if w := x.st.Wait(id); w != nil {
			x.fx.Waits = append(x.fx.Waits, *w.clone())
		} else {
			x.fx.RemovedWaits = append(x.fx.RemovedWaits, id)
		}
	}
}

// openIncident opens an incident about a wait (a job out of retries); the
// track keeps waiting.
func (x *executor) openIncident(t *Track, waitID, kind, msg string) {
	x.st.NextIncident++
	in := &Incident{ID: x.st.InstanceID + "-i" + strconv.Itoa(x.st.NextIncident), TrackID: t.ID, NodeID: t.Node, ScopeID: t.Scope, WaitID: waitID, Kind: kind, Message: msg, At: x.now}
	x.st.Incidents = append(x.st.Incidents, in)
	x.markIncident(in)
	x.fx.Incidents = append(x.fx.Incidents, *in)
	x.fact(FactIncidentCreated, t.Node, t.Scope, t.ID, map[string]any{"incidentId": in.ID, "kind": kind, "message": msg})
}

// mergeVars writes variables by the rule of DESIGN §4 from t's scope.
func (x *executor) mergeVars(t *Track, vars map[string]any) {
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	slices.Sort(names) // deterministic fact order
	for _, k := range names {
		x.setVar(t, k, vars[k])
	}
}

// bindingText evaluates a literal-or-expression attribute to text.
func (x *executor) bindingText(t *Track, b *bpmn.Binding) (string, error) {
	if b == nil {
		return "", nil
	}
	if b.Expr == nil {
		return b.Literal, nil
	}
	v, err := b.Expr.Eval(x.view(t.Scope))
	if err != nil {
		return "", err
	}
	return keyText(v), nil
}

// bindingList evaluates a comma-separated literal or an expression yielding
// a string or a list of strings.
func (x *executor) bindingList(t *Track, b *bpmn.Binding) ([]string, error) {
	if b == nil {
		return nil, nil
	}
	var raw []string
	if b.Expr == nil {
		raw = strings.Split(b.Literal, ",")
	} else {
		v, err := b.Expr.Eval(x.view(t.Scope))
		if err != nil {
			return nil, err
		}
		switch v := v.(type) {
		case nil:
		case []any:
			for _, e := range v {
				raw = append(raw, keyText(e))
			}
		default:
			raw = strings.Split(keyText(v), ",")
		}
	}
	var out []string
	for _, s := range raw {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// keyText renders a JSON-shaped value as text for keys and identities.
func keyText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case fmt.Stringer:
		return v.String()
	default:
		return fmt.Sprint(v)
	}
}
