package camunda7

import (
	"fmt"
	"time"
)

// DateLayout is Camunda 7's date format, yyyy-MM-dd'T'HH:mm:ss.SSSZ
// (e.g. 2026-12-02T10:00:00.000+0000): milliseconds and a numeric zone
// without a colon, the only form the Java external task client parses.
const DateLayout = "2006-01-02T15:04:05.000-0700"

// FormatDate renders t in Camunda 7's format, in UTC.
func FormatDate(t time.Time) string {
	return t.UTC().Format(DateLayout)
}

// ParseDate reads a date in Camunda 7's format; it also accepts RFC 3339
// (what JavaScript's toISOString and Go clients send).
func ParseDate(s string) (time.Time, error) {
	for _, layout := range []string{DateLayout, time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("camunda7: %q is no date in the form yyyy-MM-dd'T'HH:mm:ss.SSSZ (e.g. 2026-12-02T10:00:00.000+0000)", s)
}
