package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/auth"
)

// addUser creates user name in groups with single grants ("read process
// invoice": permission, kind, pattern) and a token, callable as name.
func (w *authWorld) addUser(t *testing.T, name string, groups []string, grants ...string) {
	t.Helper()
	ctx := context.Background()
	if _, err := w.acc.CreateUser(ctx, "", access.NewUser{ID: name, Password: "correct horse battery"}); err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if _, err := w.acc.CreateGroup(ctx, g, ""); err != nil && !strings.Contains(err.Error(), "exists") {
			t.Fatal(err)
		}
		if err := w.acc.SetMember(ctx, g, name, true); err != nil {
			t.Fatal(err)
		}
	}
	for _, spec := range grants {
		f := strings.Fields(spec)
		g, err := auth.NewGrant(auth.Permission(f[0]), auth.ResourceKind(f[1]), f[2])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: name}, Grant: &g}); err != nil {
			t.Fatal(err)
		}
	}
	secret, _, err := w.acc.MintToken(ctx, access.NewToken{Owner: name, Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	w.tokens[name] = secret
}

// shape is what a 404 tells a caller, with the id it names replaced.
func shape(t *testing.T, res *response, id string) string {
	t.Helper()
	var p api.Problem
	if err := json.Unmarshal(res.Body, &p); err != nil {
		t.Fatalf("problem: %v (%s)", err, res.Body)
	}
	return strings.Join([]string{p.Type, p.Title, strings.ReplaceAll(p.Detail, id, "ID"), p.Field}, " | ")
}

// sameAsUnknown sends method path (with id in it) as role and the same
// request with an unknown id instead: both must be 404 with the same
// problem, so the answer tells nothing about whether id exists.
func (w *authWorld) sameAsUnknown(t *testing.T, role, method, path, body, id, unknown string) {
	t.Helper()
	got := w.call(role, method, path, body)
	want := w.call(role, method, strings.Replace(path, id, unknown, 1), body)
	if got.Status != http.StatusNotFound || want.Status != http.StatusNotFound {
		t.Errorf("%s %s as %s: %d (unknown id: %d), want 404 for both; body %s", method, path, role, got.Status, want.Status, got.Body)
		return
	}
	if g, u := shape(t, got, id), shape(t, want, unknown); g != u {
		t.Errorf("%s %s as %s: the answer differs from an unknown id's:\n got %s\nwant %s", method, path, role, g, u)
	}
}

// conceal is a world with an order instance waiting at its pay job (lock
// held by the admin's worker "secret-worker-7"), an incident of a second
// order instance and an invoice-only reader.
type conceal struct {
	*authWorld
	inst, jobKey, lockToken, incident string
}

func setupConceal(t *testing.T) *conceal {
	t.Helper()
	w := setupAuth(t)
	w.call("admin", "POST", "/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)
	c := &conceal{authWorld: w}
	c.inst = w.call("admin", "POST", "/api/v1/processes/order/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	jobs := w.call("admin", "POST", "/api/v1/jobs/activate", `{"type":"pay","worker":"secret-worker-7","maxJobs":1,"lockDurationMs":600000}`).
		wantStatus(t, http.StatusOK).object(t)["jobs"].([]any)
	job := jobs[0].(map[string]any)
	c.jobKey, c.lockToken = job["key"].(string), job["lockToken"].(string)

	// A second instance whose job fails for good: an incident.
	w.call("admin", "POST", "/api/v1/processes/order/instances", `{}`).wantStatus(t, http.StatusCreated)
	jobs = w.call("admin", "POST", "/api/v1/jobs/activate", `{"type":"pay","worker":"secret-worker-7","maxJobs":1,"lockDurationMs":600000}`).
		wantStatus(t, http.StatusOK).object(t)["jobs"].([]any)
	j2 := jobs[0].(map[string]any)
	w.call("admin", "POST", "/api/v1/jobs/"+j2["key"].(string)+"/fail", `{"lockToken":"`+j2["lockToken"].(string)+`","retries":0}`).
		wantStatus(t, http.StatusNoContent)
	incs := w.call("admin", "GET", "/api/v1/incidents", "").wantStatus(t, http.StatusOK).items(t)
	c.incident = incs[0].(map[string]any)["id"].(string)

	w.addUser(t, "invoicer", nil, "read process invoice", "operate process invoice", "delete process invoice", "work job-type *")
	return c
}

// A caller who may not read an instance's process gets, on every route of
// the instance, of its incidents and of its jobs, the 404 an unknown id
// gets: not a 403 that says the id exists.
func TestConcealedInstanceRoutes(t *testing.T) {
	t.Parallel()
	c := setupConceal(t)
	const unknownInst = "01a00000-0000-7000-8000-000000000000"
	id := c.inst
	routes := []struct{ method, path, body string }{
		{"GET", "/api/v1/instances/" + id, ""},
		{"GET", "/api/v1/instances/" + id + "/history", ""},
		{"GET", "/api/v1/instances/" + id + "/scopes", ""},
		{"GET", "/api/v1/instances/" + id + "/tracks", ""},
		{"GET", "/api/v1/instances/" + id + "/waits", ""},
		{"POST", "/api/v1/instances/" + id + "/cancel", ""},
		{"POST", "/api/v1/instances/" + id + "/modify", `{"instructions":[{"activate":{"nodeId":"approve"}}]}`},
		{"POST", "/api/v1/instances/" + id + "/variables", `{"variables":{"x":1}}`},
		{"DELETE", "/api/v1/instances/" + id, ""},
	}
	for _, role := range []string{"nobody", "worker", "invoicer"} {
		for _, rt := range routes {
			c.sameAsUnknown(t, role, rt.method, rt.path, rt.body, id, unknownInst)
		}
		c.sameAsUnknown(t, role, "POST", "/api/v1/incidents/"+c.incident+"/retry", `{}`, c.incident, unknownInst+"-i000001")
	}
	// A reader who may not operate still hears 403: the instance is theirs to see.
	if res := c.call("viewer", "POST", "/api/v1/instances/"+id+"/cancel", ""); res.Status != http.StatusForbidden {
		t.Errorf("cancel as a viewer: %d, want 403", res.Status)
	}

	// A job key of a type the caller may not work on reads like a forged one.
	forged := c.jobKey[:len(c.jobKey)-2] + "zz"
	if forged == c.jobKey {
		forged = c.jobKey[:len(c.jobKey)-2] + "yy"
	}
	for _, act := range []string{"complete", "fail", "error", "extend"} {
		body := `{"lockToken":"` + c.lockToken + `","errorCode":"E","lockDurationMs":1000}`
		c.sameAsUnknown(t, "nobody", "POST", "/api/v1/jobs/"+c.jobKey+"/"+act, body, c.jobKey, forged)
	}
}

// A refused job act names neither the worker that holds the lock nor the
// user who activated the job.
func TestJobRefusalNamesNoHolder(t *testing.T) {
	t.Parallel()
	c := setupConceal(t)
	otherToken := strings.Repeat("a", len(c.lockToken))
	for _, act := range []string{"complete", "fail", "error", "extend"} {
		for _, token := range []string{c.lockToken, otherToken} {
			for _, role := range []string{"worker", "invoicer"} {
				res := c.call(role, "POST", "/api/v1/jobs/"+c.jobKey+"/"+act, `{"lockToken":"`+token+`","errorCode":"E","lockDurationMs":1000}`)
				if res.Status < 400 {
					t.Fatalf("%s as %s with another's lock: %d", act, role, res.Status)
				}
				if body := string(res.Body); strings.Contains(body, "secret-worker-7") || strings.Contains(body, "u-admin") {
					t.Errorf("%s as %s: the refusal names the lock's holder: %s", act, role, body)
				}
			}
		}
	}
}

// A task that is not offered to a caller who may not read its process is
// unknown to them on every task route: 404 like an unknown task, never the
// 403 or 409 of the act.
func TestConcealedTasks(t *testing.T) {
	t.Parallel()
	c := setupConceal(t)
	c.call("admin", "POST", "/api/v1/jobs/"+c.jobKey+"/complete", `{"lockToken":"`+c.lockToken+`"}`).wantStatus(t, http.StatusNoContent)
	tasks := c.call("admin", "GET", "/api/v1/tasks?instanceId="+c.inst, "").wantStatus(t, http.StatusOK).items(t)
	if len(tasks) != 1 {
		t.Fatalf("tasks = %v", tasks)
	}
	task := tasks[0].(map[string]any)["id"].(string)
	unknown := c.inst + "-w999999"
	c.addUser(t, "clerk-1", []string{"clerks"})
	c.addUser(t, "clerk-2", []string{"clerks"})

	routes := []struct{ method, path, body string }{
		{"GET", "/api/v1/tasks/" + task, ""},
		{"POST", "/api/v1/tasks/" + task + "/claim", ""},
		{"POST", "/api/v1/tasks/" + task + "/unclaim", ""},
		{"POST", "/api/v1/tasks/" + task + "/complete", `{}`},
	}
	// Not a candidate (nobody), then assigned to another clerk (clerk-2).
	for _, rt := range routes {
		c.sameAsUnknown(t, "nobody", rt.method, rt.path, rt.body, task, unknown)
	}
	c.call("clerk-1", "POST", "/api/v1/tasks/"+task+"/claim", "").wantStatus(t, http.StatusOK)
	for _, rt := range routes {
		c.sameAsUnknown(t, "clerk-2", rt.method, rt.path, rt.body, task, unknown)
	}
	// Whoever may read the process still hears why: the task is claimed.
	if res := c.call("operator", "POST", "/api/v1/tasks/"+task+"/claim", ""); res.Status != http.StatusConflict && res.Status != http.StatusForbidden {
		t.Errorf("claim as an operator: %d %s, want 403 or 409", res.Status, res.Body)
	}
	c.call("clerk-1", "GET", "/api/v1/tasks/"+task, "").wantStatus(t, http.StatusOK)
	c.call("clerk-1", "POST", "/api/v1/tasks/"+task+"/complete", `{}`).wantStatus(t, http.StatusNoContent)
}

// A migration dry run names no other process: an instance of another
// process reads like an unknown one. A caller who may operate on the
// process but not read it gets the instances the runtime selected counted,
// not named.
func TestConcealedMigrationCheck(t *testing.T) {
	t.Parallel()
	c := setupConceal(t)
	c.call("admin", "POST", "/api/v1/deployments", strings.NewReplacer(`<endEvent id="end"/>`, `<endEvent id="end2"/>`, `targetRef="end"/>`, `targetRef="end2"/>`).Replace(authModel)).wantStatus(t, http.StatusCreated)
	c.call("admin", "POST", "/api/v1/deployments", strings.NewReplacer(`id="order"`, `id="secret-process"`, `id="invoice"`, `id="secret-invoice"`).Replace(authModel)).
		wantStatus(t, http.StatusCreated)
	c.addUser(t, "mover", nil, "operate process order")
	mine := c.call("admin", "POST", "/api/v1/processes/order/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	other := c.call("admin", "POST", "/api/v1/processes/secret-process/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)

	plan := `{"processKey":"order","sourceVersion":1,"targetVersion":2,"mapping":{"end":"end2"},"dryRun":true,"instanceIds":["` + mine + `","` + other + `","no-such-instance"]}`
	res := c.call("mover", "POST", "/api/v1/migrations", plan).wantStatus(t, http.StatusOK)
	if strings.Contains(string(res.Body), "secret-process") {
		t.Errorf("the dry run names another process: %s", res.Body)
	}
	var check api.MigrationCheck
	if err := json.Unmarshal(res.Body, &check); err != nil || len(check.Instances) != 3 {
		t.Fatalf("check %s: %v", res.Body, err)
	}
	o, u := check.Instances[1].Problems, check.Instances[2].Problems
	if len(o) != 1 || len(u) != 1 || strings.ReplaceAll(o[0].Message, other, "ID") != strings.ReplaceAll(u[0].Message, "no-such-instance", "ID") {
		t.Errorf("another process's instance and an unknown one differ: %+v / %+v", o, u)
	}

	// Selected by the runtime: counted, not named, for a caller who may not read order.
	all := `{"processKey":"order","sourceVersion":1,"targetVersion":2,"mapping":{"end":"end2"},"dryRun":true}`
	// A reader sees them.
	res = c.call("operator", "POST", "/api/v1/migrations", all).wantStatus(t, http.StatusOK)
	var seen api.MigrationCheck
	if err := json.Unmarshal(res.Body, &seen); err != nil || len(seen.Instances) < 2 || seen.UnlistedInstances != 0 {
		t.Fatalf("an operator's dry run = %s", res.Body)
	}
	res = c.call("mover", "POST", "/api/v1/migrations", all).wantStatus(t, http.StatusOK)
	check = api.MigrationCheck{}
	if err := json.Unmarshal(res.Body, &check); err != nil || len(check.Instances) != 0 || check.UnlistedInstances != len(seen.Instances) || !check.Valid {
		t.Errorf("a non-reader's dry run = %s", res.Body)
	}
	for _, in := range seen.Instances {
		if strings.Contains(string(res.Body), in.InstanceID) {
			t.Errorf("the dry run names an instance the caller may not read: %s", res.Body)
		}
	}
	// The refused start counts them too.
	start := `{"processKey":"order","sourceVersion":1,"targetVersion":2,"mapping":{"pay":"nope"}}`
	res = c.call("mover", "POST", "/api/v1/migrations", start)
	if res.Status != http.StatusBadRequest || strings.Contains(string(res.Body), mine) {
		t.Errorf("a refused migration as a non-reader: %d %s", res.Status, res.Body)
	}
}

// An instance shows only the called children and the calling parent the
// caller may read; the others are omitted (parent null), in the instance
// and in the list.
func TestConcealedLinks(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	w.call("admin", "POST", "/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)
	w.call("admin", "POST", "/api/v1/deployments", callerModel("top", "order")).wantStatus(t, http.StatusCreated)
	top := w.call("admin", "POST", "/api/v1/processes/top/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)
	if kids := top["children"].([]any); len(kids) != 1 {
		t.Fatalf("the admin sees the child: %v", top["children"])
	}
	child := top["children"].([]any)[0].(map[string]any)["instanceId"].(string)
	w.addUser(t, "top-reader", nil, "read process top")
	w.addUser(t, "order-reader", nil, "read process order")

	got := w.call("top-reader", "GET", "/api/v1/instances/"+top["id"].(string), "").wantStatus(t, http.StatusOK).object(t)
	if kids := got["children"].([]any); len(kids) != 0 {
		t.Errorf("a child of an unreadable process is shown: %v", kids)
	}
	if strings.Contains(string(w.call("top-reader", "GET", "/api/v1/instances/"+top["id"].(string), "").Body), child) {
		t.Errorf("the unreadable child's id is in the answer")
	}
	got = w.call("order-reader", "GET", "/api/v1/instances/"+child, "").wantStatus(t, http.StatusOK).object(t)
	if got["parent"] != nil {
		t.Errorf("the parent of an unreadable process is shown: %v", got["parent"])
	}
	items := w.call("order-reader", "GET", "/api/v1/instances", "").wantStatus(t, http.StatusOK).items(t)
	if len(items) != 1 || items[0].(map[string]any)["parent"] != nil {
		t.Errorf("the list shows the unreadable parent: %v", items)
	}
	// The admin still sees both links.
	got = w.call("admin", "GET", "/api/v1/instances/"+child, "").wantStatus(t, http.StatusOK).object(t)
	if p, _ := got["parent"].(map[string]any); p == nil || p["instanceId"] != top["id"] {
		t.Errorf("the admin's view of the parent: %v", got["parent"])
	}
}
