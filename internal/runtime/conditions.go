package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
)

// ErrConditionFailed is wrapped by the error of an evaluate-conditions
// call in which a condition could not be evaluated (a type error, a
// non-boolean JUEL result, a hit evaluation limit): nothing was started.
var ErrConditionFailed = errors.New("a condition could not be evaluated")

// ConditionsRequest is an evaluate-conditions call (Camunda 7's
// evaluateConditions): the variables every conditional start event's
// condition is evaluated against, and what the started instances get.
type ConditionsRequest struct {
	// Variables are what the conditions read and every started instance
	// gets as its variables (JSON-shaped values; numbers as json.Number).
	Variables map[string]any
	// BusinessKey goes to every started instance.
	BusinessKey string
	// ProcessKey narrows the call to one process ("" means the latest
	// version of every process); Version pins one of its versions, even
	// an older one (0 means the latest).
	ProcessKey string
	Version    int
	// Startable, when set, says which process keys the caller may start:
	// the conditions of the others are never evaluated. The caller checks
	// a named ProcessKey itself.
	Startable func(key string) bool
}

// conditionalCandidate is a deployed version with conditional start events.
type conditionalCandidate struct {
	proc *bpmn.Process
	ref  DefinitionRef
}

// EvaluateConditions evaluates the condition of every conditional start
// event of the latest version of every process (or of the version
// req.ProcessKey and req.Version name) against req.Variables, each start
// event on its own, and starts an instance at each one whose condition
// holds, each start its own step, with the request's variables and business
// key. It returns the started instances (none is no error).
//
// It is all or nothing over the evaluation: a condition that fails to
// evaluate fails the call (EINVALID wrapping ErrConditionFailed, naming the
// process and the start event) before anything starts. A variable a
// condition reads that the request lacks is no failure: that condition is
// false. No conditional start event deployed (among the processes the
// caller may start) is ENOTFOUND; a named process that has none is
// EINVALID.
func (r *Runtime) EvaluateConditions(ctx context.Context, req ConditionsRequest) ([]InstanceView, error) {
	cands, err := r.conditionalCandidates(ctx, req)
	if err != nil {
		return nil, err
	}
	type start struct {
		cand conditionalCandidate
		node string
	}
	var starts []start
	now := r.now().UTC()
	for _, c := range cands {
		holding, err := engine.HoldingConditionalStarts(c.proc, req.Variables, now, r.engine)
		if err != nil {
			return nil, &Error{Code: EINVALID, Message: fmt.Sprintf("%v (version %d); nothing was started", err, c.ref.Version), Field: "variables", Err: fmt.Errorf("%w: %w", ErrConditionFailed, err)}
		}
		for _, n := range holding {
			starts = append(starts, start{cand: c, node: n.ID})
		}
	}
	out := make([]InstanceView, 0, len(starts))
	for _, s := range starts {
		var view InstanceView
		if _, err := r.startAt(ctx, s.cand.proc, s.cand.ref, req.BusinessKey, s.node, req.Variables, nil, &view); err != nil {
			return nil, fmt.Errorf("runtime: conditional start %q of %s version %d (after %d started): %w", s.node, s.cand.ref.Key, s.cand.ref.Version, len(out), err)
		}
		out = append(out, view)
	}
	return out, nil
}

// conditionalCandidates lists the deployed versions an evaluate-conditions
// call evaluates: the named one, else the latest version of every process
// the caller may start that has conditional start events.
func (r *Runtime) conditionalCandidates(ctx context.Context, req ConditionsRequest) ([]conditionalCandidate, error) {
	switch {
	case req.Version < 0:
		return nil, &Error{Code: EINVALID, Message: "version must be positive", Field: "version"}
	case req.Version > 0 && req.ProcessKey == "":
		return nil, &Error{Code: EINVALID, Message: "version needs processKey: it pins a version of that process", Field: "version"}
	case req.ProcessKey != "":
		proc, ref, err := r.process(ctx, req.ProcessKey, req.Version)
		if ErrorCode(err) == ENOTFOUND {
			if req.Version > 0 {
				return nil, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("process %q has no version %d", req.ProcessKey, req.Version), Err: err}
			}
			return nil, &Error{Code: ENOTFOUND, Message: fmt.Sprintf("process %q is not deployed", req.ProcessKey), Err: err}
		}
		if err != nil {
			return nil, err
		}
		if len(engine.ConditionalStarts(proc)) == 0 {
			return nil, &Error{Code: EINVALID, Message: fmt.Sprintf("process %q version %d has no conditional start event", ref.Key, ref.Version), Field: "processKey"}
		}
		return []conditionalCandidate{{proc: proc, ref: ref}}, nil
	}
	latest, err := r.store.LatestDefinitions(ctx)
	if err != nil {
		return nil, fmt.Errorf("runtime: conditional starts: %w", err)
	}
	var out []conditionalCandidate
	for _, d := range latest {
		if req.Startable != nil && !req.Startable(d.Key) {
			continue
		}
		proc, ref, err := r.process(ctx, d.Key, d.Version)
		if err != nil {
			return nil, unreadableDefinition(d.Key, d.Version, err)
		}
		if len(engine.ConditionalStarts(proc)) > 0 {
			out = append(out, conditionalCandidate{proc: proc, ref: ref})
		}
	}
	if len(out) == 0 {
		return nil, &Error{Code: ENOTFOUND, Message: "no conditional start events are deployed (in a process you may start)"}
	}
	return out, nil
}
