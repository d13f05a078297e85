package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/api"
)

// c7SendInGroups sends a JSON body as c7Send does, naming the acting
// user's groups (no authentication: the X-Gobpm-Groups header).
func (b *bundle) c7SendInGroups(groups, method, path, body string) *response {
	b.t.Helper()
	req := httptestRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderGroups, groups)
	return b.do(req)
}

// c7Invoices deploys the Modeler fixture's invoice process (a user task
// for the accounting group, with a form) and starts n instances.
func c7Invoices(t *testing.T, b *bundle, n int) []string {
	t.Helper()
	body, ct := modelerDeployment(t)
	b.c7Deploy(body, ct, "").wantStatus(t, http.StatusOK)
	var ids []string
	for range n {
		ids = append(ids, b.postJSON("/api/v1/processes/invoice/instances", `{"variables":{"amount":7}}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string))
	}
	return ids
}

func TestCamunda7UserTasks(t *testing.T) {
	t.Parallel()
	b := c7World(t)
	ids := c7Invoices(t, b, 2)

	all := b.c7Send("GET", "/engine-rest/task?candidateGroup=accounting&processDefinitionKey=invoice", "").wantStatus(t, http.StatusOK).array(t)
	if len(all) != 2 {
		t.Fatalf("tasks = %v", all)
	}
	task := all[0].(map[string]any)
	id := task["id"].(string)
	if task["processInstanceId"] != ids[0] || task["processDefinitionId"] != "invoice:1" || task["taskDefinitionKey"] != "approve" ||
		task["name"] != "Approve the invoice" || task["assignee"] != nil || task["suspended"] != false {
		t.Errorf("task = %v", task)
	}
	if ref, _ := task["camundaFormRef"].(map[string]any); ref["key"] != "invoiceForm" {
		t.Errorf("camundaFormRef = %v", task["camundaFormRef"])
	}
	if got := b.c7Send("GET", "/engine-rest/task?processInstanceId="+ids[1], "").wantStatus(t, http.StatusOK).array(t); len(got) != 1 {
		t.Errorf("by instance = %v", got)
	}
	if got := b.c7Send("GET", "/engine-rest/task?maxResults=1&firstResult=1", "").wantStatus(t, http.StatusOK).array(t); len(got) != 1 ||
		got[0].(map[string]any)["processInstanceId"] != ids[1] {
		t.Errorf("second page = %v", got)
	}

	// Claim for ada, then the task is hers; another claim is refused.
	b.c7Send("POST", "/engine-rest/task/"+id+"/claim", `{"userId":"ada"}`).c7Error(t, http.StatusForbidden, "AuthorizationException") // no candidate
	b.c7SendInGroups("accounting", "POST", "/engine-rest/task/"+id+"/claim", `{"userId":"ada"}`).wantStatus(t, http.StatusNoContent)
	if got := b.c7Send("GET", "/engine-rest/task?assignee=ada", "").wantStatus(t, http.StatusOK).array(t); len(got) != 1 {
		t.Errorf("ada's tasks = %v", got)
	}
	if one := b.c7Send("GET", "/engine-rest/task/"+id, "").wantStatus(t, http.StatusOK).object(t); one["assignee"] != "ada" {
		t.Errorf("task = %v", one)
	}
	b.c7Send("POST", "/engine-rest/task/"+id+"/claim", `{"userId":"bob"}`).c7Error(t, http.StatusInternalServerError, "TaskAlreadyClaimedException")
	b.c7Send("POST", "/engine-rest/task/"+id+"/unclaim", "").wantStatus(t, http.StatusNoContent)
	b.c7Send("POST", "/engine-rest/task/"+id+"/claim", `{}`).c7Error(t, http.StatusBadRequest, "InvalidRequestException")
	b.c7SendInGroups("accounting", "POST", "/engine-rest/task/"+id+"/claim", `{"userId":"ada"}`).wantStatus(t, http.StatusNoContent)

	vars := b.c7Send("GET", "/engine-rest/task/"+id+"/form-variables", "").wantStatus(t, http.StatusOK).object(t)
	if v, _ := vars["amount"].(map[string]any); v["type"] != "Integer" {
		t.Errorf("form variables = %v", vars)
	}
	if only := b.c7Send("GET", "/engine-rest/task/"+id+"/form-variables?variableNames=none", "").wantStatus(t, http.StatusOK).object(t); len(only) != 0 {
		t.Errorf("form variables named none = %v", only)
	}

	back := b.c7Send("POST", "/engine-rest/task/"+id+"/complete", `{"variables":{"approved":{"value":true,"type":"Boolean"}},"withVariablesInReturn":true}`).
		wantStatus(t, http.StatusOK).object(t)
	if v, _ := back["approved"].(map[string]any); v["value"] != true {
		t.Errorf("variables in return = %v", back)
	}
	if s := b.status(ids[0]); s != "completed" {
		t.Errorf("instance is %s after the task", s)
	}
	b.c7Send("GET", "/engine-rest/task/"+id, "").c7Error(t, http.StatusNotFound, "InvalidRequestException")
	b.c7Send("POST", "/engine-rest/task/"+id+"/complete", `{}`).c7Error(t, http.StatusNotFound, "InvalidRequestException")
	b.c7Send("POST", "/engine-rest/task/nope/claim", `{"userId":"ada"}`).c7Error(t, http.StatusNotFound, "InvalidRequestException")
}

func TestCamunda7UserTaskPermissions(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	body, ct := modelerDeployment(t)
	w.b.c7Deploy(body, ct, "Bearer "+w.tokens["admin"]).wantStatus(t, http.StatusOK)
	w.call("admin", "POST", "/api/v1/processes/invoice/instances", `{}`).wantStatus(t, http.StatusCreated)
	tasks := w.call("viewer", "GET", "/engine-rest/task", "").wantStatus(t, http.StatusOK).array(t)
	if len(tasks) != 1 {
		t.Fatalf("viewer sees %v", tasks)
	}
	id := tasks[0].(map[string]any)["id"].(string)
	// The worker may not read the process and is no candidate: it sees nothing.
	if n := w.call("worker", "GET", "/engine-rest/task", "").wantStatus(t, http.StatusOK).array(t); len(n) != 0 {
		t.Errorf("worker sees %v", n)
	}
	w.call("worker", "GET", "/engine-rest/task/"+id, "").c7Error(t, http.StatusNotFound, "InvalidRequestException")
	w.call("", "GET", "/engine-rest/task", "").c7Error(t, http.StatusUnauthorized, "RestException")
	// Claiming for someone else is refused; a viewer is no candidate (403).
	w.call("admin", "POST", "/engine-rest/task/"+id+"/claim", `{"userId":"someone"}`).c7Error(t, http.StatusForbidden, "AuthorizationException")
	w.call("viewer", "POST", "/engine-rest/task/"+id+"/claim", `{"userId":"u-viewer"}`).c7Error(t, http.StatusForbidden, "AuthorizationException")
}
