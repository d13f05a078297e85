package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/expr"
	"github.com/gobpm/gobpm/internal/scope"
)

// The defaults of Options. They agree with each other and with the
// deployment-time limits they imply (Options.ModelLimits).
const (
	// DefaultMaxIterations is the default cap on the iterations of one
	// multi-instance or loop body.
	DefaultMaxIterations = 100_000
	// DefaultMaxActivations is the default cap on element activations in
	// one step, for the default iterations: a parallel multi-instance at
	// the limit starts every iteration in one step, and each iteration may
	// pass a few synchronous elements (an embedded sub-process's start, a
	// task and its end: up to four within the budget).
	DefaultMaxActivations = 5*DefaultMaxIterations + 1_000
	// DefaultMaxScopeDepth is the default cap on the nesting of scopes.
	DefaultMaxScopeDepth = 64
	// DefaultMaxCallDepth is the default cap on the call chain.
	DefaultMaxCallDepth = 64
	// DefaultMinTimerPeriod is the default minimum period of a timer
	// cycle (the timer floor).
	DefaultMinTimerPeriod = time.Second
)

// maxDecodedSlots bounds the result slots a stored body may declare, so a
// corrupt checkpoint cannot make the decoder allocate without bound. It is
// far above any iteration limit a deployment would configure.
const maxDecodedSlots = 1 << 26

// Options bound what one step may do. Zero values pick the defaults.
type Options struct {
	// MaxScopeDepth caps the nesting of scopes (DESIGN §5.6); 0 means
	// DefaultMaxScopeDepth.
	MaxScopeDepth int
	// MaxActivations caps element activations in one step, so a loop of
	// synchronous elements cannot spin forever: past it the track stops
	// in a step-budget incident. 0 means 5·MaxIterations + 1,000
	// (DefaultMaxActivations for the default iterations), so a parallel
	// body at the iteration limit starts in one step. A model in which
	// some element can never be passed within it is refused at
	// deployment (ModelLimits).
	MaxActivations int
	// MaxIterations caps the iterations of one multi-instance or loop
	// body: a collection or cardinality above it, and a standard loop
	// whose condition still holds after that many, stop in an incident
	// naming the limit. 0 means DefaultMaxIterations.
	MaxIterations int
	// MaxCallDepth caps the call chain (DESIGN §5.6); 0 means
	// DefaultMaxCallDepth.
	MaxCallDepth int
	// MinTimerPeriod is the timer floor: the shortest period a timer
	// cycle may have. A literal cycle below it is refused at deployment
	// (ModelLimits); a cycle an expression yields when the timer is armed
	// stops in an incident naming the floor. 0 means
	// DefaultMinTimerPeriod; a negative value sets no floor.
	MinTimerPeriod time.Duration
	// MintIDFunc mints the id of a child instance a call activity starts
	// (which is also the id of the call's wait): the runtime sets it to its
	// own id source (a UUIDv7), so the id is fresh and never built from the
	// parent's. The minted id becomes part of the committed state, so a
	// step run again after a failed commit simply mints again. Nil (pure
	// engine tests, tools) derives a deterministic name-based UUID
	// (version 5 layout: SHA-1 of the instance id and the wait counter,
	// see NameBasedID), so a step stays reproducible.
	MintIDFunc func() string
	// Eval bounds every expression evaluation of a step: its step budget
	// (0: the default), a wall-clock deadline and a cancellation channel.
	// An evaluation that hits one is an incident naming it. The engine
	// passes these through to the evaluator and reads no clock itself:
	// the runtime sets the deadline; pure engine tests leave it zero and
	// stay deterministic.
	Eval expr.Limits
}

// WithDefaults returns o with every zero field set to its default: the
// limits a step actually applies.
func (o Options) WithDefaults() Options {
	if o.MaxScopeDepth <= 0 {
		o.MaxScopeDepth = DefaultMaxScopeDepth
	}
	if o.MaxIterations <= 0 {
		o.MaxIterations = DefaultMaxIterations
	}
	if o.MaxActivations <= 0 {
		o.MaxActivations = 5*o.MaxIterations + 1_000
	}
	if o.MaxCallDepth <= 0 {
		o.MaxCallDepth = DefaultMaxCallDepth
	}
	if o.MinTimerPeriod == 0 {
		o.MinTimerPeriod = DefaultMinTimerPeriod
	}
	return o
}

// ModelLimits returns the deployment-time limits that agree with o, for
// bpmn.ParseWith: a model refused under them has an element that could
// never run under o (a timer cycle below the floor, an element that can
// never be passed within the step budget).
func (o Options) ModelLimits() bpmn.Limits {
	o = o.WithDefaults()
	return bpmn.Limits{MinTimerPeriod: max(o.MinTimerPeriod, 0), MaxActivations: o.MaxActivations}
}

