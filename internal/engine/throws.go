package engine

import (
	"github.com/gobpm/gobpm/internal/bpmn"
)

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
	if x.endListened(t, n) {
		return // endEventThrow runs when its last end listener completes
	}
	x.endEventThrow(t, n)
}

// endEventThrow completes end event n, its output mappings applied and
// its end listeners completed: it throws its result and ends the track.
func (x *executor) endEventThrow(t *Track, n *bpmn.Node) {
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

func (x *executor) throwEvent(t *Track, n *bpmn.Node) {
	if n.Job != nil {
		x.createJob(t, n) // message throw: a job; the track leaves on completion
		return
	}
	x.thrown(t, n)
}

// thrown throws what intermediate throw event n throws besides a message
// (whose job completed, if it has one) and completes it.
func (x *executor) thrown(t *Track, n *bpmn.Node) {
	if n.Event != nil && n.Event.Kind == bpmn.TriggerCompensation {
		if x.throwCompensation(t, n) {
			return // it completes when the handlers finished (finishRun)
		}
	} else if !x.throwAll(t, n) {
		return
	}
	x.complete(t, n)
}

// throwAll throws the signal and escalation definitions of throw event n,
// in document order (a multiple throw throws every one). It reports false
// when an interrupting catch of an escalation cancelled the thrower.
func (x *executor) throwAll(t *Track, n *bpmn.Node) bool {
	for _, ev := range n.Event.Triggers() {
		switch ev.Kind {
		case bpmn.TriggerSignal:
			x.throwSignal(t, ev.SignalName)
		case bpmn.TriggerEscalation:
			x.throwEscalation(t, ev.Code)
			if x.st.Track(t.ID) == nil {
				return false
			}
		}
	}
	return true
}

func (x *executor) throwSignal(t *Track, name string) {
	x.fx.Signals = append(x.fx.Signals, SignalThrow{Name: name})
	x.fact(FactSignalThrown, t.Node, t.Scope, t.ID, map[string]any{"signal": name})
}
