package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
)

// CallRef is what a call activity names: its calledElement as written and
// the namespace prefixes of the caller's document.
type CallRef struct {
	Reference  string
	Namespaces map[string]string
	// Caller is the calling process's key.
	Caller string
}

// Resolver turns a call activity's reference into a registry key (DESIGN
// §5.7). The runtime consults it for every call, before any store
// transaction. Errors are technical errors entering the caller's error chain.
type Resolver interface {
	Resolve(ctx context.Context, ref CallRef) (key string, err error)
}

// DefaultResolver treats an unqualified reference as the key and refuses a
// namespace-qualified one, naming the namespace: a host maps imports with
// its own Resolver.
type DefaultResolver struct{}

// Resolve implements Resolver.
func (DefaultResolver) Resolve(_ context.Context, ref CallRef) (string, error) {
	prefix, key, qualified := strings.Cut(ref.Reference, ":")
	if !qualified {
		return ref.Reference, nil
	}
	ns := ref.Namespaces[prefix]
	if ns == "" {
		ns = "prefix " + prefix + " (undeclared)"
	}
	return "", fmt.Errorf("calledElement %q is qualified by namespace %s; no resolver maps it to a key (%s)", ref.Reference, ns, key)
}

// work is what one command commits together: the stepped instance's record
// first, then the records of the children it launched, and their effects.
type work struct {
	recs []StepRecord
	fxs  []engine.Effects
}

func (w *work) add(rec StepRecord, fx engine.Effects) {
	w.recs = append(w.recs, rec)
	w.fxs = append(w.fxs, fx)
}

func (w *work) prepend(rec StepRecord, fx engine.Effects) {
	w.recs = append([]StepRecord{rec}, w.recs...)
	w.fxs = append([]engine.Effects{fx}, w.fxs...)
}

// main returns the effects of the stepped instance.
func (w *work) main() engine.Effects {
	if len(w.fxs) == 0 {
		return engine.Effects{}
	}
	return w.fxs[0]
}

// afterCommit runs the after-commit work of every instance in w.
func (w *work) afterCommit(ctx context.Context, r *Runtime) {
	for i, fx := range w.fxs {
		r.afterCommit(ctx, w.recs[i], fx)
	}
}

// settleCalls answers what st's step asked of the registry before it
// commits: it launches the children of call activities (each resolved at
// call time) and evaluates the decisions of business rule tasks, feeding
// every outcome back into st (call started; a child that ended at once; a
// call that failed; a decision result) until nothing is pending. Children's
// records go into w; they commit with st.
func (r *Runtime) settleCalls(ctx context.Context, w *work, proc *bpmn.Process, businessKey string, st *engine.State, fx engine.Effects, now time.Time) (*engine.State, engine.Effects, error) {
	calls, decisions := fx.Calls, fx.Decisions
	fx.Calls, fx.Decisions = nil, nil
	for len(calls) > 0 || len(decisions) > 0 {
		var events []engine.Event
		switch {
		case len(decisions) > 0:
			ev, err := r.evaluate(ctx, decisions[0], now)
			if err != nil {
				return nil, fx, err
			}
			events = []engine.Event{ev}
			decisions = decisions[1:]
		default:
			c := calls[0]
			calls = calls[1:]
			var err error
			if events, err = r.launch(ctx, w, proc, businessKey, st, c, now); err != nil {
				return nil, fx, err
			}
		}
		for _, ev := range events {
			next, more, err := engine.Apply(proc, st, ev, now, r.engine) // st is this command's own
			if err != nil {
				return nil, fx, fmt.Errorf("runtime: %s in %s: %w", ev.Kind(), st.InstanceID, err)
			}
			st = next
			calls = append(calls, more.Calls...)
			decisions = append(decisions, more.Decisions...)
			more.Calls, more.Decisions = nil, nil
			fx = mergeEffects(fx, more)
		}
	}
	return st, fx, nil
}

// evaluate evaluates the latest version of a business rule task's decision
// at the step's time now (FEEL's now() and today()). A decision that is not
// deployed or fails to evaluate is the task's failure (in the event); a
// failure to read it (the store, a cancelled request) fails the step, so
// nothing is committed.
func (r *Runtime) evaluate(ctx context.Context, req engine.DecisionRequest, now time.Time) (engine.Event, error) {
	ev := engine.DecisionEvaluated{WaitID: req.WaitID, Key: req.Ref}
	defs, ref, err := r.decision(ctx, req.Ref, 0)
	if err != nil {
		if ErrorCode(err) != ENOTFOUND {
			return nil, fmt.Errorf("runtime: decision %s: %w", req.Ref, err)
		}
		ev.Error = fmt.Sprintf("decision %q is not deployed", req.Ref)
		return ev, nil
	}
	ev.Version = ref.Version
	res, err := defs.EvaluateAt(req.Ref, req.Variables, now)
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		ev.Error = err.Error()
		return ev, nil
	}
	ev.Entries, ev.Matched = res.Entries, ruleIDs(res.Matched)
	return ev, nil
}

