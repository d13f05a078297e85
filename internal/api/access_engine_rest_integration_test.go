package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// engineRestMatrix lists the engine-rest routes TestEngineRestRoleMatrix
// covers (TestRouteRoleMatrix counts them as covered).
var engineRestMatrix = map[string]bool{}

func init() {
	for _, rw := range engineRestRows {
		engineRestMatrix[rw.route] = true
	}
}

// engineRestRow is a route of TestEngineRestRoleMatrix: fresh makes, for
// each call, the resource the call acts on (a fresh job or instance, so a
// consuming act answers meaningfully for every role) and returns the path
// and body to send.
type engineRestRow struct {
	route   string
	allowed string // as TestRouteRoleMatrix's rows: a, d, o, w, v, n or "*"
	// concealed are the allowed roles that may not see the resource: 404.
	concealed string
	fresh     func(w *authWorld, t *testing.T, role, tag string) (path, body string)
}

// worker is the worker id of the matrix's fetches.
const matrixWorker = `"workerId":"m"`

// mayWork reports whether the matrix's role may work on the "pay" jobs.
func mayWork(role string) bool { return role == "admin" || role == "worker" }

// freshInstance starts, as admin, an order instance with business key tag
// and returns its id; its "pay" job is open.
func freshInstance(w *authWorld, t *testing.T, tag string) string {
	t.Helper()
	return w.call("admin", "POST", "/api/v1/processes/order/instances", `{"businessKey":"`+tag+`"}`).
		wantStatus(t, http.StatusCreated).object(t)["id"].(string)
}

// freshJob starts an instance and returns the key of its "pay" job,
// locked by matrixWorker for role when role may work on it (for admin
// otherwise: the role is refused before the lock matters), or unlocked.
func freshJob(w *authWorld, t *testing.T, role, tag string, lock bool) string {
	t.Helper()
	id := freshInstance(w, t, tag)
	if !lock {
		list := w.call("admin", "GET", "/engine-rest/external-task?processInstanceId="+id, "").wantStatus(t, http.StatusOK)
		var tasks []map[string]any
		if err := json.Unmarshal(list.Body, &tasks); err != nil || len(tasks) != 1 {
			t.Fatalf("tasks of %s = %s, %v", id, list.Body, err)
		}
		return tasks[0]["id"].(string)
	}
	fetcher := role
	if !mayWork(role) {
		fetcher = "admin"
	}
	res := w.call(fetcher, "POST", "/engine-rest/external-task/fetchAndLock",
		`{`+matrixWorker+`,"maxTasks":1,"topics":[{"topicName":"pay","lockDuration":60000,"businessKey":"`+tag+`"}]}`).wantStatus(t, http.StatusOK)
	var tasks []map[string]any
	if err := json.Unmarshal(res.Body, &tasks); err != nil || len(tasks) != 1 {
		t.Fatalf("fetch of %s as %s = %s, %v", tag, fetcher, res.Body, err)
	}
	return tasks[0]["id"].(string)
}

// act is a row acting on a fresh job with body.
func act(op, body string, lock bool) func(w *authWorld, t *testing.T, role, tag string) (string, string) {
	return func(w *authWorld, t *testing.T, role, tag string) (string, string) {
		return "/engine-rest/external-task/" + freshJob(w, t, role, tag, lock) + op, body
	}
}

var engineRestRows = []engineRestRow{
	{"POST /engine-rest/external-task/fetchAndLock", "aw", "", func(_ *authWorld, _ *testing.T, _, tag string) (string, string) {
		return "/engine-rest/external-task/fetchAndLock", `{` + matrixWorker + `,"maxTasks":1,"topics":[{"topicName":"pay","lockDuration":1000,"businessKey":"` + tag + `"}]}`
	}},
	{"POST /engine-rest/external-task/{id}/complete", "aw", "", act("/complete", `{`+matrixWorker+`}`, true)},
	{"POST /engine-rest/external-task/{id}/failure", "aw", "", act("/failure", `{`+matrixWorker+`,"errorMessage":"no","retries":1,"retryTimeout":1000}`, true)},
	{"POST /engine-rest/external-task/{id}/bpmnError", "aw", "", act("/bpmnError", `{`+matrixWorker+`,"errorCode":"X"}`, true)},
	{"POST /engine-rest/external-task/{id}/extendLock", "aw", "", act("/extendLock", `{`+matrixWorker+`,"newDuration":1000}`, true)},
	{"POST /engine-rest/external-task/{id}/unlock", "aw", "", act("/unlock", "", true)},
	{"POST /engine-rest/external-task/{id}/lock", "aw", "", act("/lock", `{`+matrixWorker+`,"lockDuration":1000}`, false)},
	// The listings and reads need an authenticated caller; they show (or
	// conceal as unknown) what the caller may work on or read.
	{"GET /engine-rest/external-task", "*", "", func(_ *authWorld, _ *testing.T, _, _ string) (string, string) {
		return "/engine-rest/external-task", ""
	}},
	{"GET /engine-rest/external-task/count", "*", "", func(_ *authWorld, _ *testing.T, _, _ string) (string, string) {
		return "/engine-rest/external-task/count", ""
	}},
	{"GET /engine-rest/external-task/{id}", "*", "n", act("", "", false)},
	{"GET /engine-rest/external-task/{id}/errorDetails", "*", "n", act("/errorDetails", "", false)},
	{"PUT /engine-rest/external-task/{id}/retries", "ado", "", act("/retries", `{"retries":0}`, false)},
	{"DELETE /engine-rest/process-instance/{id}", "ado", "", func(w *authWorld, t *testing.T, _, tag string) (string, string) {
		return "/engine-rest/process-instance/" + freshInstance(w, t, tag), ""
	}},
}

// TestEngineRestRoleMatrix sends each engine-rest route that consumes or
// locks its resource as every built-in role, as a user with no rights and
// with no credential, each call on a resource of its own: each role is
// served, refused (403) or, where the rows say so, kept from seeing the
// resource (404), and without a credential the answer is 401.
func TestEngineRestRoleMatrix(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	w.call("admin", "POST", "/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)
	letters := map[string]string{"admin": "a", "developer": "d", "operator": "o", "worker": "w", "viewer": "v", "nobody": "n"}
	n := 0
	for _, rw := range engineRestRows {
		method, _, _ := strings.Cut(rw.route, " ")
		n++
		path, body := rw.fresh(w, t, "", fmt.Sprintf("m%d", n))
		if res := w.call("", method, path, body); res.Status != http.StatusUnauthorized {
			t.Errorf("%s without a credential: %d, want 401", rw.route, res.Status)
		}
		for role, letter := range letters {
			n++
			path, body := rw.fresh(w, t, role, fmt.Sprintf("m%d", n))
			want := rw.allowed == "*" || strings.Contains(rw.allowed, letter)
			res := w.call(role, method, path, body)
			refused := res.Status == http.StatusForbidden || res.Status == http.StatusUnauthorized
			switch {
			case strings.Contains(rw.concealed, letter):
				if res.Status != http.StatusNotFound {
					t.Errorf("%s as %s: %d %s, want 404 (concealed)", rw.route, role, res.Status, res.Body)
				}
			case want && refused:
				t.Errorf("%s as %s: %d %s, want allowed", rw.route, role, res.Status, res.Body)
			case want && res.Status >= 400:
				t.Errorf("%s as %s on its own resource: %d %s, want it served", rw.route, role, res.Status, res.Body)
			case !want && res.Status != http.StatusForbidden:
				t.Errorf("%s as %s: %d %s, want 403", rw.route, role, res.Status, res.Body)
			}
		}
	}
}
