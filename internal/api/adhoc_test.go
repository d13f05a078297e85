package api_test

// Fake-service tests of the ad-hoc, variables and waits routes of an
// instance: wire shapes and every error path.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
)

// startFake deploys "order" on a fresh fake and starts one running instance.
func startFake(t *testing.T, opts api.Options) (*bundle, *fakeService, string) {
	t.Helper()
	f := newFake()
	b := setup(t, f, opts)
	b.postXML("/api/v1/deployments", model("order")).wantStatus(t, http.StatusCreated)
	id := b.postJSON("/api/v1/processes/order/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	return b, f, id
}

// sendAs sends a request with a content type and an identity (empty = none).
func (b *bundle) sendAs(method, user, contentType, path, body string) *response {
	b.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if user != "" {
		req.Header.Set(api.HeaderUser, user)
	}
	return b.do(req)
}

func TestAdHocRegions(t *testing.T) {
	t.Parallel()
	b, f, id := startFake(t, api.Options{})

	t.Run("none", func(t *testing.T) {
		if got := string(b.get("/api/v1/instances/"+id+"/adhoc").wantStatus(t, http.StatusOK).Body); got != `{"regions":[]}` {
			t.Errorf("regions = %s", got)
		}
	})
	t.Run("unknown instance", func(t *testing.T) {
		b.get("/api/v1/instances/nope/adhoc").problem(t, http.StatusNotFound, "not-found")
	})
	t.Run("shape", func(t *testing.T) {
		f.seedRegion(runtime.InstanceID(id), "parallel")
		got := string(b.get("/api/v1/instances/"+id+"/adhoc").wantStatus(t, http.StatusOK).Body)
		want := `{"regions":[` +
			`{"scopeId":"sc-r","path":"/Review","nodeId":"Review","selection":"manual","ordering":"parallel",` +
			`"candidates":[{"activityId":"A","name":"Check A"},{"activityId":"B","name":"B"}],"running":[],"completed":{"Z":2},"stopped":null},` +
			`{"scopeId":"sc-auto","path":"/Review/Inner","nodeId":"Inner","selection":"automatic","ordering":"parallel",` +
			`"candidates":[],"running":["X","X"],"completed":{},"stopped":"completion condition"}]}`
		if got != want {
			t.Errorf("regions =\n%s\nwant\n%s", got, want)
		}
	})
}

func TestActivateAdHoc(t *testing.T) {
	t.Parallel()
	b, f, id := startFake(t, api.Options{MaxJSONBytes: 256})
	f.seedRegion(runtime.InstanceID(id), "parallel")
	path := "/api/v1/instances/" + id + "/adhoc/sc-r/activate"
	regions := func() string {
		return string(b.get("/api/v1/instances/"+id+"/adhoc").wantStatus(t, http.StatusOK).Body)
	}
	before := regions()

	t.Run("needs a user", func(t *testing.T) {
		for _, user := range []string{"", "   "} {
			p := b.sendAs(http.MethodPost, user, "application/json", path, `{"activityId":"A"}`).problem(t, http.StatusForbidden, "forbidden")
			if p.Field != api.HeaderUser || !strings.Contains(p.Detail, api.HeaderUser) {
				t.Errorf("problem = %+v, want it to name %s", p, api.HeaderUser)
			}
		}
		// Even a bad body is refused for the missing user first.
		b.sendAs(http.MethodPost, "", "text/plain", path, `x`).problem(t, http.StatusForbidden, "forbidden")
		if got := locked(f, func() *[3]string { return f.adhoc.lastActivate }); got != nil {
			t.Errorf("the service was called without a user: %v", got)
		}
	})

	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		slug, field             string
	}{
		{"text body", "text/plain", `{"activityId":"A"}`, 415, "unsupported-media-type", ""},
		{"malformed", "application/json", `{"activityId":`, 400, "malformed-json", ""},
		{"not an object", "application/json", `["A"]`, 400, "invalid-request", ""},
		{"empty body", "application/json", ``, 400, "invalid-request", "activityId"},
		{"no activity", "application/json", `{}`, 400, "invalid-request", "activityId"},
		{"blank activity", "application/json", `{"activityId":" "}`, 400, "invalid-request", "activityId"},
		{"activity not a string", "application/json", `{"activityId":7}`, 400, "invalid-request", "activityId"},
		{"oversize", "application/json", `{"activityId":"` + strings.Repeat("A", 300) + `"}`, 413, "payload-too-large", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := b.sendAs(http.MethodPost, "ann", tc.contentType, path, tc.body).problem(t, tc.status, tc.slug)
			if p.Field != tc.field {
				t.Errorf("field = %q, want %q (detail %q)", p.Field, tc.field, p.Detail)
			}
		})
	}
	if got := locked(f, func() *[3]string { return f.adhoc.lastActivate }); got != nil {
		t.Errorf("the service was called for a bad request: %v", got)
	}

	t.Run("unknown instance", func(t *testing.T) {
		b.sendAs(http.MethodPost, "ann", "application/json", "/api/v1/instances/nope/adhoc/sc-r/activate", `{"activityId":"A"}`).
			problem(t, http.StatusNotFound, "not-found")
	})
	t.Run("not a candidate", func(t *testing.T) {
		p := b.sendAs(http.MethodPost, "ann", "application/json", path, `{"activityId":"Z"}`).problem(t, http.StatusConflict, "conflict")
		if !strings.Contains(p.Detail, "Z was not activated and nothing changed") || !strings.Contains(p.Detail, "not a candidate") {
			t.Errorf("detail = %q", p.Detail)
		}
	})
	t.Run("unknown region", func(t *testing.T) {
		p := b.sendAs(http.MethodPost, "ann", "application/json", "/api/v1/instances/"+id+"/adhoc/sc-x/activate", `{"activityId":"A"}`).
			problem(t, http.StatusConflict, "conflict")
		if !strings.Contains(p.Detail, "no open ad-hoc region sc-x") {
			t.Errorf("detail = %q", p.Detail)
		}
	})
	if after := regions(); after != before {
		t.Fatalf("refused activations changed the regions:\n%s\nwas\n%s", after, before)
	}

	t.Run("internal", func(t *testing.T) {
		p := b.sendAs(http.MethodPost, "ann", "application/json", path, `{"activityId":"explode"}`).problem(t, http.StatusInternalServerError, "internal")
		if strings.Contains(p.Detail, "secret") {
			t.Errorf("internal cause leaked: %q", p.Detail)
		}
	})

	t.Run("activate", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"activityId":"A","extra":1}`))
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
		req.Header.Set(api.HeaderUser, " ann ")
		req.Header.Set(api.HeaderGroups, "clerks, ,reviewers")
		got := string(b.do(req).wantStatus(t, http.StatusOK).Body)
		want := `{"scopeId":"sc-r","path":"/Review","nodeId":"Review","selection":"manual","ordering":"parallel",` +
			`"candidates":[{"activityId":"B","name":"B"}],"running":["A"],"completed":{"Z":2},"stopped":null}`
		if got != want {
			t.Errorf("region =\n%s\nwant\n%s", got, want)
		}
		last := locked(f, func() [3]string { return *f.adhoc.lastActivate })
		groups := locked(f, func() []string { return f.adhoc.lastGroups })
		if last != [3]string{"sc-r", "A", "ann"} || !slices.Equal(groups, []string{"clerks", "reviewers"}) {
			t.Errorf("service got %v as %v", last, groups)
		}
		// A is running now, no longer a candidate.
		b.sendAs(http.MethodPost, "bob", "application/json", path, `{"activityId":"A"}`).problem(t, http.StatusConflict, "conflict")
	})

	t.Run("sequential", func(t *testing.T) {
		b, f, id := startFake(t, api.Options{})
		f.seedRegion(runtime.InstanceID(id), "sequential")
		path := "/api/v1/instances/" + id + "/adhoc/sc-r/activate"
		b.sendAs(http.MethodPost, "ann", "application/json", path, `{"activityId":"A"}`).wantStatus(t, http.StatusOK)
		p := b.sendAs(http.MethodPost, "ann", "application/json", path, `{"activityId":"B"}`).problem(t, http.StatusConflict, "conflict")
		if !strings.Contains(p.Detail, "already runs") {
			t.Errorf("detail = %q", p.Detail)
		}
	})
}

// TestActivateAdHocDrains checks the answer when the activation drains the
// region at once: the region as it was, with nothing offered or running.
func TestActivateAdHocDrains(t *testing.T) {
	t.Parallel()
	b, f, id := startFake(t, api.Options{})
	f.seedStraightRegion(runtime.InstanceID(id))
	got := string(b.sendAs(http.MethodPost, "ann", "application/json", "/api/v1/instances/"+id+"/adhoc/sc-s/activate", `{"activityId":"straight1"}`).
		wantStatus(t, http.StatusOK).Body)
	want := `{"scopeId":"sc-s","path":"/Quick","nodeId":"Quick","selection":"manual","ordering":"sequential",` +
		`"candidates":[],"running":[],"completed":{"straight0":1},"stopped":"drained"}`
	if got != want {
		t.Errorf("region =\n%s\nwant\n%s", got, want)
	}
	if got := string(b.get("/api/v1/instances/" + id + "/adhoc").Body); got != `{"regions":[]}` {
		t.Errorf("regions = %s", got)
	}
}

func TestSetVariables(t *testing.T) {
	t.Parallel()
	b, f, id := startFake(t, api.Options{MaxJSONBytes: 256})
	f.setScopes(runtime.InstanceID(id),
		runtime.ScopeView{ID: "sc-1", Path: "/", State: "active"},
		runtime.ScopeView{ID: "sc-2", ParentID: "sc-1", NodeID: "Sub_1", Path: "/Sub_1", State: "active"})
	path := "/api/v1/instances/" + id + "/variables"

	runFieldCases(t, b, path, []fieldCase{
		{"text body", `{"variables":{"a":1}}`, 415, "unsupported-media-type", ""},
		{"malformed", `{"variables":{`, 400, "malformed-json", ""},
		{"not an object", `[1]`, 400, "invalid-request", ""},
		{"empty body", ``, 400, "invalid-request", "variables"},
		{"no variables", `{"scopeId":"sc-2"}`, 400, "invalid-request", "variables"},
		{"null variables", `{"variables":null}`, 400, "invalid-request", "variables"},
		{"empty variables", `{"variables":{}}`, 400, "invalid-request", "variables"},
		{"variables an array", `{"variables":[1]}`, 400, "invalid-request", "variables"},
		{"scope a number", `{"variables":{"a":1},"scopeId":2}`, 400, "invalid-request", "scopeId"},
		{"local a string", `{"variables":{"a":1},"local":"yes"}`, 400, "invalid-request", "local"},
		{"oversize", `{"variables":{"s":"` + strings.Repeat("x", 300) + `"}}`, 413, "payload-too-large", ""},
	})
	if got := locked(f, func() *fakeSet { return f.adhoc.lastSet }); got != nil {
		t.Errorf("the service was called for a bad request: %+v", got)
	}

	t.Run("unknown instance", func(t *testing.T) {
		b.postJSON("/api/v1/instances/nope/variables", `{"variables":{"a":1}}`).problem(t, http.StatusNotFound, "not-found")
	})
	t.Run("unknown scope", func(t *testing.T) {
		p := b.postJSON(path, `{"variables":{"a":1},"scopeId":"sc-9"}`).problem(t, http.StatusNotFound, "not-found")
		if !strings.Contains(p.Detail, "sc-9") {
			t.Errorf("detail = %q", p.Detail)
		}
	})
	t.Run("root", func(t *testing.T) {
		got := b.postJSON(path, `{"variables":{"amount":10.50,"ok":true},"scopeId":null,"local":null}`).wantStatus(t, http.StatusOK).object(t)
		if mustJSON(t, got["variables"]) != `{"amount":10.50,"ok":true}` || got["id"] != id {
			t.Errorf("instance = %v", got)
		}
		last := locked(f, func() fakeSet { return *f.adhoc.lastSet })
		if last.scopeID != "" || last.local || last.vars["amount"] != json.Number("10.50") {
			t.Errorf("service got %+v", last)
		}
	})
	t.Run("local in a scope", func(t *testing.T) {
		got := b.postJSON(path, `{"variables":{"x":"y"},"scopeId":"sc-2","local":true}`).wantStatus(t, http.StatusOK).object(t)
		sc := got["scopes"].([]any)[1].(map[string]any)
		if sc["id"] != "sc-2" || mustJSON(t, sc["variables"]) != `{"x":"y"}` {
			t.Errorf("scope = %v", sc)
		}
		last := locked(f, func() fakeSet { return *f.adhoc.lastSet })
		if last.scopeID != "sc-2" || !last.local {
			t.Errorf("service got %+v", last)
		}
	})
	t.Run("ended instance", func(t *testing.T) {
		b.postJSON("/api/v1/instances/"+id+"/cancel", ``).wantStatus(t, http.StatusOK)
		b.postJSON(path, `{"variables":{"a":1}}`).problem(t, http.StatusConflict, "conflict")
	})
}

func TestInstanceWaits(t *testing.T) {
	t.Parallel()
	b, _, id := startFake(t, api.Options{})
	b.get("/api/v1/instances/nope/waits").problem(t, http.StatusNotFound, "not-found")
	got := string(b.get("/api/v1/instances/"+id+"/waits").wantStatus(t, http.StatusOK).Body)
	want := `{"items":[` +
		`{"id":"job-7","kind":"job","nodeId":"Charge","scopeId":"sc-1","name":"charge","correlationKey":null,"retries":2,` +
		`"candidateUsers":[],"candidateGroups":[],"createdAt":"2025-03-01T10:00:00Z","lockOwner":"w1","lockExpiresAt":"2025-03-01T10:01:00Z"},` +
		`{"id":"job-8","kind":"job","nodeId":"Mail","scopeId":"sc-1","name":"mail","correlationKey":null,"retries":0,` +
		`"candidateUsers":[],"candidateGroups":[],"createdAt":"2025-03-01T10:00:00Z"},` +
		`{"id":"task-9","kind":"task","nodeId":"Approve","scopeId":"sc-1","name":"Approve","correlationKey":null,"dueAt":"2025-03-01T11:00:00Z",` +
		`"assignee":"ann","candidateUsers":[],"candidateGroups":["managers"],"createdAt":"2025-03-01T10:00:00Z"},` +
		`{"id":"sub-1","kind":"message","nodeId":"Paid","scopeId":"sc-1","name":"paid","correlationKey":"o-1",` +
		`"candidateUsers":[],"candidateGroups":[],"createdAt":"2025-03-01T10:00:00Z"},` +
		`{"id":"tmr-1","kind":"timer","nodeId":"Remind","scopeId":"sc-1","name":"","correlationKey":null,"dueAt":"2025-03-01T12:00:00Z",` +
		`"candidateUsers":[],"candidateGroups":[],"createdAt":"2025-03-01T10:00:00Z"}]}`
	if got != want {
		t.Errorf("waits =\n%s\nwant\n%s", got, want)
	}
}

// TestScopeKindAndIndex checks the wire shape of a multi-instance body and
// its iterations: kind and index are null for other scopes.
func TestScopeKindAndIndex(t *testing.T) {
	t.Parallel()
	b, f, id := startFake(t, api.Options{})
	f.setScopes(runtime.InstanceID(id),
		runtime.ScopeView{ID: "sc-1", Path: "/", State: "active"},
		runtime.ScopeView{ID: "sc-b", ParentID: "sc-1", NodeID: "Review", Path: "/Review", State: "active", Kind: "body"},
		runtime.ScopeView{ID: "sc-i1", ParentID: "sc-b", NodeID: "Review", Path: "/Review#1", State: "active", Kind: "iteration", Index: 1,
			Variables: map[string]any{"p": "ann", "loopCounter": json.Number("1")}})
	scopes := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)["scopes"].([]any)
	var got []string
	for _, s := range scopes {
		m := s.(map[string]any)
		got = append(got, mustJSON(t, []any{m["id"], m["kind"], m["index"]}))
	}
	if want := []string{`["sc-1",null,null]`, `["sc-b","body",null]`, `["sc-i1","iteration",1]`}; !slices.Equal(got, want) {
		t.Errorf("scopes (id, kind, index) = %v, want %v", got, want)
	}
}

func TestInstanceSubRoutesMethods(t *testing.T) {
	t.Parallel()
	b, _, id := startFake(t, api.Options{})
	for _, tc := range []struct{ method, path, allow string }{
		{http.MethodPost, "/api/v1/instances/" + id + "/adhoc", "GET"},
		{http.MethodGet, "/api/v1/instances/" + id + "/adhoc/sc-r/activate", "POST"},
		{http.MethodGet, "/api/v1/instances/" + id + "/variables", "POST"},
		{http.MethodPost, "/api/v1/instances/" + id + "/waits", "GET"},
	} {
		res := b.send(tc.method, tc.path, "", "")
		res.problem(t, http.StatusMethodNotAllowed, "method-not-allowed")
		if got := res.Header.Get("Allow"); got != tc.allow {
			t.Errorf("%s %s: Allow = %q, want %q", tc.method, tc.path, got, tc.allow)
		}
	}
}
