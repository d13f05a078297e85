package timer_test

import (
	"fmt"
	"time"

	"github.com/gobpm/gobpm/internal/timer"
)

func ExampleParse() {
	spec, err := timer.Parse(timer.KindCycle, "R3/PT10M")
	if err != nil {
		fmt.Println(err)
		return
	}
	armed := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	due, ok := spec.First(armed)
	for n := 1; ok; n++ {
		fmt.Println(due.Format(time.TimeOnly))
		due, ok = spec.Next(due, n)
	}

	_, err = timer.Parse(timer.KindDuration, "P1X")
	fmt.Println(err)
	// Output:
	// 10:10:00
	// 10:20:00
	// 10:30:00
	// timer: invalid duration "P1X": unknown designator "X"
}

func ExampleSpec_First() {
	// A Quartz cron expression: noon on weekdays (day-of-week 2-6 would
	// be the same; 1 is Sunday).
	spec, _ := timer.Parse(timer.KindCycle, "0 0 12 ? * MON-FRI")
	armed := time.Date(2026, 1, 2, 13, 0, 0, 0, time.UTC) // a Friday afternoon
	due, _ := spec.First(armed)
	fmt.Println(due.Format(time.RFC1123))

	// Months are calendar arithmetic: January 31 plus one month is
	// March 3 (there is no February 31).
	spec, _ = timer.Parse(timer.KindDuration, "P1M")
	due, _ = spec.First(time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC))
	fmt.Println(due.Format(time.DateTime))
	// Output:
	// Mon, 05 Jan 2026 12:00:00 UTC
	// 2026-03-03 09:00:00
}
