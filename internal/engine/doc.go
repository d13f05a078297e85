// Package engine is gobpm's pure step function (DESIGN §2.3, §3):
//
//	Step(process, state, event, now) → (state', effects)
//
// A step carries every runnable track of one instance forward through the
// synchronous elements (events, gateways, script tasks, sub-process entry and
// exit) until each track waits or ends. It does no I/O and reads no clock:
// the caller passes the time in and persists the returned state and effects
// in one transaction. Given the same inputs it returns the same outputs, ids
// included, which is what makes scope accounting table-testable.
//
// # Tracks and scopes
//
// A track is a token: it sits on a node inside a scope (package scope). An
// embedded sub-process opens a child scope and seeds tracks into it; the
// host track waits until the child scope drains (no track and no child scope
// left), then the scope closes and the host leaves the sub-process by the
// normal activity rules. A terminate end event cancels only its enclosing
// scope. Cancelling the instance cancels the root scope.
//
// # Failures
//
// A model problem met at run time (an expression that fails, an exclusive
// gateway with no matching flow) is not a Go error: it parks the track in an
// incident and the instance shows status failed. Step returns an error only
// for an event that cannot apply to the state (e.g. cancelling an ended
// instance), wrapping ErrInvalidTransition.
//
// This package imports no HTTP, no SQL and no clock.
package engine
