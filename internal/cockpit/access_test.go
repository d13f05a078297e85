package cockpit_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/cockpit"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/web/templates"
)

// uploadAs posts files to the deployment form from b's browser.
func (b *bundle) uploadFile(name string, data []byte) *page {
	b.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField(cockpit.CSRFField, b.csrf())
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = fw.Write(data)
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/processes", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return b.do(req)
}

// Every page and action of the cockpit needs a login, but the login
// routes and the static files: walking the router, a page without a
// session leads to the login page and an action is refused with 401.
func TestEveryRouteNeedsALogin(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"ada": auth.RoleAdmin}, nil)
	public := map[string]bool{
		"GET " + templates.RouteStatic: true, "GET " + templates.RouteLogin: true, "POST " + templates.RouteLogin: true,
		"POST " + templates.RouteLoginOIDC: true, "GET " + templates.RouteOIDCCallback: true, "POST " + templates.RouteLogout: true,
		"GET " + templates.RouteSetup: true, "POST " + templates.RouteSetup: true,
	}
	routes := cockpit.New(b.rt, nil, cockpit.Options{Access: b.acc}).(chi.Routes)
	n := 0
	err := chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if public[method+" "+route] {
			return nil
		}
		n++
		path := strings.NewReplacer("{key}", "review", "{version}", "1", "{id}", "x1", "{scope}", "s1", "{user}", "u1").Replace(route)
		if method == http.MethodGet {
			req, _ := http.NewRequest(method, b.srv.URL+path, nil)
			if res := b.noFollow(req); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
				t.Errorf("GET %s without a session: %d to %q", route, res.StatusCode, res.Header.Get("Location"))
			}
			return nil
		}
		if p := b.post(path, nil); p.status != http.StatusUnauthorized {
			t.Errorf("%s %s without a session: %d", method, route, p.status)
		}
		return nil
	})
	if err != nil || n < 35 {
		t.Fatalf("walked %d routes: %v", n, err)
	}
}

