package engine

import (
	"time"

	"github.com/gobpm/gobpm/internal/bpmn"
	"github.com/gobpm/gobpm/internal/expr"
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
	// MaxScopeDepth caps the nesting of scopes (docs/scopes.md#limits); 0 means
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
	// MaxCallDepth caps the call chain (docs/scopes.md#limits); 0 means
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
