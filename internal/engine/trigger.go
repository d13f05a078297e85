package engine

import (
	"fmt"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// WaitTrigger is a receive task without a messageRef: it waits until it is
// triggered by its wait id (Camunda 7's signal of the execution), with the
// variables the trigger brings.
const WaitTrigger WaitKind = "trigger"

// WaitTriggered continues the trigger wait WaitID (a receive task without a
// messageRef), merging Variables as a message's payload would be; By names
// who triggered it (history). A wait of another kind, or none, is
// ErrUnknownWait.
type WaitTriggered struct {
	WaitID    string
	Variables map[string]any
	By        string
}

// Kind implements Event.
func (WaitTriggered) Kind() string { return "wait-triggered" }

// applyRunning continues the trigger wait of a receive task without a
// messageRef.
func (e WaitTriggered) applyRunning(x *executor) error { return x.triggerWait(e) }

// awaitTrigger parks track t on receive task n, which has no messageRef.
func (x *executor) awaitTrigger(t *Track, n *bpmn.Node) {
	w := x.newWait(t, WaitTrigger, n.ID)
	w.Name = n.Name
	if w.Name == "" {
		w.Name = n.ID
	}
	t.State = TrackWaiting
	x.armBoundaries(t, n)
}

// triggerWait applies WaitTriggered: the receive task completes (its
// output mappings see the variables) and its track moves on.
func (x *executor) triggerWait(e WaitTriggered) error {
	w, _, err := x.openWait(e.WaitID, WaitTrigger)
	if err != nil {
		return fmt.Errorf("%w (only a receive task without a messageRef is triggered by its wait id)", err)
	}
	x.by = e.By
	defer func() { x.by = "" }()
	x.fire(w, e.Variables)
	return nil
}
