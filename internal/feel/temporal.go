package feel

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // IANA zones for @"…@Europe/Paris" without relying on the host's files

	"github.com/cockroachdb/apd/v3"
)

// FEEL's temporal values. All are immutable values; their String method
// gives the text FEEL's string() produces, which the matching constructor
// (and an @"…" literal) parses back.

// maxYear bounds years as FEEL does (nine digits).
const maxYear = 999_999_999

// maxDurationSeconds bounds days-and-time durations (about 31 million
// years), so that no arithmetic on them can overflow int64.
const maxDurationSeconds = 1_000_000_000_000_000

// Date is a FEEL date: a day of the proleptic Gregorian calendar, without
// a time zone.
type Date struct {
	year, month, day int
}

// NewDate returns the date, or ok=false when it does not exist.
func NewDate(year, month, day int) (Date, bool) {
	if year < -maxYear || year > maxYear || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return Date{}, false
	}
	return Date{year, month, day}, true
}

// Year returns the year.
func (d Date) Year() int { return d.year }

// Month returns the month, 1 to 12.
func (d Date) Month() int { return d.month }

// Day returns the day of the month, 1 to 31.
func (d Date) Day() int { return d.day }

// String returns the date as FEEL writes it, e.g. "2026-01-01".
func (d Date) String() string { return formatYear(d.year) + fmt.Sprintf("-%02d-%02d", d.month, d.day) }

func formatYear(y int) string {
	if y < 0 {
		return fmt.Sprintf("-%04d", -y)
	}
	return fmt.Sprintf("%04d", y)
}

// epochDays counts days since 1970-01-01.
func (d Date) epochDays() int64 { return daysFromCivil(int64(d.year), int64(d.month), int64(d.day)) }

// weekday returns 1 (Monday) to 7 (Sunday).
func (d Date) weekday() int { return int(floorMod(d.epochDays()+3, 7)) + 1 }

func dateFromDays(days int64) (Date, bool) {
	y, m, dd := civilFromDays(days)
	if y < -maxYear || y > maxYear {
		return Date{}, false
	}
	return Date{int(y), int(m), int(dd)}, true
}

// Time is a FEEL time of day with an optional UTC offset or IANA zone.
type Time struct {
	hour, minute, second, nano int
	hasOffset                  bool
	offset                     int    // seconds east of UTC, when hasOffset
	zone                       string // IANA zone id, or ""
}

// Hour returns the hour, 0 to 23.
func (t Time) Hour() int { return t.hour }

// Minute returns the minute.
func (t Time) Minute() int { return t.minute }

// Second returns the whole second.
func (t Time) Second() int { return t.second }

// Nanosecond returns the fraction of the second in nanoseconds.
func (t Time) Nanosecond() int { return t.nano }

// Offset returns the UTC offset in seconds, if the time has a fixed offset.
func (t Time) Offset() (seconds int, ok bool) { return t.offset, t.hasOffset }

// Zone returns the IANA zone id, or "".
func (t Time) Zone() string { return t.zone }

// String returns the time as FEEL writes it, e.g. "10:30:00", "10:30:00.5+02:00", "10:30:00@Europe/Paris".
func (t Time) String() string {
	s := fmt.Sprintf("%02d:%02d:%02d", t.hour, t.minute, t.second)
	if t.nano != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%09d", t.nano), "0")
	}
	switch {
	case t.zone != "":
		s += "@" + t.zone
	case t.hasOffset:
		s += formatOffset(t.offset)
	}
	return s
}

func formatOffset(off int) string {
	if off == 0 {
		return "Z"
	}
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	s := fmt.Sprintf("%s%02d:%02d", sign, off/3600, off/60%60)
	if off%60 != 0 {
		s += fmt.Sprintf(":%02d", off%60)
	}
	return s
}

// secOfDay returns the local seconds since midnight.
func (t Time) secOfDay() int64 { return int64(t.hour*3600 + t.minute*60 + t.second) }

// hasTZ reports whether the time carries an offset or a zone.
func (t Time) hasTZ() bool { return t.hasOffset || t.zone != "" }

// offsetOn returns the UTC offset in force on day d (zone times use the
// zone's rules on that day).
func (t Time) offsetOn(d Date) int {
	if t.hasOffset {
		return t.offset
	}
	if t.zone == "" {
		return 0
	}
	loc := loadZone(t.zone)
	if loc == nil {
		return 0
	}
	y := d.year
	if y < -200000 || y > 200000 {
		y = 2000 // zone rules are meaningless that far out
	}
	_, off := time.Date(y, time.Month(d.month), d.day, t.hour, t.minute, t.second, 0, loc).Zone()
	return off
}

