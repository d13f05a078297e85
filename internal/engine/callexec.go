package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/expr"
	"github.com/gobpm/gobpm/internal/scope"
)

// chain returns the process keys from the top-level instance down to this one.
func (x *executor) chain() []string {
	if len(x.st.CallChain) > 0 {
		return slices.Clone(x.st.CallChain)
	}
	return []string{x.st.ProcessKey}
}

// callActivity parks t on a call wait and asks the runtime to launch the
// child (docs/scopes.md#call-activities). The wait's id becomes the child's instance id, so
// the caller's checkpoint records the awaited child from the first step.
// A dynamic callee, version, version tag and business key are evaluated
// here, and so is what the child starts with; a failing expression stops
// the call activity in an incident before anything is launched.
func (x *executor) callActivity(t *Track, n *bpmn.Node) {
	def := n.Call
	if def == nil {
		x.incident(t, IncidentUnknownModel, fmt.Sprintf("call activity %s has no called element", n.ID))
		return
	}
	chain := x.chain()
	if len(chain) >= x.opts.MaxCallDepth {
		x.incident(t, IncidentDepth, fmt.Sprintf("call activity %s would exceed the call depth of %d: %s → %s",
			n.ID, x.opts.MaxCallDepth, strings.Join(chain, " → "), def.CalledElement))
		return
	}
	c := Call{NodeID: n.ID, Reference: def.CalledElement, Binding: def.Binding, Version: def.Version, VersionTag: def.VersionTag, Chain: chain}
	view := x.view(t.Scope)
	fail := func(what string, err error) {
		x.incident(t, IncidentExpression, fmt.Sprintf("%s of call activity %s: %v", what, n.ID, err))
	}
	if def.CalledExpr != nil {
		key, err := textOf(def.CalledExpr, view)
		if err != nil {
			fail("called element", err)
			return
		}
		c.Reference = key
	}
	if def.VersionExpr != nil {
		v, err := def.VersionExpr.Eval(view)
		if err == nil {
			c.Version, err = versionOf(v)
		}
		if err != nil {
			fail("called element version", err)
			return
		}
	}
	if def.VersionTagExpr != nil {
		tag, err := textOf(def.VersionTagExpr, view)
		if err != nil {
			fail("called element version tag", err)
			return
		}
		c.VersionTag = tag
	}
	if def.BusinessKey != nil {
		v, err := def.BusinessKey.Eval(view)
		if err != nil {
			fail("business key (camunda:in businessKey)", err)
			return
		}
		c.BusinessKey, c.BusinessKeySet = keyText(v), true
	}
	inputs, ok := x.callInputs(t, n, &c)
	if !ok {
		return
	}
	c.Inputs = inputs
	c.ReturnAll = (def.Zeebe && (def.PropagateChild || localResults(n))) || len(def.Out) > 0
	w := x.newCallWait(t, n.ID)
	w.Name = c.Reference
	c.ChildID = w.ID
	t.State = TrackWaiting
	x.fx.Calls = append(x.fx.Calls, c)
	x.armBoundaries(t, n)
}

// callInputs gathers what the child of call activity n starts with, read
// from t's scope (the call activity's io scope when it has mappings):
// Zeebe's propagateAllParentVariables (every visible variable; when false,
// only the call activity's input mappings), the call activity's declared
// inputs (ioSpecification), and Camunda 7's camunda:in in document order.
// A failing sourceExpression raises an incident on t.
func (x *executor) callInputs(t *Track, n *bpmn.Node, c *Call) (map[string]any, bool) {
	def := n.Call
	inputs := map[string]any{}
	if def.Zeebe {
		var vars map[string]any
		switch io := x.ioScope(t); {
		case def.PropagateParent:
			vars = x.st.Scopes.Visible(t.Scope)
		case io != nil:
			vars = io.Vars
		}
		for k, v := range vars {
			inputs[k] = scope.CloneValue(v)
		}
	}
	if def.IO != nil {
		for _, in := range def.IO.Inputs {
			c.Declared = append(c.Declared, in.Name)
			if v, ok := x.st.Scopes.Lookup(t.Scope, in.Name); ok {
				inputs[in.Name] = scope.CloneValue(v)
			} else {
				c.Missing = append(c.Missing, in.Name)
			}
		}
	}
	own := x.st.Scopes.Get(t.Scope).Vars // the call activity's own variables (local="true")
	for _, in := range def.In {
		switch {
		case in.All && in.Local:
			for k, v := range own {
				inputs[k] = scope.CloneValue(v)
			}
		case in.All:
			for k, v := range x.st.Scopes.Visible(t.Scope) {
				inputs[k] = scope.CloneValue(v)
			}
		case in.SourceExpr != nil:
			v, err := in.SourceExpr.Eval(x.view(t.Scope))
			if err != nil {
				x.incident(t, IncidentExpression, fmt.Sprintf("camunda:in sourceExpression for %q of call activity %s: %v", in.Target, n.ID, err))
				return nil, false
			}
			inputs[in.Target] = scope.CloneValue(v)
		case in.Local:
			inputs[in.Target] = scope.CloneValue(own[in.Source])
		default:
			// Camunda 7 passes null for a source the caller does not hold.
			v, _ := x.st.Scopes.Lookup(t.Scope, in.Source)
			inputs[in.Target] = scope.CloneValue(v)
		}
	}
	return inputs, true
}

