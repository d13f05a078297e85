package feel

import (
	"github.com/cockroachdb/apd/v3"
)

// Arithmetic, comparison and properties of temporal values. Every
// function here returns nil (FEEL null) for operand combinations the
// spec does not define and for results out of range.

// epochDate anchors the offsets of zone times, which have no date.
var epochDate = Date{1970, 1, 1}

// asDateTime widens a date to a date and time at midnight; with utc it
// gets a zero offset (to meet a date and time that has a time zone).
func asDateTime(d Date, utc bool) DateTime {
	return DateTime{date: d, time: Time{hasOffset: utc}}
}

// addDuration moves dt by d, on the local time line.
func addDuration(dt DateTime, d Duration) any {
	sec := dt.localSeconds() + d.sec
	nano := int64(dt.time.nano) + int64(d.nano)
	sec += floorDiv(nano, 1e9)
	nano = floorMod(nano, 1e9)
	r, ok := dateTimeFromLocal(sec, int(nano), dt.time)
	if !ok {
		return nil
	}
	return r
}

func addYM(dt DateTime, months int64) any {
	d, ok := addMonths(dt.date, months)
	if !ok {
		return nil
	}
	return DateTime{date: d, time: dt.time}
}

func dateOf(v any) any {
	if dt, ok := v.(DateTime); ok {
		return dt.date
	}
	return nil
}

// subDateTimes returns a - b as a duration: by instants when both have a
// time zone, by local time when neither has.
func subDateTimes(a, b DateTime) any {
	ia, tza := a.instant()
	ib, tzb := b.instant()
	if tza != tzb {
		return nil
	}
	d, ok := durationOf(ia-ib, int64(a.time.nano)-int64(b.time.nano))
	if !ok {
		return nil
	}
	return d
}

// timeSeconds returns a time's seconds of day, in UTC when it has a zone.
func timeSeconds(t Time) (int64, bool) {
	if !t.hasTZ() {
		return t.secOfDay(), false
	}
	return t.secOfDay() - int64(t.offsetOn(epochDate)), true
}

// temporalArith applies + - * / when an operand is temporal.
func temporalArith(op string, a, b any) any {
	switch op {
	case "+":
		switch x := a.(type) {
		case Duration:
			switch y := b.(type) {
			case Duration:
				return durOrNil(durationOf(x.sec+y.sec, int64(x.nano)+int64(y.nano)))
			case Date, DateTime, Time:
				return temporalArith("+", b, a)
			}
		case YearsMonths:
			switch y := b.(type) {
			case YearsMonths:
				return ymOrNil(x.months + y.months)
			case Date, DateTime:
				return temporalArith("+", b, a)
			}
		case Date:
			switch y := b.(type) {
			case Duration:
				return dateOf(addDuration(asDateTime(x, false), y))
			case YearsMonths:
				if d, ok := addMonths(x, y.months); ok {
					return d
				}
			}
		case DateTime:
			switch y := b.(type) {
			case Duration:
				return addDuration(x, y)
			case YearsMonths:
				return addYM(x, y.months)
			}
		case Time:
			if y, ok := b.(Duration); ok {
				sec := x.secOfDay() + y.sec%86400
				nano := int64(x.nano) + int64(y.nano)
				sec += floorDiv(nano, 1e9)
				return x.withSecOfDay(sec, int(floorMod(nano, 1e9)))
			}
		}
	case "-":
		switch x := a.(type) {
		case Duration:
			if y, ok := b.(Duration); ok {
				return durOrNil(durationOf(x.sec-y.sec, int64(x.nano)-int64(y.nano)))
			}
		case YearsMonths:
			if y, ok := b.(YearsMonths); ok {
				return ymOrNil(x.months - y.months)
			}
		case Date:
			switch y := b.(type) {
			case Duration, YearsMonths:
				return temporalArith("+", a, negTemporal(y))
			case Date:
				return durOrNil(durationOf((x.epochDays()-y.epochDays())*86400, 0))
			case DateTime:
				// A date is midnight UTC against a date and time with a
				// time zone; against a local one the difference is undefined.
				if !y.time.hasTZ() {
					return nil
				}
				return subDateTimes(asDateTime(x, true), y)
			}
		case DateTime:
			switch y := b.(type) {
			case Duration, YearsMonths:
				return temporalArith("+", a, negTemporal(y))
			case DateTime:
				return subDateTimes(x, y)
			case Date:
				if !x.time.hasTZ() {
					return nil
				}
				return subDateTimes(x, asDateTime(y, true))
			}
		case Time:
			switch y := b.(type) {
			case Duration:
				return temporalArith("+", a, y.neg())
			case Time:
				sa, tza := timeSeconds(x)
				sb, tzb := timeSeconds(y)
				if tza != tzb {
					return nil
				}
				return durOrNil(durationOf(sa-sb, int64(x.nano)-int64(y.nano)))
			}
		}
	case "*":
		if n, ok := a.(*apd.Decimal); ok {
			a, b = b, n
		}
		n, ok := b.(*apd.Decimal)
		if !ok {
			return nil
		}
		switch x := a.(type) {
		case Duration:
			z := new(apd.Decimal)
			if _, err := decCtx.Mul(z, x.decimal(), n); err != nil {
				return nil
			}
			return durOrNil(durationFromDecimal(z))
		case YearsMonths:
			return ymScale(x, n, false)
		}
	case "/":
		switch x := a.(type) {
		case Duration:
			switch y := b.(type) {
			case *apd.Decimal:
				if y.IsZero() {
					return nil
				}
				z := new(apd.Decimal)
				if _, err := decCtx.Quo(z, x.decimal(), y); err != nil {
					return nil
				}
				return durOrNil(durationFromDecimal(z))
			case Duration:
				if y.sec == 0 && y.nano == 0 {
					return nil
				}
				z := new(apd.Decimal)
				cond, err := decCtx.Quo(z, x.decimal(), y.decimal())
				return decResult(z, cond, err)
			}
		case YearsMonths:
			switch y := b.(type) {
			case *apd.Decimal:
				if y.IsZero() {
					return nil
				}
				return ymScale(x, y, true)
			case YearsMonths:
				if y.months == 0 {
					return nil
				}
				z := new(apd.Decimal)
				cond, err := decCtx.Quo(z, apd.New(x.months, 0), apd.New(y.months, 0))
				return decResult(z, cond, err)
			}
		}
	}
	return nil
}