// Step applies ev to a copy of st for the given process at time now and
// returns the new state and the effects to persist. st is not modified.
// It fails only with ErrInvalidTransition (event does not apply) or
// ErrCheckpoint (state does not fit the process). Step is the careful
// variant for tests and tools: it also checks that the effects name every
// part the step changed (CheckChanges), which costs a whole encoding of
// both states; the runtime uses Apply.
func Step(p *bpmn.Process, st *State, ev Event, now time.Time, opts Options) (*State, Effects, error) {
	next, fx, err := Apply(p, st.Clone(), ev, now, opts)
	if err != nil {
		return nil, Effects{}, err
	}
	if err := CheckChanges(st, next, fx.Changed); err != nil {
		return nil, Effects{}, fmt.Errorf("%w (%s on instance %s)", err, ev.Kind(), st.InstanceID)
	}
	return next, fx, nil
}

// Apply is Step without the copy: it changes st itself and returns it. The
// caller hands st over (the runtime does, for a state it just decoded from
// the checkpoint); on error st must be discarded.
func Apply(p *bpmn.Process, st *State, ev Event, now time.Time, opts Options) (*State, Effects, error) {
	x := &executor{proc: p, st: st, now: now, opts: opts.WithDefaults()}
	st.Scopes.TakeChanged() // a new record for this step
	wasEnded := st.Ended()
	if err := x.apply(ev); err != nil {
		return nil, Effects{}, err
	}
	if !x.st.Ended() {
		x.settle()
	}
	x.settleStatus()
	x.finishWaits()
	if !wasEnded {
		x.noticeParent()
	}
	x.finishChanges()
	x.fx.Activations = x.spent
	return x.st, x.fx, nil
}

// executor carries one step.
type executor struct {
	proc  *bpmn.Process
	st    *State
	now   time.Time
	opts  Options
	fx    Effects
	queue []string // ids of ready tracks, FIFO
	spent int
	// touched lists wait ids created, changed or removed in this step, in order.
	touched    []string
	touchedSet map[string]bool // the ids in touched
	// consumed lists call waits whose child is done: removing them does not
	// terminate the child.
	consumed []string
	// changed collects the parts of the state the step touches.
	changed changeSet
	// sw batches the removals of a cancellation in progress (nil otherwise).
	sw *sweep
	// by is the person whose act this step is (an operator's cancel, retry
	// or variables), named in the facts that record it; "" otherwise.
	by string
	// varsChanged is set when a variable is written (a FactVariableSet) and
	// cleared when the armed conditions are evaluated: conditions see every
	// change before the next element runs (stillActive, drainQueue).
	varsChanged bool
	// closing holds, by host track, the sub-process scope that just
	// completed, for the compensation entry the host records (leave).
	closing map[string]closedSub
	// skipEntry is a track whose completion was recorded before an
	// incident stopped it (retryIncident): its retry records none.
	skipEntry string
	// inScope counts the tracks of st.Tracks by scope, so checkDrain need
	// not scan every track (a parallel body of n sub-process iterations
	// drains n scopes in one step: a scan made that quadratic). Built on
	// first use (tracksIn), kept up to date wherever a track is added,
	// removed or moves to another scope; nil means not built.
	inScope map[scope.ID]int
}

// tracksIn returns how many live tracks sit in scope s.
func (x *executor) tracksIn(s scope.ID) int {
	if x.inScope == nil {
		x.inScope = make(map[scope.ID]int)
		for _, t := range x.st.Tracks {
			x.inScope[t.Scope]++
		}
	}
	return x.inScope[s]
}

// countTrack records that d tracks joined (d > 0) or left (d < 0) scope s.
func (x *executor) countTrack(s scope.ID, d int) {
	if x.inScope == nil {
		return
	}
	if n := x.inScope[s] + d; n > 0 {
		x.inScope[s] = n
	} else {
		delete(x.inScope, s)
	}
}

// moveTrack moves track t to scope s.
func (x *executor) moveTrack(t *Track, s scope.ID) {
	x.countTrack(t.Scope, -1)
	t.Scope = s
	x.countTrack(s, 1)
}