// callReturned writes what a completed child handed back (vars): by
// Camunda 7's camunda:out when the call activity has some, else as the
// call activity's result (deliver: locals of its io scope under Zeebe
// output mappings, else by the write rule, docs/scopes.md#variables).
// childID names the
// child for camunda:out's sourceExpression (execution.processInstanceId).
// A failing sourceExpression raises an incident on t and reports false.
func (x *executor) callReturned(t *Track, n *bpmn.Node, childID string, vars map[string]any) bool {
	if n == nil || n.Call == nil || len(n.Call.Out) == 0 || localResults(n) {
		x.deliver(t, n, vars)
		return true
	}
	type write struct {
		name  string
		value any
		local bool
	}
	var writes []write
	child := childView{vars: vars, id: childID, businessKey: x.st.BusinessKey, now: x.now, limits: x.opts.Eval}
	for _, out := range n.Call.Out {
		switch {
		case out.All:
			names := make([]string, 0, len(vars))
			for k := range vars {
				names = append(names, k)
			}
			slices.Sort(names)
			for _, k := range names {
				writes = append(writes, write{k, vars[k], out.Local})
			}
		case out.SourceExpr != nil:
			v, err := out.SourceExpr.Eval(child)
			if err != nil {
				x.incident(t, IncidentExpression, fmt.Sprintf("camunda:out sourceExpression for %q of call activity %s: %v; the called instance %s has ended, so a retry calls %s again",
					out.Target, n.ID, err, childID, n.Call.CalledElement))
				return false
			}
			writes = append(writes, write{out.Target, scope.CloneValue(v), out.Local})
		default:
			writes = append(writes, write{out.Target, vars[out.Source], out.Local})
		}
	}
	own := x.st.Scopes.Get(t.Scope)
	for _, w := range writes {
		if w.local {
			x.writeLocals(t, own, []string{w.name}, map[string]any{w.name: w.value})
		} else {
			x.setVar(t, w.name, w.value)
		}
	}
	return true
}

// childView is the expression view of a completed child's variables, for
// camunda:out's sourceExpression.
type childView struct {
	vars            map[string]any
	id, businessKey string
	now             time.Time
	limits          expr.Limits
}

// EvalLimits returns the step's limits (childView is a feel.Limited).
func (v childView) EvalLimits() expr.Limits { return v.limits }

func (v childView) Lookup(name string) (any, bool) {
	val, ok := v.vars[name]
	return val, ok
}

// Execution answers Camunda 7's execution object for the child.
func (v childView) Execution() (processInstanceID, businessKey string) { return v.id, v.businessKey }

// Now returns the time of the step.
func (v childView) Now() time.Time { return v.now }

// textOf evaluates x to a non-empty string (a callee key, a version tag).
func textOf(x expr.Expression, view expr.Scope) (string, error) {
	v, err := x.Eval(view)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok || strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("%s yields %s, not a non-empty string", x.Source(), describeValue(v))
	}
	return strings.TrimSpace(s), nil
}

// versionOf reads a version number: a whole number >= 1, or a string of one.
func versionOf(v any) (int, error) {
	if s, ok := v.(string); ok {
		v = json.Number(strings.TrimSpace(s))
	}
	n, ok := countOf(v)
	if !ok || n < 1 {
		return 0, fmt.Errorf("%s is not a version (a whole number >= 1)", describeValue(v))
	}
	return n, nil
}

// describeValue renders a value for an incident message.
func describeValue(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", v)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprint(v)
}

// applyRunning records that the child of a call wait was launched,
// with the key and version it runs.
func (e CallStarted) applyRunning(x *executor) error {
	w, t, err := x.openWait(e.WaitID, WaitCall)
	if err != nil {
		return err
	}
	x.fact(FactCallStarted, w.NodeID, w.ScopeID, t.ID, map[string]any{"childId": w.ID, "key": e.Key, "version": e.Version})
	return nil
}

// applyRunning throws the error of a call that could not be
// launched at its call activity.
func (e CallFailed) applyRunning(x *executor) error {
	w, t, err := x.openWait(e.WaitID, WaitCall)
	if err != nil {
		return err
	}
	x.consumeWait(w)
	t.State = TrackReady
	x.throwError(t, t.Scope, e.Code, e.Message, true)
	return nil
}