// What each built-in role sees and may do on the cockpit's pages, and that
// a forged form for an act they may not do is refused and changes nothing.
func TestButtonsAndActsByPermission(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"dev": auth.RoleDeveloper, "olga": auth.RoleOperator, "vic": auth.RoleViewer, "ada": auth.RoleAdmin}, nil)
	b.deploy("review.bpmn", "picky.bpmn")
	inst := b.start("review", "c-1", nil)
	failed := b.start("picky", "p-1", nil)
	instPath := "/instances/" + string(inst.ID)
	incident := failed.Incidents[0].ID

	dev, olga, vic, ada := b.as("dev"), b.as("olga"), b.as("vic"), b.as("ada")

	// Deploying: a developer sees the form, an operator neither the form
	// nor a way round it.
	if dev.mustGet("/processes").testid("deploy-form").Length() != 1 {
		t.Errorf("a developer deploys")
	}
	if p := olga.mustGet("/processes"); p.testid("deploy-form").Length() != 0 || p.testid("process").Length() != 2 {
		t.Errorf("an operator sees the processes but no deploy form")
	}
	p := olga.uploadFile("casework.bpmn", fixture(t, "casework.bpmn"))
	if p.status != http.StatusForbidden || !strings.Contains(p.text("error-message"), "olga may not deploy") {
		t.Errorf("a forged deployment by an operator: %d %q", p.status, p.text("error-message"))
	}
	if defs, _ := b.rt.Processes(context.Background()); len(defs) != 2 {
		t.Errorf("the forged deployment registered something: %d processes", len(defs))
	}
	if e := b.lastAudit("cockpit: deploy"); e.Actor != "olga" || e.Outcome != "denied" || e.Status != http.StatusForbidden {
		t.Errorf("the refused deployment is recorded: %+v", e)
	}
	if p := dev.uploadFile("casework.bpmn", fixture(t, "casework.bpmn")); p.status != http.StatusOK || !strings.HasPrefix(p.text("flash"), "Deployed") {
		t.Errorf("a developer's deployment: %d %q", p.status, p.text("flash"))
	}

	// Starting: an operator starts, a viewer sees no start form.
	if olga.mustGet("/processes/review").testid("start-form").Length() != 1 {
		t.Errorf("an operator starts instances")
	}
	if vic.mustGet("/processes/review").testid("start-form").Length() != 0 {
		t.Errorf("a viewer sees a start form")
	}
	if p := vic.post("/processes/review/instances", url.Values{"version": {"1"}}); p.status != http.StatusForbidden {
		t.Errorf("a forged start by a viewer: %d", p.status)
	}

	// Operating: a viewer sees the instance but no cancel, variables or
	// retry; the forged forms change nothing.
	vp := vic.mustGet(instPath)
	if vp.testid("cancel").Length() != 0 || vp.testid("variables-form").Length() != 0 || vp.testid("variables").Length() == 0 && vp.testid("variables-empty").Length() == 0 {
		t.Errorf("a viewer's instance page offers operating it")
	}
	if vic.mustGet("/incidents").testid("retry").Length() != 0 || vic.mustGet("/instances/"+string(failed.ID)).testid("retry").Length() != 0 {
		t.Errorf("a viewer sees Retry")
	}
	for _, forged := range []struct {
		path string
		form url.Values
	}{
		{instPath + "/cancel", nil},
		{instPath + "/variables", url.Values{"variables": {`{"x": 1}`}}},
		{"/incidents/" + incident + "/retry", url.Values{"return": {"/incidents"}}},
	} {
		if p := vic.post(forged.path, forged.form); p.status != http.StatusForbidden || !strings.HasPrefix(p.text("error-message"), "Not allowed: vic may not operate") {
			t.Errorf("a viewer's forged %s: %d %q", forged.path, p.status, p.text("error-message"))
		}
	}
	if v := b.instance(inst.ID); v.Status != runtime.StatusRunning || v.Variables["x"] != nil {
		t.Errorf("the forged forms changed the instance: %s %v", v.Status, v.Variables)
	}
	if v := b.instance(failed.ID); len(v.Incidents) != 1 || !v.Incidents[0].ResolvedAt.IsZero() {
		t.Errorf("the forged retry resolved the incident")
	}
	op := olga.mustGet(instPath)
	if op.testid("cancel").Length() != 1 || op.testid("variables-form").Length() != 1 || olga.mustGet("/incidents").testid("retry").Length() != 1 {
		t.Errorf("an operator operates")
	}
	p = olga.post(instPath+"/cancel", nil)
	if p.url != instPath || b.instance(inst.ID).Status != runtime.StatusTerminated {
		t.Errorf("the operator's cancel: %s %q", p.url, p.text("flash"))
	}
	e := b.lastAudit("cockpit: cancel instance")
	if e.Actor != "olga" || e.Via != "session" || e.Outcome != "ok" || e.Resource != "instance "+string(inst.ID) || e.Addr != "127.0.0.1" || e.RequestID == "" || e.Status != http.StatusSeeOther {
		t.Errorf("the cancel is recorded as %+v", e)
	}
	if es := b.auditTrail(access.AuditFilter{Actor: "vic", Outcome: "denied"}); len(es) != 4 {
		t.Errorf("the viewer's four forged acts are recorded as denied: %d", len(es))
	}

	// Administration: the Admin link and pages for admins only.
	if ada.mustGet("/").doc.Find(`[data-testid="nav"] a[href="/admin/users"]`).Length() != 1 {
		t.Errorf("an admin has the Admin link")
	}
	if p := olga.mustGet("/"); p.doc.Find(`[data-testid="nav"] a[href="/admin/users"]`).Length() != 0 {
		t.Errorf("an operator has the Admin link")
	}
	if p := olga.get("/admin/users"); p.status != http.StatusForbidden {
		t.Errorf("an operator's admin page: %d", p.status)
	}
	if p := olga.post("/admin/users", url.Values{"id": {"mallory"}, "password": {password}}); p.status != http.StatusForbidden {
		t.Errorf("an operator's forged user: %d", p.status)
	}
	if _, err := b.acc.User(context.Background(), "mallory"); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("the forged user exists: %v", err)
	}
}

