package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/expr"
	"github.com/gobpm/gobpm/internal/scope"
)

// Body is a running loop or multi-instance body
// (docs/scopes.md#loops-and-multi-instance): a scope
// whose iterations are child scopes. It lives in the checkpoint while the
// body's scope is open.
type Body struct {
	ScopeID scope.ID `json:"scope"`
	NodeID  string   `json:"node"`
	// Items is the input collection (nil for a cardinality or a standard loop).
	Items []any `json:"items,omitempty"`
	// Count is the number of iterations of a multi-instance body.
	Count int `json:"count"`
	// Started, Active, Completed and Terminated count iterations.
	Started    int `json:"started"`
	Active     int `json:"active"`
	Completed  int `json:"completed"`
	Terminated int `json:"terminated"`
	// Results holds one output element per iteration, in input order.
	Results []any `json:"results,omitempty"`
}

func (b *Body) clone() *Body {
	c := *b
	c.Items = slices.Clone(b.Items)
	c.Results = slices.Clone(b.Results)
	return &c
}

// Loop variables.
const (
	varLoopCounter = "loopCounter"
	varInstances   = "nrOfInstances"
	varActive      = "nrOfActiveInstances"
	varCompleted   = "nrOfCompletedInstances"
	varTerminated  = "nrOfTerminatedInstances"
)

// enterBody starts a loop or multi-instance activity for track t: a body
// scope opens in t's scope, the activity's boundary events arm on t (they
// guard the whole body), and the first iteration(s) start.
func (x *executor) enterBody(t *Track, n *bpmn.Node) {
	l := n.Loop
	b := &Body{NodeID: n.ID}
	if !l.Standard {
		switch {
		case l.Collection != nil:
			v, err := l.Collection.Eval(x.view(t.Scope))
			if err != nil {
				x.incident(t, IncidentExpression, fmt.Sprintf("collection of %s: %v", n.ID, err))
				return
			}
			items, ok := v.([]any)
			if !ok && v != nil {
				x.incident(t, IncidentExpression, fmt.Sprintf("collection of %s yields %v, not a list", n.ID, v))
				return
			}
			b.Items, b.Count = items, len(items)
		case l.Cardinality != nil:
			v, err := l.Cardinality.Eval(x.view(t.Scope))
			count, ok := countOf(v)
			if err != nil || !ok {
				x.incident(t, IncidentExpression, fmt.Sprintf("loop cardinality of %s: %v is not a non-negative whole number (%v)", n.ID, v, err))
				return
			}
			b.Count = count
		}
		if b.Count > x.opts.MaxIterations {
			x.incident(t, IncidentExpression, fmt.Sprintf("%s would run %d iterations; a body runs at most %d (the iteration limit)", n.ID, b.Count, x.opts.MaxIterations))
			return
		}
		b.Results = make([]any, b.Count)
	}
	body, err := x.st.Scopes.Open(t.Scope, n.ID, nil)
	if err != nil {
		x.incident(t, IncidentUnknownModel, err.Error())
		return
	}
	body.Kind = scope.KindBody
	x.writeActivation(t, body)
	b.ScopeID = body.ID
	x.st.Bodies = append(x.st.Bodies, b)
	x.markBody(b.ScopeID)
	x.changed.add(PartItems, string(b.ScopeID))
	t.State, t.Child = TrackInScope, body.ID
	x.markTrack(t)
	x.fact(FactScopeOpened, n.ID, body.ID, t.ID, map[string]any{"body": true, "instances": b.Count})
	x.armBoundaries(t, n)
	x.publish(b, body)
	switch {
	case l.Standard:
		x.nextLoop(b, n)
	case b.Count == 0:
		x.finishBody(b, n)
	case l.Sequential:
		x.startIteration(b, n)
	default:
		for b.Started < b.Count {
			x.startIteration(b, n)
		}
	}
}

// number is n as a JSON number value.
func number(n int) json.Number { return json.Number(strconv.Itoa(n)) }

// countOf reads a loop cardinality.
func countOf(v any) (int, bool) {
	var f float64
	switch v := v.(type) {
	case interface{ Float64() (float64, error) }:
		var err error
		if f, err = v.Float64(); err != nil {
			return 0, false
		}
	case float64:
		f = v
	case int:
		f = float64(v)
	default:
		return 0, false
	}
	if f < 0 || f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}

// publish writes the body's counters into its scope (visible to iterations).
func (x *executor) publish(b *Body, body *scope.Scope) {
	x.markBody(b.ScopeID)
	x.st.Scopes.Touch(body.ID)
	body.Vars[varInstances] = number(b.Count)
	body.Vars[varActive] = number(b.Active)
	body.Vars[varCompleted] = number(b.Completed)
	body.Vars[varTerminated] = number(b.Terminated)
	if x.proc.Node(b.NodeID).Loop.Standard {
		delete(body.Vars, varInstances)
	}
}

