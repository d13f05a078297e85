package feel

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// clockScope is a Scope that is also a Clock.
type clockScope struct {
	mapScope
	at time.Time
}

func (s clockScope) Now() time.Time { return s.at }

func TestScopeClock(t *testing.T) {
	at := time.Date(2031, 7, 4, 8, 15, 0, 0, time.UTC)
	sc := clockScope{mapScope{"d": mustDate("2031-07-03")}, at}
	p, err := CompileWith(`[string(today()), string(now()), d < today(), (function() today())()]`, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.Eval(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"2031-07-04", "2031-07-04T08:15:00Z", true, "2031-07-04"}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("with a scope clock = %#v, want %#v", v, want)
	}
	// Without one, Options.Now still applies.
	if v, _ := p.Eval(sc.mapScope); !reflect.DeepEqual(v.([]any)[0], "2026-03-15") {
		t.Errorf("without a scope clock today() = %v", v.([]any)[0])
	}
	u, err := CompileUnaryTests(`today()`, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := u.Match(mustDate("2031-07-04"), sc); !ok {
		t.Error("unary test did not use the scope clock")
	}
}

func TestToJSON(t *testing.T) {
	p, err := Compile(`{d: date("2025-03-01"), t: time("10:30:00"), dt: date and time("2025-03-01T10:30:00Z"), p: duration("P1DT2H"), y: duration("P1Y2M"), n: [1.50, null]}`)
	if err != nil {
		t.Fatal(err)
	}
	native, err := p.EvalValue(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ToJSON(native)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"d": "2025-03-01", "t": "10:30:00", "dt": "2025-03-01T10:30:00Z", "p": "P1DT2H", "y": "P1Y2M", "n": []any{json.Number("1.5"), nil}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ToJSON = %#v, want %#v", got, want)
	}
	if viaEval, err := p.Eval(nil); err != nil || !reflect.DeepEqual(viaEval, want) {
		t.Errorf("Eval = %#v, %v; want %#v", viaEval, err, want)
	}
	for _, src := range []string{`[1..2]`, `function(x) x`, `[[1..2]]`} {
		q, err := Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		v, err := q.EvalValue(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ToJSON(v); err == nil {
			t.Errorf("ToJSON(%s) succeeded", src)
		}
	}
}