// Lists show only what the person may read, as the JSON API's do; pages of
// other processes are refused; the inbox holds the tasks offered to them.
func TestListsShowWhatThePersonMayRead(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"rita": "", "ann": ""}, map[string][]string{"ann": {"clerks"}})
	ctx := context.Background()
	g, err := auth.NewGrant(auth.PermRead, auth.KindProcess, "rev*")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "rita"}, Grant: &g}); err != nil {
		t.Fatal(err)
	}
	b.deploy("review.bpmn", "picky.bpmn", "caller.bpmn")
	review := b.start("review", "c-1", nil)
	picky := b.start("picky", "p-1", nil)
	b.start("caller", "o-1", nil)

	rita := b.as("rita")
	if p := rita.mustGet("/processes"); p.testid("process").Length() != 1 || p.doc.Find(`[data-testid="process"][data-key="review"]`).Length() != 1 {
		t.Errorf("rita's processes: %d", p.testid("process").Length())
	}
	p := rita.mustGet("/instances")
	if p.testid("instance-row").Length() != 1 || p.testid("instance-row").AttrOr("data-id", "") != string(review.ID) || p.text("instances-total") != "1 instances" {
		t.Errorf("rita's instances: %d rows, %q", p.testid("instance-row").Length(), p.text("instances-total"))
	}
	if opts := p.testid("filter-process").Find("option"); opts.Length() != 2 {
		t.Errorf("rita's process filter offers %d options", opts.Length())
	}
	if p := rita.mustGet("/instances?process=picky"); p.testid("instance-row").Length() != 0 {
		t.Errorf("filtering for another process shows it")
	}
	if p := rita.mustGet("/incidents"); p.testid("incident").Length() != 0 {
		t.Errorf("rita sees the incidents of picky: %d", p.testid("incident").Length())
	}
	d := rita.mustGet("/")
	if d.testid("process-status-row").Length() != 1 || !strings.HasPrefix(d.text("card-incidents"), "0 ") || d.testid("card-adhoc").Length() != 0 || !strings.HasSuffix(d.text("card-tasks"), "tasks for you") {
		t.Errorf("rita's dashboard: %d rows, %q, %q", d.testid("process-status-row").Length(), d.text("card-incidents"), d.text("card-tasks"))
	}
	for _, path := range []string{"/instances/" + string(picky.ID), "/processes/picky", "/processes/picky/versions/1/xml"} {
		if p := rita.get(path); p.status != http.StatusForbidden {
			t.Errorf("rita's GET %s: %d", path, p.status)
		}
	}
	if p := rita.mustGet("/instances/" + string(review.ID)); p.testid("cancel").Length() != 0 {
		t.Errorf("reading is not operating")
	}

	// A clerk with no rights at all: the inbox and nothing else.
	ann := b.as("ann")
	d = ann.mustGet("/")
	if d.doc.Find(`[data-testid="nav"] a`).Length() != 2 || d.testid("inbox-only").Length() != 1 || d.testid("card-incidents").Length() != 0 {
		t.Errorf("a clerk's dashboard:\n%s", d.testid("nav").Text())
	}
	if ann.get("/processes").status != http.StatusForbidden || ann.get("/instances").status != http.StatusForbidden {
		t.Errorf("a clerk lists processes")
	}
	if got := d.text("session-groups"); got != "clerks" {
		t.Errorf("the header shows the groups: %q", got)
	}
	tasks := ann.mustGet("/tasks")
	if tasks.doc.Find(`[data-testid="claimable"] [data-testid="task"][data-node="check"]`).Length() != 1 || tasks.testid("no-user").Length() != 0 {
		t.Fatalf("the clerks' task is offered to ann:\n%s", tasks.testid("live").Text())
	}
	id := tasks.doc.Find(`[data-testid="claimable"] [data-testid="task"]`).AttrOr("data-id", "")
	if p := ann.post("/tasks/"+id+"/claim", nil); p.text("flash") != "You claimed “Check the claim”." {
		t.Errorf("claim: %q", p.text("flash"))
	}
	if p := ann.post("/tasks/"+id+"/complete", url.Values{"variables": {`{"approved": true}`}}); !strings.HasPrefix(p.text("flash"), "Task completed") {
		t.Errorf("complete: %q", p.text("flash"))
	}
	if v := b.instance(review.ID); len(activeNodes(v)) != 1 || activeNodes(v)[0] != "archive" {
		t.Errorf("the instance moved on to %v", activeNodes(v))
	}
	// The act is ann's, whatever the form said (no acting-as box to forge).
	e := b.lastAudit("cockpit: complete task")
	if e.Actor != "ann" || e.Outcome != "ok" || e.Resource != "task "+id {
		t.Errorf("complete recorded as %+v", e)
	}
	if p := ann.post("/identity", url.Values{"user": {"rita"}}); p.status != http.StatusNotFound {
		t.Errorf("the acting-as form with logins: %d", p.status)
	}
	// Someone else's task cannot be claimed by a forged form.
	rita2 := b.as("rita")
	other := b.start("review", "c-2", nil)
	task := onlyTask(t, b.bundle, other.ID)
	if p := rita2.post("/tasks/"+task.ID+"/claim", nil); !strings.HasPrefix(p.text("flash"), "Not allowed") {
		t.Errorf("rita claims a clerks' task: %q", p.text("flash"))
	}
	if e := b.lastAudit("cockpit: claim task"); e.Actor != "rita" || e.Outcome != "denied" || e.Status != http.StatusForbidden {
		t.Errorf("the refused claim is recorded as %+v", e)
	}
}