func (x *executor) apply(ev Event) error {
	switch e := ev.(type) {
	case Start:
		if x.st.NextFact != 0 || len(x.st.Tracks) != 0 {
			return fmt.Errorf("engine: start instance %s: already started: %w", x.st.InstanceID, ErrInvalidTransition)
		}
		if e.StartNode == "" {
			n, err := DirectStart(x.proc)
			if err != nil {
				return fmt.Errorf("engine: start instance %s: %w: %w", x.st.InstanceID, err, ErrInvalidTransition)
			}
			if n != nil {
				e.StartNode = n.ID
			}
		}
		root := x.st.Scopes.Get(scope.RootID)
		x.st.Scopes.Touch(scope.RootID)
		root.Vars = scope.CloneVars(e.Variables)
		var payload map[string]any
		if n := x.proc.Node(e.StartNode); e.StartNode != "" && n != nil && localResults(n) {
			// A triggered start with Zeebe-style outputs: its payload is
			// the start event's result, and only the mapped values reach
			// the instance.
			payload, root.Vars = root.Vars, nil
		}
		if root.Vars == nil {
			root.Vars = map[string]any{}
		}
		for _, name := range x.proc.Graph.DataNames {
			if _, ok := root.Vars[name]; !ok {
				root.Vars[name] = nil
			}
		}
		started := map[string]any{"processKey": x.st.ProcessKey, "version": x.st.ProcessVersion}
		if x.st.Parent != nil {
			started["parentId"], started["parentNodeId"] = x.st.Parent.InstanceID, x.st.Parent.NodeID
		}
		x.fact(FactInstanceStarted, "", scope.RootID, "", started)
		if e.StartNode != "" {
			n := x.proc.Node(e.StartNode)
			if n == nil || !slices.Contains(x.proc.EventStarts, n) {
				return fmt.Errorf("engine: start instance %s at %q: not an event start of %s: %w", x.st.InstanceID, e.StartNode, x.proc.ID, ErrInvalidTransition)
			}
			x.armScope(scope.RootID)
			if n.Kind != bpmn.KindStartEvent {
				x.instantiateAt(n, payload)
				return nil
			}
			t := x.newTrack(scope.RootID, n.ID, "")
			if payload != nil && x.enterIO(t, n) {
				x.deliver(t, n, payload)
			}
			return nil
		}
		x.armScope(scope.RootID)
		x.seed(x.proc.Graph, scope.RootID)
		x.checkDrain(scope.RootID)
		return nil
	case Cancel:
		if x.st.Ended() {
			return fmt.Errorf("engine: cancel instance %s: status is %s: %w", x.st.InstanceID, x.st.Status, ErrInvalidTransition)
		}
		x.by = e.By
		x.cancelScope(scope.RootID, "instance cancelled")
		for _, in := range x.st.Incidents {
			x.resolveIncident(in, "instance cancelled")
		}
		x.st.Incidents = nil
		x.st.Status = StatusTerminated
		detail := map[string]any{}
		if e.Reason != "" {
			detail["reason"] = e.Reason
		}
		if e.By != "" {
			detail["by"] = e.By
		}
		x.fact(FactInstanceTerminated, "", scope.RootID, "", detail)
		return nil
	case Resume:
		if x.st.Ended() {
			return fmt.Errorf("engine: resume instance %s: status is %s: %w", x.st.InstanceID, x.st.Status, ErrInvalidTransition)
		}
		for _, t := range x.st.Tracks {
			if t.State == TrackReady {
				x.queue = append(x.queue, t.ID)
			}
		}
		return nil
	default:
		if x.st.Ended() {
			return fmt.Errorf("engine: %s on instance %s: status is %s: %w", ev.Kind(), x.st.InstanceID, x.st.Status, ErrInvalidTransition)
		}
		switch e := ev.(type) {
		case CallStarted, CallFailed, CallRefused, ChildEnded, ChildMissing, Orphaned:
			return x.applyCallEvent(ev)
		case ReachRefused:
			return x.reachRefused(e)
		case AdHocActivated:
			return x.activate(e)
		case Modify:
			return x.modify(e)
		case Migrate:
			return x.migrate(e)
		case AdHocCompleted:
			return x.completeRegion(e)
		case DecisionEvaluated:
			return x.decisionEvaluated(e)
		case WaitTriggered:
			return x.triggerWait(e)
		}
		if routed, err := x.applyRouterJobEvent(ev); routed {
			return err
		}
		return x.applyWaitEvent(ev)
	}
}

// instantiateAt starts the instance at n, the catch event after an
// instantiating event-based gateway or an instantiating receive task,
// whose event just occurred: the gateway (if any) is passed, and n
// completes with the event's payload (nil when it went to the root scope).
func (x *executor) instantiateAt(n *bpmn.Node, payload map[string]any) {
	at := n.ID
	if len(n.Incoming) == 1 && n.Incoming[0].Source.Kind == bpmn.KindEventBasedGateway {
		at = n.Incoming[0].Source.ID // the gateway; an instantiating receive task has no incoming flow
	}
	t := x.newTrackAt(scope.RootID, at)
	if at != n.ID {
		x.fact(FactElementActivated, at, t.Scope, t.ID, map[string]any{"type": string(bpmn.KindEventBasedGateway)})
		x.fact(FactElementCompleted, at, t.Scope, t.ID, nil)
		t.Node = n.ID
	}
	x.fact(FactElementActivated, n.ID, t.Scope, t.ID, map[string]any{"type": string(n.Kind)})
	x.runEvent(t, n, payload)
}

