//go:build race

package engine

// raceDetector is set in builds with the race detector, which slows the
// largest tests past what they are worth there.
const raceDetector = true
