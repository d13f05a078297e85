package api_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// fetchVariables names the variables activated jobs carry: only those (of
// the ones the task sees); an empty list carries none, and without it a
// job carries every variable, as before.
func TestActivateFetchVariables(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postXML("/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)
	for range 4 {
		b.postJSON("/api/v1/processes/order/instances", `{"variables":{"a":1,"b":"two","c":{"d":[3]}}}`).wantStatus(t, http.StatusCreated)
	}
	activate := func(extra string) map[string]any {
		t.Helper()
		res := b.postJSON("/api/v1/jobs/activate", `{"type":"pay","worker":"w","maxJobs":1,"lockDurationMs":60000`+extra+`}`).wantStatus(t, http.StatusOK)
		var out struct {
			Jobs []struct {
				Variables map[string]any `json:"variables"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal(res.Body, &out); err != nil || len(out.Jobs) != 1 {
			t.Fatalf("activate%s: %s %v", extra, res.Body, err)
		}
		return out.Jobs[0].Variables
	}
	names := func(vs map[string]any) string {
		b, _ := json.Marshal(vs)
		return string(b)
	}
	if got := names(activate(`,"fetchVariables":["a","c","missing","a"]`)); got != `{"a":1,"c":{"d":[3]}}` {
		t.Errorf("fetchVariables [a c missing a]: %s", got)
	}
	if got := names(activate(`,"fetchVariables":[]`)); got != `{}` {
		t.Errorf("fetchVariables []: %s", got)
	}
	if got := names(activate(`,"fetchVariables":null`)); got != `{"a":1,"b":"two","c":{"d":[3]}}` {
		t.Errorf("fetchVariables null: %s", got)
	}
	if got := names(activate(``)); got != `{"a":1,"b":"two","c":{"d":[3]}}` {
		t.Errorf("without fetchVariables: %s", got)
	}

	for body, field := range map[string]string{
		`"fetchVariables":"a"`:      "fetchVariables",
		`"fetchVariables":[1]`:      "fetchVariables",
		`"fetchVariables":["a",""]`: "fetchVariables[1]",
	} {
		p := b.postJSON("/api/v1/jobs/activate", `{"type":"pay","worker":"w","lockDurationMs":60000,`+body+`}`).problem(t, http.StatusBadRequest, "invalid-request")
		if p.Field != field {
			t.Errorf("%s: field %q, want %q", body, p.Field, field)
		}
	}
}