// run executes ready tracks until none is left, then fires inclusive joins
// that no other track can reach any more, and repeats.
func (x *executor) run() {
	for {
		x.drainQueue()
		if x.st.Ended() || !x.fireInclusiveJoins() {
			return
		}
	}
}

func (x *executor) drainQueue() {
	for len(x.queue) > 0 {
		if x.varsChanged && x.proc.HasConditionalEvents() {
			// The last element changed variables: a condition they satisfy
			// fires before anything else runs, so a sub-process cannot
			// close past its conditional boundary (stillActive).
			x.varsChanged = false
			x.evalConditions()
		}
		id := x.queue[0]
		x.queue = x.queue[1:]
		t := x.st.Track(id)
		if t == nil || t.State != TrackReady {
			continue // removed or parked meanwhile (e.g. by a terminate)
		}
		x.spent++
		x.markTrack(t) // executing a track changes it (or removes it)
		if x.spent > x.opts.MaxActivations {
			x.incident(t, IncidentStepBudget, fmt.Sprintf("more than %d element activations in one step: is there a loop without a wait state?", x.opts.MaxActivations))
			continue
		}
		x.execute(t)
	}
}

func (x *executor) settleStatus() {
	if x.st.Ended() {
		return
	}
	if len(x.st.Incidents) > 0 {
		x.st.Status = StatusFailed
	} else {
		x.st.Status = StatusRunning
	}
}

// node returns the node a track sits on, or nil when the state does not fit
// the process (an incident then).
func (x *executor) node(t *Track) *bpmn.Node {
	n := x.proc.Node(t.Node)
	if n == nil {
		x.incident(t, IncidentUnknownModel, fmt.Sprintf("node %q is not in process %s version %d", t.Node, x.st.ProcessKey, x.st.ProcessVersion))
	}
	return n
}

func (x *executor) execute(t *Track) {
	n := x.node(t)
	if n == nil {
		return
	}
	x.fact(FactElementActivated, n.ID, t.Scope, t.ID, map[string]any{"type": string(n.Kind)})
	if len(n.Boundaries) > 0 && !x.boundariesArmable(t, n) {
		return
	}
	if n.Loop != nil && !t.Inner {
		x.enterBody(t, n)
		return
	}
	if !x.enterIO(t, n) {
		return
	}
	switch n.Kind {
	case bpmn.KindStartEvent, bpmn.KindTask:
		x.complete(t, n)
	case bpmn.KindEndEvent:
		x.endEvent(t, n)
	case bpmn.KindScriptTask:
		x.scriptTask(t, n)
	case bpmn.KindExclusiveGateway:
		x.exclusiveGateway(t, n)
	case bpmn.KindParallelGateway:
		x.parallelGateway(t, n)
	case bpmn.KindSubProcess, bpmn.KindTransaction:
		x.enterSubProcess(t, n)
	case bpmn.KindServiceTask, bpmn.KindSendTask:
		x.createJob(t, n)
	case bpmn.KindUserTask:
		x.createTask(t, n)
	case bpmn.KindReceiveTask, bpmn.KindIntermediateCatchEvent:
		x.catchEvent(t, n)
	case bpmn.KindIntermediateThrowEvent:
		x.throwEvent(t, n)
	case bpmn.KindBoundaryEvent:
		x.complete(t, n)
	case bpmn.KindEventBasedGateway:
		x.eventGateway(t, n)
	case bpmn.KindInclusiveGateway:
		x.inclusiveGateway(t, n)
	case bpmn.KindCallActivity:
		x.callActivity(t, n)
	case bpmn.KindAdHocSubProcess:
		x.enterRegion(t, n)
	case bpmn.KindBusinessRuleTask:
		x.businessRuleTask(t, n)
	default:
		x.incident(t, IncidentUnknownModel, fmt.Sprintf("%s %q cannot be executed", n.Kind, n.ID))
	}
}

// complete records the node's completion, disarms its waits and boundary
// events, and leaves it by the activity rules.
func (x *executor) complete(t *Track, n *bpmn.Node) {
	x.withdrawWaits(t)
	x.fact(FactElementCompleted, n.ID, t.Scope, t.ID, nil)
	x.leave(t, n)
}

func (x *executor) endEvent(t *Track, n *bpmn.Node) {
	if n.Job != nil {
		x.createJob(t, n) // message end event: a job, the track ends on its completion
		return
	}
	x.finishEndEvent(t, n)
}

