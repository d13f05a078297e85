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

// Resolver turns a call activity's reference into a registry key
// (docs/scopes.md#call-activities). The runtime consults it for every call, before any store
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
// first, then the records of the children it launched, and their effects
// (of a child's, what its after-commit work reads: wakeups).
type work struct {
	recs []StepRecord
	fxs  []engine.Effects
	// budget is the command's account against its CallTreeLimits.
	budget callBudget
	// takes are the buffered messages the command took, rechecks the
	// message waits it opened that recheckBuffered looks at after the
	// commit (msgbuffer.go).
	takes    messageTakes
	rechecks []bufferRecheck
	// jobSpans are the job spans the command ends once it committed,
	// noted only with tracing on (tracing.go).
	jobSpans []jobSpanEnd
}

func (w *work) add(rec StepRecord, fx engine.Effects) {
	w.budget.hold(rec)
	w.recs = append(w.recs, rec)
	w.fxs = append(w.fxs, wakeups(fx))
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
	w.budget.spend(fx)
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
			w.budget.spend(more)
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
// CallFailed with a classified code, or CallRefused when the command's
// call-tree budget has no room for it (calltree.go).
func (r *Runtime) launch(ctx context.Context, w *work, caller *bpmn.Process, businessKey string, parent *engine.State, c engine.Call, now time.Time) ([]engine.Event, error) {
	if why := w.budget.admit(r.callTree, c.NodeID); why != "" {
		return []engine.Event{engine.CallRefused{WaitID: c.ChildID, Message: why}}, nil
	}
	fail := func(code, format string, args ...any) []engine.Event {
		return []engine.Event{engine.CallFailed{WaitID: c.ChildID, Code: code, Message: fmt.Sprintf(format, args...)}}
	}
	key, err := r.resolver.Resolve(ctx, CallRef{Reference: c.Reference, Namespaces: caller.Namespaces, Caller: caller.ID})
	if err != nil {
		return fail(engine.CodeCallUnresolvable, "call activity %s: %v", c.NodeID, err), nil
	}
	if refused, err := r.reachCall(ctx, caller, parent, c, key); err != nil || refused != nil {
		return refused, err
	}
	version, missing, err := r.boundVersion(ctx, key, parent, c)
	if err != nil {
		return nil, err
	}
	if missing != "" {
		return fail(engine.CodeCallNotFound, "call activity %s: %s", c.NodeID, missing), nil
	}
	proc, ref, err := r.process(ctx, key, version)
	if err != nil {
		if ErrorCode(err) != ENOTFOUND {
			return nil, err
		}
		if version > 0 {
			return fail(engine.CodeCallNotFound, "call activity %s: process %q has no version %d", c.NodeID, key, version), nil
		}
		return fail(engine.CodeCallNotFound, "call activity %s: process %q is not deployed", c.NodeID, key), nil
	}
	if err := r.checkStartable(ctx, ref); err != nil {
		if !errors.Is(err, ErrSuspended) {
			return nil, err
		}
		return fail(engine.CodeCallNotFound, "call activity %s: %v", c.NodeID, err), nil
	}
	if msg := checkContract(c, proc); msg != "" {
		return fail(engine.CodeCallContract, "call activity %s calling %s: %s", c.NodeID, key, msg), nil
	}
	if c.BusinessKeySet {
		businessKey = c.BusinessKey // camunda:in businessKey; otherwise inherited
	}
	child := engine.NewState(c.ChildID, ref.Key, ref.Version)
	child.BusinessKey = businessKey
	child.Parent = &engine.ParentLink{InstanceID: parent.InstanceID, NodeID: c.NodeID, WaitID: c.ChildID, All: c.ReturnAll}
	child.CallChain = append(slices.Clone(c.Chain), ref.Key)
	row := InstanceRow{ID: InstanceID(c.ChildID), ProcessKey: ref.Key, ProcessVersion: ref.Version, BusinessKey: businessKey,
		ParentID: InstanceID(parent.InstanceID), ParentNodeID: c.NodeID, CreatedAt: now}
	rec, fx, notice, err := r.childStep(ctx, w, proc, child, engine.Start{Variables: contractInputs(c, proc)}, row, now)
	var refused childRefusal
	switch {
	case errors.As(err, &refused) && errors.Is(err, engine.ErrInvalidTransition):
		why := refused.err
		if _, direct := engine.DirectStart(proc); direct != nil {
			why = direct
		}
		return fail(engine.CodeCallContract, "call activity %s: %v", c.NodeID, why), nil
	case errors.As(err, &refused):
		return nil, fmt.Errorf("runtime: start child %s: %w", c.ChildID, refused.err)
	case err != nil:
		return nil, err
	}
	events := []engine.Event{engine.CallStarted{WaitID: c.ChildID, Key: ref.Key, Version: ref.Version}}
	if notice != nil { // ended at once: the caller continues in this step
		events = append(events, *notice)
	}
	w.add(rec, fx)
	return events, nil
}

// boundVersion picks the callee version a call's binding names (0: the
// latest, which process resolves): a pinned version; the version deployed
// with the calling version (binding deployment); the latest version whose
// process carries the version tag (binding versionTag). missing explains a
// binding that names no version; err is a failure to read the store.
func (r *Runtime) boundVersion(ctx context.Context, key string, parent *engine.State, c engine.Call) (version int, missing string, err error) {
	if c.Version > 0 {
		return c.Version, "", nil
	}
	switch c.Binding {
	case bpmn.BindingDeployment:
		return r.deploymentVersion(ctx, key, parent)
	case bpmn.BindingVersionTag:
		return r.taggedVersion(ctx, key, c.VersionTag)
	}
	return 0, "", nil
}

// deploymentVersion is the version of key deployed together with the
// caller's version (Camunda's binding "deployment"). gobpm keeps a
// resource's registered version when the same bytes are deployed again, so
// a callee re-sent unchanged beside a changed caller is registered under
// an earlier deployment: the version of key current when the caller's
// version was deployed is taken then.
func (r *Runtime) deploymentVersion(ctx context.Context, key string, parent *engine.State) (int, string, error) {
	callerDef, err := r.store.Definition(ctx, parent.ProcessKey, parent.ProcessVersion)
	if err != nil {
		return 0, "", fmt.Errorf("runtime: caller %s version %d: %w", parent.ProcessKey, parent.ProcessVersion, err)
	}
	versions, err := r.store.DefinitionVersions(ctx, key)
	if ErrorCode(err) == ENOTFOUND {
		return 0, fmt.Sprintf("process %q is not deployed", key), nil
	}
	if err != nil {
		return 0, "", err
	}
	for i := len(versions) - 1; i >= 0; i-- {
		if versions[i].DeploymentID == callerDef.DeploymentID {
			return versions[i].Version, "", nil
		}
	}
	for i := len(versions) - 1; i >= 0; i-- {
		if !versions[i].DeployedAt.After(callerDef.DeployedAt) {
			return versions[i].Version, "", nil
		}
	}
	return 0, fmt.Sprintf("process %q was not deployed with %s version %d (deployment %s)", key, parent.ProcessKey, parent.ProcessVersion, callerDef.DeploymentID), nil
}

// taggedVersion is the latest version of key whose process carries the
// version tag (camunda:versionTag, zeebe:versionTag).
func (r *Runtime) taggedVersion(ctx context.Context, key, tag string) (int, string, error) {
	versions, err := r.store.DefinitionVersions(ctx, key)
	if ErrorCode(err) == ENOTFOUND {
		return 0, fmt.Sprintf("process %q is not deployed", key), nil
	}
	if err != nil {
		return 0, "", err
	}
	for i := len(versions) - 1; i >= 0; i-- {
		p, _, err := r.process(ctx, key, versions[i].Version)
		if err != nil {
			return 0, "", err
		}
		if p.VersionTag == tag {
			return versions[i].Version, "", nil
		}
	}
	return 0, fmt.Sprintf("process %q has no version tagged %q", key, tag), nil
}

// contractInputs is what the child starts with: everything the call
// passes, unless the callee declares an ioSpecification, which is then its
// contract — only its declared inputs cross (docs/scopes.md#call-activities).
func contractInputs(c engine.Call, callee *bpmn.Process) map[string]any {
	if callee.IO == nil {
		return c.Inputs
	}
	in := make(map[string]any, len(callee.IO.Inputs))
	for _, d := range callee.IO.Inputs {
		if v, ok := c.Inputs[d.Name]; ok {
			in[d.Name] = v
		}
	}
	return in
}

// checkContract checks a call against the callee's ioSpecification by name
// (README#model-extensions): every input the call activity's own ioSpecification passes
// must be declared by the callee, and every required callee input must be
// passed (by any means: declared, propagated, camunda:in) and present.
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
	names := slices.Clone(c.Declared)
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		if !declared[name] {
			problems = append(problems, fmt.Sprintf("input %q is not declared by the callee's ioSpecification", name))
		}
	}
	for _, name := range required {
		_, passed := c.Inputs[name]
		switch {
		case passed:
		case slices.Contains(c.Missing, name):
			problems = append(problems, fmt.Sprintf("required input %q is missing: the caller has no variable %q", name, name))
		default:
			problems = append(problems, fmt.Sprintf("required input %q is not passed by the call activity", name))
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
	a.Activations += b.Activations
	a.Changed = append(a.Changed, b.Changed...) // record writes each part once
	if b.ParentNotice != nil {
		a.ParentNotice = b.ParentNotice
	}
	return a
}
