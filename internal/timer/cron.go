package timer

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// cronHorizonYears bounds the search for a matching second. It must exceed
// eight years: February 29 does not occur between 2096 and 2104.
const cronHorizonYears = 10

// cronExpr is a parsed Quartz-style cron expression. Each field is a bit
// set indexed by value (second 0-59, minute 0-59, hour 0-23, day-of-month
// 1-31, month 1-12, day-of-week 1-7 = SUN-SAT).
type cronExpr struct {
	sec, min, hour, dom, month, dow uint64
	// text is the canonical expression: fields upper-cased and joined by
	// single spaces.
	text string
}

// cronField describes one field of a cron expression.
type cronField struct {
	name     string
	min, max int
	names    []string // names[i] is value min+i; nil if none
	question bool     // "?" allowed
}

var cronFields = [6]cronField{
	{name: "second", min: 0, max: 59},
	{name: "minute", min: 0, max: 59},
	{name: "hour", min: 0, max: 23},
	{name: "day-of-month", min: 1, max: 31, question: true},
	{name: "month", min: 1, max: 12, names: []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}},
	{name: "day-of-week", min: 1, max: 7, names: []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}, question: true},
}

// all returns the bit set with every value of f.
func (f cronField) all() uint64 {
	return (1<<(f.max+1) - 1) &^ (1<<f.min - 1)
}

// parseCron parses a 6-field Quartz cron expression.
func parseCron(s string) (cronExpr, error) {
	fields := strings.Fields(strings.ToUpper(s))
	switch n := len(fields); {
	case n == 5:
		return cronExpr{}, errors.New("5 fields; want 6 (second minute hour day-of-month month day-of-week): prepend a seconds field, e.g. 0 */5 * * * ?")
	case n == 7:
		return cronExpr{}, errors.New("7 fields: the year field is not supported; want 6 (second minute hour day-of-month month day-of-week)")
	case n != 6:
		return cronExpr{}, fmt.Errorf("%d fields; want 6 (second minute hour day-of-month month day-of-week)", n)
	}
	var sets [6]uint64
	for i, f := range cronFields {
		set, err := f.parse(fields[i])
		if err != nil {
			return cronExpr{}, fmt.Errorf("cron %s %q: %w", f.name, fields[i], err)
		}
		sets[i] = set
	}
	if sets[3] != cronFields[3].all() && sets[5] != cronFields[5].all() {
		return cronExpr{}, errors.New("cron day-of-month and day-of-week are both restricted; use ? in one of them")
	}
	return cronExpr{
		sec: sets[0], min: sets[1], hour: sets[2], dom: sets[3], month: sets[4], dow: sets[5],
		text: strings.Join(fields, " "),
	}, nil
}

// parse parses one upper-cased field: "?", or a comma-separated list of
// items, each "*", "v", "a-b" or one of those with "/step".
func (f cronField) parse(s string) (uint64, error) {
	if s == "?" {
		if !f.question {
			return 0, errors.New(`"?" is only allowed in day-of-month and day-of-week`)
		}
		return f.all(), nil
	}
	var set uint64
	for item := range strings.SplitSeq(s, ",") {
		if item == "" {
			return 0, errors.New("empty list element")
		}
		base, stepText, hasStep := strings.Cut(item, "/")
		var lo, hi int
		switch {
		case base == "*":
			lo, hi = f.min, f.max
		case base == "?":
			return 0, errors.New(`"?" must stand alone`)
		default:
			a, b, isRange := strings.Cut(base, "-")
			var err error
			if lo, err = f.value(a); err != nil {
				return 0, err
			}
			switch {
			case isRange:
				if hi, err = f.value(b); err != nil {
					return 0, err
				}
			case hasStep: // Quartz: "5/15" runs from 5 to the maximum
				hi = f.max
			default:
				hi = lo
			}
		}
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || stepText[0] == '+' || stepText[0] == '-' {
				return 0, fmt.Errorf("step %q is not a positive number", stepText)
			}
			if n < 1 || n > f.max-f.min+1 {
				return 0, fmt.Errorf("step %d outside 1-%d", n, f.max-f.min+1)
			}
			step = n
		}
		// A range with lo > hi wraps past the maximum (FRI-MON, 22-2).
		span := f.max - f.min + 1
		dist := (hi - lo + span) % span
		for off := 0; off <= dist; off += step {
			v := lo + off
			if v > f.max {
				v -= span
			}
			set |= 1 << v
		}
	}
	return set, nil
}

