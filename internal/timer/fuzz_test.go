package timer

import (
	"errors"
	"testing"
	"time"
)

// FuzzParse parses arbitrary text as every kind. Parse must not panic, its
// errors must be *Error, String must round-trip, and First and Next must
// never return a time before their reference time.
func FuzzParse(f *testing.F) {
	// Seeds live in testdata/fuzz/FuzzParse.
	base := time.Date(2026, 3, 15, 12, 34, 56, 789, time.UTC)
	f.Fuzz(func(t *testing.T, text string, offset int64) {
		// Reference times within about ±100 years of base, at any
		// nanosecond.
		const span = 100 * 366 * 24 * int64(time.Hour) / int64(time.Second)
		ref := base.Add(time.Duration(offset%span) * time.Second).Add(time.Duration(offset % int64(time.Second)))
		for _, kind := range []Kind{KindDate, KindDuration, KindCycle} {
			s, err := Parse(kind, text)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("Parse(%q, %q) error %T, want *Error", kind, text, err)
				}
				continue
			}
			again, err := Parse(kind, s.String())
			if err != nil || again.String() != s.String() {
				t.Fatalf("Parse(%q, %q).String() = %q does not round-trip: %v", kind, text, s.String(), err)
			}
			due, ok := s.First(ref)
			if !ok {
				continue
			}
			if due.Before(ref) {
				t.Fatalf("Parse(%q, %q).First(%v) = %v: before the arm time", kind, text, ref, due)
			}
			for n := 1; n <= 4; n++ {
				next, ok := s.Next(due, n)
				if !ok {
					break
				}
				if !next.After(due) {
					t.Fatalf("Parse(%q, %q).Next(%v, %d) = %v: not after the firing", kind, text, due, n, next)
				}
				due = next
			}
		}
	})
}
