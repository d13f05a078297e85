package feel

import (
	"reflect"
	"testing"
)

func TestTemporalLiteralsAndConstructors(t *testing.T) {
	t.Parallel()
	runFeelTable(t, []feelCase{
		{`string(@"2026-01-01")`, `"2026-01-01"`},
		{`string(date("2026-01-01"))`, `"2026-01-01"`},
		{`string(date(2026, 1, 1))`, `"2026-01-01"`},
		{`string(date(date and time("2026-01-01T10:00:00Z")))`, `"2026-01-01"`},
		{`date("2026-02-30")`, `null`},
		{`date("2026-1-1")`, `null`},
		{`date(2026, 13, 1)`, `null`},
		{`string(date("-0044-03-15"))`, `"-0044-03-15"`},
		{`string(date("999999999-12-31"))`, `"999999999-12-31"`},
		{`string(time("10:30:00"))`, `"10:30:00"`},
		{`string(time("10:30:00.250"))`, `"10:30:00.25"`},
		{`string(time("10:30:00Z"))`, `"10:30:00Z"`},
		{`string(time("10:30:00+02:00"))`, `"10:30:00+02:00"`},
		{`string(time("10:30:00@Europe/Paris"))`, `"10:30:00@Europe/Paris"`},
		{`string(time(10, 30, 0))`, `"10:30:00"`},
		{`string(time(10, 30, 1.5, duration("PT2H")))`, `"10:30:01.5+02:00"`},
		{`string(time(10, 30, 0, duration("-PT5H30M")))`, `"10:30:00-05:30"`},
		{`string(time(date and time("2026-01-01T10:30:00Z")))`, `"10:30:00Z"`},
		{`string(time(date("2026-01-01")))`, `"00:00:00Z"`},
		{`time("25:00:00")`, `null`},
		{`time("10:30:00@Nowhere/City")`, `null`},
		{`string(date and time("2026-01-01T10:30:00"))`, `"2026-01-01T10:30:00"`},
		{`string(date and time("2026-01-01"))`, `"2026-01-01T00:00:00"`},
		{`string(date and time("2026-01-01T10:30:00-05:00"))`, `"2026-01-01T10:30:00-05:00"`},
		{`string(date and time(date("2026-01-01"), time("10:30:00Z")))`, `"2026-01-01T10:30:00Z"`},
		{`string(date and time("2026-01-01T24:00:00"))`, `"2026-01-02T00:00:00"`},
		{`string(duration("P1DT2H"))`, `"P1DT2H"`},
		{`string(duration("PT36H"))`, `"P1DT12H"`},
		{`string(duration("PT0.5S"))`, `"PT0.5S"`},
		{`string(duration("-P2D"))`, `"-P2D"`},
		{`string(duration("P0D"))`, `"PT0S"`},
		{`string(duration("P1Y2M"))`, `"P1Y2M"`},
		{`string(duration("P14M"))`, `"P1Y2M"`},
		{`string(duration("-P1Y"))`, `"-P1Y"`},
		{`duration("P1Y2D")`, `null`},
		{`duration("P")`, `null`},
		{`duration("PT")`, `null`},
		{`duration("1D")`, `null`},
		{`string(years and months duration(date("2026-01-15"), date("2027-03-14")))`, `"P1Y1M"`},
		{`string(years and months duration(date("2027-03-14"), date("2026-01-15")))`, `"-P1Y1M"`},
		{`string(years and months duration(date("2026-01-01"), date("2026-01-31")))`, `"P0M"`},
		{`@"2026-01-01" = date("2026-01-01")`, `true`},
		{`@"P1D" = duration("PT24H")`, `true`},
		{`string(now())`, `"2026-03-15T10:30:00+01:00"`},
		{`string(today())`, `"2026-03-15"`},
	})
}

