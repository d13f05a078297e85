package engine

import "errors"

// Event is something that happens to an instance. Each step applies one.
type Event interface {
	// Kind names the event in history facts and errors.
	Kind() string
}

// Start starts a new instance at its process's start: the variables become
// the root scope's variables.
type Start struct {
	Variables map[string]any
}

// Kind implements Event.
func (Start) Kind() string { return "start" }

// Cancel terminates the instance: the root scope is cancelled with every
// track and scope inside it.
type Cancel struct {
	Reason string
}

// Kind implements Event.
func (Cancel) Kind() string { return "cancel" }

// ErrInvalidTransition reports an event that cannot apply to the state.
var ErrInvalidTransition = errors.New("invalid transition")

// Resume continues the ready tracks of a state loaded from a checkpoint.
// Committed states normally hold none (a step runs every ready track to a
// wait or an end), so Resume is usually a no-op; it exists so that start-up
// recovery never depends on that.
type Resume struct{}

// Kind implements Event.
func (Resume) Kind() string { return "resume" }
