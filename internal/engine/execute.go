package engine

import (
	"fmt"

	"github.com/gobpm/gobpm/internal/bpmn"
)

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
	if len(n.StartListeners) > 0 {
		x.createListenerJob(t, n, bpmn.ListenerStart, 0) // behave runs when the last one completes
		return
	}
	x.behave(t, n)
}

// behave runs node n's own behaviour on track t, which has entered it
// (input mappings applied, start listeners completed).
func (x *executor) behave(t *Track, n *bpmn.Node) {
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