// ymScale multiplies (or divides) a years-and-months duration by n,
// truncating to whole months.
func ymScale(x YearsMonths, n *apd.Decimal, div bool) any {
	z := new(apd.Decimal)
	var err error
	if div {
		_, err = decCtx.Quo(z, apd.New(x.months, 0), n)
	} else {
		_, err = decCtx.Mul(z, apd.New(x.months, 0), n)
	}
	if err != nil {
		return nil
	}
	c := decCtx
	c.Rounding = apd.RoundDown
	if _, err := c.RoundToIntegralValue(z, z); err != nil {
		return nil
	}
	m, err := z.Int64()
	if err != nil || m > 12*maxYear || m < -12*maxYear {
		return nil
	}
	return YearsMonths{m}
}

// ymOrNil bounds years-and-months results to FEEL's nine-digit years.
func ymOrNil(months int64) any {
	if months > 12*maxYear || months < -12*maxYear {
		return nil
	}
	return YearsMonths{months}
}

func durOrNil(d Duration, ok bool) any {
	if !ok {
		return nil
	}
	return d
}

// negTemporal negates a duration; other values give nil.
func negTemporal(v any) any {
	switch x := v.(type) {
	case Duration:
		return x.neg()
	case YearsMonths:
		return YearsMonths{-x.months}
	}
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareTemporal orders two temporal values of one kind. ok is false for
// different kinds, and for a date and time (or time) with a time zone
// against one without.
func compareTemporal(a, b any) (int, bool) {
	switch x := a.(type) {
	case Date:
		if y, ok := b.(Date); ok {
			return cmpInt(x.epochDays(), y.epochDays()), true
		}
	case DateTime:
		if y, ok := b.(DateTime); ok {
			ix, tzx := x.instant()
			iy, tzy := y.instant()
			if tzx != tzy {
				return 0, false
			}
			// Whole seconds: FEEL compares times and date-times at the
			// resolution of their value, the second.
			return cmpInt(ix, iy), true
		}
	case Time:
		if y, ok := b.(Time); ok {
			sx, tzx := timeSeconds(x)
			sy, tzy := timeSeconds(y)
			if tzx != tzy {
				return 0, false
			}
			return cmpInt(sx, sy), true
		}
	case Duration:
		if y, ok := b.(Duration); ok {
			return x.cmp(y), true
		}
	case YearsMonths:
		if y, ok := b.(YearsMonths); ok {
			return cmpInt(x.months, y.months), true
		}
	}
	return 0, false
}

// isTemporal reports whether v is one of the temporal types.
func isTemporal(v any) bool {
	switch v.(type) {
	case Date, Time, DateTime, Duration, YearsMonths:
		return true
	}
	return false
}

func intDec64(n int64) *apd.Decimal { return new(apd.Decimal).SetInt64(n) }

// temporalProp reads a property such as year or time offset; ok is false
// for a name the type does not have.
func temporalProp(v any, name string) (any, bool) {
	switch x := v.(type) {
	case Date:
		switch name {
		case "year":
			return intDec(x.year), true
		case "month":
			return intDec(x.month), true
		case "day":
			return intDec(x.day), true
		case "weekday":
			return intDec(x.weekday()), true
		}
	case DateTime:
		if r, ok := temporalProp(x.date, name); ok {
			return r, true
		}
		return timeProp(x.time, x.date, name)
	case Time:
		return timeProp(x, epochDate, name)
	case Duration:
		sec, nano := x.sec, int64(x.nano)
		switch name {
		case "days":
			return intDec64(sec / 86400), true
		case "hours":
			return intDec64(sec / 3600 % 24), true
		case "minutes":
			return intDec64(sec / 60 % 60), true
		case "seconds":
			if nano == 0 {
				return intDec64(sec % 60), true
			}
			r, _ := new(apd.Decimal).Reduce(apd.New(sec%60*1e9+nano, -9))
			return r, true
		}
	case YearsMonths:
		switch name {
		case "years":
			return intDec64(x.months / 12), true
		case "months":
			return intDec64(x.months % 12), true
		}
	}
	return nil, false
}

func timeProp(t Time, d Date, name string) (any, bool) {
	switch name {
	case "hour":
		return intDec(t.hour), true
	case "minute":
		return intDec(t.minute), true
	case "second":
		if t.nano == 0 {
			return intDec(t.second), true
		}
		r, _ := new(apd.Decimal).Reduce(apd.New(int64(t.second)*1e9+int64(t.nano), -9))
		return r, true
	case "time offset":
		if !t.hasTZ() {
			return nil, true
		}
		return Duration{sec: int64(t.offsetOn(d))}, true
	case "timezone":
		if t.zone == "" {
			return nil, true
		}
		return t.zone, true
	}
	return nil, false
}
