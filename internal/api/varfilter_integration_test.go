package api_test

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// GET /api/v1/instances?var=name=value finds instances by the JSON value
// of a top-level variable, exactly, over a real runtime and SQLite: it
// follows a variable written into the instance later, compares numbers by
// value and objects as canonical JSON, requires every var given, and
// refuses a malformed filter with a 400 naming var.
func TestIntegrationListInstancesByVariable(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	b.postXML("/api/v1/deployments", reviewModel).wantStatus(t, http.StatusCreated)
	start := func(vars string) string {
		t.Helper()
		return b.postJSON("/api/v1/processes/review/instances", `{"variables":`+vars+`}`).
			wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	}
	a := start(`{"orderId":"A-17","amount":120,"customer":{"name":"Ada","tier":"gold"}}`)
	bb := start(`{"orderId":"B-2","amount":120.5}`)
	c := start(`{"orderId":"120","amount":120}`)

	list := func(vars ...string) string {
		t.Helper()
		q := url.Values{"var": vars}
		var out []string
		for _, it := range b.get("/api/v1/instances?"+q.Encode()).wantStatus(t, http.StatusOK).items(t) {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	sorted := func(ids ...string) string { sort.Strings(ids); return strings.Join(ids, ",") }
	for _, tt := range []struct {
		vars []string
		want string
	}{
		{[]string{`orderId="A-17"`}, a},
		{[]string{`amount=120`}, sorted(a, c)},
		{[]string{`amount=1.2e2`}, sorted(a, c)},
		{[]string{`amount=120.5`}, bb},
		{[]string{`orderId=120`}, ""}, // a number is not the string "120"
		{[]string{`orderId="120"`}, c},
		{[]string{`customer={"tier":"gold","name":"Ada"}`}, a},
		{[]string{`customer={"name":"Ada"}`}, ""},
		{[]string{`amount=120`, `orderId="120"`}, c},
		{[]string{`missing=1`}, ""},
	} {
		if got := list(tt.vars...); got != tt.want {
			t.Errorf("var=%v: got %s, want %s", tt.vars, got, tt.want)
		}
	}

	// Writing a variable is a step: the index follows it.
	b.postJSON("/api/v1/instances/"+bb+"/variables", `{"variables":{"amount":120,"note":"rush"}}`).wantStatus(t, http.StatusOK)
	if got, want := list(`amount=120`), sorted(a, bb, c); got != want {
		t.Errorf("amount=120 after writing it into %s: got %s, want %s", bb, got, want)
	}
	if got := list(`note="rush"`, `orderId="B-2"`); got != bb {
		t.Errorf("note and orderId: got %s, want %s", got, bb)
	}
	if got := list(`amount=120.5`); got != "" {
		t.Errorf("the old value still matches: %s", got)
	}

	for _, v := range []string{`orderId=A-17`, `=1`, `orderId`, `orderId=`, `x=1 2`} {
		p := b.get("/api/v1/instances?"+url.Values{"var": {v}}.Encode()).problem(t, http.StatusBadRequest, "invalid-request")
		if p.Field != "var" || !strings.Contains(p.Detail, "JSON") {
			t.Errorf("var=%s: problem %+v, want field var and a detail about JSON", v, p)
		}
	}
	many := url.Values{}
	for range 11 {
		many.Add("var", "a=1")
	}
	if p := b.get("/api/v1/instances?"+many.Encode()).problem(t, http.StatusBadRequest, "invalid-request"); p.Field != "var" {
		t.Errorf("11 var filters: field %q, want var", p.Field)
	}
}
