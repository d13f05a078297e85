package feel

import (
	"errors"
	"fmt"
	"time"
)

// DefaultMaxSteps is the step budget of one evaluation when Limits.MaxSteps
// is 0.
const DefaultMaxSteps = 1 << 20

// The step prices of strings: a string a built-in reads or writes
// character by character (upper case, substring, string(), string join,
// replace's result) costs a step per textBytesPerStep bytes; one only
// compared or copied whole (=, <, +) a step per cmpBytesPerStep bytes.
const (
	textBytesPerStep = 16
	cmpBytesPerStep  = 256
)

// textCost is the step cost of reading or writing s character by character.
func textCost(n int) int { return n / textBytesPerStep }

// cmpCost is the step cost of comparing or copying n bytes whole.
func cmpCost(n int) int { return n / cmpBytesPerStep }

// checkEvery is how many steps pass between two looks at the wall-clock
// deadline and the cancellation channel (see evaluator.checkpoint): often
// enough that a burning evaluation stops within microseconds of its
// deadline, rarely enough that small evaluations never read the clock.
const checkEvery = 1 << 12

// Limits bound the work of one evaluation. The zero value is the
// deterministic default: DefaultMaxSteps steps, no wall-clock deadline, no
// cancellation.
//
// The step budget is the bound that matters: it is charged by the work
// done — one step per loop iteration, filter element, function call, list
// element a built-in touches (two for a decimal operation), value compared
// by =, sort comparison (n·log n), 16 bytes of string a built-in reads or
// writes character by character (256 compared or copied whole), 4
// instructions of the regular-expression matcher, one node of the
// back-reference matcher, 2 per number of the result — so the same expression
// on the same data always stops at the same step. Timeout and Done are a
// safety net for whatever the steps under-price; they make an evaluation
// that would run past them fail, and so are not deterministic.
type Limits struct {
	// MaxSteps is the step budget; 0 means DefaultMaxSteps.
	MaxSteps int
	// Timeout, when positive, is the wall-clock time one evaluation may
	// take, measured from its first checkpoint (after checkEvery steps:
	// small evaluations never read the clock). 0 sets no deadline.
	Timeout time.Duration
	// Done, when not nil, stops the evaluation once it is closed (a server
	// shutting down).
	Done <-chan struct{}
}

// Limited is implemented by a Scope that sets the limits of the
// evaluations against it; without it an evaluation has the zero Limits.
// The engine's scopes pass the limits the runtime configured, so the
// engine itself reads no clock.
type Limited interface {
	EvalLimits() Limits
}

// limitsOf returns the limits of an evaluation against scope.
func limitsOf(scope Scope) Limits {
	if l, ok := scope.(Limited); ok {
		return l.EvalLimits()
	}
	return Limits{}
}

// ErrBudget is wrapped by the error of every evaluation that hit one of
// its limits: the step budget, the wall-clock deadline, the cancellation,
// the size of a string or a value, the nesting of calls. errors.Is finds
// it, so a caller can tell "the expression ran away" (an incident naming
// the limit) from "the expression is wrong".
var ErrBudget = errors.New("evaluation budget exceeded")

// budgetError is an evaluation error that hit a limit.
type budgetError struct{ msg string }

func (e *budgetError) Error() string        { return "feel: " + e.msg }
func (e *budgetError) Is(target error) bool { return target == ErrBudget }

// budgetErrorf builds a budgetError.
func budgetErrorf(format string, args ...any) error {
	return &budgetError{msg: fmt.Sprintf(format, args...)}
}

// The limits whose text does not depend on the configuration.
var (
	errStringTooLong = budgetErrorf("string longer than %d bytes", maxStringLen)
	errCallsTooDeep  = budgetErrorf("function calls nested deeper than %d", maxCallDepth)
	errCancelled     = budgetErrorf("evaluation cancelled")
)

// meter is the budget state of one evaluation, shared by the evaluators
// of its nested parts (range(), the calls of functions it returned).
type meter struct {
	limits    Limits // as configured, for the functions the evaluation returns
	steps     int
	max       int
	nextCheck int
	timeout   time.Duration
	done      <-chan struct{}
	started   time.Time // the first checkpoint, when timeout > 0
}

// makeMeter readies the budget of one evaluation.
func makeMeter(l Limits) meter {
	m := meter{limits: l, max: l.MaxSteps, timeout: l.Timeout, done: l.Done, nextCheck: checkEvery}
	if m.max <= 0 {
		m.max = DefaultMaxSteps
	}
	return m
}

// tick spends n steps of the budget; false means the evaluation must stop
// (the budget is gone, or an earlier error aborted it). A nil evaluator
// (a comparison outside any evaluation, of constants) spends nothing.
func (ev *evaluator) tick(n int) bool {
	if ev == nil {
		return true
	}
	m := ev.meter
	m.steps += n
	if m.steps > m.max {
		ev.fail(budgetErrorf("evaluation exceeded the step limit of %d", m.max))
		return false
	}
	if m.steps >= m.nextCheck && !ev.checkpoint() {
		return false
	}
	return ev.err == nil
}

// checkpoint looks at the cancellation channel and the deadline; false
// means the evaluation must stop.
func (ev *evaluator) checkpoint() bool {
	m := ev.meter
	m.nextCheck = m.steps + checkEvery
	if m.done != nil {
		select {
		case <-m.done:
			ev.fail(errCancelled)
			return false
		default:
		}
	}
	if m.timeout > 0 {
		if m.started.IsZero() {
			m.started = time.Now()
		} else if time.Since(m.started) > m.timeout {
			ev.fail(budgetErrorf("evaluation took longer than %v (the wall-clock deadline)", m.timeout))
			return false
		}
	}
	return true
}

// left returns the steps left of the budget.
func (ev *evaluator) left() int { return ev.meter.max - ev.meter.steps }

// rangeTooLarge is the error of a sequence longer than the steps left.
func (ev *evaluator) rangeTooLarge() error {
	return budgetErrorf("evaluation exceeded the step limit of %d: a range to iterate over has more elements than the %d steps left", ev.meter.max, max(ev.left(), 0))
}

// spent reports the steps charged so far (for tests).
func (ev *evaluator) spent() int { return ev.meter.steps }
