package engine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

// WaitDecision is a business rule task waiting for its decision; the
// runtime answers it before the step commits, so it never outlives a step.
const WaitDecision WaitKind = "decision"

// Decision result mappings (gobpm:mapDecisionResult).
const (
	MapSingleEntry    = "singleEntry"
	MapSingleResult   = "singleResult"
	MapCollectEntries = "collectEntries"
	MapResultList     = "resultList"
)

// IncidentDecision is an incident of a decision that failed or whose result
// does not fit the task's mapping.
const IncidentDecision = "decision-failed"

// FactDecisionEvaluated records a rule evaluation: decision, version,
// inputs, matched rules and outputs.
const FactDecisionEvaluated = "decision-evaluated"

// DecisionRequest asks the runtime to evaluate the latest version of a
// decision with the variables visible at a business rule task.
type DecisionRequest struct {
	WaitID    string
	NodeID    string
	Ref       string
	Variables map[string]any
}

// DecisionEvaluated answers a DecisionRequest: the result rows (one map of
// output name → value per hit rule, the shape Result.Entries of package
// dmn has), the matched rule ids, or the error that stops the task.
type DecisionEvaluated struct {
	WaitID  string
	Key     string
	Version int
	Entries []map[string]any
	Matched []string
	Error   string
}

// Kind implements Event.
func (DecisionEvaluated) Kind() string { return "decision-evaluated" }

// applyRunning continues a business rule task with its decision's
// result, or stops it in an incident with the decision's error.
func (e DecisionEvaluated) applyRunning(x *executor) error { return x.decisionEvaluated(e) }

// businessRuleTask asks for the task's decision to be evaluated.
func (x *executor) businessRuleTask(t *Track, n *bpmn.Node) {
	if n.Decision == nil {
		x.incident(t, IncidentUnknownModel, fmt.Sprintf("business rule task %s has no decision", n.ID))
		return
	}
	w := x.newWait(t, WaitDecision, n.ID)
	w.Name = n.Decision.Ref
	t.State = TrackWaiting
	x.fx.Decisions = append(x.fx.Decisions, DecisionRequest{WaitID: w.ID, NodeID: n.ID, Ref: n.Decision.Ref, Variables: x.st.Scopes.Visible(t.Scope)})
	x.armBoundaries(t, n)
}

// decisionEvaluated maps a decision's result into the task's result
// variable and completes the task, or stops it in an incident.
func (x *executor) decisionEvaluated(e DecisionEvaluated) error {
	w, t, err := x.openWait(e.WaitID, WaitDecision)
	if err != nil {
		return err
	}
	n := x.node(t)
	if n == nil || n.Decision == nil {
		return fmt.Errorf("engine: decision for %s: %w", w.NodeID, ErrCheckpoint)
	}
	x.consumeWait(w)
	t.State = TrackReady
	inputs := x.st.Scopes.Visible(t.Scope)
	detail := map[string]any{"decision": e.Key, "version": e.Version, "inputs": inputs, "matchedRules": toAny(e.Matched)}
	if e.Error != "" {
		detail["error"] = e.Error
		x.fact(FactDecisionEvaluated, n.ID, t.Scope, t.ID, detail)
		x.incident(t, IncidentDecision, fmt.Sprintf("decision %s of %s: %s", e.Key, n.ID, e.Error))
		return nil
	}
	value, err := mapDecisionResult(n.Decision.Map, e.Entries)
	detail["outputs"] = scope.CloneValue(value)
	x.fact(FactDecisionEvaluated, n.ID, t.Scope, t.ID, detail)
	if err != nil {
		x.incident(t, IncidentDecision, fmt.Sprintf("decision %s of %s: %v", e.Key, n.ID, err))
		return nil
	}
	if n.Decision.ResultVariable != "" {
		x.deliver(t, n, map[string]any{n.Decision.ResultVariable: value})
	}
	x.complete(t, n)
	return nil
}

// mapDecisionResult shapes result rows per gobpm:mapDecisionResult.
func mapDecisionResult(mode string, rows []map[string]any) (any, error) {
	list := func() []any {
		out := make([]any, 0, len(rows))
		for _, r := range rows {
			out = append(out, map[string]any(maps.Clone(r)))
		}
		return out
	}
	single := func(r map[string]any) (any, error) {
		if len(r) != 1 {
			keys := slices.Sorted(maps.Keys(r))
			return nil, fmt.Errorf("%s needs results with exactly one output, got %v", mode, keys)
		}
		for _, v := range r {
			return v, nil
		}
		return nil, nil
	}
	switch mode {
	case MapSingleEntry:
		if len(rows) > 1 {
			return nil, fmt.Errorf("singleEntry needs at most one result, got %d", len(rows))
		}
		if len(rows) == 0 {
			return nil, nil
		}
		return single(rows[0])
	case MapSingleResult:
		if len(rows) > 1 {
			return nil, fmt.Errorf("singleResult needs at most one result, got %d", len(rows))
		}
		if len(rows) == 0 {
			return nil, nil
		}
		return map[string]any(maps.Clone(rows[0])), nil
	case MapCollectEntries:
		out := make([]any, 0, len(rows))
		for _, r := range rows {
			v, err := single(r)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case MapResultList, "":
		return list(), nil
	}
	return nil, fmt.Errorf("unknown mapDecisionResult %q", mode)
}