// finishEndEvent completes an end event: applies its output mappings,
// throws its result and ends the track.
func (x *executor) finishEndEvent(t *Track, n *bpmn.Node) {
	x.withdrawWaits(t)
	if !x.leaveIO(t, n) {
		return
	}
	if n.Event != nil && n.Event.Kind == bpmn.TriggerCompensation && x.throwCompensation(t, n) {
		return // it completes when the handlers finished (finishRun)
	}
	x.fact(FactElementCompleted, n.ID, t.Scope, t.ID, nil)
	if n.Terminate {
		x.terminateScope(t.Scope, t)
		return
	}
	if n.Event != nil {
		if n.Event.Kind == bpmn.TriggerCancel {
			x.cancelTransaction(t, n)
			return
		}
		// Signals and escalations in document order (a multiple end event
		// throws every definition), the error last: it ends the scope.
		if !x.throwAll(t, n) {
			return // an interrupting catch cancelled the thrower's scope
		}
		if e := n.Event.Find(bpmn.TriggerError); e != nil {
			x.throwError(t, t.Scope, e.Code, "error end event "+n.ID, false)
			return
		}
	}
	x.endTrack(t)
}

func (x *executor) scriptTask(t *Track, n *bpmn.Node) {
	if n.Job != nil {
		x.createJob(t, n) // a Camunda 8 script task implemented by a job worker
		return
	}
	if n.Script == nil {
		x.complete(t, n)
		return
	}
	v, err := n.Script.Eval(x.view(t.Scope))
	if err != nil {
		x.incident(t, IncidentExpression, fmt.Sprintf("script of %s: %v", n.ID, err))
		return
	}
	if n.ResultVariable != "" {
		x.deliver(t, n, map[string]any{n.ResultVariable: v})
		if !x.stillActive(t, n) {
			return // a condition its result satisfied interrupted the task
		}
	}
	x.complete(t, n)
}

func (x *executor) exclusiveGateway(t *Track, n *bpmn.Node) {
	for _, f := range n.Outgoing {
		if f == n.Default {
			continue
		}
		ok, failed := x.condition(t, n, f)
		if failed {
			return
		}
		if ok {
			x.fact(FactElementCompleted, n.ID, t.Scope, t.ID, map[string]any{"flow": f.ID})
			x.move(t, f)
			return
		}
	}
	if n.Default != nil {
		x.fact(FactElementCompleted, n.ID, t.Scope, t.ID, map[string]any{"flow": n.Default.ID})
		x.move(t, n.Default)
		return
	}
	x.incident(t, IncidentNoFlow, fmt.Sprintf("exclusive gateway %s: no outgoing flow condition is true and there is no default flow", n.ID))
}

func (x *executor) parallelGateway(t *Track, n *bpmn.Node) {
	if len(n.Incoming) > 1 {
		t.State = TrackJoining
		x.markTrack(t)
		// One waiting track per incoming flow, the oldest first.
		arrived := map[string]*Track{}
		for _, o := range x.st.Tracks {
			if o.State == TrackJoining && o.Node == n.ID && o.Scope == t.Scope {
				if _, seen := arrived[o.Via]; !seen {
					arrived[o.Via] = o
				}
			}
		}
		for _, f := range n.Incoming {
			if arrived[f.ID] == nil {
				return // keep waiting
			}
		}
		// Fire: the tokens of all incoming flows merge into this track.
		for _, f := range n.Incoming {
			if o := arrived[f.ID]; o != t {
				x.removeTrack(o)
			}
		}
		t.State = TrackReady
	}
	x.fact(FactElementCompleted, n.ID, t.Scope, t.ID, nil)
	x.fork(t, n.Outgoing)
}

func (x *executor) enterSubProcess(t *Track, n *bpmn.Node) {
	parent := x.st.Scopes.Get(t.Scope)
	if depth := strings.Count(parent.Path, "/"); parent.Path != "/" && depth >= x.opts.MaxScopeDepth {
		x.incident(t, IncidentDepth, fmt.Sprintf("sub-process %s would nest scopes deeper than %d (%s)", n.ID, x.opts.MaxScopeDepth, parent.Path))
		return
	}
	names, vals, ok := x.inputs(t, n, t.Scope)
	if !ok {
		return
	}
	child, err := x.st.Scopes.Open(t.Scope, n.ID, n.Sub.DataNames)
	if err != nil {
		x.incident(t, IncidentUnknownModel, err.Error())
		return
	}
	t.State = TrackInScope
	t.Child = child.ID
	x.markTrack(t)
	x.fact(FactScopeOpened, n.ID, child.ID, t.ID, nil)
	x.writeLocals(t, child, names, vals)
	x.writeActivation(t, child)
	x.armScope(child.ID) // inline handlers first: they see an event before the host's boundaries
	x.armBoundaries(t, n)
	x.seed(n.Sub, child.ID)
	x.checkDrain(child.ID)
}

// seed puts a new ready track on every start node of g inside scope s.
func (x *executor) seed(g *bpmn.Graph, s scope.ID) {
	for _, start := range g.Starts {
		x.newTrack(s, start.ID, "")
	}
}