// Activating an ad-hoc activity changes what an instance does: the
// instance page offers Activate only to people who may operate its
// process, and a viewer's forged activation is refused and changes
// nothing, while an operator's starts the activity.
func TestAdHocActivationNeedsOperate(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"olga": auth.RoleOperator, "vic": auth.RoleViewer}, nil)
	b.deploy("casework.bpmn")
	inst := b.start("casework", "c-1", nil)
	path := "/instances/" + string(inst.ID)
	olga, vic := b.as("olga"), b.as("vic")

	vp := vic.mustGet(path)
	scope := vp.testid("region").First().AttrOr("data-scope", "")
	if scope == "" || vp.testid("candidate").Length() == 0 {
		t.Fatalf("the viewer sees the region and its candidates:\n%s", vp.testid("adhoc-panel").Text())
	}
	if vp.testid("activate").Length() != 0 || vp.testid("adhoc-not-allowed").Length() != 1 {
		t.Errorf("a viewer is offered Activate")
	}
	p := vic.post(activateURL(inst.ID, scope), url.Values{"activity": {"interview"}})
	if p.status != http.StatusForbidden || !strings.HasPrefix(p.text("error-message"), "Not allowed: vic may not operate") {
		t.Errorf("a viewer's forged activation: %d %q", p.status, p.text("error-message"))
	}
	if regions, err := b.rt.AdHocRegions(context.Background(), inst.ID); err != nil || len(regions[0].Running) != 0 {
		t.Fatalf("the forged activation started something: %+v %v", regions, err)
	}
	if olga.mustGet(path).testid("activate").Length() == 0 {
		t.Errorf("an operator is not offered Activate")
	}
	olga.post(activateURL(inst.ID, scope), url.Values{"activity": {"interview"}})
	if regions, err := b.rt.AdHocRegions(context.Background(), inst.ID); err != nil || len(regions[0].Running) != 1 {
		t.Errorf("the operator's activation: %+v %v", regions, err)
	}
}
