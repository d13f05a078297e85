package timer

import (
	"strconv"
	"strings"
	"time"
)

// Kind is the kind of a timer definition: the BPMN element its text came
// from.
type Kind string

// The kinds of timer definition, one per BPMN timer element.
const (
	// KindDate is a timeDate: fire once at an instant.
	KindDate Kind = "date"
	// KindDuration is a timeDuration: fire once, a duration after arming.
	KindDuration Kind = "duration"
	// KindCycle is a timeCycle: fire repeatedly (ISO 8601 repeating
	// interval or cron expression).
	KindCycle Kind = "cycle"
)

// maxText is the maximum length of a trimmed definition, in bytes. It bounds
// the work Parse does on untrusted input.
const maxText = 256

// unbounded is Spec.reps for a cycle without a repetition count.
const unbounded = -1

// Spec is a parsed timer definition. It is immutable and safe for
// concurrent use; the zero Spec never fires.
type Spec struct {
	kind Kind

	// date is the instant of a KindDate timer.
	date time.Time
	// dur is the duration of a KindDuration timer and the period of an
	// interval cycle.
	dur duration

	// reps is the total number of firings of an interval cycle, or
	// unbounded.
	reps int
	// start anchors the firing grid of an interval cycle if hasStart.
	start    time.Time
	hasStart bool
	// end is the inclusive last allowed firing of an interval cycle if
	// hasEnd.
	end    time.Time
	hasEnd bool

	// cron is set for cron cycles (isCron).
	cron   cronExpr
	isCron bool
}

// Parse parses the text of a timeDate, timeDuration or timeCycle element,
// selected by kind. Surrounding white space is ignored. Errors are of type
// *Error and name what is wrong.
func Parse(kind Kind, text string) (Spec, error) {
	trimmed := strings.TrimSpace(text)
	fail := func(reason string) (Spec, error) {
		return Spec{}, &Error{Kind: kind, Text: clip(trimmed), Reason: reason}
	}
	switch kind {
	case KindDate, KindDuration, KindCycle:
	default:
		return fail("unknown kind")
	}
	if trimmed == "" {
		return fail("empty")
	}
	if len(trimmed) > maxText {
		return fail("longer than 256 bytes")
	}
	var (
		s   Spec
		err error
	)
	switch kind {
	case KindDate:
		s.date, err = parseDate(trimmed)
	case KindDuration:
		s.dur, err = parseDuration(trimmed)
	case KindCycle:
		s, err = parseCycle(trimmed)
	}
	if err != nil {
		return fail(err.Error())
	}
	s.kind = kind
	return s, nil
}

// Kind returns the kind the spec was parsed as, or "" for the zero Spec.
func (s Spec) Kind() Kind { return s.kind }

// First returns the first due time of a timer armed at armed, and ok=false
// if it never fires. A date is due at the date, or at armed if the date has
// passed. A duration is due at armed plus the duration. An interval cycle
// without a start is due one period after armed; with a start, at the first
// grid point start + k·period not before armed. A cron cycle is due at the
// first matching second strictly after armed. The result is never before
// armed and is always in UTC.
func (s Spec) First(armed time.Time) (due time.Time, ok bool) {
	armed = armed.UTC()
	switch s.kind {
	case KindDate:
		if s.date.Before(armed) {
			return armed, true
		}
		return s.date, true
	case KindDuration:
		return s.dur.addTo(armed), true
	case KindCycle:
		if s.isCron {
			return s.cron.next(armed)
		}
		if s.reps == 0 {
			return time.Time{}, false
		}
		if s.hasStart {
			due, ok = s.slot(armed, false)
		} else {
			due, ok = s.dur.addTo(armed), true
		}
		return s.bound(due, ok)
	}
	return time.Time{}, false
}

// Next returns the due time after a firing at fired, where firedCount is the
// number of firings so far including that one (values below 1 count as 1).
// It returns ok=false when the cycle is exhausted (Rn after n firings, or
// past its end), when a cron expression has no match within the search
// horizon, and for specs that are not cycles. The result is strictly after
// fired and in UTC.
func (s Spec) Next(fired time.Time, firedCount int) (due time.Time, ok bool) {
	if s.kind != KindCycle {
		return time.Time{}, false
	}
	fired = fired.UTC()
	if s.isCron {
		return s.cron.next(fired)
	}
	firedCount = max(firedCount, 1)
	if s.reps != unbounded && firedCount >= s.reps {
		return time.Time{}, false
	}
	if s.hasStart {
		due, ok = s.slot(fired, true)
	} else {
		due, ok = s.dur.addTo(fired), true
	}
	return s.bound(due, ok)
}

// bound applies the inclusive end of an interval cycle.
func (s Spec) bound(due time.Time, ok bool) (time.Time, bool) {
	if !ok || (s.hasEnd && due.After(s.end)) {
		return time.Time{}, false
	}
	return due, true
}

// String returns the canonical text of the spec: Parse(s.Kind(), s.String())
// yields an equivalent spec. Dates are RFC 3339 in UTC, durations are
// normalized (weeks become days; hours, minutes and seconds are carried), and
// cron fields are upper-cased. The zero Spec returns "".
func (s Spec) String() string {
	switch s.kind {
	case KindDate:
		return formatDate(s.date)
	case KindDuration:
		return s.dur.String()
	case KindCycle:
		if s.isCron {
			return s.cron.text
		}
		var b strings.Builder
		b.WriteByte('R')
		if s.reps != unbounded {
			b.WriteString(strconv.Itoa(s.reps))
		}
		b.WriteByte('/')
		if s.hasStart {
			b.WriteString(formatDate(s.start))
			b.WriteByte('/')
		}
		b.WriteString(s.dur.String())
		if s.hasEnd {
			b.WriteByte('/')
			b.WriteString(formatDate(s.end))
		}
		return b.String()
	}
	return ""
}