func TestTemporalArithmetic(t *testing.T) {
	t.Parallel()
	runFeelTable(t, []feelCase{
		{`date("2026-01-31") + duration("P1M")`, `date("2026-02-28")`},
		{`date("2024-02-29") + duration("P1Y")`, `date("2025-02-28")`},
		{`date("2026-01-01") + duration("P10D")`, `date("2026-01-11")`},
		{`duration("P10D") + date("2026-01-01")`, `date("2026-01-11")`},
		{`date("2026-01-01") - duration("P1D")`, `date("2025-12-31")`},
		{`date("2026-01-01") + duration("PT25H")`, `date("2026-01-02")`},
		{`date("2026-03-01") - date("2026-02-01")`, `duration("P28D")`},
		{`date("2026-01-01") - date("2026-01-02")`, `duration("-P1D")`},
		{`date and time("2026-01-01T10:00:00") + duration("PT15H")`, `date and time("2026-01-02T01:00:00")`},
		{`date and time("2026-01-31T10:00:00Z") + duration("P1M")`, `date and time("2026-02-28T10:00:00Z")`},
		{`date and time("2026-01-01T10:00:00Z") - date and time("2026-01-01T09:00:00+01:00")`, `duration("PT2H")`},
		{`date and time("2026-01-02T00:00:00") - date and time("2026-01-01T12:00:00")`, `duration("PT12H")`},
		{`date and time("2026-01-02T00:00:00Z") - date and time("2026-01-01T12:00:00")`, `null`},
		{`date and time("2026-01-02T06:00:00") - date("2026-01-01")`, `null`}, // undefined without a time zone (DMN TCK 0100)
		{`date and time("2026-01-02T06:00:00Z") - date("2026-01-01")`, `duration("P1DT6H")`},
		{`time("10:00:00") + duration("PT3H")`, `time("13:00:00")`},
		{`time("23:00:00") + duration("PT2H")`, `time("01:00:00")`},
		{`time("01:00:00") - duration("PT2H")`, `time("23:00:00")`},
		{`time("10:00:00") - time("08:30:00")`, `duration("PT1H30M")`},
		{`time("10:00:00Z") - time("10:00:00+01:00")`, `duration("PT1H")`},
		{`duration("P1D") + duration("PT12H")`, `duration("P1DT12H")`},
		{`duration("P1D") - duration("P2D")`, `duration("-P1D")`},
		{`duration("P1Y") + duration("P2M")`, `duration("P1Y2M")`},
		{`duration("P1Y") - duration("P13M")`, `duration("-P1M")`},
		{`duration("PT1H") * 1.5`, `duration("PT1H30M")`},
		{`2 * duration("P1D")`, `duration("P2D")`},
		{`duration("P1D") / 4`, `duration("PT6H")`},
		{`duration("P1D") / duration("PT1H")`, `24`},
		{`duration("P1Y") * 2`, `duration("P2Y")`},
		{`duration("P1Y") / 2`, `duration("P6M")`},
		{`duration("P1Y") / duration("P1M")`, `12`},
		{`duration("P1D") / 0`, `null`},
		{`-duration("P1D")`, `duration("-P1D")`},
		{`-duration("P1Y")`, `duration("-P1Y")`},
		{`date("2026-01-01") + duration("P1Y") - duration("P1Y")`, `date("2026-01-01")`},
		{`duration("P1D") + duration("P1Y")`, `null`},
		{`date("2026-01-01") + date("2026-01-01")`, `null`},
		{`date("2026-01-01") + 1`, `null`},
		{`abs(duration("-P1D"))`, `duration("P1D")`},
	})
}

func TestTemporalComparisonAndProperties(t *testing.T) {
	t.Parallel()
	runFeelTable(t, []feelCase{
		{`date("2026-01-01") < date("2026-01-02")`, `true`},
		{`date("2026-01-01") >= date("2026-01-02")`, `false`},
		{`date("2026-01-01") = date("2026-01-02")`, `false`},
		{`date and time("2026-01-01T10:00:00Z") = date and time("2026-01-01T11:00:00+01:00")`, `true`},
		{`date and time("2026-01-01T10:00:00Z") < date and time("2026-01-01T10:30:00+01:00")`, `false`},
		{`date and time("2026-01-01T10:00:00") < date and time("2026-01-01T10:30:00")`, `true`},
		{`date and time("2026-01-01T10:00:00") < date and time("2026-01-01T10:30:00Z")`, `null`},
		{`date and time("2026-07-01T12:00:00@Europe/Paris") = date and time("2026-07-01T10:00:00Z")`, `true`},
		{`date and time("2026-01-01T12:00:00@Europe/Paris") = date and time("2026-01-01T11:00:00Z")`, `true`},
		{`time("10:00:00") < time("11:00:00")`, `true`},
		{`time("10:00:00Z") = time("11:00:00+01:00")`, `true`},
		{`duration("PT1H") < duration("PT2H")`, `true`},
		{`duration("P1D") = duration("PT24H")`, `true`},
		{`duration("P1Y") > duration("P11M")`, `true`},
		{`duration("P1Y") > duration("P1D")`, `null`},
		{`date("2026-01-01") < 5`, `null`},
		{`max([date("2026-01-01"), date("2027-01-01")])`, `date("2027-01-01")`},
		{`date("2026-01-01") between date("2025-01-01") and date("2027-01-01")`, `true`},
		{`date("2026-03-15").year`, `2026`},
		{`date("2026-03-15").month`, `3`},
		{`date("2026-03-15").day`, `15`},
		{`date("2026-03-15").weekday`, `7`},
		{`date and time("2026-03-15T10:20:30.5+02:00").hour`, `10`},
		{`date and time("2026-03-15T10:20:30.5+02:00").minute`, `20`},
		{`date and time("2026-03-15T10:20:30.5+02:00").second`, `30.5`},
		{`date and time("2026-03-15T10:20:30+02:00").time offset`, `duration("PT2H")`},
		{`date and time("2026-03-15T10:20:30").time offset`, `null`},
		{`date and time("2026-03-15T10:20:30@Europe/Paris").timezone`, `"Europe/Paris"`},
		{`date and time("2026-03-15T10:20:30Z").timezone`, `null`},
		{`date and time("2026-03-15T10:20:30Z").year`, `2026`},
		{`date and time("2026-03-15T10:20:30Z").weekday`, `7`},
		{`time("10:20:30-01:00").time offset`, `duration("-PT1H")`},
		{`time("10:20:30").hour`, `10`},
		{`duration("P2DT3H4M5S").days`, `2`},
		{`duration("P2DT3H4M5S").hours`, `3`},
		{`duration("P2DT3H4M5S").minutes`, `4`},
		{`duration("P2DT3H4M5S").seconds`, `5`},
		{`duration("-P2DT3H").hours`, `-3`},
		{`duration("P1Y2M").years`, `1`},
		{`duration("P1Y2M").months`, `2`},
		{`date("2026-03-15").nope`, `null`},
		{`day of year(date("2026-03-15"))`, `74`},
		{`day of year(date("2024-12-31"))`, `366`},
		{`day of week(date("2026-03-15"))`, `"Sunday"`},
		{`day of week(date and time("2026-03-16T01:00:00"))`, `"Monday"`},
		{`month of year(date("2026-03-15"))`, `"March"`},
		{`week of year(date("2026-03-15"))`, `11`},
		{`week of year(date("2021-01-03"))`, `53`},
		{`week of year(date("2024-12-30"))`, `1`},
		{`week of year(date("2026-01-01"))`, `1`},
		{`is(date and time("2026-01-01T10:00:00Z"), date and time("2026-01-01T11:00:00+01:00"))`, `false`},
		{`is(date("2026-01-01"), date("2026-01-01"))`, `true`},
		{`is(1, "1")`, `false`},
	})
}

