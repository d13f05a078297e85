package feel

import (
	"github.com/cockroachdb/apd/v3"
)

// Conversion functions for the temporal types, and the calendar
// functions. now() and today() read the evaluation's clock: the Scope's
// when it is a Clock, else Options.Now, else time.Now.

func init() {
	register("date", "from:any|year:number, month:number, day:number", fnDate)
	register("date and time", "from:any|date:date, time:time", fnDateTime)
	register("time", "from:any|hour:number, minute:number, second:number, [offset:duration?]", fnTime)
	register("duration", "from:string", func(ev *evaluator, a []any) any {
		if d := parseDuration(a[0].(string)); d != nil {
			return d
		}
		return ev.errorf("duration: %q is not a valid duration", a[0])
	})
	register("years and months duration", "from:date, to:date", func(_ *evaluator, a []any) any {
		from, _ := toDateTime(a[0])
		to, _ := toDateTime(a[1])
		return YearsMonths{monthsBetween(from, to)}
	})
	register("day of year", "date:date", dateFn(func(d Date) any { return intDec(dayOfYear(d)) }))
	register("day of week", "date:date", dateFn(func(d Date) any { return weekdayNames[d.weekday()-1] }))
	register("month of year", "date:date", dateFn(func(d Date) any { return monthNames[d.month-1] }))
	register("week of year", "date:date", dateFn(func(d Date) any { return intDec(isoWeek(d)) }))
	register("now", "", func(ev *evaluator, _ []any) any { return fromGoTime(ev.clock()) })
	register("today", "", func(ev *evaluator, _ []any) any { return fromGoTime(ev.clock()).date })
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

func fnDate(ev *evaluator, a []any) any {
	if len(a) == 1 {
		switch x := a[0].(type) {
		case string:
			if d, ok := parseDate(x); ok {
				return d
			}
			return ev.errorf("date: %q is not a valid date", x)
		case Date:
			return x
		case DateTime:
			return x.date
		}
		return ev.errorf("date: from must be a string, a date or a date and time, not a %s", typeName(a[0]))
	}
	y, ok1 := intArg(a[0])
	m, ok2 := intArg(a[1])
	d, ok3 := intArg(a[2])
	if ok1 && ok2 && ok3 {
		if r, ok := NewDate(y, m, d); ok {
			return r
		}
	}
	return ev.errorf("date: %s-%s-%s is not a valid date", numText(a[0].(*apd.Decimal)), numText(a[1].(*apd.Decimal)), numText(a[2].(*apd.Decimal)))
}

func fnDateTime(ev *evaluator, a []any) any {
	if len(a) == 1 {
		switch x := a[0].(type) {
		case string:
			if dt, ok := parseDateTime(x, true); ok {
				return dt
			}
			return ev.errorf("date and time: %q is not a valid date and time", x)
		case DateTime:
			return x
		case Date:
			return asDateTime(x, false)
		}
		return ev.errorf("date and time: from must be a string, a date or a date and time, not a %s", typeName(a[0]))
	}
	var d Date
	switch x := a[0].(type) {
	case Date:
		d = x
	case DateTime:
		d = x.date
	}
	return DateTime{date: d, time: a[1].(Time)}
}

func fnTime(ev *evaluator, a []any) any {
	if len(a) == 1 {
		switch x := a[0].(type) {
		case string:
			if t, ok := parseTime(x); ok {
				return t
			}
			return ev.errorf("time: %q is not a valid time", x)
		case Time:
			return x
		case DateTime:
			return x.time
		case Date:
			return Time{hasOffset: true}
		}
		return ev.errorf("time: from must be a string, a time, a date or a date and time, not a %s", typeName(a[0]))
	}
	h, ok1 := intArg(a[0])
	m, ok2 := intArg(a[1])
	sd := a[2].(*apd.Decimal)
	secs, ok3 := durationFromDecimal(sd)
	if !ok1 || !ok2 || !ok3 || h < 0 || h > 23 || m < 0 || m > 59 || sd.Negative || secs.sec > 59 {
		return ev.errorf("time: %s:%s:%s is not a valid time", numText(a[0].(*apd.Decimal)), numText(a[1].(*apd.Decimal)), numText(sd))
	}
	t := Time{hour: h, minute: m, second: int(secs.sec), nano: int(secs.nano)}
	if len(a) > 3 && a[3] != nil {
		off := a[3].(Duration)
		if off.nano != 0 || off.sec > 18*3600 || off.sec < -18*3600 {
			return ev.errorf("time: offset %s is not a valid UTC offset", off)
		}
		t.hasOffset, t.offset = true, int(off.sec)
	}
	return t
}
