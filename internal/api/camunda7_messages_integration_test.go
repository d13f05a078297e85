package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// c7Payments deploys the payment model and starts instances with the
// business keys and amounts given.
func c7Payments(t *testing.T, b *bundle, starts ...string) []string {
	t.Helper()
	b.postXML("/api/v1/deployments", c7Model(t, "c7-payment.bpmn")).wantStatus(t, http.StatusCreated)
	var ids []string
	for _, s := range starts {
		ids = append(ids, b.postJSON("/api/v1/processes/c7payment/instances", s).wantStatus(t, http.StatusCreated).object(t)["id"].(string))
	}
	return ids
}

// status is an instance's status via /api/v1.
func (b *bundle) status(id string) string {
	b.t.Helper()
	return b.get("/api/v1/instances/"+id).wantStatus(b.t, http.StatusOK).object(b.t)["status"].(string)
}

func TestCamunda7MessageCorrelation(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	ids := c7Payments(t, b, `{"businessKey":"o-1","variables":{"order":1}}`, `{"businessKey":"o-2","variables":{"order":2}}`,
		`{"businessKey":"o-2","variables":{"order":3}}`)

	// Two instances wait: without all and without a narrowing, 400 saying how many.
	msg := b.c7Send("POST", "/engine-rest/message", `{"messageName":"paid"}`).c7Error(t, http.StatusBadRequest, "MismatchingMessageCorrelationException")
	if !strings.Contains(msg, "3 executions match") {
		t.Errorf("message = %q", msg)
	}
	msg = b.c7Send("POST", "/engine-rest/message", `{"messageName":"paid","businessKey":"o-2"}`).c7Error(t, http.StatusBadRequest, "MismatchingMessageCorrelationException")
	if !strings.Contains(msg, "2 executions match") {
		t.Errorf("message = %q", msg)
	}
	// By business key: exactly one.
	b.c7Send("POST", "/engine-rest/message", `{"messageName":"paid","businessKey":"o-1"}`).wantStatus(t, http.StatusNoContent)
	if s := b.status(ids[0]); s != "completed" {
		t.Errorf("o-1 is %s", s)
	}
	// By correlation keys (typed), with the result and its variables.
	res := b.c7Send("POST", "/engine-rest/message", `{"messageName":"paid","correlationKeys":{"order":{"value":3,"type":"Integer"}},`+
		`"processVariables":{"paidBy":{"value":"card","type":"String"}},"resultEnabled":true,"variablesInResultEnabled":true}`).wantStatus(t, http.StatusOK).array(t)
	if len(res) != 1 {
		t.Fatalf("result = %v", res)
	}
	r0 := res[0].(map[string]any)
	exec, _ := r0["execution"].(map[string]any)
	if r0["resultType"] != "Execution" || exec["processInstanceId"] != ids[2] || exec["ended"] != true || r0["processInstance"] != nil {
		t.Errorf("result = %v", r0)
	}
	if v := r0["variables"].(map[string]any)["paidBy"].(map[string]any); v["value"] != "card" {
		t.Errorf("variables = %v", r0["variables"])
	}
	if s := b.status(ids[1]); s != "running" {
		t.Errorf("o-2 (order 2) is %s", s)
	}
	// Nothing matches: 400 too.
	b.c7Send("POST", "/engine-rest/message", `{"messageName":"paid","businessKey":"o-9"}`).c7Error(t, http.StatusBadRequest, "MismatchingMessageCorrelationException")
	b.c7Send("POST", "/engine-rest/message", `{"messageName":"nobody"}`).c7Error(t, http.StatusBadRequest, "MismatchingMessageCorrelationException")

	// A message start event starts an instance with the business key.
	res = b.c7Send("POST", "/engine-rest/message", `{"messageName":"orderPlaced","businessKey":"o-7","resultEnabled":true}`).wantStatus(t, http.StatusOK).array(t)
	pi, _ := res[0].(map[string]any)["processInstance"].(map[string]any)
	if res[0].(map[string]any)["resultType"] != "ProcessDefinition" || pi["businessKey"] != "o-7" || pi["definitionId"] != "c7placed:1" {
		t.Errorf("start result = %v", res)
	}

	// all: every match.
	more := c7Payments(t, b, `{"businessKey":"o-3"}`)
	b.c7Send("POST", "/engine-rest/message", `{"messageName":"paid","all":true}`).wantStatus(t, http.StatusNoContent)
	for _, id := range append(more, ids[1]) {
		if s := b.status(id); s != "completed" {
			t.Errorf("%s is %s after all", id, s)
		}
	}

	b.c7Send("POST", "/engine-rest/message", `{}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	b.c7Send("POST", "/engine-rest/message", `{"messageName":"paid","tenantId":"acme"}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
}

func TestCamunda7Signal(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	ids := c7Payments(t, b, `{}`, `{}`)
	b.c7Send("POST", "/engine-rest/signal", `{"name":"halt","variables":{"why":{"value":"stop","type":"String"}}}`).wantStatus(t, http.StatusNoContent)
	for _, id := range ids {
		if s := b.status(id); s != "completed" {
			t.Errorf("%s is %s after the signal", id, s)
		}
	}
	b.c7Send("POST", "/engine-rest/signal", `{"name":"nobody-listens"}`).wantStatus(t, http.StatusNoContent)
	b.c7Send("POST", "/engine-rest/signal", `{}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	b.c7Send("POST", "/engine-rest/signal", `{"name":"halt","executionId":"x"}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
}
