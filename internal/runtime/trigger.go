package runtime

import (
	"context"

	"github.com/gobpm/gobpm/internal/engine"
)

// WaitTrigger is the wait kind of a receive task without a messageRef: it
// waits until TriggerWait continues it (Camunda 7's signal of the
// execution).
const WaitTrigger = string(engine.WaitTrigger)

// TriggerWait continues the trigger wait waitID of instance id (a receive
// task without a messageRef) with vars as its payload, as the acting user,
// and returns the instance. ENOTFOUND for an unknown instance, or a wait
// that is not an open trigger wait of it (a job, a task, a message
// subscription are continued by their own acts); ECONFLICT for an ended
// instance.
func (r *Runtime) TriggerWait(ctx context.Context, id InstanceID, waitID string, vars map[string]any) (InstanceView, error) {
	if waitID == "" {
		return InstanceView{}, &Error{Code: EINVALID, Message: "wait id is required", Field: "waitId"}
	}
	if _, err := r.step(ctx, id, engine.WaitTriggered{WaitID: waitID, Variables: vars, By: ActingUser(ctx)}, nil); err != nil {
		return InstanceView{}, err
	}
	return r.Instance(ctx, id)
}