// leave takes the outgoing flows of a completed activity or event: every
// unconditional flow and every flow whose condition is true; the default
// flow when none of them is taken; no outgoing flow ends the track.
func (x *executor) leave(t *Track, n *bpmn.Node) {
	if n.Sub != nil && t.Child != "" && x.st.Scopes.Get(t.Child) != nil {
		// A retry after the sub-process's output mappings failed: its
		// drained scope is still open; complete it again.
		t.State = TrackInScope
		x.markTrack(t)
		x.completeScope(t.Child, "")
		return
	}
	entry := x.prepareEntry(t, n) // before the io scope closes: its snapshot
	if !x.leaveIO(t, n) {
		return
	}
	t.Inputs = nil // the activation's variables were the activity's own
	if t.Inner && n.Loop != nil {
		x.iterationDone(t, n, entry) // one iteration of a loop or multi-instance activity
		return
	}
	x.recordEntry(entry)
	if r := x.innerOf(t, n); r != nil {
		x.innerCompleted(t, n, r) // an ad-hoc region asks its router
		return
	}
	x.leaveFlows(t, n)
}

// leaveFlows is leave without the ad-hoc hook. A link throw event has no
// outgoing flows: its token continues at its link catch event.
func (x *executor) leaveFlows(t *Track, n *bpmn.Node) {
	if n.LinkTarget != nil {
		x.followLink(t, n.LinkTarget)
		return
	}
	if len(n.Outgoing) == 0 {
		x.endTrack(t)
		return
	}
	if taken, ok := x.takenFlows(t, n, n.ID); ok {
		x.fork(t, taken)
	}
}

// takenFlows selects the outgoing flows of n a token takes: every flow
// without a condition and every flow whose condition is true, else the
// default flow. None (or a failing condition) raises an incident on t and
// reports false; what names n in the incident's message.
func (x *executor) takenFlows(t *Track, n *bpmn.Node, what string) ([]*bpmn.Flow, bool) {
	var taken []*bpmn.Flow
	for _, f := range n.Outgoing {
		if f == n.Default {
			continue
		}
		ok, failed := x.condition(t, n, f)
		if failed {
			return nil, false
		}
		if ok {
			taken = append(taken, f)
		}
	}
	if len(taken) == 0 && n.Default != nil {
		taken = []*bpmn.Flow{n.Default}
	}
	if len(taken) == 0 {
		x.incident(t, IncidentNoFlow, fmt.Sprintf("%s: no outgoing flow condition is true and there is no default flow", what))
		return nil, false
	}
	return taken, true
}

// fork moves t along the first flow and starts a new track on each other one.
// With no flows the track ends.
func (x *executor) fork(t *Track, flows []*bpmn.Flow) {
	if len(flows) == 0 {
		x.endTrack(t)
		return
	}
	x.move(t, flows[0])
	for _, f := range flows[1:] {
		x.newTrack(t.Scope, f.Target.ID, f.ID)
	}
}

// followLink moves t from a link throw event to its link catch event in
// the same scope, to execute within this step (and this step's budget: a
// loop of links without a wait state ends in a step-budget incident).
func (x *executor) followLink(t *Track, catch *bpmn.Node) {
	t.Node = catch.ID
	t.Via = ""
	t.State = TrackReady
	x.markTrack(t)
	x.queue = append(x.queue, t.ID)
}

func (x *executor) move(t *Track, f *bpmn.Flow) {
	t.Node = f.Target.ID
	t.Via = f.ID
	t.State = TrackReady
	x.markTrack(t)
	x.queue = append(x.queue, t.ID)
}

// condition evaluates a flow condition; failed reports an incident raised.
func (x *executor) condition(t *Track, n *bpmn.Node, f *bpmn.Flow) (ok, failed bool) {
	if f.Condition == nil {
		return true, false
	}
	v, err := expr.Condition(f.Condition, x.view(t.Scope))
	if err != nil {
		x.incident(t, IncidentExpression, fmt.Sprintf("condition of flow %s leaving %s: %v", f.ID, n.ID, err))
		return false, true
	}
	return v, false
}

func (x *executor) newTrack(s scope.ID, node, via string) *Track {
	x.st.NextTrack++
	t := &Track{ID: "t" + strconv.Itoa(x.st.NextTrack), Scope: s, Node: node, State: TrackReady, Via: via}
	x.st.Tracks = append(x.st.Tracks, t)
	x.countTrack(s, 1)
	x.markTrack(t)
	x.queue = append(x.queue, t.ID)
	return t
}

func (x *executor) removeTrack(t *Track) {
	x.markTrack(t)
	x.withdrawWaits(t)
	i := x.st.trackIndex(t)
	if i < 0 {
		return
	}
	x.countTrack(t.Scope, -1)
	if ts := x.st.Tracks; i < len(ts)/2 {
		// Close to the head (a parallel body completes its iterations
		// in creation order, right after its host): shift the tracks
		// before it, not the ones after.
		copy(ts[1:i+1], ts[:i])
		ts[0] = nil
		x.st.Tracks = ts[1:]
		return
	}
	x.st.Tracks = slices.Delete(x.st.Tracks, i, i+1)
}

