package runtime

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/gobpm/gobpm/internal/engine"
)

// The defaults of CallTreeLimits.
const (
	// DefaultCallTreeInstances is the default cap on the child instances
	// one command launches across its call tree.
	DefaultCallTreeInstances = 1_000
	// DefaultCallTreeBytes is the default cap on the memory the records
	// of the children one command launches hold until it commits.
	DefaultCallTreeBytes = 32 << 20
)

// CallTreeLimits bound the work one command may create across its call
// tree. A call activity's child is launched inside the caller's command
// and commits with it, and so are the children that child calls in its
// first step, recursively (settleCalls): the call depth bounds the depth
// of that tree, these bound the rest. A process that calls itself from a
// parallel multi-instance would otherwise build its whole tree in one
// step.
//
// Before each launch the runtime checks the command's account; a call that
// would pass a bound is not launched (engine.CallRefused): its call
// activity stops in an engine.IncidentCallTreeBudget incident naming the
// bound and its value, and everything launched so far commits with the
// caller, every instance with a whole step. Retrying the incident enters
// the call activity again in a command of its own, with a fresh budget.
type CallTreeLimits struct {
	// MaxInstances caps the child instances one command launches; 0 means
	// DefaultCallTreeInstances, a negative value sets no cap.
	MaxInstances int
	// MaxActivations caps the element activations of every instance one
	// command steps (the caller's and its children's), counted before each
	// launch; 0 means twice the engine's MaxActivations, so a caller at
	// its own step budget still leaves children as much again. A negative
	// value sets no cap.
	MaxActivations int
	// MaxBytes caps the memory the records of the children one command
	// launches hold until it commits (their encoded state, history and
	// outbox, and their rows), counted as each child's record is made,
	// once the child's own children are settled; 0 means
	// DefaultCallTreeBytes, a negative value sets no cap.
	MaxBytes int64
}

// withDefaults returns l with every zero field set to its default for the
// engine options eng; a negative field becomes no cap at all.
func (l CallTreeLimits) withDefaults(eng engine.Options) CallTreeLimits {
	switch {
	case l.MaxInstances == 0:
		l.MaxInstances = DefaultCallTreeInstances
	case l.MaxInstances < 0:
		l.MaxInstances = math.MaxInt
	}
	switch {
	case l.MaxActivations == 0:
		l.MaxActivations = 2 * eng.WithDefaults().MaxActivations
	case l.MaxActivations < 0:
		l.MaxActivations = math.MaxInt
	}
	switch {
	case l.MaxBytes == 0:
		l.MaxBytes = DefaultCallTreeBytes
	case l.MaxBytes < 0:
		l.MaxBytes = math.MaxInt64
	}
	return l
}

// callBudget is one command's account against its CallTreeLimits, owned
// by the goroutine running the command.
type callBudget struct {
	// launched counts the children launched (counted when admitted, so a
	// child's own children see it).
	launched int
	// activations counts the element activations of every step applied.
	activations int
	// bytes counts the encoded records of the children finished so far.
	bytes int64
}

// admit counts one more launch by call activity nodeID and returns "", or
// returns why the launch would pass limits (the incident's message) and
// counts nothing.
func (b *callBudget) admit(limits CallTreeLimits, nodeID string) string {
	var why string
	switch {
	case b.launched >= limits.MaxInstances:
		why = fmt.Sprintf("this step would launch more than %d instances (CallTreeLimits.MaxInstances)", limits.MaxInstances)
	case b.activations >= limits.MaxActivations:
		why = fmt.Sprintf("this step has made %d element activations across its call tree, the most it may make is %d (CallTreeLimits.MaxActivations)", b.activations, limits.MaxActivations)
	case b.bytes >= limits.MaxBytes:
		why = fmt.Sprintf("the instances this step launched hold %d bytes, the most they may hold is %d (CallTreeLimits.MaxBytes)", b.bytes, limits.MaxBytes)
	default:
		b.launched++
		return ""
	}
	return fmt.Sprintf("call-tree budget: call activity %s was not launched: %s; retrying this incident launches it in a step of its own", nodeID, why)
}

// spend counts the element activations of one applied step.
func (b *callBudget) spend(fx engine.Effects) {
	b.activations += fx.Activations
}

// hold counts the bytes of a launched child's record.
func (b *callBudget) hold(rec StepRecord) {
	b.bytes += recordBytes(rec)
}

// recordBytes estimates the memory a launched child's record holds until
// its command commits: what it carries encoded (its state header and
// parts, its facts' details, its outbox payloads) and its rows at their
// size in memory. Strings a row shares with the state or the model (ids,
// element ids, kinds) are not counted again.
func recordBytes(rec StepRecord) int64 {
	n := int64(len(rec.Header))
	for _, p := range rec.Parts {
		n += int64(len(p.Data))
	}
	for _, f := range rec.Facts {
		n += int64(len(f.Detail) + len(f.ScopePath))
	}
	for _, o := range rec.Outbox {
		n += int64(len(o.Payload))
	}
	n += int64(len(rec.Parts)) * int64(unsafe.Sizeof(engine.Part{}))
	n += int64(len(rec.RemovedParts)) * int64(unsafe.Sizeof(engine.PartRef{}))
	n += int64(len(rec.Facts)) * int64(unsafe.Sizeof(FactRow{}))
	n += int64(len(rec.Incidents)) * int64(unsafe.Sizeof(IncidentRow{}))
	n += int64(len(rec.Waits)) * int64(unsafe.Sizeof(WaitRow{}))
	n += int64(len(rec.Outbox)) * int64(unsafe.Sizeof(OutboxRow{}))
	return n
}
