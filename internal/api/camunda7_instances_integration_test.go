package api_test

import (
	"fmt"
	"net/http"
	"testing"
)

func TestCamunda7ProcessInstances(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	a := b.postJSON("/api/v1/processes/c7order/instances", `{"businessKey":"o-1","variables":{"amount":42,"customer":{"name":"Ada"}}}`).
		wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	c := b.c7Start(`{}`)
	ended := c7Payments(t, b, `{}`)[0]
	b.c7Send("POST", "/engine-rest/signal", `{"name":"halt"}`).wantStatus(t, http.StatusNoContent)

	all := b.c7Send("GET", "/engine-rest/process-instance", "").wantStatus(t, http.StatusOK).array(t)
	var ids []string
	for _, p := range all {
		ids = append(ids, p.(map[string]any)["id"].(string))
	}
	if fmt.Sprint(ids) != fmt.Sprint([]string{a, c}) {
		t.Errorf("running = %v, want %v (not the ended %s)", ids, []string{a, c}, ended)
	}
	byKey := b.c7Send("GET", "/engine-rest/process-instance?businessKey=o-1&processDefinitionKey=c7order", "").wantStatus(t, http.StatusOK).array(t)
	if len(byKey) != 1 {
		t.Fatalf("by business key = %v", byKey)
	}
	p := byKey[0].(map[string]any)
	if p["id"] != a || p["definitionId"] != "c7order:1" || p["businessKey"] != "o-1" || p["ended"] != false || p["suspended"] != false {
		t.Errorf("instance = %v", p)
	}
	if got := b.c7Send("GET", "/engine-rest/process-instance?processInstanceIds="+c+"&maxResults=5", "").wantStatus(t, http.StatusOK).array(t); len(got) != 1 {
		t.Errorf("by ids = %v", got)
	}
	if got := b.c7Send("GET", "/engine-rest/process-instance?firstResult=1", "").wantStatus(t, http.StatusOK).array(t); len(got) != 1 ||
		got[0].(map[string]any)["id"] != c {
		t.Errorf("second = %v", got)
	}
	b.c7Send("GET", "/engine-rest/process-instance?maxResults=-1", "").c7Error(t, http.StatusBadRequest, "InvalidRequestException")

	one := b.c7Send("GET", "/engine-rest/process-instance/"+a, "").wantStatus(t, http.StatusOK).object(t)
	if one["id"] != a || one["businessKey"] != "o-1" {
		t.Errorf("GET one = %v", one)
	}
	vars := b.c7Send("GET", "/engine-rest/process-instance/"+a+"/variables", "").wantStatus(t, http.StatusOK).object(t)
	if v := vars["amount"].(map[string]any); v["type"] != "Integer" || fmt.Sprint(v["value"]) != "42" {
		t.Errorf("amount = %v", v)
	}
	if v := vars["customer"].(map[string]any); v["type"] != "Json" || v["value"] != `{"name":"Ada"}` {
		t.Errorf("customer = %v", v)
	}
	b.c7Send("GET", "/engine-rest/process-instance/"+ended, "").c7Error(t, http.StatusNotFound, "NotFoundException")
	b.c7Send("GET", "/engine-rest/process-instance/nope/variables", "").c7Error(t, http.StatusNotFound, "NotFoundException")

	b.c7Send("DELETE", "/engine-rest/process-instance/"+c, "").wantStatus(t, http.StatusNoContent)
	if s := b.status(c); s != "terminated" {
		t.Errorf("deleted instance is %s", s)
	}
	b.c7Send("DELETE", "/engine-rest/process-instance/"+c, "").c7Error(t, http.StatusNotFound, "NotFoundException")
}

func TestCamunda7InstancePermissions(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	w.call("admin", "POST", "/api/v1/deployments", c7Model(t, "c7-order.bpmn")).wantStatus(t, http.StatusCreated)
	id := w.call("admin", "POST", "/api/v1/processes/c7order/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	if n := w.call("viewer", "GET", "/engine-rest/process-instance", "").wantStatus(t, http.StatusOK).array(t); len(n) != 1 {
		t.Errorf("viewer sees %v", n)
	}
	w.call("worker", "GET", "/engine-rest/process-instance/"+id, "").c7Error(t, http.StatusForbidden, "AuthorizationException")
	w.call("viewer", "DELETE", "/engine-rest/process-instance/"+id, "").c7Error(t, http.StatusForbidden, "AuthorizationException")
	w.call("worker", "DELETE", "/engine-rest/process-instance/"+id, "").c7Error(t, http.StatusForbidden, "AuthorizationException")
	w.call("", "DELETE", "/engine-rest/process-instance/"+id, "").c7Error(t, http.StatusUnauthorized, "RestException")
	w.call("operator", "DELETE", "/engine-rest/process-instance/"+id, "").wantStatus(t, http.StatusNoContent)
}