// endTrack removes a track that reached its end and completes its scope if
// that drained it.
func (x *executor) endTrack(t *Track) {
	x.removeTrack(t)
	x.checkDrain(t.Scope)
}

// checkDrain completes scope s when no track and no child scope remains in it.
func (x *executor) checkDrain(s scope.ID) {
	if x.st.Ended() || x.st.Scopes.Get(s) == nil {
		return
	}
	if x.tracksIn(s) > 0 {
		return
	}
	if len(x.st.Scopes.Children(s)) > 0 {
		return
	}
	if r := x.st.region(s); r != nil && x.regionHolds(r) {
		return // a manual ad-hoc region waits on its offer, a job router on its worker, a failed router on an operator
	}
	x.completeScope(s, "")
}

// completeScope closes a drained (or terminated) scope and continues its host.
func (x *executor) completeScope(s scope.ID, reason string) {
	x.disarmScope(s)
	x.closeRegion(s, "drained")
	x.closeBody(s)
	x.bodyCompleted(s) // a loop or multi-instance activity's iterations become compensable
	if sc := x.st.Scopes.Get(s); sc != nil && sc.Kind == scopeKindCompensating {
		x.handlerDone(sc)
		return
	} else if sc != nil && sc.Kind == scopeKindCompensation {
		x.nextEntry(s)
		return
	}
	if s == scope.RootID {
		for _, e := range x.st.Entries {
			x.markEntry(e) // nothing can compensate them any more
		}
		x.st.Entries = nil
		x.st.Status = StatusCompleted
		detail := map[string]any{}
		if reason != "" {
			detail["reason"] = reason
		}
		x.fact(FactInstanceCompleted, "", scope.RootID, "", detail)
		return
	}
	sc := x.st.Scopes.Get(s)
	host := x.hostOf(s)
	if host != nil && sc.Kind == "" {
		// A sub-process's output mappings read its scope before it closes.
		if n := x.proc.Node(sc.NodeID); n != nil && n.Mappings != nil && !x.outputs(host, n, s, host.Scope) {
			return // the host stops in an incident; its retry completes s again
		}
	}
	detail := map[string]any{}
	if reason != "" {
		detail["reason"] = reason
	}
	x.fact(FactScopeClosed, sc.NodeID, s, "", detail)
	if n := x.proc.Node(sc.NodeID); n != nil && n.TriggeredByEvent && n.Trigger != nil && n.Trigger.Event != nil {
		if k := n.Trigger.Event.Kind; k == bpmn.TriggerError || k == bpmn.TriggerEscalation {
			x.fact(FactEventAbsorbed, n.ID, sc.Parent, "", map[string]any{"trigger": string(k), "code": n.Trigger.Event.Code})
		}
	}
	if n := x.proc.Node(sc.NodeID); host != nil && sc.Kind == "" && n != nil && n.Sub != nil && !n.TriggeredByEvent {
		// Its entries become the inner entries of the one its host records.
		if x.closing == nil {
			x.closing = map[string]closedSub{}
		}
		x.closing[host.ID] = closedSub{id: s, vars: scope.CloneVars(sc.Vars)}
	} else {
		x.dropEntries(s)
	}
	x.st.Scopes.Close(s)
	if host == nil {
		return // cannot happen for a consistent state: a scope always has a host track
	}
	host.Child = ""
	host.State = TrackReady
	x.markTrack(host)
	n := x.node(host)
	if n == nil {
		return
	}
	x.complete(host, n)
}

// hostOf returns the track waiting on scope s.
func (x *executor) hostOf(s scope.ID) *Track {
	for _, t := range x.st.Tracks {
		if t.State == TrackInScope && t.Child == s {
			return t
		}
	}
	return nil
}

// terminateScope ends scope s by a terminate end event reached by track by:
// every other track and nested scope inside is cancelled, then s completes.
func (x *executor) terminateScope(s scope.ID, by *Track) {
	x.removeTrack(by)
	x.cancelInside(s, "terminate end event "+by.Node)
	x.completeScope(s, "terminate end event "+by.Node)
}

// cancelScope cancels every track and nested scope inside s and s itself,
// disarming their handlers; cause names why (boundary, terminate, handler,
// instance cancel) in the scope-cancelled facts. The root scope stays (its
// variables remain visible).
func (x *executor) cancelScope(s scope.ID, cause string) {
	if x.beginSweep() {
		defer x.endSweep()
	}
	x.cancelInside(s, cause)
	x.disarmScope(s)
	x.closeRegion(s, "cancelled: "+cause)
	x.closeBody(s)
	x.dropEntries(s)
	x.releaseEntries(s)
	if s != scope.RootID {
		sc := x.st.Scopes.Get(s)
		x.fact(FactScopeCancelled, sc.NodeID, s, "", map[string]any{"cause": cause})
		x.st.Scopes.Close(s)
	}
}

