package timer

import (
	"math"
	"testing"
	"time"
)

func TestPeriod(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	tests := []struct {
		kind Kind
		text string
		want time.Duration
		ok   bool
	}{
		{KindCycle, "R/PT10M", 10 * time.Minute, true},
		{KindCycle, "R1000000/PT0.001S", time.Millisecond, true},
		{KindCycle, "R3/2026-01-01T00:00:00Z/P1D", day, true},
		{KindCycle, "R/PT1S/2026-02-01T00:00:00Z", time.Second, true},
		{KindCycle, "R2/2026-01-01T00:00:00Z/2026-01-01T06:00:00Z", 6 * time.Hour, true},
		{KindCycle, "R/P1M", 28 * day, true},
		{KindCycle, "R/P1Y2M3DT4H", (365+56+3)*day + 4*time.Hour, true},
		{KindCycle, "R/P9999Y", math.MaxInt64, true}, // saturates
		// Fires once or never: no period.
		{KindCycle, "R1/PT0.001S", 0, false},
		{KindCycle, "R0/PT1S", 0, false},
		{KindDuration, "PT0.001S", 0, false},
		{KindDate, "2026-01-01T00:00:00Z", 0, false},
		// Cron: the smallest gap, within a day or across days.
		{KindCycle, "* * * * * ?", time.Second, true},
		{KindCycle, "*/15 * * * * ?", 15 * time.Second, true},
		{KindCycle, "0,50 * * * * ?", 10 * time.Second, true}, // :50 → next minute's :00
		{KindCycle, "0 0/5 * * * ?", 5 * time.Minute, true},
		{KindCycle, "0 0 9,17 * * ?", 8 * time.Hour, true},
		{KindCycle, "0 0 23 * * ?", day, true},
		{KindCycle, "0 0 23,1 * * ?", 2 * time.Hour, true}, // 23:00 → 01:00 next day
		{KindCycle, "0 0 9 ? * MON-FRI", day, true},
		{KindCycle, "0 0 9 ? * MON", 7 * day, true},
		{KindCycle, "0 0 0 1 * ?", 28 * day, true},    // February
		{KindCycle, "0 0 0 29 2 ?", 1461 * day, true}, // leap days, 2000 → 2004
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			got, ok := MustParse(t, tt.kind, tt.text).Period()
			if got != tt.want || ok != tt.ok {
				t.Errorf("Period() = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
	if _, ok := (Spec{}).Period(); ok {
		t.Error("the zero Spec has a period")
	}
}

// TestCronPeriodMatchesItsFirings compares a cron expression's Period with
// the smallest gap between its actual firings (Next, from 2000-01-01) over
// eight years or 100,000 firings.
func TestCronPeriodMatchesItsFirings(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"*/7 * * * * ?", "5,55 */13 * * * ?", "0 59 0,23 * * ?", "30 0 12 ? * TUE,THU", "0 0 0 31 * ?",
		"0 0 0 28-31 2 ?", "0 0 6,18 ? * SAT-MON", "10-12 0 0 1 1,7 ?", "0 0 0 29 2 ?",
	} {
		spec, err := Parse(KindCycle, text)
		if err != nil {
			t.Fatal(err)
		}
		period, _ := spec.Period()
		at := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		end := at.AddDate(8, 0, 0)
		brute := time.Duration(math.MaxInt64)
		prev, ok := spec.First(at)
		for n := 1; ok && n < 100_000 && prev.Before(end); n++ {
			var next time.Time
			if next, ok = spec.Next(prev, n); ok {
				brute = min(brute, next.Sub(prev))
				prev = next
			}
		}
		if period != brute {
			t.Errorf("%s: Period %v, firings %v apart at least", text, period, brute)
		}
	}
}
