package engine

import (
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/scope"
)

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

// Every event the engine knows carries its handler as an unexported
// method, so applying an event is a call of the event's own method, not a
// switch over every event type. Events of other types are invalid
// transitions.

// lifecycleEvent is an event that starts, cancels or resumes the instance:
// its handler checks the instance's status itself.
type lifecycleEvent interface {
	Event
	applyTo(x *executor) error
}

// runningEvent is an event that applies to a running instance only: apply
// refuses it on an ended instance before its handler runs.
type runningEvent interface {
	Event
	applyRunning(x *executor) error
}

// apply runs the handler of ev.
func (x *executor) apply(ev Event) error {
	if e, ok := ev.(lifecycleEvent); ok {
		return e.applyTo(x)
	}
	if x.st.Ended() {
		return fmt.Errorf("engine: %s on instance %s: status is %s: %w", ev.Kind(), x.st.InstanceID, x.st.Status, ErrInvalidTransition)
	}
	if e, ok := ev.(runningEvent); ok {
		return e.applyRunning(x)
	}
	return fmt.Errorf("engine: event %T: %w", ev, ErrInvalidTransition)
}

// Every event of the package has its handler: start, cancel and resume
// check the status themselves, every other event needs a running instance.
var (
	_ lifecycleEvent = Start{}
	_ lifecycleEvent = Cancel{}
	_ lifecycleEvent = Resume{}

	_ runningEvent = JobCompleted{}
	_ runningEvent = JobFailed{}
	_ runningEvent = JobRetriesSet{}
	_ runningEvent = JobErrorThrown{}
	_ runningEvent = IncidentRetried{}
	_ runningEvent = TaskClaimed{}
	_ runningEvent = TaskUnclaimed{}
	_ runningEvent = TaskCompleted{}
	_ runningEvent = TimerFired{}
	_ runningEvent = MessageDelivered{}
	_ runningEvent = SignalDelivered{}
	_ runningEvent = VariablesSet{}
	_ runningEvent = ChildEnded{}
	_ runningEvent = CallStarted{}
	_ runningEvent = CallFailed{}
	_ runningEvent = CallRefused{}
	_ runningEvent = ChildMissing{}
	_ runningEvent = Orphaned{}
	_ runningEvent = AdHocActivated{}
	_ runningEvent = AdHocCompleted{}
	_ runningEvent = DecisionEvaluated{}
	_ runningEvent = Modify{}
	_ runningEvent = Migrate{}
	_ runningEvent = ReachRefused{}
	_ runningEvent = WaitTriggered{}
)
