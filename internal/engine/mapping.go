package engine

import (
	"fmt"
	"slices"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/expr"
	"github.com/gobpm/gobpm/internal/scope"
)

// Variable mappings (docs/scopes.md#variable-mappings). An element with mappings that has no
// scope of its own (a task, an event, a call activity) gets one while it
// runs: an "io" scope, child of the scope it sits in, that its track moves
// into. Its inputs are the io scope's local variables (a job, a user task,
// a decision, a called child read them by walk-up); its outputs are
// evaluated there when the element completes and written to the enclosing
// scope by the write rule (docs/scopes.md#variables); then the io scope closes and the
// track continues in the enclosing scope. A sub-process (embedded, ad-hoc,
// event) applies its mappings to its own scope instead.

// scopeKindIO is the scope.Scope.Kind of an element's io scope.
const scopeKindIO = "io"

// ioScope returns the io scope track t runs in, or nil.
func (x *executor) ioScope(t *Track) *scope.Scope {
	sc := x.st.Scopes.Get(t.Scope)
	if sc == nil || sc.Kind != scopeKindIO {
		return nil
	}
	return sc
}

// flowScope is the scope of the graph t's node belongs to: t's scope, or
// the one enclosing its io scope.
func (x *executor) flowScope(t *Track) scope.ID {
	if io := x.ioScope(t); io != nil {
		return io.Parent
	}
	return t.Scope
}

// ownsIO reports whether element n runs in an io scope of its own.
func ownsIO(n *bpmn.Node) bool { return n.Mappings != nil && n.Sub == nil }

// localResults reports whether the variables n completes with (a job's, a
// user task's, a message's, a script's or decision's result, a called
// child's) stay local to its io scope: Zeebe's rule when output mappings
// are present — only the mapped values propagate.
func localResults(n *bpmn.Node) bool {
	return n.Mappings != nil && n.Mappings.Style == bpmn.MappingZeebe && len(n.Mappings.Outputs) > 0
}

// enterIO opens the io scope of element n for track t — n has mappings,
// or t was activated in an ad-hoc region with variables (Track.Inputs,
// written after the inputs: they are the element's own) — (an earlier
// attempt's, after a retry, is dropped first, unless n has no inputs to
// evaluate again: a triggered start event entered it with its payload):
// its inputs are evaluated and become the io scope's variables, and t
// moves into it. An input that fails raises an incident on t and opens
// nothing; enterIO then reports false.
func (x *executor) enterIO(t *Track, n *bpmn.Node) bool {
	if !ownsIO(n) && (n.Sub != nil || len(t.Inputs) == 0) {
		return true
	}
	if io := x.ioScope(t); io != nil {
		if io.NodeID == n.ID && (n.Mappings == nil || len(n.Mappings.Inputs) == 0) {
			return true
		}
		x.exitIO(t, io, "retried")
	}
	names, vals, ok := x.inputs(t, n, t.Scope)
	if !ok {
		return false
	}
	io, err := x.st.Scopes.Open(t.Scope, n.ID, nil)
	if err != nil {
		x.incident(t, IncidentUnknownModel, err.Error())
		return false
	}
	io.Kind = scopeKindIO
	x.moveTrack(t, io.ID)
	x.markTrack(t)
	x.fact(FactScopeOpened, n.ID, io.ID, t.ID, map[string]any{"mappings": true})
	x.writeLocals(t, io, names, vals)
	x.writeActivation(t, io)
	return true
}

// exitIO closes t's io scope, disposing its variables, and moves t back to
// the enclosing scope.
func (x *executor) exitIO(t *Track, io *scope.Scope, why string) {
	detail := map[string]any{"mappings": true}
	if why != "" {
		detail["reason"] = why
	}
	x.fact(FactScopeClosed, io.NodeID, io.ID, t.ID, detail)
	x.st.Scopes.Close(io.ID)
	x.moveTrack(t, io.Parent)
	x.markTrack(t)
}

// leaveIO applies n's outputs when t runs in n's io scope and moves t back
// to the enclosing scope. An output that fails raises an incident on t
// (Done: the element completed, so a retry applies the outputs again) and
// reports false; nothing is written then.
func (x *executor) leaveIO(t *Track, n *bpmn.Node) bool {
	io := x.ioScope(t)
	if io == nil || io.NodeID != n.ID {
		return true
	}
	if !x.outputs(t, n, io.ID, io.Parent) {
		return false
	}
	x.exitIO(t, io, "")
	return true
}

// inputs evaluates n's input mappings from scope s: Camunda 7's each in s
// alone, Zeebe's each also seeing the inputs before it. It returns the
// variables in the order they were first mapped; a failure raises an
// incident on t.
func (x *executor) inputs(t *Track, n *bpmn.Node, s scope.ID) ([]string, map[string]any, bool) {
	m := n.Mappings
	if m == nil || len(m.Inputs) == 0 {
		return nil, nil, true
	}
	var names []string
	vals := map[string]any{}
	base := x.viewAt(s)
	for i, mp := range m.Inputs {
		var view expr.Scope = base
		if m.Style == bpmn.MappingZeebe {
			view = overlay{scopeView: base, vars: vals}
		}
		v, err := x.mappingValue(mp.Value, view)
		if err != nil {
			x.incident(t, IncidentExpression, fmt.Sprintf("input mapping %d (%s) of %s: %v", i+1, targetText(mp), n.ID, err))
			return nil, nil, false
		}
		prev, seen := vals[mp.Target]
		if !seen {
			names = append(names, mp.Target)
		}
		if len(mp.Path) > 0 {
			// An input target path builds the object from this element's
			// inputs alone: it never merges into an outer variable.
			v = setPath(prev, mp.Path, v)
		}
		vals[mp.Target] = v
	}
	return names, vals, true
}

