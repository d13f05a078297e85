package timer

import (
	"errors"
	"strings"
	"time"
)

// dateLayouts are the accepted ISO 8601 forms, tried in order. A fractional
// second after the seconds is accepted by time.Parse without a layout
// element. Layouts without a zone parse as UTC.
var dateLayouts = []string{
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05Z07",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02",
}

// parseDate parses an ISO 8601 date-time or date and returns it in UTC.
func parseDate(s string) (time.Time, error) {
	var rangeErr string
	for _, layout := range dateLayouts {
		t, err := time.Parse(layout, s)
		if err == nil {
			t = t.UTC()
			if y := t.Year(); y < 1 || y > 9999 {
				return time.Time{}, errors.New("year outside 0001-9999 in UTC")
			}
			return t, nil
		}
		// time.Parse reports values out of range (month 13, February
		// 30, hour 25, offset +25:00) with a message; prefer it to the
		// generic complaint.
		var pe *time.ParseError
		if rangeErr == "" && errors.As(err, &pe) && pe.Message != "" {
			rangeErr = strings.TrimPrefix(pe.Message, ": ")
		}
	}
	if rangeErr != "" {
		return time.Time{}, errors.New(rangeErr)
	}
	return time.Time{}, errors.New("not an ISO 8601 date-time (want e.g. 2026-01-01T10:00:00Z, 2026-01-01T10:00:00+02:00 or 2026-01-01)")
}

// formatDate returns the canonical text of a parsed date.
func formatDate(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// looksLikeDuration reports whether a cycle part is meant as a duration.
func looksLikeDuration(s string) bool {
	return s != "" && (s[0] == 'P' || s[0] == 'p' || s[0] == '-')
}
