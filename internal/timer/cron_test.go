package timer

import (
	"strings"
	"testing"
	"time"
)

func TestCron(t *testing.T) {
	t.Parallel()
	// 2026-01-01 is a Thursday.
	tests := []struct {
		name  string
		expr  string
		armed string
		want  []string // the first firings
	}{
		{"every 15 seconds", "*/15 * * * * ?", "2026-01-01T10:00:00Z",
			[]string{"2026-01-01T10:00:15Z", "2026-01-01T10:00:30Z", "2026-01-01T10:00:45Z", "2026-01-01T10:01:00Z"}},
		{"0/15 like */15", "0/15 * * * * ?", "2026-01-01T10:00:44.999Z",
			[]string{"2026-01-01T10:00:45Z", "2026-01-01T10:01:00Z"}},
		{"5/15 runs to the maximum", "5/15 * * * * ?", "2026-01-01T10:00:00Z",
			[]string{"2026-01-01T10:00:05Z", "2026-01-01T10:00:20Z", "2026-01-01T10:00:35Z", "2026-01-01T10:00:50Z", "2026-01-01T10:01:05Z"}},
		{"stepped range", "0 10-40/10 8 * * ?", "2026-01-01T08:15:00Z",
			[]string{"2026-01-01T08:20:00Z", "2026-01-01T08:30:00Z", "2026-01-01T08:40:00Z", "2026-01-02T08:10:00Z"}},
		{"mid-second arm", "*/15 * * * * ?", "2026-01-01T10:00:07.5Z",
			[]string{"2026-01-01T10:00:15Z"}},
		{"strictly after a match", "0 0 12 * * ?", "2026-01-01T12:00:00Z",
			[]string{"2026-01-02T12:00:00Z", "2026-01-03T12:00:00Z"}},
		{"sub-second after a match", "0 0 12 * * ?", "2026-01-01T12:00:00.001Z",
			[]string{"2026-01-02T12:00:00Z"}},
		{"list", "0 0 9,17 * * ?", "2026-01-01T10:00:00Z",
			[]string{"2026-01-01T17:00:00Z", "2026-01-02T09:00:00Z", "2026-01-02T17:00:00Z"}},
		{"weekdays by name", "0 0 12 ? * MON-FRI", "2026-01-01T13:00:00Z",
			[]string{"2026-01-02T12:00:00Z", "2026-01-05T12:00:00Z", "2026-01-06T12:00:00Z"}},
		{"weekdays by number", "0 0 12 ? * 2-6", "2026-01-01T13:00:00Z",
			[]string{"2026-01-02T12:00:00Z", "2026-01-05T12:00:00Z", "2026-01-06T12:00:00Z"}},
		{"Quartz 1 is Sunday", "0 0 0 ? * 1", "2026-01-01T00:00:00Z",
			[]string{"2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"}},
		{"Quartz 7 is Saturday", "0 0 0 ? * 7", "2026-01-01T00:00:00Z",
			[]string{"2026-01-03T00:00:00Z"}},
		{"lower-case names", "0 0 12 ? * mon", "2026-01-01T00:00:00Z",
			[]string{"2026-01-05T12:00:00Z"}},
		{"weekend wraps", "0 0 0 ? * FRI-MON", "2026-01-01T00:00:00Z",
			[]string{"2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z", "2026-01-05T00:00:00Z", "2026-01-09T00:00:00Z"}},
		{"hours wrap", "0 0 22-2/2 * * ?", "2026-01-01T12:00:00Z",
			[]string{"2026-01-01T22:00:00Z", "2026-01-02T00:00:00Z", "2026-01-02T02:00:00Z", "2026-01-02T22:00:00Z"}},
		{"month names", "0 30 9 1 JAN,jul ?", "2026-02-01T00:00:00Z",
			[]string{"2026-07-01T09:30:00Z", "2027-01-01T09:30:00Z"}},
		{"month range", "0 0 0 1 11-2 ?", "2026-03-01T00:00:00Z",
			[]string{"2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", "2027-02-01T00:00:00Z", "2027-11-01T00:00:00Z"}},
		{"new year", "0 0 0 1 1 ?", "2026-06-01T00:00:00Z",
			[]string{"2027-01-01T00:00:00Z", "2028-01-01T00:00:00Z"}},
		{"both days unrestricted", "0 0 6 * * *", "2026-01-01T07:00:00Z",
			[]string{"2026-01-02T06:00:00Z"}},
		{"both days ?", "0 0 6 ? * ?", "2026-01-01T07:00:00Z",
			[]string{"2026-01-02T06:00:00Z"}},
		{"day 31 skips short months", "0 0 0 31 * ?", "2026-01-31T12:00:00Z",
			[]string{"2026-03-31T00:00:00Z", "2026-05-31T00:00:00Z", "2026-07-31T00:00:00Z", "2026-08-31T00:00:00Z", "2026-10-31T00:00:00Z", "2026-12-31T00:00:00Z", "2027-01-31T00:00:00Z"}},
		{"Feb 29", "0 0 0 29 2 ?", "2026-01-01T00:00:00Z",
			[]string{"2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z", "2036-02-29T00:00:00Z"}},
		// 2100 is not a leap year: the longest possible gap (8 years)
		// between matches, and still inside the 10-year horizon.
		{"Feb 29 across 2100", "0 0 0 29 FEB ?", "2096-02-29T00:00:00Z",
			[]string{"2104-02-29T00:00:00Z", "2108-02-29T00:00:00Z"}},
		{"every second", "* * * * * ?", "2026-12-31T23:59:58Z",
			[]string{"2026-12-31T23:59:59Z", "2027-01-01T00:00:00Z"}},
		{"armed in another zone", "0 0 12 * * ?", "2026-01-01T12:30:00+02:00",
			[]string{"2026-01-01T12:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := MustParse(t, KindCycle, tt.expr)
			got := firings(s, MustTime(t, tt.armed), len(tt.want))
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("firings = %v\nwant      %v", got, tt.want)
			}
		})
	}
}

