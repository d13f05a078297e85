package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/auth/oidctest"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// authModel has a job (type pay) and then a user task offered to group
// clerks, so every kind of resource exists.
const authModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:test">
  <process id="order" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="pay"/>
    <serviceTask id="pay" gobpm:type="pay"/>
    <sequenceFlow id="f2" sourceRef="pay" targetRef="approve"/>
    <userTask id="approve" gobpm:candidateGroups="clerks"/>
    <sequenceFlow id="f3" sourceRef="approve" targetRef="end"/>
    <endEvent id="end"/>
  </process>
  <process id="invoice" isExecutable="true">
    <startEvent id="istart"/>
    <sequenceFlow id="i1" sourceRef="istart" targetRef="iend"/>
    <endEvent id="iend"/>
  </process>
</definitions>`

// authWorld is a server with --auth builtin and one user (with a token)
// per built-in role, plus one with no rights at all.
type authWorld struct {
	b      *bundle
	acc    *access.Service
	rt     *runtime.Runtime
	tokens map[string]string // role (or "nobody") → bearer token
}

// openAccess opens a real store (testdb: SQLite or PostgreSQL), a runtime over it and
// an access service in mode (with provider for oidc), all closed with t.
func openAccess(t *testing.T, mode access.Mode, provider *auth.OIDC) (*runtime.Runtime, *access.Service) {
	t.Helper()
	ctx := context.Background()
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	acc, err := access.New(ctx, access.Config{Mode: mode, Store: db, OIDC: provider, Params: auth.TestParams()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = acc.Close(context.Background()) })
	opts := runtime.Options{}
	if mode != access.ModeNone {
		opts.Reach = acc // as gobpm-web wires it: dynamic references are checked against their deployers
	}
	rt := runtime.New(db, opts)
	t.Cleanup(func() { _ = rt.Close() })
	return rt, acc
}

func setupAuth(t *testing.T) *authWorld {
	t.Helper()
	ctx := context.Background()
	rt, acc := openAccess(t, access.ModeBuiltin, nil)
	w := &authWorld{b: setup(t, rt, api.Options{Access: acc}), acc: acc, rt: rt, tokens: map[string]string{}}
	for _, role := range append(slices.Clone(auth.Roles()), "nobody") {
		user := "u-" + string(role)
		if _, err := acc.CreateUser(ctx, "", access.NewUser{ID: user, Password: "correct horse battery"}); err != nil {
			t.Fatal(err)
		}
		if role != "nobody" {
			if _, err := acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: user}, Role: role}); err != nil {
				t.Fatal(err)
			}
		}
		secret, _, err := acc.MintToken(ctx, access.NewToken{Owner: user, Name: "test"})
		if err != nil {
			t.Fatal(err)
		}
		w.tokens[string(role)] = secret
	}
	return w
}

// httptestRequest builds a request to the router.
func httptestRequest(method, path string, body io.Reader) *http.Request {
	return httptest.NewRequest(method, path, body)
}

// call sends a request as role ("" sends no credential).
func (w *authWorld) call(role, method, path, body string) *response {
	w.b.t.Helper()
	var req *http.Request
	if body != "" {
		req = httptestRequest(method, path, strings.NewReader(body))
		ct := "application/json"
		if strings.HasPrefix(body, "<?xml") {
			ct = "application/xml"
		}
		req.Header.Set("Content-Type", ct)
	} else {
		req = httptestRequest(method, path, nil)
	}
	if role != "" {
		req.Header.Set("Authorization", "Bearer "+w.tokens[role])
	}
	return w.b.do(req)
}

// TestEveryRouteHasARule walks the router: every route must be in the
// route → permission table (a route without a rule answers 500, so this
// test is what keeps a new route from shipping unguarded).
func TestEveryRouteHasARule(t *testing.T) {
	t.Parallel()
	routes := api.New(newFake(), nil, api.Options{}).(chi.Routes)
	rules := api.RouteRules()
	err := chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if _, ok := rules[method+" "+route]; !ok {
			t.Errorf("route %s %s has no authorization rule", method, route)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRouteRoleMatrix sends every route as every built-in role, as a user
// with no rights and with no credential, against a real runtime and store:
// each is allowed (anything but 401/403) or refused (403) exactly as the
// table below says, and without a credential every non-public route is 401.
func TestRouteRoleMatrix(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	ctx := context.Background()

	// Resources, made as admin.
	w.call("admin", "POST", "/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)
	inst := w.call("admin", "POST", "/api/v1/processes/order/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)
	instID := inst["id"].(string)
	waits, _, err := w.rt.Waits(ctx, runtime.InstanceID(instID), "", 10)
	if err != nil || len(waits) != 1 {
		t.Fatalf("waits = %v, %v", waits, err)
	}
	jobKey := waits[0].ID
	c8Job, err := w.rt.NumericKeyOfJob(ctx, jobKey)
	if err != nil {
		t.Fatal(err)
	}
	c8JobPath := "/v2/jobs/" + strconv.FormatInt(c8Job, 10)
	if _, err := w.acc.CreateGroup(ctx, "clerks", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := w.acc.CreateUser(ctx, "", access.NewUser{ID: "victim"}); err != nil {
		t.Fatal(err)
	}

	type row struct {
		method, path, body string
		allowed            string // roles allowed: a=admin d=developer o=operator w=worker v=viewer n=nobody; "*" = any authenticated
	}
	rows := []row{
		{"GET", "/metrics", "", "*"},
		{"GET", "/api/v1/auth/me", "", "*"},
		{"GET", "/api/v1/cluster", "", "*"},
		{"POST", "/api/v1/deployments", authModel, "ad"},
		{"GET", "/api/v1/processes", "", "adov"},
		{"GET", "/api/v1/processes/order/versions", "", "adov"},
		{"GET", "/api/v1/processes/order/versions/1/xml", "", "adov"},
		{"GET", "/api/v1/processes/order/statistics", "", "adov"},
		{"GET", "/api/v1/processes/order/statistics/timeline", "", "adov"},
		{"POST", "/api/v1/processes/invoice/instances", `{}`, "ado"},
		{"GET", "/api/v1/decisions", "", "adov"},
		{"GET", "/api/v1/decisions/none/versions", "", "adov"},
		{"GET", "/api/v1/decisions/none/versions/1/xml", "", "adov"},
		{"POST", "/api/v1/decisions/none/evaluate", `{}`, "ado"},
		{"GET", "/api/v1/instances", "", "adov"},
		{"GET", "/api/v1/instances/" + instID, "", "adov"},
		{"GET", "/api/v1/instances/" + instID + "/history", "", "adov"},
		{"GET", "/api/v1/history/export", "", "adov"},
		{"GET", "/api/v1/instances/" + instID + "/scopes", "", "adov"},
		{"GET", "/api/v1/instances/" + instID + "/tracks", "", "adov"},
		{"GET", "/api/v1/instances/" + instID + "/waits", "", "adov"},
		{"GET", "/api/v1/instances/" + instID + "/adhoc", "", "adov"},
		{"POST", "/api/v1/instances/" + instID + "/adhoc/none/activate", `{"activityId":"x"}`, "ado"},
		{"POST", "/api/v1/instances/" + instID + "/adhoc/none/complete", `{}`, "ado"},
		{"POST", "/api/v1/instances/" + instID + "/variables", `{"variables":{"x":1}}`, "ado"},
		{"POST", "/api/v1/instances/" + instID + "/waits/none/trigger", `{}`, "ado"}, // 404 for those allowed: no such wait
		{"GET", "/api/v1/incidents", "", "adov"},
		{"POST", "/api/v1/jobs/activate", `{"type":"nothing","worker":"w","maxJobs":1,"lockDurationMs":1000}`, "aw"},
		{"POST", "/api/v1/jobs/complete", `{"completions":[]}`, "aw"},
		{"POST", "/api/v1/jobs/" + jobKey + "/extend", `{"lockDurationMs":1000}`, "aw"},
		{"GET", "/api/v1/tasks", "", "*"},
		{"GET", "/api/v1/tasks/none", "", "*"},
		{"GET", "/api/v1/tasks/none/form", "", "*"},
		{"GET", "/api/v1/completed-tasks", "", "*"},
		{"POST", "/api/v1/messages", `{"name":"none"}`, "ado"},
		{"POST", "/api/v1/signals", `{"name":"none"}`, "ado"},
		{"POST", "/api/v1/conditions/evaluate", `{}`, "ado"}, // 404 for those allowed: no conditional start deployed
		{"GET", "/api/v1/users", "", "a"},
		{"POST", "/api/v1/users", `{"id":"new-user"}`, "a"},
		{"GET", "/api/v1/users/victim", "", "a"},
		{"PATCH", "/api/v1/users/victim", `{"name":"V"}`, "a"},
		{"GET", "/api/v1/groups", "", "a"},
		{"POST", "/api/v1/groups", `{"id":"g2"}`, "a"},
		{"GET", "/api/v1/groups/clerks", "", "a"},
		{"PUT", "/api/v1/groups/clerks/members/victim", "", "a"},
		{"DELETE", "/api/v1/groups/clerks/members/victim", "", "a"},
		{"GET", "/api/v1/grants", "", "a"},
		{"POST", "/api/v1/grants", `{"subject":{"kind":"user","id":"victim"},"role":"viewer"}`, "a"},
		{"GET", "/api/v1/tokens", "", "*"},
		{"POST", "/api/v1/tokens", `{"name":"mine"}`, "*"},
		{"GET", "/api/v1/audit", "", "a"},
		{"POST", "/api/v1/instances/" + instID + "/modify", `{"instructions":[{"activate":{"nodeId":"nope"}}]}`, "ado"},
		{"POST", "/api/v1/migrations", `{"processKey":"order","sourceVersion":1,"targetVersion":2,"dryRun":true}`, "ado"}, // 404: no version 2
		{"GET", "/api/v1/migrations/none", "", "adov"},
		{"POST", "/api/v1/batches", `{"operation":"cancel","filter":{"processKey":"order"},"dryRun":true}`, "ado"},
		{"GET", "/api/v1/batches", "", "adov"},
		{"GET", "/api/v1/batches/none", "", "adov"},       // 404 for those allowed
		{"GET", "/api/v1/batches/none/items", "", "adov"}, // 404 for those allowed
		{"POST", "/api/v1/batches/none/pause", "", "ado"},
		{"POST", "/api/v1/batches/none/resume", "", "ado"},
		{"POST", "/api/v1/batches/none/cancel", "", "ado"},
		{"GET", "/api/v1/clock", "", "*"},
		{"POST", "/api/v1/clock", `{"advanceMs":1}`, "a"},      // 409 for admin: the clock is real
		{"POST", "/api/v1/admin/backup", `{"to":"x.db"}`, "a"}, // 409 for admin: no --backup-dir
		{"DELETE", "/api/v1/instances/" + instID, "", "a"},     // 409 for admin: it runs (cancelled below)
		{"POST", "/api/v1/instances/" + instID + "/suspend", "", "ado"},
		{"POST", "/api/v1/instances/" + instID + "/resume", "", "ado"},
		{"POST", "/api/v1/processes/order/versions/1/suspend", "", "ado"},
		{"POST", "/api/v1/processes/order/versions/1/resume", "", "ado"},
		{"POST", "/api/v1/instances/" + instID + "/cancel", "", "ado"},
		{"DELETE", "/api/v1/users/victim", "", "a"},
		{"GET", "/engine-rest/engine", "", "*"},
		{"GET", "/engine-rest/deployment", "", "adov"},
		{"GET", "/engine-rest/incident", "", "adov"},
		{"GET", "/engine-rest/history/process-instance", "", "adov"},
		{"GET", "/engine-rest/task", "", "*"},
		{"GET", "/engine-rest/task/none", "", "*"},
		{"GET", "/engine-rest/task/none/form-variables", "", "*"},
		{"GET", "/engine-rest/process-instance", "", "adov"},
		{"GET", "/engine-rest/process-instance/" + instID, "", "adov"},
		{"GET", "/engine-rest/process-instance/" + instID + "/variables", "", "adov"},
		{"POST", "/engine-rest/message", `{"messageName":"none"}`, "ado"}, // 400 for those allowed: nothing matches
		{"POST", "/engine-rest/signal", `{"name":"none"}`, "ado"},
		{"GET", "/engine-rest/process-definition", "", "adov"},
		{"GET", "/engine-rest/process-definition/key/order", "", "adov"},
		{"POST", "/engine-rest/process-definition/key/order/start", `{}`, "ado"},
		{"POST", "/engine-rest/process-definition/order:1/start", `{}`, "ado"},
		{"GET", "/engine-rest/version", "", "*"},
		{"POST", "/v2/jobs/activation", `{"type":"nothing","maxJobsToActivate":1,"timeout":1000,"requestTimeout":-1}`, "aw"},
		{"POST", c8JobPath + "/completion", `{}`, "aw"}, // 409 for those allowed: not activated
		{"POST", c8JobPath + "/failure", `{"retries":1}`, "aw"},
		{"POST", c8JobPath + "/failure", `{"retries":1,"variables":{"tries":1}}`, "aw"}, // the task's locals
		{"POST", c8JobPath + "/error", `{"errorCode":"x"}`, "aw"},
		{"PATCH", c8JobPath, `{"changeset":{"timeout":1000}}`, "aw"},
		{"POST", "/v2/process-instances", `{"processDefinitionId":"invoice"}`, "ado"},
		{"POST", "/v2/process-instances/99999999/cancellation", `{}`, "ado"}, // 404 for those allowed
		{"POST", "/v2/process-instances/search", `{}`, "adov"},
		{"PUT", "/v2/element-instances/99999999/variables", `{"variables":{"x":1}}`, "ado"}, // 404 for those allowed
		{"POST", "/v2/messages/publication", `{"name":"none"}`, "ado"},
		{"POST", "/v2/messages/correlation", `{"name":"none"}`, "ado"}, // 404 for those allowed: nothing waits
		{"POST", "/v2/signals/broadcast", `{"signalName":"none"}`, "ado"},
		{"POST", "/v2/user-tasks/search", `{}`, "*"},
		{"POST", "/v2/user-tasks/99999999/assignment", `{"assignee":"x"}`, "*"},
		{"DELETE", "/v2/user-tasks/99999999/assignee", "", "*"},
		{"POST", "/v2/user-tasks/99999999/completion", `{}`, "*"},
		{"POST", "/v2/incidents/search", `{}`, "adov"},
		{"POST", "/v2/incidents/99999999/resolution", `{}`, "ado"},
		{"GET", "/v2/topology", "", "*"},
		{"GET", "/v2/license", "", "*"},
	}
	letters := map[string]string{"admin": "a", "developer": "d", "operator": "o", "worker": "w", "viewer": "v", "nobody": "n"}
	for _, rw := range rows {
		if res := w.call("", rw.method, rw.path, rw.body); res.Status != http.StatusUnauthorized {
			t.Errorf("%s %s without a credential: %d, want 401", rw.method, rw.path, res.Status)
		}
		for role, letter := range letters {
			want := rw.allowed == "*" || strings.Contains(rw.allowed, letter)
			res := w.call(role, rw.method, rw.path, rw.body)
			refused := res.Status == http.StatusForbidden || res.Status == http.StatusUnauthorized
			if want && refused {
				t.Errorf("%s %s as %s: %d %s, want allowed", rw.method, rw.path, role, res.Status, res.Body)
			}
			if refusal := refusalStatus(rw.path, letter); !want && res.Status != refusal {
				t.Errorf("%s %s as %s: %d, want %d", rw.method, rw.path, role, res.Status, refusal)
			}
		}
	}
	// Every route of the router is in the matrix (public ones aside).
	covered := map[string]bool{}
	for _, rw := range rows {
		covered[rw.method+" "+routeOf(rw.path)] = true
	}
	for route, ru := range api.RouteRules() {
		if !ru.Public && !covered[route] && !untested[route] && !engineRestMatrix[route] {
			t.Errorf("route %s is not in the matrix", route)
		}
	}
}

// refusalStatus is the status a refused role (by its matrix letter) gets
// on path: 404 where the refusal conceals the resource (an instance of a
// process the role may not read, a job of a type it may not work on), 403
// elsewhere (activating and batch completion: a role with work on no job
// type).
func refusalStatus(path, letter string) int {
	switch {
	case strings.HasPrefix(path, "/api/v1/instances/") && !strings.Contains("adov", letter),
		strings.HasPrefix(path, "/api/v1/jobs/") && path != "/api/v1/jobs/activate" && path != "/api/v1/jobs/complete":
		return http.StatusNotFound
	}
	return http.StatusForbidden
}

// untested are protected routes the matrix cannot send as every role with
// a meaningful answer: the ones that consume their resource (a job or
// task completion, an incident retry, a token revocation). The lock-token
// and task tests cover them.
var untested = map[string]bool{
	"POST /api/v1/jobs/{key}/complete":  true,
	"POST /api/v1/jobs/{key}/fail":      true,
	"POST /api/v1/jobs/{key}/error":     true,
	"POST /api/v1/incidents/{id}/retry": true,
	"POST /api/v1/tasks/{id}/claim":     true,
	"POST /api/v1/tasks/{id}/unclaim":   true,
	"POST /api/v1/tasks/{id}/complete":  true,
	"DELETE /api/v1/tokens/{id}":        true,
	"DELETE /api/v1/grants/{id}":        true,
	"DELETE /api/v1/groups/{id}":        true,
	// The engine-rest task acts: whether one is allowed depends on the
	// task's candidates and assignee, not on the caller's role (any
	// authenticated caller reaches them): TestCamunda7UserTaskPermissions
	// covers them. The job acts and the instance's DELETE are in
	// TestEngineRestRoleMatrix, which gives each call its own resource.
	"POST /engine-rest/task/{id}/claim":    true,
	"POST /engine-rest/task/{id}/unclaim":  true,
	"POST /engine-rest/task/{id}/complete": true,
	// A multipart body, which the matrix's calls cannot send:
	// TestCamunda7DeploymentPermissions covers it.
	"POST /engine-rest/deployment/create": true,
	// A multipart body: TestCamunda8DeploymentPermissions covers it.
	"POST /v2/deployments": true,
}

// routeOf maps a concrete path of the matrix back to its route pattern.
func routeOf(path string) string {
	if rest, ok := strings.CutPrefix(path, "/v2/"); ok {
		segs := strings.Split(rest, "/")
		params := map[string]string{"jobs": "{jobKey}", "process-instances": "{processInstanceKey}", "user-tasks": "{userTaskKey}", "incidents": "{incidentKey}",
			"element-instances": "{elementInstanceKey}"}
		if len(segs) > 1 && strings.Trim(segs[1], "0123456789") == "" {
			segs[1] = params[segs[0]]
		}
		return "/v2/" + strings.Join(segs, "/")
	}
	if rest, ok := strings.CutPrefix(path, "/engine-rest/task/"); ok && rest != "" {
		_, tail, _ := strings.Cut(rest, "/")
		return strings.TrimSuffix("/engine-rest/task/{id}/"+tail, "/")
	}
	if rest, ok := strings.CutPrefix(path, "/engine-rest/process-instance/"); ok && rest != "" {
		_, tail, _ := strings.Cut(rest, "/")
		return strings.TrimSuffix("/engine-rest/process-instance/{id}/"+tail, "/")
	}
	if rest, ok := strings.CutPrefix(path, "/engine-rest/process-definition/"); ok && rest != "" {
		if key, ok := strings.CutPrefix(rest, "key/"); ok {
			_, tail, _ := strings.Cut(key, "/")
			return strings.TrimSuffix("/engine-rest/process-definition/key/{key}/"+tail, "/")
		}
		return "/engine-rest/process-definition/{id}/start"
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(segs) < 4 || segs[0] != "api" {
		return path
	}
	names := map[string][]string{
		"processes": {"{key}", "", "{version}"}, "decisions": {"{key}", "", "{version}"},
		"instances": {"{id}", "", "{scopeId}"}, "jobs": {"{key}"}, "tasks": {"{id}"},
		"users": {"{id}"}, "groups": {"{id}", "", "{userId}"}, "grants": {"{id}"}, "tokens": {"{id}"}, "incidents": {"{id}"},
		"migrations": {"{id}"}, "batches": {"{id}"},
	}
	params := names[segs[2]]
	for i := 3; i < len(segs) && i-3 < len(params); i++ {
		if p := params[i-3]; p != "" && !(segs[2] == "jobs" && len(segs) == 4 && (segs[3] == "activate" || segs[3] == "complete")) {
			if p == "{scopeId}" && segs[4] == "waits" {
				p = "{waitId}"
			}
			if p == "{version}" && segs[4] == "statistics" {
				continue // …/statistics/timeline
			}
			segs[i] = p
		}
	}
	return "/" + strings.Join(segs, "/")
}

// TestAuthLoginAndAudit logs in with a password, uses the session cookie,
// fails a login, logs out, and finds each act in the audit trail.
func TestAuthLoginAndAudit(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	res := w.call("", "POST", "/api/v1/auth/login", `{"user":"u-operator","password":"correct horse battery"}`).wantStatus(t, http.StatusOK)
	var cookie *http.Cookie
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == api.SessionCookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode {
		t.Fatalf("session cookie = %+v", cookie)
	}
	withCookie := func(method, path, body string) *response {
		req := httptestRequest(method, path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		req.AddCookie(cookie)
		return w.b.do(req)
	}
	me := withCookie("GET", "/api/v1/auth/me", "").wantStatus(t, http.StatusOK).object(t)
	if me["user"] != "u-operator" || me["via"] != "session" {
		t.Errorf("me = %v", me)
	}
	withCookie("POST", "/api/v1/deployments", "").wantStatus(t, http.StatusForbidden)

	w.call("", "POST", "/api/v1/auth/login", `{"user":"u-operator","password":"wrong password!"}`).wantStatus(t, http.StatusUnauthorized)
	w.call("", "POST", "/api/v1/auth/login", `{"user":"ghost","password":"wrong password!"}`).wantStatus(t, http.StatusUnauthorized)
	withCookie("POST", "/api/v1/auth/logout", "").wantStatus(t, http.StatusNoContent)
	withCookie("GET", "/api/v1/auth/me", "").wantStatus(t, http.StatusUnauthorized)

	page := w.call("admin", "GET", "/api/v1/audit?limit=50", "").wantStatus(t, http.StatusOK).object(t)
	var got []string
	for _, it := range page["items"].([]any) {
		e := it.(map[string]any)
		got = append(got, fmt.Sprintf("%v %v %v %v", e["action"], e["actor"], e["resource"], e["outcome"]))
	}
	want := []string{
		"logout u-operator <nil> ok",
		"login-failed <nil> user ghost denied",
		"login-failed <nil> user u-operator denied",
		"POST /api/v1/deployments u-operator <nil> denied",
		"login u-operator user u-operator ok",
	}
	if !slices.Equal(got, want) {
		t.Errorf("audit trail, newest first:\n got %q\nwant %q", got, want)
	}
}

// TestAuthLockOut locks a user name out after repeated failures.
func TestAuthLockOut(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	for range 4 {
		w.call("", "POST", "/api/v1/auth/login", `{"user":"u-viewer","password":"wrong password!"}`).wantStatus(t, http.StatusUnauthorized)
	}
	// The fifth failure locks the name out: it is answered 429 already.
	w.call("", "POST", "/api/v1/auth/login", `{"user":"u-viewer","password":"wrong password!"}`).wantStatus(t, http.StatusTooManyRequests)
	res := w.call("", "POST", "/api/v1/auth/login", `{"user":"u-viewer","password":"correct horse battery"}`).wantStatus(t, http.StatusTooManyRequests)
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
}

// TestAuthTokens: a token restricted to one job type works only for it,
// its revocation takes effect at once, and no answer or log carries a
// secret or hash.
func TestAuthTokens(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	w.call("admin", "POST", "/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)
	minted := w.call("admin", "POST", "/api/v1/tokens",
		`{"owner":"u-worker","name":"pay worker","grants":[{"permission":"work","kind":"job-type","pattern":"pay"}]}`).
		wantStatus(t, http.StatusCreated).object(t)
	secret := minted["secret"].(string)
	id := minted["token"].(map[string]any)["id"].(string)
	w.tokens["pay"] = secret

	w.call("pay", "POST", "/api/v1/jobs/activate", `{"type":"pay","worker":"w","maxJobs":1,"lockDurationMs":1000}`).wantStatus(t, http.StatusOK)
	w.call("pay", "POST", "/api/v1/jobs/activate", `{"type":"ship","worker":"w","maxJobs":1,"lockDurationMs":1000}`).wantStatus(t, http.StatusForbidden)
	w.call("pay", "GET", "/api/v1/processes", "").wantStatus(t, http.StatusForbidden)

	w.call("operator", "DELETE", "/api/v1/tokens/"+id, "").wantStatus(t, http.StatusNotFound) // not theirs
	w.call("admin", "DELETE", "/api/v1/tokens/"+id, "").wantStatus(t, http.StatusNoContent)
	w.call("pay", "POST", "/api/v1/jobs/activate", `{"type":"pay","worker":"w","maxJobs":1,"lockDurationMs":1000}`).wantStatus(t, http.StatusUnauthorized)

	list := w.call("admin", "GET", "/api/v1/tokens", "").wantStatus(t, http.StatusOK)
	logs := w.b.logs.String()
	for _, tok := range w.tokens {
		_, sec, _ := strings.Cut(strings.TrimPrefix(tok, auth.TokenPrefix), "_")
		if strings.Contains(string(list.Body), sec) || strings.Contains(logs, sec) {
			t.Errorf("a token secret appears in an answer or the log")
		}
	}
	if strings.Contains(string(list.Body), "hash") || strings.Contains(string(list.Body), "argon2") {
		t.Errorf("token list shows a hash: %s", list.Body)
	}
	users := w.call("admin", "GET", "/api/v1/users", "").wantStatus(t, http.StatusOK)
	if strings.Contains(string(users.Body), "argon2") || strings.Contains(logs, "argon2") {
		t.Errorf("a password hash appears in an answer or the log")
	}
}

// TestAuthActAs: identity headers need the act-as permission (400 without
// it); with it, the request has the named user's rights.
func TestAuthActAs(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	ctx := context.Background()
	asViewer := func(role string) *response {
		req := httptestRequest("GET", "/api/v1/auth/me", nil)
		req.Header.Set("Authorization", "Bearer "+w.tokens[role])
		req.Header.Set(api.HeaderUser, "u-viewer")
		return w.b.do(req)
	}
	asViewer("admin").wantStatus(t, http.StatusBadRequest) // admin has no act-as
	g, err := auth.NewGrant(auth.PermActAs, auth.KindSystem, "*")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "u-nobody"}, Grant: &g}); err != nil {
		t.Fatal(err)
	}
	me := asViewer("nobody").wantStatus(t, http.StatusOK).object(t)
	if me["user"] != "u-viewer" || me["actor"] != "u-nobody" {
		t.Errorf("me = %v", me)
	}
}

// TestAuthFirstRun: the set-up token creates the first admin once.
func TestAuthFirstRun(t *testing.T) {
	t.Parallel()
	rt, acc := openAccess(t, access.ModeBuiltin, nil)
	b := setup(t, rt, api.Options{Access: acc})
	token := acc.SetupToken()
	if token == "" {
		t.Fatal("no set-up token on an empty store")
	}
	b.postJSON("/api/v1/auth/setup", `{"setupToken":"wrong","user":"ann","password":"correct horse battery"}`).wantStatus(t, http.StatusForbidden)
	b.postJSON("/api/v1/auth/setup", `{"setupToken":"`+token+`","user":"ann","password":"short"}`).wantStatus(t, http.StatusBadRequest)
	b.postJSON("/api/v1/auth/setup", `{"setupToken":"`+token+`","user":"ann","password":"correct horse battery"}`).wantStatus(t, http.StatusCreated)
	b.postJSON("/api/v1/auth/setup", `{"setupToken":"`+token+`","user":"bob","password":"correct horse battery"}`).wantStatus(t, http.StatusForbidden)
	res := b.postJSON("/api/v1/auth/login", `{"user":"ann","password":"correct horse battery"}`).wantStatus(t, http.StatusOK)
	var body map[string]any
	if err := json.Unmarshal(res.Body, &body); err != nil || body["user"] != "ann" {
		t.Errorf("login answer %s", res.Body)
	}
}

// TestAuthHistoryNamesThePerson: an operator's cancel is recorded in the
// instance's history with their authenticated identity.
func TestAuthHistoryNamesThePerson(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	w.call("admin", "POST", "/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)
	id := w.call("admin", "POST", "/api/v1/processes/order/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	w.call("operator", "POST", "/api/v1/instances/"+id+"/cancel", "").wantStatus(t, http.StatusOK)
	hist := w.call("viewer", "GET", "/api/v1/instances/"+id+"/history", "").wantStatus(t, http.StatusOK)
	if !strings.Contains(string(hist.Body), `"by":"u-operator"`) {
		t.Errorf("history does not name the operator: %s", hist.Body)
	}
}

// TestAuthOIDCBearer: with --auth oidc the API takes the provider's JWTs:
// a valid token for the API's audience authenticates its user with the
// groups its claim maps to (and the grants given to those groups), and
// expired, wrong-audience, wrong-issuer and foreign-key tokens are 401.
func TestAuthOIDCBearer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	idp := oidctest.New(t)
	now := time.Now()
	provider, err := auth.NewOIDC(ctx, auth.OIDCConfig{
		IssuerURL: idp.URL(), ClientID: oidctest.ClientID, ClientSecret: oidctest.ClientSecret, Audience: oidctest.Audience,
		RedirectURL: "http://127.0.0.1/login/oidc/callback", UserClaim: "preferred_username", GroupsClaim: "groups",
		GroupMap: map[string][]auth.GroupID{"bpm-ops": {"operators"}}, HTTPClient: idp.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	rt, acc := openAccess(t, access.ModeOIDC, provider)
	if _, err := acc.CreateGroup(ctx, "operators", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectGroup, ID: "operators"}, Role: auth.RoleOperator}); err != nil {
		t.Fatal(err)
	}
	b := setup(t, rt, api.Options{Access: acc})
	call := func(token, path string) *response {
		req := httptestRequest("GET", path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		return b.do(req)
	}
	good := idp.Sign(idp.Claims(oidctest.Audience, now, nil))
	me := call(good, "/api/v1/auth/me").wantStatus(t, http.StatusOK).object(t)
	if me["user"] != "ann" || me["via"] != "oidc" || fmt.Sprint(me["groups"]) != "[operators]" || fmt.Sprint(me["roles"]) != "[operator]" {
		t.Errorf("me = %v", me)
	}
	call(good, "/api/v1/instances").wantStatus(t, http.StatusOK)
	call(good, "/api/v1/users").wantStatus(t, http.StatusForbidden)
	for name, token := range map[string]string{
		"expired":        idp.Sign(idp.Claims(oidctest.Audience, now.Add(-2*time.Hour), nil)),
		"wrong audience": idp.Sign(idp.Claims("someone-else", now, nil)),
		"wrong issuer":   idp.Sign(idp.Claims(oidctest.Audience, now, map[string]any{"iss": "https://evil.example.test"})),
		"foreign key":    idp.SignWithOtherKey(idp.Claims(oidctest.Audience, now, nil)),
		"garbage":        "not.a.jwt",
	} {
		if res := call(token, "/api/v1/instances"); res.Status != http.StatusUnauthorized {
			t.Errorf("%s token: %d, want 401", name, res.Status)
		}
	}
}

// inboxModel offers a task to the clerks group.
const inboxModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:test">
  <process id="inbox" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="approve"/>
    <userTask id="approve" gobpm:candidateGroups="clerks"/>
    <sequenceFlow id="f2" sourceRef="approve" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`

