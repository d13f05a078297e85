package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// A number beyond the range of a 64-bit float, anywhere in a JSON body, is
// refused with 400 naming its field, and nothing is stored; numbers within
// range (large integers, tiny fractions) are kept exactly as sent.
func TestHugeNumbersRefused(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postXML("/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)
	long := strings.Repeat("9", 400)
	for _, tc := range []struct{ body, field string }{
		{`{"variables":{"x":1e400}}`, "variables.x"},
		{`{"variables":{"a":1,"y":-1E999}}`, "variables.y"},
		{`{"variables":{"w":{"deep":[1,2e308]}}}`, "variables.w.deep[1]"},
		{`{"variables":{"n":` + long + `}}`, "variables.n"},
		{`{"variables":{"s":"1e400 in a string is text","n":1.5e309}}`, "variables.n"},
		{`{"businessKey":"k","version":1e999}`, "version"},
	} {
		p := b.postJSON("/api/v1/processes/order/instances", tc.body).problem(t, http.StatusBadRequest, "invalid-request")
		if p.Field != tc.field || !strings.Contains(p.Detail, "beyond the range") {
			t.Errorf("%s: field %q, detail %q; want field %q", tc.body, p.Field, p.Detail, tc.field)
		}
	}
	if items := b.get("/api/v1/instances").wantStatus(t, http.StatusOK).items(t); len(items) != 0 {
		t.Fatalf("a refused start stored an instance: %v", items)
	}

	// Other bodies with variables: messages, signals, variable edits.
	for path, body := range map[string]string{
		"/api/v1/messages": `{"name":"m","variables":{"x":1e400}}`,
		"/api/v1/signals":  `{"name":"s","variables":{"x":1e400}}`,
	} {
		if p := b.postJSON(path, body).problem(t, http.StatusBadRequest, "invalid-request"); p.Field != "variables.x" {
			t.Errorf("%s: field %q", path, p.Field)
		}
	}

	ok := `{"variables":{"big":12345678901234567890123,"max":1.7976931348623157e308,"tiny":1e-400,"neg":-1e308}}`
	inst := b.postJSON("/api/v1/processes/order/instances", ok).wantStatus(t, http.StatusCreated)
	for _, want := range []string{`"big":12345678901234567890123`, `"max":1.7976931348623157e308`, `"tiny":1e-400`, `"neg":-1e308`} {
		if !strings.Contains(string(inst.Body), want) {
			t.Errorf("the instance does not keep %s: %s", want, inst.Body)
		}
	}
	id := inst.object(t)["id"].(string)
	if p := b.postJSON("/api/v1/instances/"+id+"/variables", `{"variables":{"x":[1e400]}}`).problem(t, http.StatusBadRequest, "invalid-request"); p.Field != "variables.x[0]" {
		t.Errorf("set variables: field %q", p.Field)
	}
	if got := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK); strings.Contains(string(got.Body), `"x"`) {
		t.Errorf("a refused variable edit was stored: %s", got.Body)
	}
}
