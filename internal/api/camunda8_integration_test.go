package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// c8Model reads a model of internal/camunda8/testdata.
func c8Model(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "camunda8", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// c8Problem checks a Camunda 8 problem answer and returns its detail.
func (r *response) c8Problem(tb testing.TB, status int, title string) string {
	tb.Helper()
	if r.Status != status {
		tb.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		tb.Errorf("Content-Type = %q, want application/problem+json", ct)
	}
	var p struct {
		Type, Title, Detail string
		Status              int
	}
	if err := json.Unmarshal(r.Body, &p); err != nil {
		tb.Fatalf("problem %s: %v", r.Body, err)
	}
	if p.Title != title || p.Status != status || p.Type != "about:blank" {
		tb.Errorf("problem = %+v, want %d %s", p, status, title)
	}
	return p.Detail
}

// c8Deploy deploys models through POST /v2/deployments.
func c8Deploy(t *testing.T, b *bundle, names ...string) map[string]any {
	t.Helper()
	var parts []part
	for _, n := range names {
		parts = append(parts, part{field: "resources", filename: n, content: c8Model(t, n)})
	}
	return b.postMultipart("/v2/deployments", parts...).wantStatus(t, http.StatusOK).object(t)
}

// isKey reports whether v is a numeric key as REST v2 writes it.
func isKey(v any) bool {
	s, ok := v.(string)
	if !ok || s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// TestCamunda8RestV2 drives every /v2 endpoint through the real router and
// runtime: deploy, create (also awaiting the result), a worker that
// completes, fails with backoff down to an incident that is resolved, and
// throws a BPMN error to a boundary event; a message to a waiting
// instance; user task search, assignment and completion; searches;
// cancellation; topology and licence; Camunda 8's problems for made-up
// keys and bad requests.
func TestCamunda8RestV2(t *testing.T) {
	t.Parallel()
	b, _, clk := setupRealClock(t)

	dep := c8Deploy(t, b, "c8-pay.bpmn", "c8-wait.bpmn", "c8-quick.bpmn")
	if !isKey(dep["deploymentKey"]) || dep["tenantId"] != "<default>" {
		t.Errorf("deployment = %v", dep)
	}
	items := dep["deployments"].([]any)
	if len(items) != 3 {
		t.Fatalf("deployments = %v", items)
	}
	pd := items[0].(map[string]any)["processDefinition"].(map[string]any)
	if pd["processDefinitionId"] != "c8-pay" || pd["processDefinitionVersion"] != json.Number("1") || pd["resourceName"] != "c8-pay.bpmn" || !isKey(pd["processDefinitionKey"]) {
		t.Errorf("processDefinition = %v", pd)
	}
	b.send("POST", "/v2/deployments", "application/json", `{}`).c8Problem(t, http.StatusUnsupportedMediaType, "INVALID_ARGUMENT")

	// Create by id and by key; await a result.
	created := b.postJSON("/v2/process-instances", `{"processDefinitionId":"c8-pay","variables":{"amount":3}}`).wantStatus(t, http.StatusOK).object(t)
	if created["processDefinitionId"] != "c8-pay" || created["processDefinitionKey"] != pd["processDefinitionKey"] || !isKey(created["processInstanceKey"]) {
		t.Errorf("created = %v", created)
	}
	byKey := b.postJSON("/v2/process-instances", fmt.Sprintf(`{"processDefinitionKey":%q}`, pd["processDefinitionKey"])).wantStatus(t, http.StatusOK).object(t)
	awaited := b.postJSON("/v2/process-instances", `{"processDefinitionId":"c8-quick","processDefinitionVersion":-1,"variables":{"amount":4},"awaitCompletion":true,"fetchVariables":["total"]}`).
		wantStatus(t, http.StatusOK).object(t)
	if vars := awaited["variables"].(map[string]any); len(vars) != 1 || vars["total"] != json.Number("8") {
		t.Errorf("awaited variables = %v", vars)
	}
	b.postJSON("/v2/process-instances", `{"processDefinitionId":"nope"}`).c8Problem(t, http.StatusNotFound, "NOT_FOUND")
	b.postJSON("/v2/process-instances", `{}`).c8Problem(t, http.StatusBadRequest, "INVALID_ARGUMENT")
	b.postJSON("/v2/process-instances", `{"processDefinitionKey":"12x"}`).c8Problem(t, http.StatusBadRequest, "INVALID_ARGUMENT")

	// A worker: activate, complete one, fail the other down to an incident.
	activate := func() []any {
		t.Helper()
		res := b.postJSON("/v2/jobs/activation", `{"type":"c8-charge","worker":"w1","timeout":60000,"maxJobsToActivate":10,"requestTimeout":-1}`).wantStatus(t, http.StatusOK).object(t)
		return res["jobs"].([]any)
	}
	jobs := activate()
	if len(jobs) != 2 {
		t.Fatalf("jobs = %v", jobs)
	}
	j := jobs[0].(map[string]any)
	if !isKey(j["jobKey"]) || j["processInstanceKey"] != created["processInstanceKey"] || j["elementInstanceKey"] != created["processInstanceKey"] ||
		j["worker"] != "w1" || j["retries"] != json.Number("2") || j["kind"] != "BPMN_ELEMENT" || j["elementId"] != "charge" ||
		j["customHeaders"].(map[string]any)["currency"] != "EUR" || j["variables"].(map[string]any)["amount"] != json.Number("3") {
		t.Errorf("job = %v", j)
	}
	if d, ok := j["deadline"].(json.Number); !ok || d.String() != fmt.Sprint(apiEpoch.Add(time.Minute).UnixMilli()) {
		t.Errorf("deadline = %v, want %d", j["deadline"], apiEpoch.Add(time.Minute).UnixMilli())
	}
	k1, k2 := j["jobKey"].(string), jobs[1].(map[string]any)["jobKey"].(string)
	b.postJSON("/v2/jobs/"+k1+"/completion", `{"variables":{"paid":true}}`).noContent(t)
	b.postJSON("/v2/jobs/"+k1+"/completion", `{}`).c8Problem(t, http.StatusNotFound, "NOT_FOUND")
	b.postJSON("/v2/jobs/99999999/completion", `{}`).c8Problem(t, http.StatusNotFound, "NOT_FOUND")
	b.postJSON("/v2/jobs/"+created["processInstanceKey"].(string)+"/completion", `{}`).c8Problem(t, http.StatusNotFound, "NOT_FOUND")
	b.postJSON("/v2/jobs/abc/completion", `{}`).c8Problem(t, http.StatusBadRequest, "INVALID_ARGUMENT")
	b.send("PATCH", "/v2/jobs/"+k2, "application/json", `{"changeset":{"timeout":120000}}`).noContent(t)
	b.send("PATCH", "/v2/jobs/"+k2, "application/json", `{"changeset":{"retries":-1}}`).c8Problem(t, http.StatusBadRequest, "INVALID_ARGUMENT")
	b.send("PATCH", "/v2/jobs/"+k2, "application/json", `{}`).c8Problem(t, http.StatusBadRequest, "INVALID_ARGUMENT")
	b.postJSON("/v2/jobs/"+k2+"/failure", `{"retries":1,"variables":"no"}`).c8Problem(t, http.StatusBadRequest, "INVALID_ARGUMENT")
	// A failure's variables are local variables of the job's task: its
	// next attempt sees them.
	b.postJSON("/v2/jobs/"+k2+"/failure", `{"retries":1,"errorMessage":"down","retryBackOff":30000,"variables":{"lastTry":"declined"}}`).noContent(t)
	b.postJSON("/v2/jobs/"+k2+"/completion", `{}`).c8Problem(t, http.StatusConflict, "INVALID_STATE")
	if got := activate(); len(got) != 0 {
		t.Errorf("activated during the backoff: %v", got)
	}
	clk.Advance(30 * time.Second)
	again := activate()
	if len(again) != 1 {
		t.Fatalf("after the backoff: %v", again)
	}
	if v := again[0].(map[string]any)["variables"].(map[string]any); v["lastTry"] != "declined" {
		t.Errorf("the retried job's variables = %v, want the failure's lastTry", v)
	}
	b.postJSON("/v2/jobs/"+k2+"/failure", `{"retries":0,"errorMessage":"still down"}`).noContent(t)
	incs := b.postJSON("/v2/incidents/search", fmt.Sprintf(`{"filter":{"processInstanceKey":%q}}`, byKey["processInstanceKey"])).wantStatus(t, http.StatusOK).object(t)
	list := incs["items"].([]any)
	if len(list) != 1 {
		t.Fatalf("incidents = %v", incs)
	}
	inc := list[0].(map[string]any)
	if inc["errorType"] != "JOB_NO_RETRIES" || inc["errorMessage"] != "still down" || inc["state"] != "ACTIVE" || inc["elementId"] != "charge" {
		t.Errorf("incident = %v", inc)
	}
	// Camunda 8's fix: give the job retries, then resolve the incident.
	b.send("PATCH", "/v2/jobs/"+k2, "application/json", `{"changeset":{"retries":2}}`).noContent(t)
	b.postJSON("/v2/incidents/"+inc["incidentKey"].(string)+"/resolution", `{}`).noContent(t)
	b.postJSON("/v2/incidents/99999999/resolution", `{}`).c8Problem(t, http.StatusNotFound, "NOT_FOUND")
	jobs = activate()
	if len(jobs) != 1 || jobs[0].(map[string]any)["retries"] != json.Number("2") {
		t.Fatalf("after the resolution: %v", jobs)
	}
	b.postJSON("/v2/jobs/"+jobs[0].(map[string]any)["jobKey"].(string)+"/error", `{"errorMessage":"x"}`).c8Problem(t, http.StatusBadRequest, "INVALID_ARGUMENT")
	b.postJSON("/v2/jobs/"+jobs[0].(map[string]any)["jobKey"].(string)+"/error", `{"errorCode":"DECLINED","variables":{"why":"limit"}}`).noContent(t)

	// Both pay instances ended; search them.
	done := b.postJSON("/v2/process-instances/search", `{"filter":{"processDefinitionId":"c8-pay","state":"COMPLETED"},"page":{"from":0,"limit":10}}`).wantStatus(t, http.StatusOK).object(t)
	if n := len(done["items"].([]any)); n != 2 || done["page"].(map[string]any)["totalItems"] != json.Number("2") {
		t.Errorf("completed pay instances = %v", done)
	}
	b.postJSON("/v2/process-instances/search", `{"filter":{"state":"RUNNING"}}`).c8Problem(t, http.StatusBadRequest, "INVALID_ARGUMENT")

	// A message to a waiting instance, then its user task.
	wait := b.postJSON("/v2/process-instances", `{"processDefinitionId":"c8-wait","variables":{"orderId":"o-1"}}`).wantStatus(t, http.StatusOK).object(t)
	b.postJSON("/v2/messages/correlation", `{"name":"c8-paid","correlationKey":"o-2"}`).c8Problem(t, http.StatusNotFound, "NOT_FOUND")
	b.send("PUT", "/v2/element-instances/"+wait["processInstanceKey"].(string)+"/variables", "application/json", `{"variables":{"note":"set"}}`).noContent(t)
	b.send("PUT", "/v2/element-instances/99999999/variables", "application/json", `{"variables":{"note":"set"}}`).c8Problem(t, http.StatusNotFound, "NOT_FOUND")
	b.send("PUT", "/v2/element-instances/"+wait["processInstanceKey"].(string)+"/variables", "application/json", `{}`).c8Problem(t, http.StatusBadRequest, "INVALID_ARGUMENT")
	pub := b.postJSON("/v2/messages/publication", `{"name":"c8-paid","correlationKey":"o-1","timeToLive":0,"variables":{"via":"rest"}}`).wantStatus(t, http.StatusOK).object(t)
	if !isKey(pub["messageKey"]) {
		t.Errorf("publication = %v", pub)
	}
	b.postJSON("/v2/messages/publication", `{"name":"c8-paid","correlationKey":"nobody"}`).wantStatus(t, http.StatusOK)
	tasks := b.postJSON("/v2/user-tasks/search", fmt.Sprintf(`{"filter":{"processInstanceKey":%q}}`, wait["processInstanceKey"])).wantStatus(t, http.StatusOK).object(t)
	tl := tasks["items"].([]any)
	if len(tl) != 1 {
		t.Fatalf("user tasks = %v", tasks)
	}
	task := tl[0].(map[string]any)
	if task["state"] != "CREATED" || task["elementId"] != "review" || task["name"] != "Review payment" || !isKey(task["userTaskKey"]) || task["processInstanceKey"] != wait["processInstanceKey"] {
		t.Errorf("user task = %v", task)
	}
	tk := task["userTaskKey"].(string)
	b.postJSON("/v2/user-tasks/"+tk+"/assignment", `{"assignee":"demo"}`).noContent(t)
	if got := b.postJSON("/v2/user-tasks/search", `{"filter":{"assignee":"demo"}}`).wantStatus(t, http.StatusOK).object(t)["items"].([]any); len(got) != 1 {
		t.Errorf("demo's tasks = %v", got)
	}
	b.postJSON("/v2/user-tasks/"+tk+"/completion", `{"variables":{"ok":true}}`).noContent(t)
	b.postJSON("/v2/user-tasks/"+tk+"/completion", `{}`).c8Problem(t, http.StatusNotFound, "NOT_FOUND")
	ended := b.postJSON("/v2/process-instances/search", fmt.Sprintf(`{"filter":{"processInstanceKey":%q}}`, wait["processInstanceKey"])).wantStatus(t, http.StatusOK).object(t)
	if it := ended["items"].([]any); len(it) != 1 || it[0].(map[string]any)["state"] != "COMPLETED" || it[0].(map[string]any)["endDate"] == nil {
		t.Errorf("the waiting instance = %v", ended)
	}

	// A message published before its subscription opens is buffered for
	// its time to live; a second one with its message id is refused.
	b.postJSON("/v2/messages/publication", `{"name":"c8-paid","correlationKey":"o-early","timeToLive":60000,"messageId":"m-1"}`).wantStatus(t, http.StatusOK)
	b.postJSON("/v2/messages/publication", `{"name":"c8-paid","correlationKey":"o-early","timeToLive":60000,"messageId":"m-1"}`).c8Problem(t, http.StatusConflict, "ALREADY_EXISTS")
	early := b.postJSON("/v2/process-instances", `{"processDefinitionId":"c8-wait","variables":{"orderId":"o-early"}}`).wantStatus(t, http.StatusOK).object(t)
	if got := b.postJSON("/v2/user-tasks/search", fmt.Sprintf(`{"filter":{"processInstanceKey":%q}}`, early["processInstanceKey"])).wantStatus(t, http.StatusOK).object(t)["items"].([]any); len(got) != 1 {
		t.Errorf("the buffered message did not reach the new instance: tasks %v", got)
	}

	// Signals, cancellation.
	if sig := b.postJSON("/v2/signals/broadcast", `{"signalName":"nothing-waits"}`).wantStatus(t, http.StatusOK).object(t); !isKey(sig["signalKey"]) {
		t.Errorf("broadcast = %v", sig)
	}
	b.postJSON("/v2/signals/broadcast", `{}`).c8Problem(t, http.StatusBadRequest, "INVALID_ARGUMENT")
	other := b.postJSON("/v2/process-instances", `{"processDefinitionId":"c8-wait","variables":{"orderId":"o-9"}}`).wantStatus(t, http.StatusOK).object(t)
	b.postJSON("/v2/process-instances/"+other["processInstanceKey"].(string)+"/cancellation", `{}`).noContent(t)
	b.postJSON("/v2/process-instances/"+other["processInstanceKey"].(string)+"/cancellation", `{}`).c8Problem(t, http.StatusNotFound, "NOT_FOUND")
	term := b.postJSON("/v2/process-instances/search", `{"filter":{"state":"TERMINATED"}}`).wantStatus(t, http.StatusOK).object(t)
	if it := term["items"].([]any); len(it) != 1 || it[0].(map[string]any)["processInstanceKey"] != other["processInstanceKey"] {
		t.Errorf("terminated = %v", term)
	}

	// Topology, licence, an unknown route.
	topo := b.get("/v2/topology").wantStatus(t, http.StatusOK).object(t)
	if topo["clusterSize"] != json.Number("1") || len(topo["brokers"].([]any)) != 1 {
		t.Errorf("topology = %v", topo)
	}
	b.get("/v2/license").wantStatus(t, http.StatusOK)
	req := httptest.NewRequest("GET", "/v2/nothing", nil)
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotFound || rec.Header().Get("Content-Type") != "application/problem+json" || !bytes.Contains(rec.Body.Bytes(), []byte(`"NOT_FOUND"`)) {
		t.Errorf("unknown route: %d %s", rec.Code, rec.Body)
	}
}

// TestCamunda8HolderRule checks, with authentication, that a job's acts
// are bound to the user who activated it: another worker user gets 404
// for the job, as for a made-up key.
func TestCamunda8HolderRule(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	deployAs(t, w, "admin", "c8-pay.bpmn")
	w.call("admin", "POST", "/v2/process-instances", `{"processDefinitionId":"c8-pay"}`).wantStatus(t, http.StatusOK)
	res := w.call("worker", "POST", "/v2/jobs/activation", `{"type":"c8-charge","timeout":60000,"maxJobsToActivate":1,"requestTimeout":-1}`).wantStatus(t, http.StatusOK).object(t)
	jobs := res["jobs"].([]any)
	if len(jobs) != 1 {
		t.Fatalf("jobs = %v", res)
	}
	key := jobs[0].(map[string]any)["jobKey"].(string)
	w.call("admin", "POST", "/v2/jobs/"+key+"/completion", `{}`).c8Problem(t, http.StatusNotFound, "NOT_FOUND")
	w.call("viewer", "POST", "/v2/jobs/"+key+"/completion", `{}`).c8Problem(t, http.StatusForbidden, "FORBIDDEN")
	w.call("", "POST", "/v2/jobs/"+key+"/completion", `{}`).c8Problem(t, http.StatusUnauthorized, "UNAUTHORIZED")
	w.call("worker", "POST", "/v2/jobs/"+key+"/completion", `{}`).noContent(t)
}

// TestCamunda8DeploymentPermissions deploys as every role: developers and
// admins may, the others are refused with Camunda 8's 403.
func TestCamunda8DeploymentPermissions(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	for role, status := range map[string]int{"admin": 200, "developer": 200, "operator": 403, "worker": 403, "viewer": 403, "nobody": 403, "": 401} {
		res := deployAsRaw(t, w, role, "c8-quick.bpmn")
		if res.Status != status {
			t.Errorf("deploy as %q: %d %s, want %d", role, res.Status, res.Body, status)
		}
	}
}

// deployAs deploys a model through /v2/deployments as role, wanting 200.
func deployAs(t *testing.T, w *authWorld, role, name string) {
	t.Helper()
	deployAsRaw(t, w, role, name).wantStatus(t, http.StatusOK)
}

// deployAsRaw deploys a model through /v2/deployments as role.
func deployAsRaw(t *testing.T, w *authWorld, role, name string) *response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("resources", name)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte(c8Model(t, name)))
	mw.Close()
	req := httptestRequest("POST", "/v2/deployments", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if role != "" {
		req.Header.Set("Authorization", "Bearer "+w.tokens[role])
	}
	return w.b.do(req)
}
