package timer

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Limits on duration components. They keep every computation far from
// integer overflow while allowing anything a process model could mean.
const (
	maxYears  = 9999
	maxMonths = maxYears * 12
	maxDays   = maxYears * 366
	// maxClockSeconds is the largest whole number of seconds a
	// time.Duration holds.
	maxClockSeconds = math.MaxInt64 / int64(time.Second)
)

// duration is an ISO 8601 duration: calendar years and months, days (24h in
// UTC) and a clock part.
type duration struct {
	years, months, days int
	clock               time.Duration
}

// addTo returns t plus d: years, months and days by AddDate (which
// normalizes overflowing days, so Jan 31 + P1M is Mar 3 or Mar 2), then the
// clock part. All components are non-negative, so the result is never
// before t.
func (d duration) addTo(t time.Time) time.Time {
	return t.AddDate(d.years, d.months, d.days).Add(d.clock)
}

func (d duration) isZero() bool { return d == duration{} }

// calendar reports whether d has components of varying length.
func (d duration) calendar() bool { return d.years != 0 || d.months != 0 }

// designators in the order ISO 8601 requires them; the index is the rank.
// Indexes 0-3 belong before "T", 4-6 after it.
const designators = "YMWDHMS"

// parseDuration parses an ISO 8601 duration such as P1DT2H30M or PT0.5S.
func parseDuration(s string) (duration, error) {
	var d duration
	if s == "" {
		return d, errors.New("empty")
	}
	if s[0] == '-' {
		return d, errors.New("negative durations are not allowed")
	}
	if s[0] != 'P' && s[0] != 'p' {
		return d, errors.New(`must start with "P"`)
	}
	var (
		inTime    bool // after "T"
		timeComps int  // components after "T"
		last      = -1 // rank of the last designator
		weeks     int64
		days      int64
		secs      int64 // clock part, whole seconds
		nanos     int64 // clock part, fraction of the seconds
	)
	for i := 1; i < len(s); {
		c := s[i]
		if c == 'T' || c == 't' {
			if inTime {
				return d, errors.New(`more than one "T"`)
			}
			inTime = true
			i++
			continue
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		intPart, fracPart := s[i:j], ""
		hasFrac := false
		if j < len(s) && (s[j] == '.' || s[j] == ',') {
			hasFrac = true
			k := j + 1
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			fracPart = s[j+1 : k]
			j = k
		}
		if intPart == "" {
			if hasFrac {
				return d, errors.New("missing digit before the decimal point")
			}
			if isLetter(c) {
				return d, fmt.Errorf("missing number before %q", s[i:i+1])
			}
			return d, fmt.Errorf("unexpected character %q", s[i:i+1])
		}
		if hasFrac && fracPart == "" {
			return d, errors.New("missing digits after the decimal point")
		}
		if j == len(s) {
			return d, fmt.Errorf("number %q has no designator", s[i:j])
		}
		des := upper(s[j])
		rank := strings.IndexByte(designators, des)
		if inTime && des == 'M' {
			rank = 5 // minutes, not months
		}
		switch {
		case rank < 0 && isLetter(des):
			return d, fmt.Errorf("unknown designator %q", string(des))
		case rank < 0:
			return d, fmt.Errorf("unexpected character %q after number", s[j:j+1])
		case inTime && rank < 4:
			return d, fmt.Errorf("designator %q must come before \"T\"", string(des))
		case !inTime && rank >= 4:
			return d, fmt.Errorf("designator %q must come after \"T\"", string(des))
		case rank <= last:
			return d, fmt.Errorf("designator %q repeated or out of order", string(des))
		case hasFrac && rank != 6:
			return d, fmt.Errorf("fraction on %q: only seconds may have a fraction", string(des))
		}
		last = rank
		if len(intPart) > 18 {
			return d, fmt.Errorf("number %s too large", intPart)
		}
		n, _ := strconv.ParseInt(intPart, 10, 64) // ≤ 18 digits: cannot fail
		switch rank {
		case 0:
			if n > maxYears {
				return d, fmt.Errorf("%d years exceeds %d", n, maxYears)
			}
			d.years = int(n)
		case 1:
			if n > maxMonths {
				return d, fmt.Errorf("%d months exceeds %d", n, maxMonths)
			}
			d.months = int(n)
		case 2:
			if n > maxDays/7 {
				return d, fmt.Errorf("%d weeks exceeds %d", n, maxDays/7)
			}
			weeks = n
		case 3:
			if n > maxDays {
				return d, fmt.Errorf("%d days exceeds %d", n, maxDays)
			}
			days = n
		case 4, 5, 6:
			timeComps++
			unit := [...]int64{3600, 60, 1}[rank-4]
			if n > (maxClockSeconds-secs)/unit {
				return d, errors.New("hours, minutes and seconds exceed 292 years")
			}
			secs += n * unit
			if hasFrac {
				if len(fracPart) > 9 {
					return d, errors.New("more than 9 fractional digits")
				}
				f, _ := strconv.ParseInt(fracPart+strings.Repeat("0", 9-len(fracPart)), 10, 64)
				nanos = f
			}
		}
		i = j + 1
	}
	switch {
	case last < 0 && !inTime:
		return d, errors.New(`no components after "P"`)
	case inTime && timeComps == 0:
		return d, errors.New(`"T" must be followed by hours, minutes or seconds`)
	}
	if weeks*7+days > maxDays {
		return d, fmt.Errorf("%d days exceeds %d", weeks*7+days, maxDays)
	}
	d.days = int(weeks*7 + days)
	if secs > (math.MaxInt64-nanos)/int64(time.Second) {
		return d, errors.New("hours, minutes and seconds exceed 292 years")
	}
	d.clock = time.Duration(secs)*time.Second + time.Duration(nanos)
	return d, nil
}

// String returns the canonical ISO 8601 form of d, e.g. P1Y2M3DT4H5M6.5S;
// weeks have been folded into days. The zero duration is PT0S.
func (d duration) String() string {
	if d.isZero() {
		return "PT0S"
	}
	var b strings.Builder
	b.WriteByte('P')
	put := func(n int64, des byte) {
		if n != 0 {
			b.WriteString(strconv.FormatInt(n, 10))
			b.WriteByte(des)
		}
	}
	put(int64(d.years), 'Y')
	put(int64(d.months), 'M')
	put(int64(d.days), 'D')
	if d.clock != 0 {
		b.WriteByte('T')
		secs := int64(d.clock / time.Second)
		nanos := int64(d.clock % time.Second)
		put(secs/3600, 'H')
		put(secs%3600/60, 'M')
		if s := secs % 60; s != 0 || nanos != 0 {
			b.WriteString(strconv.FormatInt(s, 10))
			if nanos != 0 {
				frac := fmt.Sprintf("%09d", nanos)
				b.WriteByte('.')
				b.WriteString(strings.TrimRight(frac, "0"))
			}
			b.WriteByte('S')
		}
	}
	return b.String()
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'A' <= upper(c) && upper(c) <= 'Z' }

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}