func (t Time) withSecOfDay(sec int64, nano int) Time {
	sec = floorMod(sec, 86400)
	t.hour, t.minute, t.second, t.nano = int(sec/3600), int(sec/60%60), int(sec%60), nano
	return t
}

// DateTime is a FEEL date and time, with an optional offset or zone.
type DateTime struct {
	date Date
	time Time
}

// Date returns the date part.
func (dt DateTime) Date() Date { return dt.date }

// Time returns the time part, with the offset or zone.
func (dt DateTime) Time() Time { return dt.time }

// String returns e.g. "2026-01-01T10:30:00Z".
func (dt DateTime) String() string { return dt.date.String() + "T" + dt.time.String() }

// localNanos returns seconds and nanoseconds since 1970-01-01T00:00 local time.
func (dt DateTime) localSeconds() int64 { return dt.date.epochDays()*86400 + dt.time.secOfDay() }

// instant returns UTC seconds since the epoch; ok is false without a time zone.
func (dt DateTime) instant() (int64, bool) {
	if !dt.time.hasTZ() {
		return dt.localSeconds(), false
	}
	return dt.localSeconds() - int64(dt.time.offsetOn(dt.date)), true
}

// dateTimeFromLocal builds the date-time at local seconds sec, keeping t's zone.
func dateTimeFromLocal(sec int64, nano int, t Time) (DateTime, bool) {
	d, ok := dateFromDays(floorDiv(sec, 86400))
	if !ok {
		return DateTime{}, false
	}
	return DateTime{date: d, time: t.withSecOfDay(floorMod(sec, 86400), nano)}, true
}

// Duration is a FEEL days-and-time duration, exact to the nanosecond.
type Duration struct {
	sec  int64 // whole seconds; same sign as nano
	nano int32
}

// NewDuration returns a days-and-time duration of sec seconds and nano nanoseconds.
func NewDuration(sec int64, nano int) (Duration, bool) {
	return durationOf(sec, int64(nano))
}

func durationOf(sec, nano int64) (Duration, bool) {
	sec += nano / 1e9
	nano %= 1e9
	if sec > 0 && nano < 0 {
		sec--
		nano += 1e9
	} else if sec < 0 && nano > 0 {
		sec++
		nano -= 1e9
	}
	if sec > maxDurationSeconds || sec < -maxDurationSeconds {
		return Duration{}, false
	}
	return Duration{sec: sec, nano: int32(nano)}, true
}

// Seconds returns the whole seconds of the duration.
func (d Duration) Seconds() int64 { return d.sec }

// Nanoseconds returns the nanoseconds beyond Seconds, with the same sign.
func (d Duration) Nanoseconds() int { return int(d.nano) }

func (d Duration) cmp(o Duration) int {
	switch {
	case d.sec < o.sec:
		return -1
	case d.sec > o.sec:
		return 1
	case d.nano < o.nano:
		return -1
	case d.nano > o.nano:
		return 1
	}
	return 0
}

func (d Duration) neg() Duration { return Duration{-d.sec, -d.nano} }

// decimal returns the duration in seconds.
func (d Duration) decimal() *apd.Decimal {
	sec, nano := d.sec, int64(d.nano)
	sign := ""
	if sec < 0 || nano < 0 {
		sign, sec, nano = "-", -sec, -nano
	}
	x, _, _ := apd.NewFromString(fmt.Sprintf("%s%d.%09d", sign, sec, nano))
	r, _ := new(apd.Decimal).Reduce(x)
	return r
}

// durationFromDecimal truncates seconds to nanoseconds.
func durationFromDecimal(s *apd.Decimal) (Duration, bool) {
	ns := new(apd.Decimal)
	c := decCtx
	c.Rounding = apd.RoundDown
	if _, err := c.Mul(ns, s, apd.New(1, 9)); err != nil {
		return Duration{}, false
	}
	if _, err := c.RoundToIntegralValue(ns, ns); err != nil {
		return Duration{}, false
	}
	sec, rem := new(apd.Decimal), new(apd.Decimal)
	if _, err := c.QuoInteger(sec, ns, apd.New(1, 9)); err != nil {
		return Duration{}, false
	}
	if _, err := c.Rem(rem, ns, apd.New(1, 9)); err != nil {
		return Duration{}, false
	}
	si, err1 := sec.Int64()
	ni, err2 := rem.Int64()
	if err1 != nil || err2 != nil {
		return Duration{}, false
	}
	return durationOf(si, ni)
}