func TestEvalValueAndExportedTypes(t *testing.T) {
	t.Parallel()
	p, err := Compile(`[date("2026-01-01"), time("10:00:00Z"), date and time("2026-01-01T10:00:00"), duration("P1DT2H"), duration("P1Y2M"), [1..2), function(x) x + 1, 1.50]`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Eval(nil); err == nil {
		t.Error("Eval of temporal values succeeded, want a not-JSON error")
	}
	v, err := p.EvalValue(nil)
	if err != nil {
		t.Fatal(err)
	}
	l := v.([]any)
	want := []string{"2026-01-01", "10:00:00Z", "2026-01-01T10:00:00", "P1DT2H", "P1Y2M", "[1..2)"}
	for i, w := range want {
		s, ok := l[i].(interface{ String() string })
		if !ok || s.String() != w {
			t.Errorf("element %d = %#v, want %s", i, l[i], w)
		}
	}
	r := l[5].(*Range)
	if r.Start() != n("1") || r.End() != n("2") || !r.StartIncluded() || r.EndIncluded() {
		t.Errorf("range accessors: %v %v %v %v", r.Start(), r.End(), r.StartIncluded(), r.EndIncluded())
	}
	f := l[6].(Function)
	if !reflect.DeepEqual(f.Params(), []string{"x"}) {
		t.Errorf("Params = %v", f.Params())
	}
	if got, err := f.Call([]any{n("41")}); err != nil || got != n("42") {
		t.Errorf("Call = %v, %v", got, err)
	}
	if l[7] != n("1.5") {
		t.Errorf("number = %#v", l[7])
	}
	// Temporal values and functions go in through the scope.
	d, _ := ParseDate("2026-01-01")
	q, err := CompileWith(`d + duration("P1D") = date("2026-01-02") and f(1) = 2`, Options{Names: []string{"f"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := q.Eval(mapScope{"d": d, "f": f}); err != nil || got != true {
		t.Errorf("scope temporal/function = %v, %v", got, err)
	}
	if _, err := ParseDuration("P1X"); err == nil {
		t.Error("ParseDuration accepted P1X")
	}
	if ym, _ := ParseDuration("P2Y"); ym != NewYearsMonths(24) {
		t.Errorf("ParseDuration(P2Y) = %v", ym)
	}
}

// extFn is a Function from the caller (a business knowledge model).
type extFn struct{}

func (extFn) Params() []string { return []string{"amount", "rate"} }
func (extFn) Call(args []any) (any, error) {
	if len(args) != 2 || args[0] == nil || args[1] == nil {
		return nil, nil
	}
	return string(args[0].(n)) + "@" + string(args[1].(n)), nil
}

func TestExternalFunction(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]any{
		`Calc(1, 2)`:                        "1@2",
		`Calc(rate: 2, amount: 1.0)`:        "1@2",
		`Calc(rate: 2)`:                     nil,
		`Calc(1, 2, 3)`:                     nil,
		`Calc(amount: 1, other: 2)`:         nil,
		`{c: Calc}.c(3, 4)`:                 "3@4",
		`Calc instance of function`:         true,
		`for x in [1, 2] return Calc(x, x)`: []any{"1@1", "2@2"},
	} {
		p, err := CompileWith(src, Options{Names: []string{"Calc"}})
		if err != nil {
			t.Errorf("Compile(%q): %v", src, err)
			continue
		}
		got, err := p.Eval(mapScope{"Calc": extFn{}})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, %v; want %#v", src, got, err, want)
		}
	}
}
