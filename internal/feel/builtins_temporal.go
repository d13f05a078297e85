package feel

import (
	"github.com/cockroachdb/apd/v3"
)

// Conversion functions for the temporal types, and the calendar
// functions. now() and today() read the evaluation's clock: the Scope's
// when it is a Clock, else Options.Now, else time.Now.

func init() {
	register("date", "from|year, month, day", 1, 3, fnDate)
	register("date and time", "from|date, time", 1, 2, fnDateTime)
	register("time", "from|hour, minute, second, offset", 1, 4, fnTime)
	register("duration", "from", 1, 1, func(_ *evaluator, a []any) any {
		s, ok := a[0].(string)
		if !ok {
			return nil
		}
		return parseDuration(s)
	})
	register("years and months duration", "from, to", 2, 2, func(_ *evaluator, a []any) any {
		from, ok1 := toDateTime(a[0])
		to, ok2 := toDateTime(a[1])
		if !ok1 || !ok2 {
			return nil
		}
		return YearsMonths{monthsBetween(from, to)}
	})
	register("day of year", "date", 1, 1, dateFn(func(d Date) any { return intDec(dayOfYear(d)) }))
	register("day of week", "date", 1, 1, dateFn(func(d Date) any { return weekdayNames[d.weekday()-1] }))
	register("month of year", "date", 1, 1, dateFn(func(d Date) any { return monthNames[d.month-1] }))
	register("week of year", "date", 1, 1, dateFn(func(d Date) any { return intDec(isoWeek(d)) }))
	register("now", "", 0, 0, func(ev *evaluator, _ []any) any { return fromGoTime(ev.clock()) })
	register("today", "", 0, 0, func(ev *evaluator, _ []any) any { return fromGoTime(ev.clock()).date })
}

// toDateTime widens a date to midnight; a date and time stays.
func toDateTime(v any) (DateTime, bool) {
	switch x := v.(type) {
	case Date:
		return asDateTime(x, false), true
	case DateTime:
		return x, true
	}
	return DateTime{}, false
}

func dateFn(f func(Date) any) func(*evaluator, []any) any {
	return func(_ *evaluator, a []any) any {
		switch x := a[0].(type) {
		case Date:
			return f(x)
		case DateTime:
			return f(x.date)
		}
		return nil
	}
}

func fnDate(_ *evaluator, a []any) any {
	if len(a) == 1 {
		switch x := a[0].(type) {
		case string:
			if d, ok := parseDate(x); ok {
				return d
			}
		case Date:
			return x
		case DateTime:
			return x.date
		}
		return nil
	}
	if len(a) != 3 {
		return nil
	}
	y, ok1 := intArg(a[0])
	m, ok2 := intArg(a[1])
	d, ok3 := intArg(a[2])
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	if r, ok := NewDate(y, m, d); ok {
		return r
	}
	return nil
}

func fnDateTime(_ *evaluator, a []any) any {
	if len(a) == 1 {
		switch x := a[0].(type) {
		case string:
			if dt, ok := parseDateTime(x, true); ok {
				return dt
			}
		case DateTime:
			return x
		case Date:
			return asDateTime(x, false)
		}
		return nil
	}
	var d Date
	switch x := a[0].(type) {
	case Date:
		d = x
	case DateTime:
		d = x.date
	default:
		return nil
	}
	t, ok := a[1].(Time)
	if !ok {
		return nil
	}
	return DateTime{date: d, time: t}
}

func fnTime(_ *evaluator, a []any) any {
	if len(a) == 1 {
		switch x := a[0].(type) {
		case string:
			if t, ok := parseTime(x); ok {
				return t
			}
			if dt, ok := parseDateTime(x, false); ok {
				return dt.time
			}
		case Time:
			return x
		case DateTime:
			return x.time
		case Date:
			return Time{hasOffset: true}
		}
		return nil
	}
	if len(a) < 3 {
		return nil
	}
	h, ok1 := intArg(a[0])
	m, ok2 := intArg(a[1])
	sd, ok3 := a[2].(*apd.Decimal)
	if !ok1 || !ok2 || !ok3 || h < 0 || h > 23 || m < 0 || m > 59 || sd.Negative {
		return nil
	}
	secs, ok := durationFromDecimal(sd)
	if !ok || secs.sec > 59 {
		return nil
	}
	t := Time{hour: h, minute: m, second: int(secs.sec), nano: int(secs.nano)}
	if len(a) > 3 && a[3] != nil {
		off, ok := a[3].(Duration)
		if !ok || off.nano != 0 || off.sec > 18*3600 || off.sec < -18*3600 {
			return nil
		}
		t.hasOffset, t.offset = true, int(off.sec)
	}
	return t
}
