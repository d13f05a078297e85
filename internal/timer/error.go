package timer

import "fmt"

// Error reports an invalid timer definition. Its message has the form
//
//	timer: invalid duration "P1X": unknown designator "X"
type Error struct {
	// Kind is the kind that was being parsed.
	Kind Kind
	// Text is the trimmed input, cut to 64 bytes.
	Text string
	// Reason says what is wrong, without the kind and text.
	Reason string
}

// Error implements the error interface.
func (e *Error) Error() string {
	switch e.Kind {
	case KindDate, KindDuration, KindCycle:
		return fmt.Sprintf("timer: invalid %s %q: %s", e.Kind, e.Text, e.Reason)
	}
	return fmt.Sprintf("timer: unknown kind %q (want date, duration or cycle)", e.Kind)
}

// clip shortens text for an error message so huge inputs are not echoed.
func clip(text string) string {
	const n = 64
	if len(text) <= n {
		return text
	}
	return text[:n] + "..."
}