// value parses one number or name of f.
func (f cronField) value(s string) (int, error) {
	if s == "" {
		return 0, errors.New("missing value")
	}
	for i, name := range f.names {
		if s == name {
			return f.min + i, nil
		}
	}
	switch {
	case strings.Contains(s, "#"):
		return 0, errors.New(`"#" (nth day of week) is not supported`)
	case strings.HasSuffix(s, "W"):
		return 0, errors.New(`"W" (nearest weekday) is not supported`)
	case strings.Contains(s, "L"):
		return 0, errors.New(`"L" (last) is not supported`)
	}
	n, err := strconv.Atoi(s)
	if err != nil || !isDigit(s[0]) {
		if f.names != nil {
			return 0, fmt.Errorf("%q is neither %d-%d nor %s-%s", s, f.min, f.max, f.names[0], f.names[len(f.names)-1])
		}
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if n < f.min || n > f.max {
		if f.name == "day-of-week" {
			return 0, fmt.Errorf("%d outside 1-7 (Quartz: 1=SUN ... 7=SAT)", n)
		}
		return 0, fmt.Errorf("%d outside %d-%d", n, f.min, f.max)
	}
	return n, nil
}

// next returns the first matching second strictly after ref, or ok=false if
// there is none within cronHorizonYears. ref must be in UTC.
func (c cronExpr) next(ref time.Time) (time.Time, bool) {
	t := ref.Truncate(time.Second).Add(time.Second)
	limit := ref.AddDate(cronHorizonYears, 0, 0)
	for !t.After(limit) {
		y, mo, d := t.Date()
		h, mi, s := t.Clock()
		if c.month&(1<<mo) == 0 {
			if nm, ok := nextBit(c.month, int(mo)); ok {
				t = time.Date(y, time.Month(nm), 1, 0, 0, 0, 0, time.UTC)
			} else {
				t = time.Date(y+1, 1, 1, 0, 0, 0, 0, time.UTC)
			}
			continue
		}
		if c.dom&(1<<d) == 0 || c.dow&(1<<(int(t.Weekday())+1)) == 0 {
			t = time.Date(y, mo, d+1, 0, 0, 0, 0, time.UTC)
			continue
		}
		if c.hour&(1<<h) == 0 {
			if nh, ok := nextBit(c.hour, h); ok {
				t = time.Date(y, mo, d, nh, 0, 0, 0, time.UTC)
			} else {
				t = time.Date(y, mo, d+1, 0, 0, 0, 0, time.UTC)
			}
			continue
		}
		if c.min&(1<<mi) == 0 {
			if nmi, ok := nextBit(c.min, mi); ok {
				t = time.Date(y, mo, d, h, nmi, 0, 0, time.UTC)
			} else {
				t = time.Date(y, mo, d, h+1, 0, 0, 0, time.UTC)
			}
			continue
		}
		if c.sec&(1<<s) == 0 {
			if ns, ok := nextBit(c.sec, s); ok {
				t = time.Date(y, mo, d, h, mi, ns, 0, time.UTC)
			} else {
				t = time.Date(y, mo, d, h, mi+1, 0, 0, time.UTC)
			}
			continue
		}
		return t, true
	}
	return time.Time{}, false
}

// nextBit returns the smallest set bit of set above v.
func nextBit(set uint64, v int) (int, bool) {
	rest := set >> (v + 1) << (v + 1)
	if rest == 0 {
		return 0, false
	}
	return bits.TrailingZeros64(rest), true
}
