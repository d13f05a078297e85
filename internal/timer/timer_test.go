package timer

import (
	"errors"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // DST test needs Europe/Berlin on any machine
)

// MustParse parses text or fails the test.
func MustParse(tb testing.TB, kind Kind, text string) Spec {
	tb.Helper()
	s, err := Parse(kind, text)
	if err != nil {
		tb.Fatalf("Parse(%q, %q): %v", kind, text, err)
	}
	return s
}

// MustTime parses an RFC 3339 time or fails the test.
func MustTime(tb testing.TB, s string) time.Time {
	tb.Helper()
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// firings returns up to max due times: First, then Next with the count of
// firings so far.
func firings(s Spec, armed time.Time, limit int) []string {
	var out []string
	due, ok := s.First(armed)
	for n := 1; ok && n <= limit; n++ {
		out = append(out, due.Format(time.RFC3339Nano))
		due, ok = s.Next(due, n)
	}
	return out
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		kind Kind
		text string
		want string // full message if it starts with "timer:", else a substring
	}{
		{"unknown kind", "later", "PT1S", `timer: unknown kind "later" (want date, duration or cycle)`},
		{"empty duration", KindDuration, "", `timer: invalid duration "": empty`},
		{"blank date", KindDate, " \n\t", `timer: invalid date "": empty`},
		{"too long", KindDuration, "P" + strings.Repeat("1", 300) + "D", "longer than 256 bytes"},
		{"too long clipped", KindCycle, strings.Repeat("R", 300), `"` + strings.Repeat("R", 64) + `..."`},

		{"unknown designator", KindDuration, "P1X", `timer: invalid duration "P1X": unknown designator "X"`},
		{"negative", KindDuration, "-PT10S", `timer: invalid duration "-PT10S": negative durations are not allowed`},
		{"negative component", KindDuration, "PT-10S", `unexpected character "-"`},
		{"no P", KindDuration, "10S", `must start with "P"`},
		{"P alone", KindDuration, "P", `no components after "P"`},
		{"T alone", KindDuration, "PT", `"T" must be followed by hours, minutes or seconds`},
		{"trailing T", KindDuration, "P1DT", `"T" must be followed`},
		{"two T", KindDuration, "PTT1S", `more than one "T"`},
		{"hours before T", KindDuration, "P1H", `designator "H" must come after "T"`},
		{"days after T", KindDuration, "PT1D", `designator "D" must come before "T"`},
		{"out of order", KindDuration, "P1D1Y", `designator "Y" repeated or out of order`},
		{"repeated", KindDuration, "PT1H2H", `designator "H" repeated or out of order`},
		{"fraction on minutes", KindDuration, "PT1.5M", `only seconds may have a fraction`},
		{"no designator", KindDuration, "P10", `number "10" has no designator`},
		{"missing number", KindDuration, "PTS", `missing number before "S"`},
		{"no leading digit", KindDuration, "PT.5S", "missing digit before the decimal point"},
		{"no fraction digits", KindDuration, "PT1.S", "missing digits after the decimal point"},
		{"too precise", KindDuration, "PT0.1234567891S", "more than 9 fractional digits"},
		{"too many years", KindDuration, "P10000Y", "10000 years exceeds 9999"},
		{"too many days", KindDuration, "P600000W", "600000 weeks exceeds 522804"},
		{"weeks plus days", KindDuration, "P522000W100000D", "days exceeds"},
		{"clock overflow", KindDuration, "PT9999999999999H", "exceed 292 years"},
		{"clock overflow sum", KindDuration, "PT2562047H47M17S", "exceed 292 years"},
		{"huge number", KindDuration, "P1234567890123456789D", "too large"},

		{"not a date", KindDate, "tomorrow", `timer: invalid date "tomorrow": not an ISO 8601 date-time (want e.g. 2026-01-01T10:00:00Z, 2026-01-01T10:00:00+02:00 or 2026-01-01)`},
		{"month 13", KindDate, "2026-13-01", "month out of range"},
		{"Feb 30", KindDate, "2026-02-30T00:00:00Z", "day out of range"},
		{"hour 25", KindDate, "2026-01-01T25:00:00Z", "hour out of range"},
		{"year 0", KindDate, "0000-06-01T00:00:00Z", "year outside 0001-9999"},
		{"year 10000 in UTC", KindDate, "9999-12-31T23:00:00-02:00", "year outside 0001-9999"},
		{"duration as date", KindDate, "PT1H", "not an ISO 8601 date-time"},

		{"cycle without R", KindCycle, "PT1H", "want a repeating interval"},
		{"cycle bad count", KindCycle, "Rx/PT1H", `repetition count "x" is not a number`},
		{"cycle negative count", KindCycle, "R-1/PT1H", "negative repetition count"},
		{"cycle huge count", KindCycle, "R9999999999/PT1H", "exceeds"},
		{"cycle no period", KindCycle, "R3", "missing period"},
		{"cycle date only", KindCycle, "R3/2026-01-01T00:00:00Z", "is not a period"},
		{"cycle bad period", KindCycle, "R3/PT10X", `timer: invalid cycle "R3/PT10X": period: unknown designator "X"`},
		{"cycle zero period", KindCycle, "R/PT0S", "period must be positive"},
		{"cycle bad start", KindCycle, "R/2026-99-01T00:00:00Z/PT1H", "start: month out of range"},
		{"cycle bad end", KindCycle, "R/PT1H/soon", "end: not an ISO 8601 date-time"},
		{"cycle two periods", KindCycle, "R/PT1H/PT2H", "two periods"},
		{"cycle end before start", KindCycle, "R/2026-01-02T00:00:00Z/2026-01-01T00:00:00Z", "end must be after start"},
		{"cycle interval too long", KindCycle, "R/0001-01-01T00:00:00Z/9999-01-01T00:00:00Z", "exceeds 292 years"},
		{"cycle four parts", KindCycle, "R/2026-01-01T00:00:00Z/PT1H/2026-02-01T00:00:00Z", "4 parts"},

		{"cron 5 fields", KindCycle, "*/5 * * * *", "5 fields; want 6"},
		{"cron 7 fields", KindCycle, "0 0 12 * * ? 2026", "year field is not supported"},
		{"cron 3 fields", KindCycle, "0 0 12", "3 fields"},
		{"cron L", KindCycle, "0 0 0 L * ?", `cron day-of-month "L": "L" (last) is not supported`},
		{"cron LW", KindCycle, "0 0 0 LW * ?", `"W" (nearest weekday) is not supported`},
		{"cron W", KindCycle, "0 0 0 15W * ?", `"W" (nearest weekday) is not supported`},
		{"cron last weekday", KindCycle, "0 0 0 ? * 6L", `"L" (last) is not supported`},
		{"cron nth weekday", KindCycle, "0 0 0 ? * 6#3", `"#" (nth day of week) is not supported`},
		{"cron dow 0", KindCycle, "0 0 0 ? * 0", "0 outside 1-7 (Quartz: 1=SUN ... 7=SAT)"},
		{"cron both days", KindCycle, "0 0 0 1 * MON", "day-of-month and day-of-week are both restricted"},
		{"cron ? in seconds", KindCycle, "? * * * * *", `"?" is only allowed in day-of-month and day-of-week`},
		{"cron ? in list", KindCycle, "0 0 0 ?,1 * *", `"?" must stand alone`},
		{"cron second 60", KindCycle, "60 * * * * ?", `cron second "60": 60 outside 0-59`},
		{"cron hour 24", KindCycle, "0 0 24 * * ?", "24 outside 0-23"},
		{"cron day 0", KindCycle, "0 0 0 0 * ?", "0 outside 1-31"},
		{"cron step 0", KindCycle, "*/0 * * * * ?", "step 0 outside 1-60"},
		{"cron step too big", KindCycle, "0 0 */25 * * ?", "step 25 outside 1-24"},
		{"cron step text", KindCycle, "*/x * * * * ?", `step "X" is not a positive number`},
		{"cron empty step", KindCycle, "*/ * * * * ?", `step "" is not a positive number`},
		{"cron bad name", KindCycle, "0 0 0 ? * FUN", `"FUN" is neither 1-7 nor SUN-SAT`},
		{"cron bad month", KindCycle, "0 0 0 1 JANUARY ?", `"JANUARY" is neither 1-12 nor JAN-DEC`},
		{"cron empty element", KindCycle, "0 0 0 1,,2 * ?", "empty list element"},
		{"cron open range", KindCycle, "0 0 1- * * ?", "missing value"},
		{"cron junk", KindCycle, "a b c d e f", `cron second "A": "A" is not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tt.kind, tt.text)
			if err == nil {
				t.Fatalf("Parse(%q, %q) succeeded; want error %q", tt.kind, tt.text, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *Error", err)
			}
			msg := err.Error()
			if strings.HasPrefix(tt.want, "timer:") && msg != tt.want {
				t.Fatalf("error = %s\nwant    %s", msg, tt.want)
			}
			if !strings.Contains(msg, tt.want) {
				t.Fatalf("error = %s\nwant it to contain %s", msg, tt.want)
			}
		})
	}
}

func TestDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want string // canonical String, RFC 3339 in UTC
	}{
		{"2026-01-01T10:00:00Z", "2026-01-01T10:00:00Z"},
		{"2026-01-01T10:00:00+02:00", "2026-01-01T08:00:00Z"},
		{"2026-01-01T10:00:00-05:30", "2026-01-01T15:30:00Z"},
		{"2026-01-01T10:00:00+0200", "2026-01-01T08:00:00Z"},
		{"2026-01-01T10:00:00+02", "2026-01-01T08:00:00Z"},
		{"2026-01-01T10:00:00.250Z", "2026-01-01T10:00:00.25Z"},
		{"2026-01-01T10:00:00,5+01:00", "2026-01-01T09:00:00.5Z"},
		{"2026-01-01T10:00:00.123456789", "2026-01-01T10:00:00.123456789Z"},
		{"2026-01-01T10:00:00", "2026-01-01T10:00:00Z"},
		{"2026-01-01T10:00", "2026-01-01T10:00:00Z"},
		{"2026-01-01T10:00Z", "2026-01-01T10:00:00Z"},
		{"2026-01-01", "2026-01-01T00:00:00Z"},
		{"2028-02-29", "2028-02-29T00:00:00Z"},
		{"  2026-01-01T10:00:00Z\n", "2026-01-01T10:00:00Z"},
		{"2026-01-01T00:30:00+01:00", "2025-12-31T23:30:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			s := MustParse(t, KindDate, tt.text)
			if got := s.String(); got != tt.want {
				t.Fatalf("String() = %s, want %s", got, tt.want)
			}
			if s.Kind() != KindDate {
				t.Fatalf("Kind() = %q", s.Kind())
			}
		})
	}
}

func TestDateFirst(t *testing.T) {
	t.Parallel()
	s := MustParse(t, KindDate, "2026-01-01T10:00:00+02:00")
	tests := []struct {
		name  string
		armed string
		want  string
	}{
		{"future", "2025-12-31T00:00:00Z", "2026-01-01T08:00:00Z"},
		{"exactly due", "2026-01-01T08:00:00Z", "2026-01-01T08:00:00Z"},
		{"past fires at arm time", "2026-01-02T00:00:00.5Z", "2026-01-02T00:00:00.5Z"},
		{"armed in another zone", "2026-01-01T09:30:00+02:00", "2026-01-01T08:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			due, ok := s.First(MustTime(t, tt.armed))
			if !ok || !due.Equal(MustTime(t, tt.want)) || due.Location() != time.UTC {
				t.Fatalf("First = %v, %v; want %s UTC", due, ok, tt.want)
			}
			if _, ok := s.Next(due, 1); ok {
				t.Fatal("Next on a date must be false")
			}
		})
	}
}

func TestDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text  string
		armed string
		want  string // due time
		canon string // String()
	}{
		{"PT10S", "2026-01-01T10:00:00Z", "2026-01-01T10:00:10Z", "PT10S"},
		{"P1D", "2026-01-01T10:00:00Z", "2026-01-02T10:00:00Z", "P1D"},
		{"P1DT2H30M", "2026-01-01T10:00:00Z", "2026-01-02T12:30:00Z", "P1DT2H30M"},
		{"PT0.5S", "2026-01-01T10:00:00Z", "2026-01-01T10:00:00.5Z", "PT0.5S"},
		{"PT1,25S", "2026-01-01T10:00:00Z", "2026-01-01T10:00:01.25Z", "PT1.25S"},
		{"PT0.000000001S", "2026-01-01T10:00:00Z", "2026-01-01T10:00:00.000000001Z", "PT0.000000001S"},
		{"P2W", "2026-01-01T10:00:00Z", "2026-01-15T10:00:00Z", "P14D"},
		{"P1W3D", "2026-01-01T10:00:00Z", "2026-01-11T10:00:00Z", "P10D"},
		{"P1Y2M", "2026-01-01T10:00:00Z", "2027-03-01T10:00:00Z", "P1Y2M"},
		{"PT90M", "2026-01-01T10:00:00Z", "2026-01-01T11:30:00Z", "PT1H30M"},
		{"PT36H", "2026-01-01T10:00:00Z", "2026-01-02T22:00:00Z", "PT36H"},
		{"PT3661S", "2026-01-01T10:00:00Z", "2026-01-01T11:01:01Z", "PT1H1M1S"},
		{"P0D", "2026-01-01T10:00:00Z", "2026-01-01T10:00:00Z", "PT0S"},
		{"PT0S", "2026-01-01T10:00:00Z", "2026-01-01T10:00:00Z", "PT0S"},
		{"pt10s", "2026-01-01T10:00:00Z", "2026-01-01T10:00:10Z", "PT10S"},
		{" PT10S ", "2026-01-01T10:00:00Z", "2026-01-01T10:00:10Z", "PT10S"},
		{"P1Y2M3W4DT5H6M7.8S", "2026-01-01T00:00:00Z", "2027-03-26T05:06:07.8Z", "P1Y2M25DT5H6M7.8S"},
		{"PT2562047H47M16.854775807S", "2026-01-01T00:00:00Z", "2318-04-12T23:47:16.854775807Z", "PT2562047H47M16.854775807S"},

		// Calendar arithmetic with AddDate: overflowing days normalize.
		{"P1M", "2026-01-31T09:00:00Z", "2026-03-03T09:00:00Z", "P1M"},
		{"P1M", "2028-01-31T09:00:00Z", "2028-03-02T09:00:00Z", "P1M"}, // leap year
		{"P1M", "2026-03-31T09:00:00Z", "2026-05-01T09:00:00Z", "P1M"},
		{"P1M", "2026-02-28T09:00:00Z", "2026-03-28T09:00:00Z", "P1M"},
		{"P1Y", "2028-02-29T09:00:00Z", "2029-03-01T09:00:00Z", "P1Y"},
		{"P12M", "2028-02-29T09:00:00Z", "2029-03-01T09:00:00Z", "P12M"},
		{"P1MT1H", "2026-01-31T23:30:00Z", "2026-03-04T00:30:00Z", "P1MT1H"},

		// All arithmetic is in UTC: P1D is 24 hours even when the arm
		// time is given in a zone that changes to summer time that night.
		{"P1D", "2026-03-28T12:00:00+01:00", "2026-03-29T11:00:00Z", "P1D"},
		{"P1M", "2026-10-25T01:30:00+02:00", "2026-11-24T23:30:00Z", "P1M"},
	}
	for _, tt := range tests {
		t.Run(tt.text+"@"+tt.armed, func(t *testing.T) {
			t.Parallel()
			s := MustParse(t, KindDuration, tt.text)
			if got := s.String(); got != tt.canon {
				t.Errorf("String() = %s, want %s", got, tt.canon)
			}
			due, ok := s.First(MustTime(t, tt.armed))
			if !ok || !due.Equal(MustTime(t, tt.want)) || due.Location() != time.UTC {
				t.Fatalf("First = %v, %v; want %s UTC", due, ok, tt.want)
			}
			if _, ok := s.Next(due, 1); ok {
				t.Fatal("Next on a duration must be false")
			}
		})
	}
}

func TestDurationDSTLocation(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	// Noon in Berlin the day before summer time starts; local noon the
	// next day is only 23 hours later, but P1D means 24 hours in UTC.
	armed := time.Date(2026, 3, 28, 12, 0, 0, 0, berlin)
	due, ok := MustParse(t, KindDuration, "P1D").First(armed)
	if want := armed.Add(24 * time.Hour); !ok || !due.Equal(want) {
		t.Fatalf("First = %v, %v; want %v", due, ok, want)
	}
	if due.Location() != time.UTC {
		t.Fatalf("location = %v, want UTC", due.Location())
	}
}

func TestIntervalCycle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		text  string
		armed string
		want  []string // every firing, or the first len(want) if unbounded
		canon string
	}{
		{"unbounded", "R/PT1H", "2026-01-01T10:00:00Z",
			[]string{"2026-01-01T11:00:00Z", "2026-01-01T12:00:00Z", "2026-01-01T13:00:00Z"}, "R/PT1H"},
		{"three repetitions", "R3/PT10M", "2026-01-01T10:00:00Z",
			[]string{"2026-01-01T10:10:00Z", "2026-01-01T10:20:00Z", "2026-01-01T10:30:00Z"}, "R3/PT10M"},
		{"one repetition", "R1/PT10M", "2026-01-01T10:00:00Z",
			[]string{"2026-01-01T10:10:00Z"}, "R1/PT10M"},
		{"zero repetitions", "R0/PT10M", "2026-01-01T10:00:00Z", nil, "R0/PT10M"},
		{"fractional period", "R2/PT0.5S", "2026-01-01T10:00:00Z",
			[]string{"2026-01-01T10:00:00.5Z", "2026-01-01T10:00:01Z"}, "R2/PT0.5S"},
		{"lower case", "r2/pt1h", "2026-01-01T10:00:00Z",
			[]string{"2026-01-01T11:00:00Z", "2026-01-01T12:00:00Z"}, "R2/PT1H"},
		{"chained months drift", "R4/P1M", "2026-01-31T00:00:00Z",
			[]string{"2026-03-03T00:00:00Z", "2026-04-03T00:00:00Z", "2026-05-03T00:00:00Z", "2026-06-03T00:00:00Z"}, "R4/P1M"},

		{"start in future", "R3/2026-01-01T00:00:00Z/P1D", "2025-12-31T12:00:00Z",
			[]string{"2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"}, "R3/2026-01-01T00:00:00Z/P1D"},
		{"start in past", "R3/2026-01-01T00:00:00Z/P1D", "2026-01-05T10:00:00Z",
			[]string{"2026-01-06T00:00:00Z", "2026-01-07T00:00:00Z", "2026-01-08T00:00:00Z"}, "R3/2026-01-01T00:00:00Z/P1D"},
		{"armed on grid point", "R2/2026-01-01T00:00:00Z/P1D", "2026-01-05T00:00:00Z",
			[]string{"2026-01-05T00:00:00Z", "2026-01-06T00:00:00Z"}, "R2/2026-01-01T00:00:00Z/P1D"},
		{"armed at start", "R2/2026-01-01T00:00:00Z/P1D", "2026-01-01T00:00:00Z",
			[]string{"2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"}, "R2/2026-01-01T00:00:00Z/P1D"},
		{"unbounded with start", "R/2026-01-01T00:00:00Z/PT1H", "2026-03-15T12:34:56.789Z",
			[]string{"2026-03-15T13:00:00Z", "2026-03-15T14:00:00Z", "2026-03-15T15:00:00Z"}, "R/2026-01-01T00:00:00Z/PT1H"},
		{"start with offset", "R2/2026-01-01T00:00:00+01:00/PT12H", "2025-01-01T00:00:00Z",
			[]string{"2025-12-31T23:00:00Z", "2026-01-01T11:00:00Z"}, "R2/2025-12-31T23:00:00Z/PT12H"},
		{"ancient start, tiny period", "R2/0001-01-01T00:00:00Z/PT0.25S", "2026-03-15T12:34:56.3Z",
			[]string{"2026-03-15T12:34:56.5Z", "2026-03-15T12:34:56.75Z"}, "R2/0001-01-01T00:00:00Z/PT0.25S"},
		{"ancient start, months", "R2/0001-01-01T00:00:00Z/P1M", "2026-03-15T12:00:00Z",
			[]string{"2026-04-01T00:00:00Z", "2026-05-01T00:00:00Z"}, "R2/0001-01-01T00:00:00Z/P1M"},
		{"month grid from the 31st", "R5/2026-01-31T00:00:00Z/P1M", "2026-01-01T00:00:00Z",
			[]string{"2026-01-31T00:00:00Z", "2026-03-03T00:00:00Z", "2026-03-31T00:00:00Z", "2026-05-01T00:00:00Z", "2026-05-31T00:00:00Z"},
			"R5/2026-01-31T00:00:00Z/P1M"},
		{"month grid armed late", "R2/2026-01-31T00:00:00Z/P1M", "2026-03-04T00:00:00Z",
			[]string{"2026-03-31T00:00:00Z", "2026-05-01T00:00:00Z"}, "R2/2026-01-31T00:00:00Z/P1M"},
		{"yearly grid from Feb 29", "R3/2028-02-29T12:00:00Z/P1Y", "2029-01-01T00:00:00Z",
			[]string{"2029-03-01T12:00:00Z", "2030-03-01T12:00:00Z", "2031-03-01T12:00:00Z"}, "R3/2028-02-29T12:00:00Z/P1Y"},
		{"mixed calendar period", "R2/2026-01-01T00:00:00Z/P1MT1H", "2026-02-01T00:30:00Z",
			[]string{"2026-02-01T01:00:00Z", "2026-03-01T02:00:00Z"}, "R2/2026-01-01T00:00:00Z/P1MT1H"},

		{"period and end", "R/PT10M/2026-01-01T10:25:00Z", "2026-01-01T10:00:00Z",
			[]string{"2026-01-01T10:10:00Z", "2026-01-01T10:20:00Z"}, "R/PT10M/2026-01-01T10:25:00Z"},
		{"end is inclusive", "R/PT10M/2026-01-01T10:20:00Z", "2026-01-01T10:00:00Z",
			[]string{"2026-01-01T10:10:00Z", "2026-01-01T10:20:00Z"}, "R/PT10M/2026-01-01T10:20:00Z"},
		{"count before end", "R1/PT10M/2026-01-01T12:00:00Z", "2026-01-01T10:00:00Z",
			[]string{"2026-01-01T10:10:00Z"}, "R1/PT10M/2026-01-01T12:00:00Z"},
		{"end already passed", "R/PT10M/2026-01-01T10:05:00Z", "2026-01-01T10:00:00Z", nil, "R/PT10M/2026-01-01T10:05:00Z"},

		{"start and end", "R2/2026-01-01T00:00:00Z/2026-01-01T06:00:00Z", "2025-12-01T00:00:00Z",
			[]string{"2026-01-01T00:00:00Z", "2026-01-01T06:00:00Z"}, "R2/2026-01-01T00:00:00Z/PT6H"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := MustParse(t, KindCycle, tt.text)
			if got := s.String(); got != tt.canon {
				t.Errorf("String() = %s, want %s", got, tt.canon)
			}
			got := firings(s, MustTime(t, tt.armed), len(tt.want)+1)
			unbounded := strings.HasPrefix(tt.canon, "R/") && !strings.Contains(tt.name, "end")
			if unbounded {
				got = got[:len(tt.want)]
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("firings = %v\nwant      %v", got, tt.want)
			}
		})
	}
}

func TestIntervalCycleLateFiring(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, fired, want string
	}{
		// Without a start the next firing is one period after the
		// actual firing.
		{"no start", "R/PT1H", "2026-01-01T10:17:00Z", "2026-01-01T11:17:00Z"},
		// With a start the grid wins: missed grid points are skipped.
		{"grid skips missed points", "R/2026-01-01T00:00:00Z/PT1H", "2026-01-01T02:30:00Z", "2026-01-01T03:00:00Z"},
		{"grid exact hit is strict", "R/2026-01-01T00:00:00Z/PT1H", "2026-01-01T03:00:00Z", "2026-01-01T04:00:00Z"},
		{"calendar grid", "R/2026-01-31T00:00:00Z/P1M", "2026-03-03T00:00:00Z", "2026-03-31T00:00:00Z"},
		{"fired before start", "R/2026-01-01T00:00:00Z/PT1H", "2025-12-31T00:00:00Z", "2026-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			due, ok := MustParse(t, KindCycle, tt.text).Next(MustTime(t, tt.fired), 2)
			if !ok || !due.Equal(MustTime(t, tt.want)) {
				t.Fatalf("Next = %v, %v; want %s", due, ok, tt.want)
			}
		})
	}
}

func TestNextCounts(t *testing.T) {
	t.Parallel()
	s := MustParse(t, KindCycle, "R2/PT1M")
	at := MustTime(t, "2026-01-01T00:00:00Z")
	tests := []struct {
		count int
		ok    bool
	}{{-5, true}, {0, true}, {1, true}, {2, false}, {3, false}}
	for _, tt := range tests {
		if _, ok := s.Next(at, tt.count); ok != tt.ok {
			t.Errorf("Next(_, %d) ok = %v, want %v", tt.count, ok, tt.ok)
		}
	}
}

func TestZeroSpec(t *testing.T) {
	t.Parallel()
	var s Spec
	if _, ok := s.First(MustTime(t, "2026-01-01T00:00:00Z")); ok {
		t.Error("zero Spec First must be false")
	}
	if _, ok := s.Next(MustTime(t, "2026-01-01T00:00:00Z"), 1); ok {
		t.Error("zero Spec Next must be false")
	}
	if s.String() != "" || s.Kind() != "" {
		t.Errorf("zero Spec = %q, %q", s.String(), s.Kind())
	}
}

func TestStringRoundTrip(t *testing.T) {
	t.Parallel()
	inputs := []struct {
		kind Kind
		text string
	}{
		{KindDate, "2026-01-01T10:00:00.5+02:00"},
		{KindDate, "0001-01-01T00:00:00Z"},
		{KindDuration, "P1Y2M3W4DT5H6M7.8S"},
		{KindDuration, "PT100000S"},
		{KindCycle, "R/PT1H"},
		{KindCycle, "r7/2026-01-01/p1w"},
		{KindCycle, "R/PT10M/2026-01-01T10:25:00-01:00"},
		{KindCycle, "R2/2026-01-01T00:00:00Z/2026-01-03T00:00:00.5Z"},
		{KindCycle, " 0  */15  9-17 ?  jan-mar,DEC  mon-fri "},
	}
	for _, in := range inputs {
		s := MustParse(t, in.kind, in.text)
		again := MustParse(t, in.kind, s.String())
		if again != s {
			t.Errorf("%q: String %q parses to a different spec", in.text, s.String())
		}
	}
}
