package runtime

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/engine"
)

// A running model reaches only what its deployer may reach (docs/security.md
// "Reach"): the processes it calls, the decisions it evaluates, the job
// types it creates and the signals it throws. What the models of a
// deployment reach by name is checked when they are deployed (the
// DeployGuard gets every such Reach); what they reach through an
// expression (a dynamic callee or job type) or through the Resolver (a
// namespace-qualified callee) is known only when it resolves, and is
// checked then by the ReachGuard of Options against the deployer's rights
// at that moment. A refusal stops the element in an engine.IncidentReach
// incident naming it. Deployments without a recorded deployer (made
// without authentication, or before deployers were recorded) are not
// restricted.

// ReachKind says what kind of resource a model reaches.
type ReachKind string

// The reach kinds (bpmn.ReferenceKind's values).
const (
	// ReachProcess is a process a call activity starts and reads the
	// outputs of.
	ReachProcess ReachKind = ReachKind(bpmn.RefProcess)
	// ReachDecision is a decision a business rule task evaluates.
	ReachDecision ReachKind = ReachKind(bpmn.RefDecision)
	// ReachJobType is a job type the model creates jobs of (service and
	// send tasks, message throws, job routers): whoever works that type
	// gets the jobs.
	ReachJobType ReachKind = ReachKind(bpmn.RefJobType)
	// ReachSignal is a signal the model broadcasts to every instance.
	ReachSignal ReachKind = ReachKind(bpmn.RefSignal)
)

// Reach is one thing a model reaches outside its own instance.
type Reach struct {
	// Resource is the deployed file the model is in ("" at run time).
	Resource string
	// Process is the key of the reaching process; Element the id of the
	// node that reaches, ElementKind its BPMN kind ("callActivity").
	Process     string
	Element     string
	ElementKind string
	// Kind and Key name what is reached: a process or decision key, a job
	// type, a signal name.
	Kind ReachKind
	Key  string
}

// Describe says in words what the element does, e.g. `callActivity
// "callPayroll" of process "order" calls process "payroll"`.
func (r Reach) Describe() string {
	verb := map[ReachKind]string{ReachProcess: "calls process", ReachDecision: "evaluates decision",
		ReachJobType: "creates jobs of type", ReachSignal: "throws signal"}[r.Kind]
	if verb == "" {
		verb = "reaches " + string(r.Kind)
	}
	return fmt.Sprintf("%s %q of process %q %s %q", r.ElementKind, r.Element, r.Process, verb, r.Key)
}

// ReachRefusal is a Reach its deployer may not make.
type ReachRefusal struct {
	Reach
	// Missing are the rights the deployer lacks, each as "permission kind
	// key" (e.g. `start process payroll`).
	Missing []string
	// Detail explains the refusal to a human, naming the deployer.
	Detail string
}

// ReachError refuses a deployment whose models reach what the deployer may
// not; nothing was stored. Its code is EFORBIDDEN.
type ReachError struct {
	Refusals []ReachRefusal
}

// Error implements error.
func (e *ReachError) Error() string {
	details := make([]string, 0, len(e.Refusals))
	for _, r := range e.Refusals {
		details = append(details, r.Detail)
	}
	return "the deployment reaches beyond its deployer's rights; nothing was registered: " + strings.Join(details, "; ")
}

// Unwrap gives the error its code (EFORBIDDEN) for ErrorCode.
func (e *ReachError) Unwrap() error { return &Error{Code: EFORBIDDEN, Message: e.Error()} }

// DeploymentPlan is what a deployment would register and reach, for its
// DeployGuard.
type DeploymentPlan struct {
	// Processes and Decisions are the keys the models declare.
	Processes, Decisions []string
	// Reaches are what the processes reach by name (dynamic references
	// are checked when they resolve), in resource and document order.
	Reaches []Reach
}

// ReachGuard decides at run time whether a deployer may reach what a
// dynamic reference of their model resolved to, by their current rights.
// The host implements it (the access service); the runtime only asks.
type ReachGuard interface {
	// MayReach returns nil when by may reach r, the refusal otherwise
	// (Detail naming the deployer, e.g. `deployer alice may not start
	// process "payroll"`). err is a failure to decide (a store error): the
	// step then fails and nothing is committed.
	MayReach(ctx context.Context, by Deployer, r Reach) (*ReachRefusal, error)
}

type deployerKey struct{}

// WithDeployer returns ctx naming who deploys: Deploy records them, and
// the models' dynamic references are checked against their rights when
// they resolve. Without it (no authentication) nothing is recorded and
// the deployment is not restricted.
func WithDeployer(ctx context.Context, by Deployer) context.Context {
	if by.IsZero() {
		return ctx
	}
	by.Groups = slices.Clone(by.Groups)
	return context.WithValue(ctx, deployerKey{}, by)
}

