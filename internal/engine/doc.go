// Package engine is gobpm's pure step function
// (docs/architecture.md#rules-of-the-engine):
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
// # Variable mappings
//
// An element with input/output mappings (bpmn.Node.Mappings) that has no
// scope of its own — a task, an event, a call activity — runs in an "io"
// scope (scope.Scope.Kind "io"), a child of the scope it sits in that its
// track moves into: the inputs are its variables, so a job, a user task, a
// decision or a called child sees them by walk-up; when the element
// completes its outputs are evaluated there and written to the enclosing
// scope by the write rule (docs/scopes.md#variables), and the io scope closes. With
// Zeebe-style outputs the element's results (a job's or user task's
// variables, a message payload, a script's or decision's result, a
// child's variables) are set in the io scope, so only mapped values leave
// it. Sub-processes map their own scope. A mapping that fails is an
// incident: inputs before anything is created, outputs (all or nothing)
// after the element completed, so a retry applies them again.
//
// # Conditional events
//
// A conditional event fires when its condition turns from false to true.
// Conditions are evaluated whenever variables changed, before anything
// else moves: after an element wrote variables and before the next ready
// track runs, and when the step settles. Variables an activity completes
// with (a job's or user task's completion variables, a message's
// payload, a script's result) are a change of their own: they are written,
// the conditions are evaluated, and only then does the activity complete —
// if it still runs. An interrupting conditional event they satisfy, on the
// activity, on an enclosing sub-process or as an event sub-process of an
// enclosing scope, cancels it first: the completion is void (no outgoing
// flows, no output mappings). So a sub-process never closes past a
// conditional boundary that its last task's variables satisfy (Camunda 7
// fires conditional events on the variable change itself).
//
// # Ad-hoc regions
//
// An ad-hoc sub-process (adhoc.go) asks its Router what runs when it opens
// and after every inner completion. The built-in routers answer within the
// step; a job router (adhoc_job.go) answers later through a job of the
// region's scope whose completion (JobCompleted with Answered) is its
// answer. Activations may carry variables, which become local variables of
// the activity's own scope (Track.Inputs).
//
// # Migration
//
// Migrate (migrate.go) moves an instance to another version of its
// process: every active element is mapped to a target element of the same
// kind inside the target of its container, waits take over the target's
// definitions (a timer keeps its due time), and boundary events and event
// sub-processes are armed again from the target. CheckMigration reports
// every problem first, naming the elements; nothing runs in the step.
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
