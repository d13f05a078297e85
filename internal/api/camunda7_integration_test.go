package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
)

// c7Model reads a Camunda 7 model of the adapter's test data.
func c7Model(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "camunda7", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// c7World is a real runtime on a temp SQLite file without authentication,
// with the order model deployed.
func c7World(t *testing.T) *bundle {
	t.Helper()
	rt, acc := openAccess(t, access.ModeNone, nil)
	b := setup(t, rt, api.Options{Access: acc})
	b.postXML("/api/v1/deployments", c7Model(t, "c7-order.bpmn")).wantStatus(t, http.StatusCreated)
	return b
}

// c7Send sends a JSON body ("" sends none, and no Content-Type) to the
// engine-rest path and checks the Camunda 7 answer's content type.
func (b *bundle) c7Send(method, path, body string) *response {
	b.t.Helper()
	req := httptestRequest(method, path, nil)
	if body != "" {
		req = httptestRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	}
	res := b.do(req)
	if len(res.Body) > 0 && res.Header.Get("Content-Type") != "application/json" {
		b.t.Errorf("%s %s: Content-Type %q, want exactly application/json", method, path, res.Header.Get("Content-Type"))
	}
	return res
}

// c7Error decodes Camunda 7's error body and checks its status and type.
func (r *response) c7Error(tb testing.TB, status int, typ string) string {
	tb.Helper()
	r.wantStatus(tb, status)
	var e struct{ Type, Message string }
	if err := json.Unmarshal(r.Body, &e); err != nil || e.Type != typ || e.Message == "" {
		tb.Fatalf("error body %s (%v), want type %s and a message", r.Body, err, typ)
	}
	return e.Message
}

// c7Fetch fetches and locks for worker and returns the tasks.
func (b *bundle) c7Fetch(worker, topics string) []map[string]any {
	b.t.Helper()
	res := b.c7Send("POST", "/engine-rest/external-task/fetchAndLock", `{"workerId":"`+worker+`","maxTasks":5,"topics":`+topics+`}`).wantStatus(b.t, http.StatusOK)
	var tasks []map[string]any
	if err := json.Unmarshal(res.Body, &tasks); err != nil {
		b.t.Fatalf("fetchAndLock answered %s: %v", res.Body, err)
	}
	return tasks
}

// array decodes an answer that is a JSON array.
func (r *response) array(tb testing.TB) []any {
	tb.Helper()
	var out []any
	if err := json.Unmarshal(r.Body, &out); err != nil {
		tb.Fatalf("answer is no JSON array: %s", r.Body)
	}
	return out
}

// c7Start starts an instance of the order model with vars.
func (b *bundle) c7Start(vars string) string {
	b.t.Helper()
	return b.postJSON("/api/v1/processes/c7order/instances", `{"variables":`+vars+`}`).wantStatus(b.t, http.StatusCreated).object(b.t)["id"].(string)
}

func TestCamunda7ExternalTaskLifecycle(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	id := b.c7Start(`{"amount":42,"customer":{"name":"Ada"}}`)

	tasks := b.c7Fetch("w1", `[{"topicName":"ship","lockDuration":1000},{"topicName":"charge","lockDuration":60000,"variables":["amount","customer"]}]`)
	if len(tasks) != 1 {
		t.Fatalf("fetched %v, want the charge task", tasks)
	}
	task := tasks[0]
	key := task["id"].(string)
	if task["topicName"] != "charge" || task["workerId"] != "w1" || task["processInstanceId"] != id || task["activityId"] != "charge" ||
		task["processDefinitionKey"] != "c7order" {
		t.Errorf("task = %v", task)
	}
	if exp, _ := task["lockExpirationTime"].(string); len(exp) != len("2026-01-02T03:04:05.000+0000") || !strings.HasSuffix(exp, "+0000") {
		t.Errorf("lockExpirationTime = %q, want Camunda 7's format", task["lockExpirationTime"])
	}
	vars := task["variables"].(map[string]any)
	if a := vars["amount"].(map[string]any); a["type"] != "Integer" || a["value"] != 42.0 {
		t.Errorf("amount = %v", a)
	}
	if c := vars["customer"].(map[string]any); c["type"] != "Json" || c["value"] != `{"name":"Ada"}` {
		t.Errorf("customer = %v", c)
	}

	// Nobody else gets it, nor may act on it.
	if again := b.c7Fetch("w2", `[{"topicName":"charge","lockDuration":1000}]`); len(again) != 0 {
		t.Fatalf("w2 fetched %v while w1 holds the task", again)
	}
	for _, op := range []string{"complete", "failure", "bpmnError", "extendLock", "lock"} {
		msg := b.c7Send("POST", "/engine-rest/external-task/"+key+"/"+op, `{"workerId":"w2","errorCode":"X","newDuration":1000,"lockDuration":1000}`).c7Error(t, http.StatusBadRequest, map[bool]string{true: "InvalidRequestException", false: "BadUserRequestException"}[op == "extendLock" || op == "lock"])
		if !strings.Contains(msg, "w1") {
			t.Errorf("%s by w2: %q does not name the holder", op, msg)
		}
	}
	b.c7Send("POST", "/engine-rest/external-task/"+key+"/extendLock", `{"workerId":"w1","newDuration":120000}`).wantStatus(t, http.StatusNoContent)
	b.c7Send("POST", "/engine-rest/external-task/"+key+"/lock", `{"workerId":"w1","lockDuration":120000}`).wantStatus(t, http.StatusNoContent)

	// The listing and the single task.
	got := b.c7Send("GET", "/engine-rest/external-task/"+key, "").wantStatus(t, http.StatusOK).object(t)
	if got["workerId"] != "w1" || got["topicName"] != "charge" || got["id"] != key {
		t.Errorf("GET task = %v", got)
	}
	list := b.c7Send("GET", "/engine-rest/external-task?topicName=charge&locked=true&processInstanceId="+id, "").wantStatus(t, http.StatusOK).array(t)
	if len(list) != 1 {
		t.Errorf("locked charge tasks = %v", list)
	}
	if n := b.c7Send("GET", "/engine-rest/external-task?notLocked=true", "").wantStatus(t, http.StatusOK).array(t); len(n) != 0 {
		t.Errorf("unlocked tasks = %v", n)
	}
	if c := b.c7Send("GET", "/engine-rest/external-task/count?workerId=w1", "").wantStatus(t, http.StatusOK).object(t); fmt.Sprint(c["count"]) != "1" {
		t.Errorf("count = %v", c)
	}

	// Unlock: no body, no Content-Type. Then w3 locks it by id and
	// unlocks it again; w2 may then fetch it, retries kept.
	b.c7Send("POST", "/engine-rest/external-task/"+key+"/unlock", "").wantStatus(t, http.StatusNoContent)
	if n := b.c7Send("GET", "/engine-rest/external-task?notLocked=true", "").wantStatus(t, http.StatusOK).array(t); len(n) != 1 {
		t.Errorf("unlocked tasks after unlock = %v", n)
	}
	b.c7Send("POST", "/engine-rest/external-task/"+key+"/lock", `{"workerId":"w3","lockDuration":60000}`).wantStatus(t, http.StatusNoContent)
	if got := b.c7Send("GET", "/engine-rest/external-task/"+key, "").wantStatus(t, http.StatusOK).object(t); got["workerId"] != "w3" {
		t.Errorf("after lock by w3: %v", got)
	}
	b.c7Send("POST", "/engine-rest/external-task/"+key+"/lock", `{"workerId":"w1","lockDuration":60000}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	b.c7Send("POST", "/engine-rest/external-task/"+key+"/unlock", "").wantStatus(t, http.StatusNoContent)
	again := b.c7Fetch("w2", `[{"topicName":"charge","lockDuration":60000}]`)
	if len(again) != 1 || again[0]["id"] != key || again[0]["retries"] != task["retries"] {
		t.Fatalf("after unlock w2 fetched %v, want %s with retries %v", again, key, task["retries"])
	}

	// Complete with typed variables; the ship task follows.
	b.c7Send("POST", "/engine-rest/external-task/"+key+"/complete", `{"workerId":"w2","variables":{
		"paid":{"type":"Boolean","value":true},"txn":{"type":"String","value":"t-1"},"count":{"type":"Long","value":9007199254740993},
		"rate":{"type":"Double","value":0.5},"at":{"type":"Date","value":"2026-01-02T04:04:05.000+0100"},
		"receipt":{"type":"Json","value":"{\"lines\":[1,2]}"},"note":{"type":"Null","value":null}}}`).wantStatus(t, http.StatusNoContent)
	b.c7Send("POST", "/engine-rest/external-task/"+key+"/complete", `{"workerId":"w2"}`).c7Error(t, http.StatusNotFound, "NotFoundException")
	inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	v := inst["variables"].(map[string]any)
	if v["paid"] != true || v["txn"] != "t-1" || fmt.Sprint(v["count"]) != "9007199254740993" || fmt.Sprint(v["rate"]) != "0.5" || v["at"] != "2026-01-02T03:04:05.000+0000" ||
		v["note"] != nil || v["receipt"].(map[string]any)["lines"] == nil {
		t.Errorf("variables = %v", v)
	}
	ship := b.c7Fetch("w1", `[{"topicName":"ship","lockDuration":60000}]`)
	if len(ship) != 1 {
		t.Fatalf("ship tasks = %v", ship)
	}
	if shipVars := ship[0]["variables"].(map[string]any); shipVars["count"].(map[string]any)["type"] != "Long" || shipVars["note"].(map[string]any)["type"] != "Null" {
		t.Errorf("ship variables = %v", shipVars)
	}

	// Failure with retries 0: an incident.
	b.c7Send("POST", "/engine-rest/external-task/"+ship[0]["id"].(string)+"/failure", `{"workerId":"w1","errorMessage":"carrier down","errorDetails":"stack","retries":0,"retryTimeout":1000}`).wantStatus(t, http.StatusNoContent)
	inst = b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	if inst["status"] != "failed" || len(inst["incidents"].([]any)) != 1 {
		t.Errorf("after failure with retries 0: status %v, incidents %v", inst["status"], inst["incidents"])
	}
	noRetries := b.c7Send("GET", "/engine-rest/external-task?noRetriesLeft=true", "").wantStatus(t, http.StatusOK).array(t)
	if len(noRetries) != 1 || noRetries[0].(map[string]any)["errorMessage"] != "carrier down" {
		t.Errorf("tasks without retries = %v", noRetries)
	}
}

func TestCamunda7BpmnErrorAndRefusals(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	id := b.c7Start(`{}`)
	tasks := b.c7Fetch("w1", `[{"topicName":"charge","lockDuration":60000}]`)
	key := tasks[0]["id"].(string)

	b.c7Send("POST", "/engine-rest/external-task/"+key+"/bpmnError", `{"workerId":"w1"}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	b.c7Send("POST", "/engine-rest/external-task/"+key+"/complete", `{"workerId":"w1","variables":{"x":{"type":"File","value":"AAA"}}}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	b.c7Send("POST", "/engine-rest/external-task/"+key+"/complete", `{"variables":{}}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	b.c7Send("POST", "/engine-rest/external-task/"+key+"/complete", `{"workerId":`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	b.c7Send("POST", "/engine-rest/external-task/nope.abc/complete", `{"workerId":"w1"}`).c7Error(t, http.StatusNotFound, "NotFoundException")
	b.c7Send("GET", "/engine-rest/external-task/nope.abc", "").c7Error(t, http.StatusNotFound, "RestException")
	b.c7Send("POST", "/engine-rest/external-task/fetchAndLock", `{"maxTasks":1,"topics":[]}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	b.c7Send("POST", "/engine-rest/external-task/fetchAndLock", `{"workerId":"w","maxTasks":1,"topics":[{"topicName":"charge"}]}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	b.c7Send("POST", "/engine-rest/external-task/fetchAndLock", `{"workerId":"w","maxTasks":1,"topics":[{"topicName":"charge","lockDuration":1,"businessKey":5}]}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	// An unknown engine-rest resource (no contract operation, so past the
	// harness's contract check) is Camunda 7's 404 too.
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, httptestRequest("GET", "/engine-rest/nothing", nil))
	(&response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}).c7Error(t, http.StatusNotFound, "RestException")

	b.c7Send("POST", "/engine-rest/external-task/"+key+"/bpmnError", `{"workerId":"w1","errorCode":"CARD_DECLINED","errorMessage":"no funds","variables":{"reason":{"type":"String","value":"funds"}}}`).wantStatus(t, http.StatusNoContent)
	inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	if inst["status"] != "completed" || inst["variables"].(map[string]any)["reason"] != "funds" {
		t.Errorf("after the BPMN error: status %v, variables %v", inst["status"], inst["variables"])
	}
}

func TestCamunda7EngineRestAuthentication(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	w.call("admin", "POST", "/api/v1/deployments", c7Model(t, "c7-order.bpmn")).wantStatus(t, http.StatusCreated)
	w.call("admin", "POST", "/api/v1/processes/c7order/instances", `{}`).wantStatus(t, http.StatusCreated)
	send := func(auth, method, path, body string) *response {
		t.Helper()
		req := httptestRequest(method, path, nil)
		if body != "" {
			req = httptestRequest(method, path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		return w.b.do(req)
	}
	basic := func(user, password string) string {
		req := httptestRequest("GET", "/", nil)
		req.SetBasicAuth(user, password)
		return req.Header.Get("Authorization")
	}
	fetch := `{"workerId":"w","maxTasks":1,"topics":[{"topicName":"charge","lockDuration":60000}]}`

	res := send("", "POST", "/engine-rest/external-task/fetchAndLock", fetch)
	res.c7Error(t, http.StatusUnauthorized, "RestException")
	if res.Header.Get("WWW-Authenticate") == "" {
		t.Error("401 without WWW-Authenticate")
	}
	send(basic("u-worker", "wrong"), "POST", "/engine-rest/external-task/fetchAndLock", fetch).c7Error(t, http.StatusUnauthorized, "RestException")
	send("", "GET", "/engine-rest/external-task", "").c7Error(t, http.StatusUnauthorized, "RestException")
	send(basic("u-viewer", "correct horse battery"), "POST", "/engine-rest/external-task/fetchAndLock", fetch).c7Error(t, http.StatusForbidden, "AuthorizationException")

	// The worker fetches with Basic; another user with a token may not act on the task.
	res = send(basic("u-worker", "correct horse battery"), "POST", "/engine-rest/external-task/fetchAndLock", fetch).wantStatus(t, http.StatusOK)
	var tasks []map[string]any
	if err := json.Unmarshal(res.Body, &tasks); err != nil || len(tasks) != 1 {
		t.Fatalf("worker fetched %s (%v)", res.Body, err)
	}
	key := tasks[0]["id"].(string)
	send("Bearer "+w.tokens["admin"], "POST", "/engine-rest/external-task/"+key+"/complete", `{"workerId":"w"}`).c7Error(t, http.StatusForbidden, "AuthorizationException")
	send("Bearer "+w.tokens["admin"], "POST", "/engine-rest/external-task/"+key+"/unlock", "").c7Error(t, http.StatusForbidden, "AuthorizationException")
	send("Bearer "+w.tokens["viewer"], "GET", "/engine-rest/external-task/"+key, "").wantStatus(t, http.StatusOK)
	if n := send("Bearer "+w.tokens["nobody"], "GET", "/engine-rest/external-task", "").wantStatus(t, http.StatusOK).array(t); len(n) != 0 {
		t.Errorf("nobody sees %v", n)
	}
	send("Bearer "+w.tokens["worker"], "POST", "/engine-rest/external-task/"+key+"/complete", `{"workerId":"w"}`).wantStatus(t, http.StatusNoContent)
}

func TestCamunda7LongPollServesSeveralTopics(t *testing.T) {
	t.Parallel()
	rt, acc := openAccess(t, access.ModeNone, nil)
	b := setup(t, rt, api.Options{Access: acc})
	b.postXML("/api/v1/deployments", c7Model(t, "c7-report.bpmn")).wantStatus(t, http.StatusCreated)
	answered := make(chan *response, 1)
	go func() {
		// A long poll over two topics, one of which gets a task while it waits.
		req := httptestRequest("POST", "/engine-rest/external-task/fetchAndLock", strings.NewReader(
			`{"workerId":"w","maxTasks":2,"asyncResponseTimeout":120000,"topics":[{"topicName":"none","lockDuration":1000},{"topicName":"report","lockDuration":1000}]}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		b.handler.ServeHTTP(rec, req)
		answered <- &response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	}()
	// The poll has not answered before the task exists: nothing can be locked.
	select {
	case res := <-answered:
		t.Fatalf("the poll answered before any task existed: %d %s", res.Status, res.Body)
	default:
	}
	id := b.postJSON("/api/v1/processes/c7report/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	res := <-answered // the test's timeout guards a poll that never wakes
	tasks := res.wantStatus(t, http.StatusOK).array(t)
	if len(tasks) != 1 || tasks[0].(map[string]any)["processInstanceId"] != id || tasks[0].(map[string]any)["topicName"] != "report" {
		t.Fatalf("the poll answered %s, want the new report task", res.Body)
	}
}