// cancelInside terminates every track inside s (recursively through nested
// scopes, innermost first) and closes the nested scopes.
func (x *executor) cancelInside(s scope.ID, cause string) {
	if x.beginSweep() {
		defer x.endSweep()
	}
	for _, c := range x.st.Scopes.Children(s) {
		x.cancelScope(c.ID, cause)
	}
	for _, t := range x.sw.tracks[s] {
		if x.sw.goneTracks[t] {
			continue
		}
		x.fact(FactElementTerminated, t.Node, t.Scope, t.ID, nil)
		x.markTrack(t)
		x.withdrawWaits(t)
		if t.Incident != "" {
			x.resolveIncidentID(t.Incident, "element terminated")
		}
		x.sw.goneTracks[t] = true
	}
}

// incident parks the track and opens an incident.
func (x *executor) incident(t *Track, kind, msg string) {
	x.st.NextIncident++
	in := &Incident{
		ID:      x.st.InstanceID + "-i" + strconv.Itoa(x.st.NextIncident),
		TrackID: t.ID, NodeID: t.Node, ScopeID: t.Scope,
		Kind: kind, Message: msg, At: x.now,
	}
	t.State = TrackIncident
	t.Incident = in.ID
	x.markTrack(t)
	x.st.Incidents = append(x.st.Incidents, in)
	x.markIncident(in)
	x.fx.Incidents = append(x.fx.Incidents, *in)
	x.fact(FactIncidentCreated, t.Node, t.Scope, t.ID, map[string]any{"incidentId": in.ID, "kind": kind, "message": msg})
}

func (x *executor) resolveIncidentID(id, why string) {
	for i, in := range x.st.Incidents {
		if in.ID == id {
			x.resolveIncident(in, why)
			x.st.Incidents = append(x.st.Incidents[:i], x.st.Incidents[i+1:]...)
			return
		}
	}
}

func (x *executor) resolveIncident(in *Incident, why string) {
	x.markIncident(in) // it leaves the state
	in.Resolved = x.now
	x.fx.Incidents = append(x.fx.Incidents, *in)
	detail := map[string]any{"incidentId": in.ID, "reason": why}
	if x.by != "" {
		detail["by"] = x.by
	}
	x.fact(FactIncidentResolved, in.NodeID, in.ScopeID, in.TrackID, detail)
}

func (x *executor) setVar(t *Track, name string, v any) {
	at, err := x.st.Scopes.Set(t.Scope, name, v)
	if err != nil {
		x.incident(t, IncidentUnknownModel, err.Error())
		return
	}
	x.fact(FactVariableSet, t.Node, at, t.ID, map[string]any{"name": name})
}

func (x *executor) fact(kind, node string, s scope.ID, track string, detail map[string]any) {
	if kind == FactVariableSet {
		x.varsChanged = true
	}
	x.st.NextFact++
	path := ""
	if sc := x.st.Scopes.Get(s); sc != nil {
		path = sc.Path
	}
	x.fx.Facts = append(x.fx.Facts, Fact{Seq: x.st.NextFact, At: x.now, Kind: kind, NodeID: node, ScopeID: s, ScopePath: path, TrackID: track, Detail: detail})
}

// view is the read-only expression view of the variables visible from a
// scope, at the step's time.
func (x *executor) view(s scope.ID) expr.Scope { return x.viewAt(s) }

// viewAt is view as its concrete type.
func (x *executor) viewAt(s scope.ID) scopeView {
	return scopeView{tree: x.st.Scopes, id: s, now: x.now, instanceID: x.st.InstanceID, businessKey: x.st.BusinessKey, limits: x.opts.Eval}
}

// scopeView is an expression scope over the scope tree. It is a
// feel.Clock: FEEL's now() and today() read the step's time, never the
// wall clock, so evaluation stays deterministic.
type scopeView struct {
	tree *scope.Tree
	id   scope.ID
	now  time.Time
	// instanceID and businessKey answer Camunda 7's execution object.
	instanceID, businessKey string
	limits                  expr.Limits
}

// EvalLimits returns the limits of the evaluations against the view
// (feel.Limited): the engine's Options.Eval.
func (v scopeView) EvalLimits() expr.Limits { return v.limits }

// Execution returns the instance's id and business key (juel.Execution).
func (v scopeView) Execution() (processInstanceID, businessKey string) {
	return v.instanceID, v.businessKey
}

func (v scopeView) Lookup(name string) (any, bool) { return v.tree.Lookup(v.id, name) }

// Now returns the time of the step the view belongs to.
func (v scopeView) Now() time.Time { return v.now }
