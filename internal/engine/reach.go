package engine

import "fmt"

// IncidentReach is an incident of an element whose dynamic reference (a
// callee or a job type given as an expression) resolved to something the
// model's deployer may not reach (the Reach paragraph of
// docs/security.md#authorization). Retrying it runs
// the element again: the reference is evaluated and checked anew.
const IncidentReach = "reach-refused"

// ReachRefused reports that what a call activity is about to call, or the
// type of a job just created, is beyond the reach of the model's deployer.
// The runtime sends it before the step commits, so the child is never
// launched and no worker ever sees the job: the call or job wait is
// dropped and the element stops in an IncidentReach incident whose
// message is Message (e.g. "deployer alice may not start process
// payroll").
type ReachRefused struct {
	WaitID  string
	Message string
}

// Kind implements Event.
func (ReachRefused) Kind() string { return "reach-refused" }

// applyRunning drops the refused wait and opens its incident.
func (e ReachRefused) applyRunning(x *executor) error { return x.reachRefused(e) }

// reachRefused drops the refused call or job wait and opens the incident.
func (x *executor) reachRefused(e ReachRefused) error {
	w := x.st.Wait(e.WaitID)
	if w == nil || (w.Kind != WaitCall && w.Kind != WaitJob) {
		return fmt.Errorf("engine: reach refused for %s in instance %s: no open call or job: %w", e.WaitID, x.st.InstanceID, ErrUnknownWait)
	}
	w, t, err := x.openWait(e.WaitID, w.Kind)
	if err != nil {
		return err
	}
	if t == nil {
		return fmt.Errorf("engine: reach refused for %s in instance %s: the wait has no track: %w", e.WaitID, x.st.InstanceID, ErrInvalidTransition)
	}
	if w.Kind == WaitCall {
		x.consumeWait(w) // no child was launched: nothing to terminate
	} else {
		x.removeWait(w)
	}
	x.incident(t, IncidentReach, e.Message)
	return nil
}
