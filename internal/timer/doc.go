// Package timer parses BPMN timer definitions (timeDate, timeDuration and
// timeCycle) and computes when they are due.
//
// The package is pure: it never reads the clock and does no I/O. Every
// computation takes its reference time as an argument, so callers (the
// engine's step function, the runtime's timer loop) stay in control of time
// and tests can use fixed instants. All arithmetic happens in UTC and every
// returned time is in UTC, so daylight-saving transitions of the caller's
// zone have no effect.
//
// This package imports nothing from gobpm and must stay a leaf.
//
// # Kinds and formats
//
// A [Spec] is parsed from the text of one timer element with [Parse]:
//
//   - [KindDate] (timeDate): an ISO 8601 date-time such as
//     2026-01-01T10:00:00Z, 2026-01-01T10:00:00+02:00 or
//     2026-01-01T10:00:00.250Z; without a zone it is taken as UTC. A bare
//     date such as 2026-01-01 means midnight UTC. Years 0001-9999 only.
//   - [KindDuration] (timeDuration): an ISO 8601 duration such as PT10S,
//     P1D, P1DT2H30M, PT0.5S, P2W or P1Y2M. Only the seconds may carry a
//     fraction. Negative durations are rejected.
//   - [KindCycle] (timeCycle): an ISO 8601 repeating interval (R/PT1H,
//     R3/PT10M, R3/2026-01-01T00:00:00Z/P1D, R/PT10M/2026-02-01T00:00:00Z,
//     R2/2026-01-01T00:00:00Z/2026-01-01T06:00:00Z) or a 6-field cron
//     expression (see below).
//
// Input is trimmed of surrounding white space and may then be at most 256
// bytes long.
//
// # Calendar arithmetic
//
// Years and months are calendar units: they are added with [time.Time.AddDate]
// to the reference time, which normalizes overflowing days. P1M armed on
// 2026-01-31 is therefore due on 2026-03-03 (February 31 does not exist), and
// on 2028-03-02 in a leap year. Days and weeks are 24 and 168 hours, which in
// UTC is the same as calendar days.
//
// # Due times
//
// Timers never fire early: every time returned by [Spec.First] and
// [Spec.Next] is at or after the reference time passed in.
//
//   - A date is due at the date, or at the arm time if the date has passed
//     (an overdue timer fires immediately).
//   - A duration is due at arm time plus the duration.
//   - A repeating interval without a start is due one period after the arm
//     time, then one period after each firing (firing late delays the rest).
//   - A repeating interval with a start fires on the grid start + k·period
//     (k ≥ 0): first at the earliest grid point not before the arm time,
//     then at the earliest grid point after each firing. Grid points missed
//     while the timer was not armed or fired late are skipped, not caught
//     up. Each grid point is computed from the start, so P1M from January 31
//     gives March 3, March 31, May 1, May 31, ...
//   - Rn allows n firings in total; R alone is unbounded; R0 never fires.
//     An end (period/end form) is inclusive: no firing after it.
//   - The start/end form (R2/start/end) uses end−start as the period,
//     anchored at start, as ISO 8601 defines it.
//   - A cron expression is due at the first matching second strictly after
//     the reference time. Cron cycles are unbounded. The search gives up
//     after 10 years (ok=false), which is long enough for February 29 even
//     across the non-leap year 2100.
//
// # Periods
//
// [Spec.Period] gives the shortest time between two firings of a cycle
// (calendar units at their shortest, the smallest gap between two matching
// seconds of a cron expression), so callers can hold cycles to a minimum
// period before they arm them.
//
// # Cron expressions
//
// Cron expressions follow Quartz (and so Camunda): six fields,
//
//	second minute hour day-of-month month day-of-week
//
// each of which may be *, a value, a list (1,2), a range (1-5, and
// wrapping ranges such as FRI-MON or 22-2), or a stepped range (*/15, 0/15,
// 5/15 meaning 5 to the maximum, 10-40/10). Months are 1-12 or JAN-DEC.
// Days of the week follow Quartz, not Unix cron: 1-7 mean SUN-SAT, so MON
// is 2 and 0 is rejected; the names SUN-SAT are accepted case-insensitively.
// ? means "no restriction" and is allowed only in day-of-month and
// day-of-week. As in Quartz, day-of-month and day-of-week cannot both be
// restricted: use ? or * in one of them. The Quartz extensions L, W and #
// and the optional seventh (year) field are rejected with an error. A
// day-of-month of 31 only fires in months that have 31 days.
//
// # Example
//
//	spec, err := timer.Parse(timer.KindCycle, "R3/PT10M")
//	if err != nil {
//		return err // e.g. timer: invalid cycle "R3/PT10X": period: unknown designator "X"
//	}
//	due, ok := spec.First(now)     // now + 10m
//	due, ok = spec.Next(due, 1)    // due + 10m
//	due, ok = spec.Next(due, 2)    // due + 10m
//	_, ok = spec.Next(due, 3)      // ok == false: three firings done
package timer