// String returns e.g. "P1DT2H30M", "PT0.5S", "-P2D", "PT0S".
func (d Duration) String() string {
	if d.sec == 0 && d.nano == 0 {
		return "PT0S"
	}
	var b strings.Builder
	sec, nano := d.sec, int64(d.nano)
	if sec < 0 || nano < 0 {
		b.WriteByte('-')
		sec, nano = -sec, -nano
	}
	b.WriteByte('P')
	days, h, m, s := sec/86400, sec/3600%24, sec/60%60, sec%60
	if days > 0 {
		fmt.Fprintf(&b, "%dD", days)
	}
	if h > 0 || m > 0 || s > 0 || nano > 0 {
		b.WriteByte('T')
		if h > 0 {
			fmt.Fprintf(&b, "%dH", h)
		}
		if m > 0 {
			fmt.Fprintf(&b, "%dM", m)
		}
		if s > 0 || nano > 0 {
			fmt.Fprintf(&b, "%d", s)
			if nano > 0 {
				b.WriteString(strings.TrimRight(fmt.Sprintf(".%09d", nano), "0"))
			}
			b.WriteByte('S')
		}
	}
	return b.String()
}

// YearsMonths is a FEEL years-and-months duration.
type YearsMonths struct {
	months int64
}

// NewYearsMonths returns a years-and-months duration of the given months.
func NewYearsMonths(months int64) YearsMonths { return YearsMonths{months} }

// Months returns the total number of months.
func (y YearsMonths) Months() int64 { return y.months }

// String returns e.g. "P1Y2M", "-P3M", "P0M".
func (y YearsMonths) String() string {
	m := y.months
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	switch {
	case m == 0:
		return "P0M"
	case m%12 == 0:
		return fmt.Sprintf("%sP%dY", sign, m/12)
	case m < 12:
		return fmt.Sprintf("%sP%dM", sign, m)
	}
	return fmt.Sprintf("%sP%dY%dM", sign, m/12, m%12)
}

// ---- parsing ----

// ParseDate parses "YYYY-MM-DD" (the year may have a sign and up to nine digits).
func ParseDate(s string) (Date, error) {
	d, ok := parseDate(s)
	if !ok {
		return Date{}, fmt.Errorf("feel: invalid date %q", s)
	}
	return d, nil
}

// ParseTime parses "hh:mm:ss[.fff][Z|±hh:mm|@zone]".
func ParseTime(s string) (Time, error) {
	t, ok := parseTime(s)
	if !ok {
		return Time{}, fmt.Errorf("feel: invalid time %q", s)
	}
	return t, nil
}

// ParseDateTime parses "YYYY-MM-DDThh:mm:ss[.fff][Z|±hh:mm|@zone]".
func ParseDateTime(s string) (DateTime, error) {
	dt, ok := parseDateTime(s, false)
	if !ok {
		return DateTime{}, fmt.Errorf("feel: invalid date and time %q", s)
	}
	return dt, nil
}

