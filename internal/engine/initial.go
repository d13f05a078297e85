package engine

import (
	"fmt"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// DirectStart says where an instance of p begins when it is started by key
// or by a call activity, without an event of its own: nil (and no error)
// when p has a None start event or flow-less seeding, which Start then
// uses; else p's one process-level start event, when it is the only way p
// starts and its trigger carries nothing the start would need. This is
// Camunda 7's "initial" activity: a process whose only start is a message,
// signal or timer start event is started at that event. A conditional
// start event (its condition is its trigger: evaluate conditions instead,
// HoldingConditionalStarts),
// a parallel multiple start (it needs every one of its triggers), several
// triggered starts, or an instantiating gateway or receive task give an
// error saying why.
func DirectStart(p *bpmn.Process) (*bpmn.Node, error) {
	if len(p.Graph.Starts) > 0 {
		return nil, nil
	}
	if conds := ConditionalStarts(p); len(conds) > 1 && len(conds) == len(p.EventStarts) {
		return nil, fmt.Errorf("process %s has no none start event; its %d conditional start events start instances when their conditions hold: evaluate conditions (POST /api/v1/conditions/evaluate) instead", p.ID, len(conds))
	}
	if len(p.EventStarts) != 1 {
		return nil, fmt.Errorf("process %s has no none start event and %d triggered ways to start; start it by one of its events", p.ID, len(p.EventStarts))
	}
	n := p.EventStarts[0]
	switch {
	case n.Kind != bpmn.KindStartEvent:
		return nil, fmt.Errorf("process %s has no none start event; it starts at its instantiating %s %q when its event occurs", p.ID, n.Kind, n.ID)
	case n.Event == nil:
		return nil, fmt.Errorf("process %s has no none start event", p.ID)
	case n.Event.Kind == bpmn.TriggerParallelMultiple:
		return nil, fmt.Errorf("process %s has no none start event; its parallel multiple start event %q needs every one of its triggers", p.ID, n.ID)
	case n.Event.Has(bpmn.TriggerConditional):
		return nil, fmt.Errorf("process %s has no none start event; its conditional start event %q starts an instance when its condition holds: evaluate conditions (POST /api/v1/conditions/evaluate) instead", p.ID, n.ID)
	}
	return n, nil
}