func TestCronNever(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, expr, armed string
	}{
		{"Feb 30", "0 0 0 30 2 ?", "2026-01-01T00:00:00Z"},
		{"Apr 31", "0 0 0 31 APR ?", "2026-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := MustParse(t, KindCycle, tt.expr)
			if due, ok := s.First(MustTime(t, tt.armed)); ok {
				t.Fatalf("First = %v, want ok=false", due)
			}
			if due, ok := s.Next(MustTime(t, tt.armed), 1); ok {
				t.Fatalf("Next = %v, want ok=false", due)
			}
		})
	}
}

func TestCronUnbounded(t *testing.T) {
	t.Parallel()
	s := MustParse(t, KindCycle, "0 * * * * ?")
	due, ok := s.Next(MustTime(t, "2026-01-01T00:00:00Z"), 1_000_000)
	if !ok || !due.Equal(MustTime(t, "2026-01-01T00:01:00Z")) {
		t.Fatalf("Next after many firings = %v, %v", due, ok)
	}
	if got, want := s.String(), "0 * * * * ?"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
}

func BenchmarkCronNext(b *testing.B) {
	exprs := []struct{ name, expr string }{
		{"every-15s", "*/15 * * * * ?"},
		{"weekday-noon", "0 0 12 ? * MON-FRI"},
		{"day-31", "0 0 0 31 * ?"},
		{"feb-29", "0 0 0 29 2 ?"},
		{"never", "0 0 0 30 2 ?"},
	}
	ref := time.Date(2026, 3, 15, 12, 34, 56, 0, time.UTC)
	for _, e := range exprs {
		b.Run(e.name, func(b *testing.B) {
			s := MustParse(b, KindCycle, e.expr)
			for b.Loop() {
				s.Next(ref, 1)
			}
		})
	}
}