// outputs evaluates n's output mappings in scope from (the element's io
// scope, or a sub-process's own) and writes them from scope to (the
// enclosing one) by the write rule (docs/scopes.md#variables): all or nothing. A nested target
// path merges into the variable as the enclosing scope sees it. A failure
// raises an incident on t (Done) and reports false.
func (x *executor) outputs(t *Track, n *bpmn.Node, from, to scope.ID) bool {
	m := n.Mappings
	if m == nil || len(m.Outputs) == 0 {
		return true
	}
	var names []string
	vals := map[string]any{}
	base := x.viewAt(from)
	for i, mp := range m.Outputs {
		v, err := x.mappingValue(mp.Value, overlay{scopeView: base, vars: vals})
		if err != nil {
			x.incident(t, IncidentExpression, fmt.Sprintf("output mapping %d (%s) of %s: %v", i+1, targetText(mp), n.ID, err))
			t.Done = true
			x.markTrack(t)
			return false
		}
		prev, seen := vals[mp.Target]
		if !seen {
			names = append(names, mp.Target)
			if len(mp.Path) > 0 {
				prev, _ = x.st.Scopes.Lookup(to, mp.Target)
				prev = scope.CloneValue(prev)
			}
		}
		if len(mp.Path) > 0 {
			v = setPath(prev, mp.Path, v)
		}
		vals[mp.Target] = v
	}
	for _, name := range names {
		x.setVarFrom(t, to, name, vals[name])
	}
	return true
}

// deliver writes the variables element n completes with (a job's, a user
// task's, a message's or signal's, a script's or decision's result): with
// Zeebe-style output mappings they become variables of n's io scope, so
// only the mapped values leave it; otherwise they are written by the write
// rule (docs/scopes.md#variables) from t's scope.
func (x *executor) deliver(t *Track, n *bpmn.Node, vars map[string]any) {
	io := x.ioScope(t)
	if io == nil || n == nil || io.NodeID != n.ID || !localResults(n) {
		x.mergeVars(t, vars)
		return
	}
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	slices.Sort(names)
	x.writeLocals(t, io, names, vars)
}

// writeLocals sets variables of scope sc itself (not by walk-up), in order.
func (x *executor) writeLocals(t *Track, sc *scope.Scope, names []string, vals map[string]any) {
	if len(names) == 0 {
		return
	}
	x.st.Scopes.Touch(sc.ID)
	for _, name := range names {
		sc.Vars[name] = vals[name]
		x.fact(FactVariableSet, t.Node, sc.ID, t.ID, map[string]any{"name": name})
	}
}

// setVarFrom writes a variable by the write rule (docs/scopes.md#variables)
// from scope s.
func (x *executor) setVarFrom(t *Track, s scope.ID, name string, v any) {
	at, err := x.st.Scopes.Set(s, name, v)
	if err != nil {
		x.incident(t, IncidentUnknownModel, err.Error())
		return
	}
	x.fact(FactVariableSet, t.Node, at, t.ID, map[string]any{"name": name})
}

// runEvent runs the event n a track t has just been moved onto (a fired
// boundary event, the event chosen after an event-based gateway, a caught
// error's boundary): its io scope opens with vars as its result, and it
// completes.
func (x *executor) runEvent(t *Track, n *bpmn.Node, vars map[string]any) {
	if !x.enterIO(t, n) {
		return
	}
	x.deliver(t, n, vars)
	x.complete(t, n)
}

// mappingValue computes a mapping's value in view: a copy, so a mapped
// value never shares memory with the variable it came from.
func (x *executor) mappingValue(v bpmn.Value, view expr.Scope) (any, error) {
	switch v.Kind {
	case bpmn.ValueNull:
		return nil, nil
	case bpmn.ValueConst:
		return v.Const, nil
	case bpmn.ValueExpr:
		r, err := v.Expr.Eval(view)
		if err != nil {
			return nil, err
		}
		return scope.CloneValue(r), nil
	case bpmn.ValueList:
		out := make([]any, 0, len(v.List))
		for _, item := range v.List {
			r, err := x.mappingValue(item, view)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	case bpmn.ValueMap:
		out := make(map[string]any, len(v.Map))
		for _, e := range v.Map {
			r, err := x.mappingValue(e.Value, view)
			if err != nil {
				return nil, fmt.Errorf("entry %q: %w", e.Key, err)
			}
			out[e.Key] = r
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown mapping value kind %d", v.Kind)
}

// setPath sets v at path below base, an object (anything else is replaced
// by a new object), creating or merging into the objects on the way. base
// is changed in place; the caller owns it.
func setPath(base any, path []string, v any) any {
	m, ok := base.(map[string]any)
	if !ok || m == nil {
		m = map[string]any{}
	}
	if len(path) == 1 {
		m[path[0]] = v
		return m
	}
	m[path[0]] = setPath(m[path[0]], path[1:], v)
	return m
}

// targetText renders a mapping's target as written ("a.b.c").
func targetText(mp bpmn.Mapping) string {
	s := mp.Target
	for _, p := range mp.Path {
		s += "." + p
	}
	return s
}

// overlay is an expression view whose variables shadow a scope view's: the
// values an element's mappings computed so far. It keeps the step's clock
// and Camunda 7's execution object.
type overlay struct {
	scopeView
	vars map[string]any
}

// Lookup reads the overlay's variables first, then the scope's.
func (o overlay) Lookup(name string) (any, bool) {
	if v, ok := o.vars[name]; ok {
		return v, true
	}
	return o.scopeView.Lookup(name)
}

// Now returns the time of the step the view belongs to.
func (o overlay) Now() time.Time { return o.scopeView.Now() }