// startIteration opens the next iteration scope with its local variables
// and starts an inner track on the activity in it.
func (x *executor) startIteration(b *Body, n *bpmn.Node) {
	b.Started++
	b.Active++
	i := b.Started
	it, err := x.st.Scopes.Open(b.ScopeID, n.ID, nil)
	if err != nil {
		return
	}
	it.Kind, it.Index = scope.KindIteration, i
	it.Vars[varLoopCounter] = number(i)
	if l := n.Loop; !l.Standard {
		if l.ElementVariable != "" && b.Items != nil {
			it.Vars[l.ElementVariable] = scope.CloneValue(b.Items[i-1])
		}
		if l.OutputElement != "" {
			it.Vars[l.OutputElement] = nil
		}
	}
	x.publish(b, x.st.Scopes.Get(b.ScopeID))
	x.fact(FactScopeOpened, n.ID, it.ID, "", map[string]any{"iteration": i})
	t := x.newTrack(it.ID, n.ID, "")
	t.Inner = true // newTrack marked it
}

// iterationDone ends the iteration an inner track completed: its output
// element is kept at its index, the completion condition is checked, and
// the next iteration starts or the body finishes.
//
// entry is the compensation entry of the iteration's completion (nil when
// the activity cannot be compensated), recorded once the completion
// condition let the iteration end.
func (x *executor) iterationDone(t *Track, n *bpmn.Node, entry *Entry) {
	it := x.st.Scopes.Get(t.Scope)
	b := x.st.body(it.Parent)
	if b == nil {
		x.incident(t, IncidentUnknownModel, fmt.Sprintf("iteration of %s has no body", n.ID))
		return
	}
	l := n.Loop
	if !l.Standard && l.OutputElement != "" && it.Index >= 1 && it.Index <= len(b.Results) {
		b.Results[it.Index-1] = scope.CloneValue(it.Vars[l.OutputElement])
		x.markResult(b.ScopeID, it.Index)
	}
	b.Active--
	b.Completed++
	body := x.st.Scopes.Get(b.ScopeID)
	x.publish(b, body)
	done := false
	if !l.Standard && l.CompletionCondition != nil {
		// Evaluated in the iteration (its locals visible) with the body's
		// counters already counting it.
		v, err := expr.Condition(l.CompletionCondition, x.view(it.ID))
		if err != nil {
			b.Active++
			b.Completed--
			x.publish(b, body)
			x.incident(t, IncidentExpression, fmt.Sprintf("completion condition of %s: %v", n.ID, err))
			t.Done = true // the iteration's activity completed; a retry only ends the iteration
			x.markTrack(t)
			return
		}
		done = v
	}
	x.recordEntry(entry)
	x.removeTrack(t)
	x.fact(FactScopeClosed, n.ID, it.ID, "", map[string]any{"iteration": it.Index})
	x.st.Scopes.Close(it.ID)
	switch {
	case l.Standard:
		x.nextLoop(b, n)
	case done:
		b.Terminated += b.Active + (b.Count - b.Started)
		b.Active = 0
		x.publish(b, body)
		x.cancelInside(b.ScopeID, "completion condition of "+n.ID)
		x.finishBody(b, n)
	case l.Sequential && b.Started < b.Count:
		x.startIteration(b, n)
	case b.Active == 0 && b.Started == b.Count:
		x.finishBody(b, n)
	}
}

// nextLoop starts the next iteration of a standard loop while its
// condition holds (tested before or after each iteration) and the maximum
// is not reached; otherwise the body finishes.
func (x *executor) nextLoop(b *Body, n *bpmn.Node) {
	l := n.Loop
	more := true
	if l.LoopMaximum > 0 && b.Started >= l.LoopMaximum {
		more = false
	} else if l.LoopCondition != nil && (l.TestBefore || b.Started > 0) {
		v, err := expr.Condition(l.LoopCondition, x.view(b.ScopeID))
		if err != nil {
			if host := x.hostOf(b.ScopeID); host != nil {
				x.incident(host, IncidentExpression, fmt.Sprintf("loop condition of %s: %v", n.ID, err))
			}
			return
		}
		more = v
	} else if l.LoopCondition == nil && b.Started > 0 && l.LoopMaximum == 0 {
		more = false // no condition and no maximum: run once
	}
	if more && b.Started >= x.opts.MaxIterations {
		// Stopping here would change what the model means (the loop is
		// not done): an incident naming the limit, which a retry resolves
		// once the variables say the loop is done.
		if host := x.hostOf(b.ScopeID); host != nil {
			x.incident(host, IncidentExpression, fmt.Sprintf("loop of %s ran %d iterations and would run another; a body runs at most %d (the iteration limit)", n.ID, b.Started, x.opts.MaxIterations))
		}
		return
	}
	if more {
		x.startIteration(b, n)
		return
	}
	x.finishBody(b, n)
}

// finishBody writes the output collection (in input order) and completes
// the body scope; its host leaves the activity by the normal rules.
func (x *executor) finishBody(b *Body, n *bpmn.Node) {
	host := x.hostOf(b.ScopeID)
	if l := n.Loop; !l.Standard && l.OutputCollection != "" && host != nil {
		results := b.Results
		if results == nil {
			results = []any{}
		}
		x.st.Scopes.Set(host.Scope, l.OutputCollection, slices.Clone(results))
	}
	x.completeScope(b.ScopeID, "")
}

// closeBody forgets the body of scope s when the scope closes.
func (x *executor) closeBody(s scope.ID) {
	x.st.Bodies = slices.DeleteFunc(x.st.Bodies, func(b *Body) bool {
		if b.ScopeID != s {
			return false
		}
		x.markBody(s)
		x.changed.add(PartItems, string(s))
		for i, r := range b.Results {
			if r != nil {
				x.markResult(s, i+1)
			}
		}
		return true
	})
}
