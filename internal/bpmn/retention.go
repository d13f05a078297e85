package bpmn

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/beevik/etree"
)

// History time to live: how long the history of an ended instance of a
// process is kept before the runtime's history cleaner deletes it.
//
//	<process id="order" gobpm:historyTimeToLive="30d"> (also "12h", "1d12h", "P30D", "PT12H", "30")
//	<process id="order" camunda:historyTimeToLive="30"> (Camunda 7: days, or "P30D")
//
// Camunda 8 has no per-model equivalent (its retention is configured per
// application, not in the model), so there is no zeebe attribute to read.
// A process without either attribute follows the server's --history-ttl.

// historyTimeToLive reads the time to live of the history of <process> e:
// gobpm:historyTimeToLive or camunda:historyTimeToLive (nil when neither is
// set). Both at once, or a value that is no time to live, is a problem.
func (p *parser) historyTimeToLive(e *etree.Element) *time.Duration {
	g, gok := nsAttr(e, NamespaceGobpm, "historyTimeToLive")
	c, cok := nsAttr(e, NamespaceCamunda, "historyTimeToLive")
	switch {
	case gok && cok:
		p.problems.add(p.label(e), RuleInvalidAttribute,
			"gobpm:historyTimeToLive and camunda:historyTimeToLive are both set on process %s: keep one", attr(e, "id"))
		return nil
	case gok:
		d, err := ParseTimeToLive(g)
		if err != nil {
			p.problems.add(p.label(e), RuleInvalidAttribute, "gobpm:historyTimeToLive %q: %v", g, err)
			return nil
		}
		return &d
	case cok:
		if strings.TrimSpace(c) == "" {
			return nil // the Camunda modeler writes an empty value for "not set"
		}
		d, err := parseCamundaTimeToLive(c)
		if err != nil {
			p.problems.add(p.label(e), RuleInvalidAttribute, "camunda:historyTimeToLive %q: %v", c, err)
			return nil
		}
		return &d
	}
	return nil
}

// parseCamundaTimeToLive reads Camunda 7's notation: a whole number of days,
// or an ISO 8601 duration of days ("P30D").
func parseCamundaTimeToLive(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		return days(n)
	}
	if rest, ok := strings.CutPrefix(s, "P"); ok {
		if n, ok := strings.CutSuffix(rest, "D"); ok {
			if v, err := strconv.Atoi(n); err == nil {
				return days(v)
			}
		}
	}
	//lint:ignore ST1005 the sentence starts with a product name
	return 0, errors.New(`Camunda 7 takes a whole number of days ("30") or days as an ISO 8601 duration ("P30D")`)
}

// ParseTimeToLive reads a history time to live: a whole number of days
// ("30"), a duration in days, hours, minutes and seconds ("30d", "12h",
// "1d12h", "90m", "45s"), or an ISO 8601 duration without years and months
// ("P30D", "PT12H", "P1DT12H"). Zero is allowed: the history of an ended
// instance is deleted at the cleaner's next pass.
func ParseTimeToLive(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty: write a duration such as 30d, 12h or P30D")
	}
	if n, err := strconv.Atoi(s); err == nil {
		return days(n)
	}
	if strings.HasPrefix(s, "P") {
		return parseISOTimeToLive(s)
	}
	var total time.Duration
	rest := s
	if i := strings.IndexByte(rest, 'd'); i >= 0 {
		n, err := strconv.Atoi(rest[:i])
		if err != nil {
			return 0, fmt.Errorf("%q is not a number of days followed by d (30d)", rest[:i+1])
		}
		if total, err = days(n); err != nil {
			return 0, err
		}
		rest = rest[i+1:]
	}
	if rest != "" {
		d, err := time.ParseDuration(rest)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("%q is not a duration: use d, h, m and s units (30d, 12h, 1d12h, 90m) or ISO 8601 (P30D)", s)
		}
		if total > math.MaxInt64-d {
			return 0, errors.New("too long")
		}
		total += d
	}
	return total, nil
}

// parseISOTimeToLive reads an ISO 8601 duration of days, hours, minutes
// and seconds ("P30D", "PT12H", "P1DT30M").
func parseISOTimeToLive(s string) (time.Duration, error) {
	bad := fmt.Errorf("%q is not an ISO 8601 duration of days, hours, minutes and seconds (P30D, PT12H, P1DT12H); years and months have no fixed length", s)
	body := strings.TrimPrefix(s, "P")
	datePart, timePart, hasTime := strings.Cut(body, "T")
	if body == "" || (hasTime && timePart == "") {
		return 0, bad
	}
	var total time.Duration
	add := func(part string, units map[byte]time.Duration) error {
		for part != "" {
			i := strings.IndexFunc(part, func(r rune) bool { return r < '0' || r > '9' })
			if i <= 0 {
				return bad
			}
			n, err := strconv.Atoi(part[:i])
			unit, ok := units[part[i]]
			if err != nil || !ok || (n > 0 && time.Duration(n) > (math.MaxInt64-total)/unit) {
				return bad
			}
			total += time.Duration(n) * unit
			part = part[i+1:]
		}
		return nil
	}
	if err := add(datePart, map[byte]time.Duration{'D': 24 * time.Hour, 'W': 7 * 24 * time.Hour}); err != nil {
		return 0, err
	}
	if err := add(timePart, map[byte]time.Duration{'H': time.Hour, 'M': time.Minute, 'S': time.Second}); err != nil {
		return 0, err
	}
	return total, nil
}

// days returns n days as a duration; negative or overflowing n is an error.
func days(n int) (time.Duration, error) {
	const day = 24 * time.Hour
	if n < 0 {
		return 0, fmt.Errorf("%d days: a time to live cannot be negative", n)
	}
	if int64(n) > math.MaxInt64/int64(day) {
		return 0, fmt.Errorf("%d days: too long", n)
	}
	return time.Duration(n) * day, nil
}
