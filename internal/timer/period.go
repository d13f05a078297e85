package timer

import (
	"math"
	"math/bits"
	"time"
)

// Period returns the shortest time between two consecutive firings of a
// cycle, and ok=false when the spec never fires twice: a date, a duration,
// R0, R1, or the zero Spec. Callers use it to hold cycles to a minimum
// period (a floor) before they are armed.
//
// For an interval cycle it is the period, with calendar units at their
// shortest (a month 28 days, a year 365 days); an end that cuts the cycle
// short is not considered. For a cron expression it is the smallest gap
// between two matching seconds, within a day or across days (at least one
// second).
func (s Spec) Period() (time.Duration, bool) {
	if s.kind != KindCycle {
		return 0, false
	}
	if s.isCron {
		return s.cron.minGap(), true
	}
	if s.reps != unbounded && s.reps < 2 {
		return 0, false
	}
	d := s.dur
	const day = 24 * time.Hour
	return satAdd(satMul(time.Duration(d.years), 365*day), satMul(time.Duration(d.months), 28*day),
		satMul(time.Duration(d.days), day), d.clock), true
}

// satMul returns n·unit, saturating at the largest Duration.
func satMul(n, unit time.Duration) time.Duration {
	if n != 0 && unit > math.MaxInt64/n {
		return math.MaxInt64
	}
	return n * unit
}

// satAdd returns the sum of non-negative durations, saturating at the
// largest Duration.
func satAdd(ds ...time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		if d > math.MaxInt64-sum {
			return math.MaxInt64
		}
		sum += d
	}
	return sum
}

// minGap returns the smallest gap between two consecutive matching seconds
// of c. The seconds of a matching day are the product of the hour, minute
// and second sets, so the gaps within a day are those within a minute,
// across a minute and across an hour; then there is the gap from the last
// firing of a matching day to the first of the next. Matching days are
// walked over eight years from 2000 (every pattern of months, days of the
// month and days of the week, and a leap day), with plain counters: the
// whole costs a few microseconds, whatever the expression.
func (c cronExpr) minGap() time.Duration {
	sec, mins, hours := bitsOf(c.sec), bitsOf(c.min), bitsOf(c.hour)
	first := hours[0]*3600 + mins[0]*60 + sec[0]
	last := hours[len(hours)-1]*3600 + mins[len(mins)-1]*60 + sec[len(sec)-1]
	gap := math.MaxInt
	if d, ok := minStep(sec); ok { // within a minute
		gap = min(gap, d)
	}
	if d, ok := minStep(mins); ok { // to the next matching minute of the hour
		gap = min(gap, d*60-sec[len(sec)-1]+sec[0])
	}
	if d, ok := minStep(hours); ok { // to the next matching hour of the day
		gap = min(gap, d*3600-(mins[len(mins)-1]*60+sec[len(sec)-1])+(mins[0]*60+sec[0]))
	}
	// The fewest days between two consecutive matching days.
	days, prevDay := math.MaxInt, -1
	year, month, day, weekday := 2000, 1, 1, int(time.Saturday) // 2000-01-01
	for i := range 8*366 + 1 {
		if c.month&(1<<month) != 0 && c.dom&(1<<day) != 0 && c.dow&(1<<(weekday+1)) != 0 {
			if prevDay >= 0 {
				days = min(days, i-prevDay)
			}
			prevDay = i
		}
		weekday = (weekday + 1) % 7
		if day++; day > daysIn(year, month) {
			day, month = 1, month+1
			if month > 12 {
				month, year = 1, year+1
			}
		}
	}
	if days != math.MaxInt {
		gap = min(gap, days*24*3600-last+first)
	}
	if gap == math.MaxInt {
		return math.MaxInt64
	}
	return time.Duration(gap) * time.Second
}

// daysIn returns the number of days of a month of the Gregorian calendar.
func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// bitsOf returns the set bits of a cron field in ascending order.
func bitsOf(set uint64) []int {
	var out []int
	for set != 0 {
		b := bits.TrailingZeros64(set)
		out = append(out, b)
		set &^= 1 << b
	}
	return out
}

// minStep returns the smallest difference between consecutive values of a
// sorted list, and false for fewer than two values.
func minStep(vs []int) (int, bool) {
	if len(vs) < 2 {
		return 0, false
	}
	d := math.MaxInt
	for i := 1; i < len(vs); i++ {
		d = min(d, vs[i]-vs[i-1])
	}
	return d, true
}