// launch resolves and starts one child. It returns the events for the
// caller: CallStarted (and ChildEnded when the child ended at once), or
// CallFailed with a classified code.
func (r *Runtime) launch(ctx context.Context, w *work, caller *bpmn.Process, businessKey string, parent *engine.State, c engine.Call, now time.Time) ([]engine.Event, error) {
	fail := func(code, format string, args ...any) []engine.Event {
		return []engine.Event{engine.CallFailed{WaitID: c.ChildID, Code: code, Message: fmt.Sprintf(format, args...)}}
	}
	key, err := r.resolver.Resolve(ctx, CallRef{Reference: c.Reference, Namespaces: caller.Namespaces, Caller: caller.ID})
	if err != nil {
		return fail(engine.CodeCallUnresolvable, "call activity %s: %v", c.NodeID, err), nil
	}
	proc, ref, err := r.process(ctx, key, c.Version)
	if err != nil {
		if ErrorCode(err) != ENOTFOUND {
			return nil, err
		}
		if c.Version > 0 {
			return fail(engine.CodeCallNotFound, "call activity %s: process %q has no version %d", c.NodeID, key, c.Version), nil
		}
		return fail(engine.CodeCallNotFound, "call activity %s: process %q is not deployed", c.NodeID, key), nil
	}
	if msg := checkContract(c, proc); msg != "" {
		return fail(engine.CodeCallContract, "call activity %s calling %s: %s", c.NodeID, key, msg), nil
	}
	child := engine.NewState(c.ChildID, ref.Key, ref.Version)
	child.BusinessKey = businessKey
	child.Parent = &engine.ParentLink{InstanceID: parent.InstanceID, NodeID: c.NodeID, WaitID: c.ChildID}
	child.CallChain = append(slices.Clone(c.Chain), ref.Key)
	next, fx, err := engine.Apply(proc, child, engine.Start{Variables: c.Inputs}, now, r.engine)
	if err != nil {
		if errors.Is(err, engine.ErrInvalidTransition) {
			return fail(engine.CodeCallContract, "call activity %s: process %s has no none start event", c.NodeID, key), nil
		}
		return nil, fmt.Errorf("runtime: start child %s: %w", c.ChildID, err)
	}
	if next, fx, err = r.settleCalls(ctx, w, proc, businessKey, next, fx, now); err != nil {
		return nil, err
	}
	events := []engine.Event{engine.CallStarted{WaitID: c.ChildID, Key: ref.Key, Version: ref.Version}}
	if fx.ParentNotice != nil { // ended at once: the caller continues in this step
		events = append(events, *fx.ParentNotice)
		fx.ParentNotice = nil
	}
	row := InstanceRow{ID: InstanceID(c.ChildID), ProcessKey: ref.Key, ProcessVersion: ref.Version, BusinessKey: businessKey,
		ParentID: InstanceID(parent.InstanceID), ParentNodeID: c.NodeID, CreatedAt: now}
	rec, err := r.record(ctx, row, 0, next, fx, now, true)
	if err != nil {
		return nil, err
	}
	w.add(rec, fx)
	return events, nil
}

// checkContract checks the caller's declared inputs against the callee's
// ioSpecification by name (DESIGN §8): every passed input must be declared
// by the callee, and every required callee input must be passed and present.
func checkContract(c engine.Call, callee *bpmn.Process) string {
	declared := map[string]bool{}
	var required []string
	if callee.IO != nil {
		for _, in := range callee.IO.Inputs {
			declared[in.Name] = true
			if !in.Optional {
				required = append(required, in.Name)
			}
		}
	}
	var problems []string
	passed := map[string]bool{}
	for name := range c.Inputs {
		passed[name] = true
	}
	for _, name := range c.Missing {
		passed[name] = true
	}
	var names []string
	for name := range passed {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !declared[name] {
			problems = append(problems, fmt.Sprintf("input %q is not declared by the callee's ioSpecification", name))
		}
	}
	for _, name := range required {
		if !passed[name] {
			problems = append(problems, fmt.Sprintf("required input %q is not passed by the call activity", name))
		} else if slices.Contains(c.Missing, name) {
			problems = append(problems, fmt.Sprintf("required input %q is missing: the caller has no variable %q", name, name))
		}
	}
	return strings.Join(problems, "; ")
}

// mergeEffects appends the effects of a later step of the same instance to
// those of an earlier one; a wait ends up in Waits or RemovedWaits by its
// last change.
func mergeEffects(a, b engine.Effects) engine.Effects {
	a.Facts = append(a.Facts, b.Facts...)
	a.Incidents = append(a.Incidents, b.Incidents...)
	for _, id := range b.RemovedWaits {
		a.Waits = slices.DeleteFunc(a.Waits, func(w engine.Wait) bool { return w.ID == id })
		if !slices.Contains(a.RemovedWaits, id) {
			a.RemovedWaits = append(a.RemovedWaits, id)
		}
	}
	for _, w := range b.Waits {
		a.RemovedWaits = slices.DeleteFunc(a.RemovedWaits, func(id string) bool { return id == w.ID })
		a.Waits = slices.DeleteFunc(a.Waits, func(o engine.Wait) bool { return o.ID == w.ID })
		a.Waits = append(a.Waits, w)
	}
	a.Signals = append(a.Signals, b.Signals...)
	a.Calls = append(a.Calls, b.Calls...)
	a.Decisions = append(a.Decisions, b.Decisions...)
	a.CancelChildren = append(a.CancelChildren, b.CancelChildren...)
	a.Fired += b.Fired
	a.Changed = append(a.Changed, b.Changed...) // record writes each part once
	if b.ParentNotice != nil {
		a.ParentNotice = b.ParentNotice
	}
	return a
}
