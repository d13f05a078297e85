package api_test

import (
	"fmt"
	"net/http"
	"testing"
)

func TestCamunda7ProcessDefinitions(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	b.postXML("/api/v1/deployments", c7Model(t, "c7-report.bpmn")).wantStatus(t, http.StatusCreated)
	// A second version of the order model.
	b.postXML("/api/v1/deployments", c7Model(t, "c7-order.bpmn")+"\n<!-- v2 -->").wantStatus(t, http.StatusCreated)

	all := b.c7Send("GET", "/engine-rest/process-definition", "").wantStatus(t, http.StatusOK).array(t)
	ids := []string{}
	for _, d := range all {
		ids = append(ids, d.(map[string]any)["id"].(string))
	}
	if fmt.Sprint(ids) != "[c7order:1 c7order:2 c7report:1]" {
		t.Errorf("ids = %v", ids)
	}
	latest := b.c7Send("GET", "/engine-rest/process-definition?key=c7order&latestVersion=true", "").wantStatus(t, http.StatusOK).array(t)
	if len(latest) != 1 || latest[0].(map[string]any)["id"] != "c7order:2" {
		t.Errorf("latest = %v", latest)
	}
	if got := b.c7Send("GET", "/engine-rest/process-definition?version=1&maxResults=1&firstResult=1", "").wantStatus(t, http.StatusOK).array(t); len(got) != 1 ||
		got[0].(map[string]any)["id"] != "c7report:1" {
		t.Errorf("version 1, second = %v", got)
	}
	b.c7Send("GET", "/engine-rest/process-definition?latestVersion=yes", "").c7Error(t, http.StatusBadRequest, "InvalidRequestException")

	def := b.c7Send("GET", "/engine-rest/process-definition/key/c7order", "").wantStatus(t, http.StatusOK).object(t)
	if def["id"] != "c7order:2" || def["key"] != "c7order" || fmt.Sprint(def["version"]) != "2" || def["resource"] == "" || def["suspended"] != false {
		t.Errorf("definition = %v", def)
	}
	b.c7Send("GET", "/engine-rest/process-definition/key/nope", "").c7Error(t, http.StatusNotFound, "RestException")
}

func TestCamunda7StartProcessInstance(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	res := b.c7Send("POST", "/engine-rest/process-definition/key/c7order/start",
		`{"businessKey":"order-7","withVariablesInReturn":true,"variables":{"amount":{"type":"Integer","value":42},"customer":{"type":"Json","value":"{\"name\":\"Ada\"}"}}}`)
	inst := res.wantStatus(t, http.StatusOK).object(t)
	id, _ := inst["id"].(string)
	if id == "" || inst["definitionId"] != "c7order:1" || inst["businessKey"] != "order-7" || inst["ended"] != false || inst["suspended"] != false {
		t.Errorf("instance = %v", inst)
	}
	if links := inst["links"].([]any); len(links) != 1 || links[0].(map[string]any)["rel"] != "self" {
		t.Errorf("links = %v", inst["links"])
	}
	vars := inst["variables"].(map[string]any)
	if a := vars["amount"].(map[string]any); a["type"] != "Integer" || fmt.Sprint(a["value"]) != "42" {
		t.Errorf("amount = %v", a)
	}
	if c := vars["customer"].(map[string]any); c["type"] != "Json" || c["value"] != `{"name":"Ada"}` {
		t.Errorf("customer = %v", c)
	}
	// The instance is gobpm's, with the business key and the variables.
	got := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	if got["businessKey"] != "order-7" {
		t.Errorf("instance via /api/v1 = %v", got)
	}

	// Without withVariablesInReturn there are no variables; by id as the Modeler starts.
	plain := b.c7Send("POST", "/engine-rest/process-definition/c7order:1/start", `{}`).wantStatus(t, http.StatusOK).object(t)
	if _, ok := plain["variables"]; ok || plain["businessKey"] != nil {
		t.Errorf("start by id = %v", plain)
	}
	b.c7Send("POST", "/engine-rest/process-definition/key/c7order/start", "").wantStatus(t, http.StatusOK) // no body at all
	b.c7Send("POST", "/engine-rest/process-definition/c7order/start", `{}`).c7Error(t, http.StatusNotFound, "RestException")

	b.c7Send("POST", "/engine-rest/process-definition/key/nope/start", `{}`).c7Error(t, http.StatusNotFound, "RestException")
	b.c7Send("POST", "/engine-rest/process-definition/c7order:9/start", `{}`).c7Error(t, http.StatusNotFound, "RestException")
	b.c7Send("POST", "/engine-rest/process-definition/key/c7order/start", `{"startInstructions":[{"type":"startBeforeActivity","activityId":"ship"}]}`).
		c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	b.c7Send("POST", "/engine-rest/process-definition/key/c7order/start", `{"variables":{"f":{"type":"File","value":"x"}}}`).
		c7Error(t, http.StatusBadRequest, "InvalidRequestException")
}

func TestCamunda7DefinitionPermissions(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	w.call("admin", "POST", "/api/v1/deployments", c7Model(t, "c7-order.bpmn")).wantStatus(t, http.StatusCreated)
	send := func(role, method, path, body string) *response {
		t.Helper()
		return w.call(role, method, path, body)
	}
	send("", "GET", "/engine-rest/process-definition", "").c7Error(t, http.StatusUnauthorized, "RestException")
	send("nobody", "GET", "/engine-rest/process-definition", "").c7Error(t, http.StatusForbidden, "AuthorizationException")
	if n := send("viewer", "GET", "/engine-rest/process-definition", "").wantStatus(t, http.StatusOK).array(t); len(n) != 1 {
		t.Errorf("viewer sees %v", n)
	}
	send("viewer", "GET", "/engine-rest/process-definition/key/c7order", "").wantStatus(t, http.StatusOK)
	send("worker", "GET", "/engine-rest/process-definition/key/c7order", "").c7Error(t, http.StatusForbidden, "AuthorizationException")
	send("viewer", "POST", "/engine-rest/process-definition/key/c7order/start", `{}`).c7Error(t, http.StatusForbidden, "AuthorizationException")
	send("operator", "POST", "/engine-rest/process-definition/key/c7order/start", `{}`).wantStatus(t, http.StatusOK)
	send("developer", "POST", "/engine-rest/process-definition/c7order:1/start", `{}`).wantStatus(t, http.StatusOK)
}
