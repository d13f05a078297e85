package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/expr"
)

// ConditionalStarts returns p's process-level conditional start events, in
// document order: the start events an evaluate-conditions call evaluates.
func ConditionalStarts(p *bpmn.Process) []*bpmn.Node {
	var out []*bpmn.Node
	for _, n := range p.EventStarts {
		if n.Kind == bpmn.KindStartEvent && n.Event != nil && n.Event.Kind == bpmn.TriggerConditional && n.Event.Condition != nil {
			out = append(out, n)
		}
	}
	return out
}

// HoldingConditionalStarts evaluates the condition of each of p's
// conditional start events on its own against vars (the variables of an
// evaluate-conditions call), at now and within opts.Eval, and returns the
// events whose condition holds, in document order. As in Camunda 7, a
// variable the condition reads that vars lacks is no error: JUEL's unknown
// identifier makes the condition false, FEEL reads the name as null. Any
// other failure (a type error, a non-boolean JUEL result, a hit evaluation
// limit) is an error naming the process and the event, never a silent
// false.
func HoldingConditionalStarts(p *bpmn.Process, vars map[string]any, now time.Time, opts Options) ([]*bpmn.Node, error) {
	view := startView{vars: vars, now: now, limits: opts.Eval}
	var out []*bpmn.Node
	for _, n := range ConditionalStarts(p) {
		holds, err := expr.Condition(n.Event.Condition, view)
		switch {
		case errors.Is(err, expr.ErrUnknownVariable):
			continue
		case err != nil:
			return nil, fmt.Errorf("the condition of start event %q of process %s: %w", n.ID, p.ID, err)
		case holds:
			out = append(out, n)
		}
	}
	return out, nil
}

// startView is the expression scope of a conditional start's condition:
// the call's variables only (no instance exists yet), the caller's time as
// FEEL's clock, and the engine's evaluation limits.
type startView struct {
	vars   map[string]any
	now    time.Time
	limits expr.Limits
}

func (v startView) Lookup(name string) (any, bool) {
	val, ok := v.vars[name]
	return val, ok
}

// Now returns the time the conditions are evaluated at (feel.Clock).
func (v startView) Now() time.Time { return v.now }

// EvalLimits returns the limits of the evaluation (feel.Limited).
func (v startView) EvalLimits() expr.Limits { return v.limits }
