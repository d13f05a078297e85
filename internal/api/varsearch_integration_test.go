package api_test

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// GET /api/v1/instances and GET /api/v1/tasks take var=name:op:value
// (numbers, texts, booleans and times with eq, neq, ranges and a prefix)
// beside name=value, over a real runtime and SQLite; the task list also
// takes a creation range; a malformed comparison is a 400 naming var.
func TestIntegrationSearchByVariable(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	b.postXML("/api/v1/deployments", reviewModel).wantStatus(t, http.StatusCreated)
	start := func(vars string) string {
		t.Helper()
		return b.postJSON("/api/v1/processes/review/instances", `{"variables":`+vars+`}`).
			wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	}
	a := start(`{"orderId":"A-17","amount":120,"ok":true,"due":"2025-03-01T10:00:00Z"}`)
	c := start(`{"orderId":"A-2","amount":99.5,"ok":false,"due":"2025-03-02"}`)
	d := start(`{"orderId":"B-1","amount":"500","due":"soon"}`)

	ids := func(path string, vars []string, key string) string {
		t.Helper()
		q := url.Values{"var": vars}
		var out []string
		for _, it := range b.get(path+"?"+q.Encode()).wantStatus(t, http.StatusOK).items(t) {
			out = append(out, it.(map[string]any)[key].(string))
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	sorted := func(ids ...string) string { sort.Strings(ids); return strings.Join(ids, ",") }
	for _, tt := range []struct {
		vars []string
		want string
	}{
		{[]string{`amount:gt:100`}, a},
		{[]string{`amount:gte:99.5`, `amount:lt:121`}, sorted(a, c)},
		{[]string{`amount:eq:500`}, ""}, // a text is not the number 500
		{[]string{`amount:eq:"500"`}, d},
		{[]string{`orderId:like:A-`}, sorted(a, c)},
		{[]string{`orderId:gte:B`}, d},
		{[]string{`ok:eq:true`}, a},
		{[]string{`ok:neq:true`}, c},
		{[]string{`due:lt:2025-03-02T00:00:00Z`}, a},
		{[]string{`due:gte:2025-03-01`}, sorted(a, c)},
		{[]string{`orderId="A-17"`, `amount:lte:120`}, a},
	} {
		if got := ids("/api/v1/instances", tt.vars, "id"); got != tt.want {
			t.Errorf("instances var=%v: got %s, want %s", tt.vars, got, tt.want)
		}
		if got := ids("/api/v1/tasks", tt.vars, "instanceId"); got != tt.want {
			t.Errorf("tasks var=%v: got %s, want %s", tt.vars, got, tt.want)
		}
	}
	if got := b.get("/api/v1/tasks?createdAfter=2100-01-01T00:00:00Z").wantStatus(t, http.StatusOK).items(t); len(got) != 0 {
		t.Errorf("tasks created after 2100: %v", got)
	}
	if got := b.get("/api/v1/tasks?createdBefore=2100-01-01T00:00:00Z").wantStatus(t, http.StatusOK).items(t); len(got) != 3 {
		t.Errorf("tasks created before 2100: %d, want 3", len(got))
	}

	for _, path := range []string{"/api/v1/instances", "/api/v1/tasks"} {
		for _, v := range []string{`ok:gt:true`, `ok:like:false`, `:eq:1`, `x:eq:"open`} {
			p := b.get(path+"?"+url.Values{"var": {v}}.Encode()).problem(t, http.StatusBadRequest, "invalid-request")
			if p.Field != "var" || !strings.Contains(p.Detail, strconv.Quote(v)) {
				t.Errorf("%s var=%s: problem %+v, want field var and a detail naming it", path, v, p)
			}
		}
	}
	if p := b.get("/api/v1/tasks?createdAfter=yesterday").problem(t, http.StatusBadRequest, "invalid-request"); p.Field != "createdAfter" {
		t.Errorf("tasks createdAfter=yesterday: field %q", p.Field)
	}
}
