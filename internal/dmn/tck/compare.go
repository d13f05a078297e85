package tck

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/gobpm/gobpm/internal/feel"
)

// NumberTolerance is how far an actual number may be from the expected
// one and still match: the TCK's own runners (the Drools and QuantumDMN
// runners' value comparators) use the same 1e-8. Expected values in the
// TCK are sometimes written with fewer digits than a 34-digit decimal
// evaluation yields (0009-invocation-arithmetic expects 2878.69354943277).
const NumberTolerance = "0.00000001"

var tolerance = func() *apd.Decimal {
	d, _, _ := apd.NewFromString(NumberTolerance)
	return d
}()

// compare returns "" when actual is the expected value, else why not.
// Both are FEEL-native values (see readValue). The comparison is by value
// and type: numbers by value (within NumberTolerance), strings and
// booleans exactly, temporal values by type and value (a date is never a
// date and time, 10:00:00+01:00 is not 09:00:00Z, P1Y equals P12M), lists
// element by element, contexts entry by entry with the same keys; null
// matches only null.
func compare(expected, actual any) string {
	if expected == nil {
		if actual != nil {
			return "expected null"
		}
		return ""
	}
	if actual == nil {
		return "got null"
	}
	switch e := expected.(type) {
	case json.Number:
		a, ok := actual.(json.Number)
		if !ok {
			return "not a number"
		}
		if !numbersMatch(e, a) {
			return "value"
		}
		return ""
	case string:
		if a, ok := actual.(string); !ok || a != e {
			return typeOr(actual, "string", "value")
		}
		return ""
	case bool:
		if a, ok := actual.(bool); !ok || a != e {
			return typeOr(actual, "boolean", "value")
		}
		return ""
	case feel.Date:
		a, ok := actual.(feel.Date)
		if !ok {
			return "not a date"
		}
		if a != e {
			return "value"
		}
		return ""
	case feel.Time:
		a, ok := actual.(feel.Time)
		if !ok {
			return "not a time"
		}
		if !sameTime(e, a) {
			return "value"
		}
		return ""
	case feel.DateTime:
		a, ok := actual.(feel.DateTime)
		if !ok {
			return "not a date and time"
		}
		if a.Date() != e.Date() || !sameTime(e.Time(), a.Time()) {
			return "value"
		}
		return ""
	case feel.Duration:
		a, ok := actual.(feel.Duration)
		if !ok {
			return "not a days and time duration"
		}
		if a.Seconds() != e.Seconds() || a.Nanoseconds() != e.Nanoseconds() {
			return "value"
		}
		return ""
	case feel.YearsMonths:
		a, ok := actual.(feel.YearsMonths)
		if !ok {
			return "not a years and months duration"
		}
		if a.Months() != e.Months() {
			return "value"
		}
		return ""
	case []any:
		a, ok := actual.([]any)
		if !ok {
			return "not a list"
		}
		if len(a) != len(e) {
			return fmt.Sprintf("%d items, want %d", len(a), len(e))
		}
		for i := range e {
			if why := compare(e[i], a[i]); why != "" {
				return fmt.Sprintf("item %d: %s", i+1, why)
			}
		}
		return ""
	case map[string]any:
		a, ok := actual.(map[string]any)
		if !ok {
			return "not a context"
		}
		if len(a) != len(e) {
			return fmt.Sprintf("%d entries, want %d", len(a), len(e))
		}
		for _, k := range sortedKeys(e) {
			av, present := a[k]
			if !present {
				return fmt.Sprintf("entry %q missing", k)
			}
			if why := compare(e[k], av); why != "" {
				return fmt.Sprintf("entry %q: %s", k, why)
			}
		}
		return ""
	}
	return fmt.Sprintf("cannot compare a %T", expected)
}

func typeOr(actual any, want, why string) string {
	switch actual.(type) {
	case string:
		if want == "string" {
			return why
		}
	case bool:
		if want == "boolean" {
			return why
		}
	}
	return "not a " + want
}

// sameTime compares two times by their local time of day and their time
// zone: the same offset (Z is +00:00), the same zone id, or neither.
func sameTime(e, a feel.Time) bool {
	if e.Hour() != a.Hour() || e.Minute() != a.Minute() || e.Second() != a.Second() || e.Nanosecond() != a.Nanosecond() {
		return false
	}
	if e.Zone() != a.Zone() {
		return false
	}
	eo, eok := e.Offset()
	ao, aok := a.Offset()
	return eok == aok && eo == ao
}

func numbersMatch(e, a json.Number) bool {
	de, _, err1 := apd.NewFromString(string(e))
	da, _, err2 := apd.NewFromString(string(a))
	if err1 != nil || err2 != nil {
		return false
	}
	if de.Cmp(da) == 0 {
		return true
	}
	var diff apd.Decimal
	ctx := apd.BaseContext.WithPrecision(50)
	if _, err := ctx.Sub(&diff, de, da); err != nil {
		return false
	}
	diff.Abs(&diff)
	return diff.Cmp(tolerance) < 0
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// render shows a FEEL-native value in a detail message, as FEEL's
// string() would, abbreviated.
func render(v any) string {
	s := renderValue(v, 0)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func renderValue(v any, depth int) string {
	if depth > 20 {
		return "…"
	}
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", x)
	case json.Number:
		return string(x)
	case bool:
		return fmt.Sprint(x)
	case feel.Date:
		return "date(" + x.String() + ")"
	case feel.Time:
		return "time(" + x.String() + ")"
	case feel.DateTime:
		return "date and time(" + x.String() + ")"
	case feel.Duration, feel.YearsMonths:
		return "duration(" + x.(fmt.Stringer).String() + ")"
	case *feel.Range:
		return "range " + x.String()
	case feel.Function:
		return "function"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = renderValue(e, depth+1)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := sortedKeys(x)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + renderValue(x[k], depth+1)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("%T %v", v, v)
}