// applyRunning hands a child's outcome to its call activity: a
// completed child's outputs continue it, a failed or terminated child
// throws an error there.
func (e ChildEnded) applyRunning(x *executor) error {
	w, t, err := x.openWait(e.WaitID, WaitCall)
	if err != nil {
		return err
	}
	x.consumeWait(w)
	x.fact(FactCallEnded, w.NodeID, w.ScopeID, t.ID, map[string]any{"childId": w.ID, "status": e.Status, "errorCode": e.ErrorCode})
	t.State = TrackReady
	switch e.Status {
	case StatusCompleted:
		if x.callReturned(t, x.proc.Node(w.NodeID), w.ID, e.Outputs) {
			x.finishActivity(t, w)
		}
	case StatusTerminated:
		x.throwError(t, t.Scope, CodeChildTerminated, fmt.Sprintf("called instance %s was terminated", w.ID), true)
	default:
		x.throwError(t, t.Scope, e.ErrorCode, fmt.Sprintf("called instance %s failed: %s", w.ID, e.ErrorMessage), true)
	}
	return nil
}

// applyRunning stops a call activity whose child was not launched
// in a call-tree-budget incident.
func (e CallRefused) applyRunning(x *executor) error {
	w, t, err := x.openWait(e.WaitID, WaitCall)
	if err != nil {
		return err
	}
	x.consumeWait(w) // no child was launched: there is none to terminate
	x.incident(t, IncidentCallTreeBudget, e.Message)
	return nil
}

// applyRunning stops a call activity whose child is gone in an
// incident.
func (e ChildMissing) applyRunning(x *executor) error {
	w, t, err := x.openWait(e.WaitID, WaitCall)
	if err != nil {
		return err
	}
	x.consumeWait(w)
	x.incident(t, IncidentChildMissing, fmt.Sprintf("the called instance %s awaited by %s is missing; it is not launched again", w.ID, w.NodeID))
	return nil
}

// applyRunning ends a called child whose caller is gone.
func (Orphaned) applyRunning(x *executor) error {
	if x.st.Ended() {
		return fmt.Errorf("engine: orphan instance %s: status is %s: %w", x.st.InstanceID, x.st.Status, ErrInvalidTransition)
	}
	parent := ""
	if x.st.Parent != nil {
		parent = x.st.Parent.InstanceID
	}
	x.failInstance("gobpm.call.orphaned", fmt.Sprintf("the calling instance %s is missing; a called instance never runs orphaned", parent))
	return nil
}

// consumeWait removes a call wait whose child is done (or never started):
// unlike a withdrawal it does not terminate the child.
func (x *executor) consumeWait(w *Wait) {
	x.consumed = append(x.consumed, w.ID)
	x.removeWait(w)
}

// failInstance ends a called child that cannot handle an error: everything
// is cancelled and the error goes to the caller (the outcomes in
// docs/scopes.md#call-activities).
func (x *executor) failInstance(code, msg string) {
	x.cancelScope(scope.RootID, "unhandled error "+code)
	for _, in := range slices.Clone(x.st.Incidents) {
		x.resolveIncidentID(in.ID, "instance failed")
	}
	x.st.Status = StatusFailed
	x.st.Failure = &Failure{Code: code, Message: msg}
	x.fact(FactInstanceFailed, "", scope.RootID, "", map[string]any{"errorCode": code, "message": msg})
}

// noticeParent hands a called child's outcome to its caller once it ended.
func (x *executor) noticeParent() {
	x.fx.ParentNotice = Outcome(x.proc, x.st)
}

// Outcome returns what an ended called child hands to its caller (nil for a
// top-level or still running instance): its status and its outputs — the
// outputs its process's ioSpecification declares (its contract), else every
// variable of its root scope when the caller asked for them all
// (ParentLink.All), else none — or its uncaught error.
func Outcome(p *bpmn.Process, st *State) *ChildEnded {
	if st.Parent == nil || !st.Ended() {
		return nil
	}
	n := &ChildEnded{ParentID: st.Parent.InstanceID, WaitID: st.Parent.WaitID, Status: st.Status}
	switch {
	case st.Failure != nil:
		n.Status, n.ErrorCode, n.ErrorMessage = StatusFailed, st.Failure.Code, st.Failure.Message
	case st.Status == StatusCompleted:
		n.Outputs = map[string]any{}
		switch root := st.Scopes.Get(scope.RootID); {
		case p.IO != nil:
			for _, out := range p.IO.Outputs {
				v, _ := st.Scopes.Lookup(scope.RootID, out.Name)
				n.Outputs[out.Name] = scope.CloneValue(v)
			}
		case st.Parent.All && root != nil:
			for k, v := range root.Vars {
				n.Outputs[k] = scope.CloneValue(v)
			}
		}
	}
	return n
}