// deployerFrom returns the Deployer WithDeployer put in ctx.
func deployerFrom(ctx context.Context) Deployer {
	by, _ := ctx.Value(deployerKey{}).(Deployer)
	return by
}

// staticReaches lists what the processes of a deployment reach by name, in
// resource and document order.
func staticReaches(resources []Resource, parsed map[string]*bpmn.Process) []Reach {
	var out []Reach
	for _, res := range resources {
		for _, decl := range res.Processes {
			for _, ref := range parsed[decl.Key].References() {
				if ref.Dynamic {
					continue
				}
				out = append(out, Reach{Resource: res.Name, Process: decl.Key, Element: ref.Element,
					ElementKind: string(ref.ElementKind), Kind: ReachKind(ref.Kind), Key: ref.Key})
			}
		}
	}
	return out
}

// deployers caches who deployed each definition version: a version's
// deployment never changes, so entries never go stale.
type deployers struct {
	mu sync.RWMutex
	of map[DefinitionRef]Deployer
}

// deployerOf returns who deployed version ref of a process.
func (r *Runtime) deployerOf(ctx context.Context, ref DefinitionRef) (Deployer, error) {
	r.reachers.mu.RLock()
	by, ok := r.reachers.of[ref]
	r.reachers.mu.RUnlock()
	if ok {
		return by, nil
	}
	def, err := r.store.Definition(ctx, ref.Key, ref.Version)
	if err != nil {
		return Deployer{}, fmt.Errorf("runtime: deployer of %s version %d: %w", ref.Key, ref.Version, err)
	}
	if by, err = r.store.DeployedBy(ctx, def.DeploymentID); err != nil {
		return Deployer{}, fmt.Errorf("runtime: deployer of %s version %d (deployment %s): %w", ref.Key, ref.Version, def.DeploymentID, err)
	}
	r.reachers.mu.Lock()
	if r.reachers.of == nil {
		r.reachers.of = map[DefinitionRef]Deployer{}
	}
	r.reachers.of[ref] = by
	r.reachers.mu.Unlock()
	return by, nil
}

// mayReach asks the ReachGuard whether the deployer of st's version may
// reach reach: nil when it may (or nothing restricts it), else the
// refusal's message.
func (r *Runtime) mayReach(ctx context.Context, st *engine.State, reach Reach) (string, error) {
	if r.reach == nil {
		return "", nil
	}
	by, err := r.deployerOf(ctx, DefinitionRef{Key: st.ProcessKey, Version: st.ProcessVersion})
	if err != nil || by.IsZero() {
		return "", err
	}
	refusal, err := r.reach.MayReach(ctx, by, reach)
	if err != nil {
		return "", fmt.Errorf("runtime: reach of %s in %s: %w", reach.Element, st.InstanceID, err)
	}
	if refusal == nil {
		return "", nil
	}
	return refusal.Detail, nil
}

// reachCall checks the callee a dynamic call resolved to (key) against
// the caller's deployer: the events refusing the call, or none when it
// may go ahead. A call by name was checked at deployment.
func (r *Runtime) reachCall(ctx context.Context, caller *bpmn.Process, parent *engine.State, c engine.Call, key string) ([]engine.Event, error) {
	n := caller.Node(c.NodeID)
	if r.reach == nil || n == nil || n.Call == nil || !n.Call.Dynamic() {
		return nil, nil
	}
	msg, err := r.mayReach(ctx, parent, Reach{Process: caller.ID, Element: c.NodeID, ElementKind: string(n.Kind), Kind: ReachProcess, Key: key})
	if err != nil || msg == "" {
		return nil, err
	}
	return []engine.Event{engine.ReachRefused{WaitID: c.ChildID, Message: msg}}, nil
}

// refusedJobs returns a refusal for every job fx created (and st still
// holds) whose type came from an expression its deployer may not reach;
// checked remembers the jobs already asked about.
func (r *Runtime) refusedJobs(ctx context.Context, proc *bpmn.Process, st *engine.State, fx engine.Effects, checked map[string]bool) ([]engine.Event, error) {
	var out []engine.Event
	for _, f := range fx.Facts {
		if f.Kind != engine.FactJobCreated {
			continue
		}
		id, _ := f.Detail["jobKey"].(string)
		if checked[id] {
			continue
		}
		checked[id] = true
		n := proc.Node(f.NodeID)
		job := st.Wait(id)
		if n == nil || n.Job == nil || n.Job.TypeExpr == nil || job == nil || job.Kind != engine.WaitJob || job.Listener != "" {
			continue // a type by name was checked at deployment
		}
		msg, err := r.mayReach(ctx, st, Reach{Process: proc.ID, Element: n.ID, ElementKind: string(n.Kind), Kind: ReachJobType, Key: job.Name})
		if err != nil {
			return nil, err
		}
		if msg != "" {
			out = append(out, engine.ReachRefused{WaitID: id, Message: msg})
		}
	}
	return out, nil
}
