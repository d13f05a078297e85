package timer

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// maxReps bounds the repetition count of Rn.
const maxReps = 1_000_000_000

// parseCycle parses a timeCycle: a cron expression if the text has white
// space, an ISO 8601 repeating interval otherwise.
func parseCycle(s string) (Spec, error) {
	if len(strings.Fields(s)) > 1 {
		c, err := parseCron(s)
		if err != nil {
			return Spec{}, err
		}
		return Spec{cron: c, isCron: true}, nil
	}
	parts := strings.Split(s, "/")
	if parts[0] == "" || (parts[0][0] != 'R' && parts[0][0] != 'r') {
		return Spec{}, errors.New(`want a repeating interval such as R3/PT10M or a 6-field cron expression`)
	}
	sp := Spec{reps: unbounded}
	if n := parts[0][1:]; n != "" {
		if n[0] == '-' {
			return Spec{}, errors.New("negative repetition count")
		}
		v, err := strconv.Atoi(n)
		if err != nil || n[0] == '+' {
			return Spec{}, fmt.Errorf("repetition count %q is not a number", n)
		}
		if v > maxReps {
			return Spec{}, fmt.Errorf("repetition count %d exceeds %d", v, maxReps)
		}
		sp.reps = v
	}
	var err error
	switch rest := parts[1:]; len(rest) {
	case 1:
		if !looksLikeDuration(rest[0]) {
			return Spec{}, fmt.Errorf("%q is not a period; want e.g. R/PT1H", rest[0])
		}
		sp.dur, err = parseDuration(rest[0])
		if err != nil {
			return Spec{}, fmt.Errorf("period: %w", err)
		}
	case 2:
		a, b := rest[0], rest[1]
		switch {
		case looksLikeDuration(a) && looksLikeDuration(b):
			return Spec{}, errors.New("two periods; want start/period, period/end or start/end")
		case looksLikeDuration(b): // start/period
			if sp.start, err = parseDate(a); err != nil {
				return Spec{}, fmt.Errorf("start: %w", err)
			}
			sp.hasStart = true
			if sp.dur, err = parseDuration(b); err != nil {
				return Spec{}, fmt.Errorf("period: %w", err)
			}
		case looksLikeDuration(a): // period/end
			if sp.dur, err = parseDuration(a); err != nil {
				return Spec{}, fmt.Errorf("period: %w", err)
			}
			if sp.end, err = parseDate(b); err != nil {
				return Spec{}, fmt.Errorf("end: %w", err)
			}
			sp.hasEnd = true
		default: // start/end: the first interval defines the period
			if sp.start, err = parseDate(a); err != nil {
				return Spec{}, fmt.Errorf("start: %w", err)
			}
			end, err := parseDate(b)
			if err != nil {
				return Spec{}, fmt.Errorf("end: %w", err)
			}
			if !end.After(sp.start) {
				return Spec{}, errors.New("end must be after start")
			}
			p := end.Sub(sp.start)
			if !sp.start.Add(p).Equal(end) {
				return Spec{}, errors.New("start/end interval exceeds 292 years")
			}
			sp.hasStart = true
			sp.dur = duration{clock: p}
		}
	case 0:
		return Spec{}, errors.New(`missing period after "/"; want e.g. R3/PT10M`)
	default:
		return Spec{}, fmt.Errorf("%d parts; want at most R/start/period", len(parts))
	}
	if sp.dur.isZero() {
		return Spec{}, errors.New("period must be positive")
	}
	return sp, nil
}

// slot returns the earliest grid point start + k·period (k ≥ 0) that is not
// before ref, or strictly after ref if strict. ok is false only when the
// answer lies beyond the range of time.Time arithmetic.
func (s Spec) slot(ref time.Time, strict bool) (time.Time, bool) {
	if ref.Before(s.start) || (!strict && ref.Equal(s.start)) {
		return s.start, true
	}
	if s.dur.calendar() {
		return s.calendarSlot(ref, strict)
	}
	// Fixed period: k = ⌈(ref−start)/p⌉ (plus one on an exact hit when
	// strict), in big integers because ref−start can exceed 292 years of
	// nanoseconds.
	p := big.NewInt(int64(s.dur.days))
	p.Mul(p, big.NewInt(int64(24*time.Hour)))
	p.Add(p, big.NewInt(int64(s.dur.clock)))
	d := big.NewInt(ref.Unix() - s.start.Unix())
	d.Mul(d, big.NewInt(int64(time.Second)))
	d.Add(d, big.NewInt(int64(ref.Nanosecond()-s.start.Nanosecond())))
	k, r := new(big.Int).QuoRem(d, p, new(big.Int))
	if r.Sign() != 0 || strict {
		k.Add(k, big.NewInt(1))
	}
	off := k.Mul(k, p)
	sec, nsec := off.QuoRem(off, big.NewInt(int64(time.Second)), new(big.Int))
	if !sec.IsInt64() || sec.Int64() > 1<<62 {
		return time.Time{}, false
	}
	return time.Unix(s.start.Unix()+sec.Int64(), int64(s.start.Nanosecond())+nsec.Int64()).UTC(), true
}

// calendarSlot is slot for periods with years or months. Grid point k is
// start.AddDate(k·y, k·m, k·d) plus k·clock, computed from the start each
// time so that errors do not accumulate; it grows strictly with k.
func (s Spec) calendarSlot(ref time.Time, strict bool) (time.Time, bool) {
	const maxK = 10_000_000
	at := func(k int) time.Time {
		t := s.start.AddDate(k*s.dur.years, k*s.dur.months, k*s.dur.days)
		sec := int64(s.dur.clock/time.Second) * int64(k)
		nsec := int64(s.dur.clock%time.Second) * int64(k)
		return time.Unix(t.Unix()+sec, int64(t.Nanosecond())+nsec).UTC()
	}
	fits := func(t time.Time) bool { return t.After(ref) || (!strict && t.Equal(ref)) }
	// Estimate k from the average period length, then correct.
	avg := float64(s.dur.years)*365.2425*86400 + float64(s.dur.months)*30.436875*86400 +
		float64(s.dur.days)*86400 + s.dur.clock.Seconds()
	est := float64(ref.Unix()-s.start.Unix())/avg - 2
	if est > maxK {
		return time.Time{}, false
	}
	k := max(int(est), 0)
	for k > 0 && fits(at(k-1)) {
		k--
	}
	for i := 0; !fits(at(k)); i++ {
		if i > 1000 || k >= maxK {
			return time.Time{}, false
		}
		k++
	}
	return at(k), true
}