// TestAuthInboxShowsOfferedTasks: a clerk without any grant sees and works
// the tasks offered to their group; someone else sees none (and a task's
// id leads nowhere for them); a viewer, who reads every process, sees all.
func TestAuthInboxShowsOfferedTasks(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	ctx := context.Background()
	if _, err := w.acc.CreateGroup(ctx, "clerks", ""); err != nil {
		t.Fatal(err)
	}
	if err := w.acc.SetMember(ctx, "clerks", "u-nobody", true); err != nil {
		t.Fatal(err)
	}
	if _, err := w.acc.CreateUser(ctx, "", access.NewUser{ID: "stranger"}); err != nil {
		t.Fatal(err)
	}
	secret, _, err := w.acc.MintToken(ctx, access.NewToken{Owner: "stranger", Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	w.tokens["stranger"] = secret
	w.call("admin", "POST", "/api/v1/deployments", inboxModel).wantStatus(t, http.StatusCreated)
	w.call("admin", "POST", "/api/v1/processes/inbox/instances", `{}`).wantStatus(t, http.StatusCreated)

	count := func(role string) int {
		page := w.call(role, "GET", "/api/v1/tasks", "").wantStatus(t, http.StatusOK).object(t)
		return len(page["items"].([]any))
	}
	if n := count("nobody"); n != 1 { // u-nobody is a clerk now
		t.Fatalf("the clerk's inbox has %d tasks, want 1", n)
	}
	if n := count("stranger"); n != 0 {
		t.Errorf("a stranger sees %d tasks, want 0", n)
	}
	if n := count("viewer"); n != 1 {
		t.Errorf("a viewer sees %d tasks, want 1", n)
	}
	// The clerk sees the task but may not read its instance's variables,
	// so a var filter (which would reveal them one query at a time) is
	// refused; the viewer, who reads every process, may filter by them.
	w.call("nobody", "GET", "/api/v1/tasks?var=ok:eq:true", "").wantStatus(t, http.StatusForbidden)
	w.call("viewer", "GET", "/api/v1/tasks?var=ok:eq:true", "").wantStatus(t, http.StatusOK)
	page := w.call("nobody", "GET", "/api/v1/tasks", "").object(t)
	id := page["items"].([]any)[0].(map[string]any)["id"].(string)
	w.call("stranger", "GET", "/api/v1/tasks/"+id, "").wantStatus(t, http.StatusNotFound)
	// Not offered and not readable: unknown to the stranger, not refused.
	w.call("stranger", "POST", "/api/v1/tasks/"+id+"/claim", "").wantStatus(t, http.StatusNotFound)
	w.call("nobody", "POST", "/api/v1/tasks/"+id+"/claim", "").wantStatus(t, http.StatusOK)
	w.call("nobody", "POST", "/api/v1/tasks/"+id+"/complete", `{"variables":{"ok":true}}`).wantStatus(t, http.StatusNoContent)

	// The completion is listed for the clerk who did it and for the
	// viewer; the stranger, who completed none, sees none, whatever they ask.
	completed := func(role, query string) json.Number {
		return w.call(role, "GET", "/api/v1/completed-tasks"+query, "").wantStatus(t, http.StatusOK).object(t)["total"].(json.Number)
	}
	for _, c := range []struct {
		role, query string
		want        json.Number
	}{{"nobody", "", "1"}, {"viewer", "", "1"}, {"viewer", "?completedBy=u-nobody", "1"}, {"stranger", "", "0"}, {"stranger", "?completedBy=u-nobody", "0"}} {
		if got := completed(c.role, c.query); got != c.want {
			t.Errorf("completed tasks for %s%s: %s, want %s", c.role, c.query, got, c.want)
		}
	}
}

// TestAuthJobsBelongToTheirWorker: the lock token of a job activated with
// one worker's credential does not let another authenticated caller act
// on it, even one allowed to work that job type.
func TestAuthJobsBelongToTheirWorker(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	w.call("admin", "POST", "/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)
	w.call("admin", "POST", "/api/v1/processes/order/instances", `{}`).wantStatus(t, http.StatusCreated)
	got := w.call("worker", "POST", "/api/v1/jobs/activate", `{"type":"pay","worker":"w","maxJobs":1,"lockDurationMs":60000}`).
		wantStatus(t, http.StatusOK).object(t)
	jobs := got["jobs"].([]any)
	if len(jobs) != 1 {
		t.Fatalf("activated %v", got)
	}
	job := jobs[0].(map[string]any)
	key, token := job["key"].(string), job["lockToken"].(string)
	body := `{"lockToken":"` + token + `"}`
	w.call("admin", "POST", "/api/v1/jobs/"+key+"/complete", body).wantStatus(t, http.StatusForbidden)
	w.call("worker", "POST", "/api/v1/jobs/"+key+"/complete", body).wantStatus(t, http.StatusNoContent)
}

// TestEveryDocumentedOperationHasARule walks openapi.yaml: every
// documented operation is in the route → permission table.
func TestEveryDocumentedOperationHasARule(t *testing.T) {
	t.Parallel()
	c := MustContract(t)
	rules := api.RouteRules()
	for path, item := range c.doc.Paths.Map() {
		for method := range item.Operations() {
			if _, ok := rules[strings.ToUpper(method)+" "+path]; !ok {
				t.Errorf("%s %s is documented but has no authorization rule", strings.ToUpper(method), path)
			}
		}
	}
}

// TestAuditTrailRecordsEachKindOfAct: starts, cancels, job and task acts,
// administration, token minting and refusals each leave an entry naming
// who, what, on which resource and the outcome.
func TestAuditTrailRecordsEachKindOfAct(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	ctx := context.Background()
	w.call("admin", "POST", "/api/v1/deployments", inboxModel).wantStatus(t, http.StatusCreated)
	w.call("admin", "POST", "/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)
	id := w.call("operator", "POST", "/api/v1/processes/order/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	got := w.call("worker", "POST", "/api/v1/jobs/activate", `{"type":"pay","worker":"w","maxJobs":1,"lockDurationMs":60000}`).object(t)
	job := got["jobs"].([]any)[0].(map[string]any)
	w.call("worker", "POST", "/api/v1/jobs/"+job["key"].(string)+"/complete", `{"lockToken":"`+job["lockToken"].(string)+`"}`).wantStatus(t, http.StatusNoContent)
	w.call("viewer", "POST", "/api/v1/instances/"+id+"/cancel", "").wantStatus(t, http.StatusForbidden)
	w.call("operator", "POST", "/api/v1/instances/"+id+"/cancel", "").wantStatus(t, http.StatusOK)
	w.call("admin", "POST", "/api/v1/users", `{"id":"carl"}`).wantStatus(t, http.StatusCreated)
	w.call("admin", "POST", "/api/v1/tokens", `{"owner":"carl","name":"x"}`).wantStatus(t, http.StatusCreated)
	if err := w.acc.FlushAudit(ctx); err != nil {
		t.Fatal(err)
	}
	entries, err := w.acc.Audit(ctx, access.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var got2 []string
	for _, e := range entries {
		if e.Via == "" || e.RequestID == "" || e.Addr == "" || e.At.IsZero() {
			t.Errorf("entry lacks context: %+v", e)
		}
		got2 = append(got2, fmt.Sprintf("%s|%s|%s|%s|%d", e.Actor, e.Action, e.Resource, e.Outcome, e.Status))
	}
	slices.Reverse(got2) // oldest first
	jobKey := job["key"].(string)
	want := []string{
		"u-admin|POST /api/v1/deployments||ok|201",
		"u-admin|POST /api/v1/deployments||ok|201",
		"u-operator|POST /api/v1/processes/{key}/instances|instance " + id + "|ok|201",
		"u-worker|POST /api/v1/jobs/activate||ok|200",
		"u-worker|POST /api/v1/jobs/{key}/complete|job " + jobKey + "|ok|204",
		"u-viewer|POST /api/v1/instances/{id}/cancel|instance " + id + "|denied|403",
		"u-operator|POST /api/v1/instances/{id}/cancel|instance " + id + "|ok|200",
		"u-admin|POST /api/v1/users|user carl|ok|201",
	}
	if len(got2) != len(want)+1 || !slices.Equal(got2[:len(want)], want) || !strings.HasPrefix(got2[len(want)], "u-admin|POST /api/v1/tokens|token ") {
		t.Errorf("audit trail:\n got %q\nwant %q + a token entry", got2, want)
	}
}