// ParseDuration parses an ISO 8601 duration into a Duration ("P1DT2H")
// or a YearsMonths ("P1Y2M").
func ParseDuration(s string) (any, error) {
	v := parseDuration(s)
	if v == nil {
		return nil, fmt.Errorf("feel: invalid duration %q", s)
	}
	return v, nil
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func parseDate(s string) (Date, bool) {
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	parts := strings.Split(s, "-")
	if len(parts) != 3 || len(parts[0]) < 4 || len(parts[0]) > 9 || len(parts[1]) != 2 || len(parts[2]) != 2 ||
		!digits(parts[0]) || !digits(parts[1]) || !digits(parts[2]) {
		return Date{}, false
	}
	if len(parts[0]) > 4 && parts[0][0] == '0' {
		return Date{}, false
	}
	y, _ := strconv.Atoi(parts[0])
	m, _ := strconv.Atoi(parts[1])
	d, _ := strconv.Atoi(parts[2])
	if neg {
		y = -y
	}
	return NewDate(y, m, d)
}

func parseTime(s string) (Time, bool) {
	if len(s) < 8 || s[2] != ':' || s[5] != ':' || !digits(s[0:2]) || !digits(s[3:5]) || !digits(s[6:8]) {
		return Time{}, false
	}
	var t Time
	t.hour, _ = strconv.Atoi(s[0:2])
	t.minute, _ = strconv.Atoi(s[3:5])
	t.second, _ = strconv.Atoi(s[6:8])
	rest := s[8:]
	if strings.HasPrefix(rest, ".") {
		i := 1
		for i < len(rest) && isDigit(rest[i]) {
			i++
		}
		frac := rest[1:i]
		if frac == "" {
			return Time{}, false
		}
		if len(frac) > 9 {
			frac = frac[:9]
		}
		frac += strings.Repeat("0", 9-len(frac))
		t.nano, _ = strconv.Atoi(frac)
		rest = rest[i:]
	}
	if t.hour == 24 && t.minute == 0 && t.second == 0 && t.nano == 0 {
		t.hour = 0
	}
	if t.hour > 23 || t.minute > 59 || t.second > 59 {
		return Time{}, false
	}
	switch {
	case rest == "":
	case rest == "Z" || rest == "z":
		t.hasOffset = true
	case rest[0] == '+' || rest[0] == '-':
		off, ok := parseOffset(rest)
		if !ok {
			return Time{}, false
		}
		t.hasOffset, t.offset = true, off
	case rest[0] == '@':
		zone := rest[1:]
		if loadZone(zone) == nil {
			return Time{}, false
		}
		t.zone = zone
	default:
		return Time{}, false
	}
	return t, true
}

// parseOffset parses ±hh:mm[:ss].
func parseOffset(s string) (int, bool) {
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	s = s[1:]
	if (len(s) != 5 && len(s) != 8) || s[2] != ':' || !digits(s[0:2]) || !digits(s[3:5]) {
		return 0, false
	}
	h, _ := strconv.Atoi(s[0:2])
	m, _ := strconv.Atoi(s[3:5])
	sec := 0
	if len(s) == 8 {
		if s[5] != ':' || !digits(s[6:8]) {
			return 0, false
		}
		sec, _ = strconv.Atoi(s[6:8])
	}
	if h > 18 || m > 59 || sec > 59 {
		return 0, false
	}
	return sign * (h*3600 + m*60 + sec), true
}

// parseDateTime parses date'T'time; with dateOnly it also accepts a bare date (midnight).
func parseDateTime(s string, dateOnly bool) (DateTime, bool) {
	i := strings.IndexAny(s, "Tt")
	if i < 0 {
		if !dateOnly {
			return DateTime{}, false
		}
		d, ok := parseDate(s)
		return DateTime{date: d}, ok
	}
	d, ok := parseDate(s[:i])
	if !ok {
		return DateTime{}, false
	}
	t, ok := parseTime(s[i+1:])
	if !ok {
		return DateTime{}, false
	}
	if s[i+1:i+3] == "24" { // 24:00:00 is midnight of the next day
		nd, ok := dateFromDays(d.epochDays() + 1)
		if !ok {
			return DateTime{}, false
		}
		d = nd
	}
	return DateTime{date: d, time: t}, true
}

// parseDuration returns a Duration, a YearsMonths, or nil.
func parseDuration(s string) any {
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	if !strings.HasPrefix(s, "P") || len(s) < 3 {
		return nil
	}
	s = s[1:]
	var years, months, days, hours, minutes int64
	var secs *apd.Decimal
	seen := map[byte]bool{}
	inTime := false
	order := "YMDHMS"
	last := -1
	for s != "" {
		if s[0] == 'T' {
			if inTime || len(s) == 1 {
				return nil
			}
			inTime = true
			s = s[1:]
			continue
		}
		i := 0
		for i < len(s) && (isDigit(s[i]) || s[i] == '.') {
			i++
		}
		if i == 0 || i == len(s) {
			return nil
		}
		num, unit := s[:i], s[i]
		s = s[i+1:]
		pos := strings.IndexByte(order, unit)
		if unit == 'M' && inTime {
			pos = 4
		}
		if pos < 0 || pos <= last || (pos >= 3) != inTime {
			return nil
		}
		last = pos
		key := order[pos]
		if pos == 4 {
			key = 'm'
		}
		if seen[key] {
			return nil
		}
		seen[key] = true
		if pos == 5 {
			d, _, err := apd.NewFromString(num)
			if err != nil || !validNumber(num) {
				return nil
			}
			secs = d
			continue
		}
		if !digits(num) || len(num) > 15 {
			return nil
		}
		v, _ := strconv.ParseInt(num, 10, 64)
		switch pos {
		case 0:
			years = v
		case 1:
			months = v
		case 2:
			days = v
		case 3:
			hours = v
		case 4:
			minutes = v
		}
	}
	if last < 0 {
		return nil
	}
	ymPart := seen['Y'] || seen['M']
	dtPart := seen['D'] || seen['H'] || seen['m'] || seen['S']
	if ymPart && dtPart {
		return nil
	}
	if ymPart {
		total := years*12 + months
		if years > maxYear || total > 12*maxYear {
			return nil
		}
		if neg {
			total = -total
		}
		return YearsMonths{total}
	}
	if days > maxDurationSeconds/86400 || hours > maxDurationSeconds/3600 || minutes > maxDurationSeconds/60 {
		return nil
	}
	total := new(apd.Decimal).SetInt64(days*86400 + hours*3600 + minutes*60)
	if secs != nil {
		if _, err := decCtx.Add(total, total, secs); err != nil {
			return nil
		}
	}
	if neg {
		total.Neg(total)
	}
	d, ok := durationFromDecimal(total)
	if !ok {
		return nil
	}
	return d
}

// parseTemporal reads the text of an @"…" literal.
func parseTemporal(s string) any {
	if strings.HasPrefix(s, "P") || strings.HasPrefix(s, "-P") {
		return parseDuration(s)
	}
	if len(s) >= 3 && s[2] == ':' {
		if t, ok := parseTime(s); ok {
			return t
		}
		return nil
	}
	if strings.ContainsAny(s, "Tt") {
		if dt, ok := parseDateTime(s, false); ok {
			return dt
		}
		return nil
	}
	if len(s) >= 3 && s[2] == ':' {
		if t, ok := parseTime(s); ok {
			return t
		}
		return nil
	}
	if d, ok := parseDate(s); ok {
		return d
	}
	return nil
}

var zoneCache sync.Map // zone id → *time.Location (nil entries for unknown ids are not cached)

func loadZone(id string) *time.Location {
	if id == "" || len(id) > 64 || id == "Local" || strings.Contains(id, "..") || strings.HasPrefix(id, "/") ||
		strings.ContainsAny(id, " \t\n\\") {
		return nil
	}
	if v, ok := zoneCache.Load(id); ok {
		return v.(*time.Location)
	}
	loc, err := time.LoadLocation(id)
	if err != nil {
		return nil
	}
	zoneCache.Store(id, loc)
	return loc
}

// fromGoTime converts a Go time to a FEEL date and time with its offset.
func fromGoTime(t time.Time) DateTime {
	_, off := t.Zone()
	return DateTime{
		date: Date{t.Year(), int(t.Month()), t.Day()},
		time: Time{hour: t.Hour(), minute: t.Minute(), second: t.Second(), nano: t.Nanosecond(), hasOffset: true, offset: off},
	}
}

// ---- calendar arithmetic ----

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// daysFromCivil counts days from 1970-01-01 to y-m-d (H. Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// addMonths moves d by n months, clamping the day to the month's length.
func addMonths(d Date, n int64) (Date, bool) {
	total := int64(d.year)*12 + int64(d.month-1) + n
	y, m := floorDiv(total, 12), floorMod(total, 12)+1
	if y < -maxYear || y > maxYear {
		return Date{}, false
	}
	day := d.day
	if dm := daysIn(int(y), int(m)); day > dm {
		day = dm
	}
	return Date{int(y), int(m), day}, true
}

// monthsBetween is the whole months from the date of a to the date of b
// (truncated toward zero; the time of day does not count).
func monthsBetween(a, b DateTime) int64 {
	m := (int64(b.date.year)*12 + int64(b.date.month)) - (int64(a.date.year)*12 + int64(a.date.month))
	if m > 0 && b.date.day < a.date.day {
		m--
	} else if m < 0 && b.date.day > a.date.day {
		m++
	}
	return m
}

func dayOfYear(d Date) int {
	return int(d.epochDays()-daysFromCivil(int64(d.year), 1, 1)) + 1
}

// isoWeek returns the ISO 8601 week number of d.
func isoWeek(d Date) int {
	wd := d.weekday()
	w := (dayOfYear(d) - wd + 10) / 7
	if w < 1 {
		return weeksInYear(d.year - 1)
	}
	if w > weeksInYear(d.year) {
		return 1
	}
	return w
}

func weeksInYear(y int) int {
	p := func(y int64) int64 { return floorMod(y+floorDiv(y, 4)-floorDiv(y, 100)+floorDiv(y, 400), 7) }
	if p(int64(y)) == 4 || p(int64(y)-1) == 3 {
		return 53
	}
	return 52
}

var weekdayNames = [...]string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

var monthNames = [...]string{"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"}
