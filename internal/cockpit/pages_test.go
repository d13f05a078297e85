package cockpit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/cockpit"
	"github.com/gobpm/gobpm/internal/runtime"
)

func TestDashboard(t *testing.T) {
	t.Parallel()
	b := setup(t)
	empty := b.mustGet("/")
	if empty.testid("no-processes").Length() != 1 {
		t.Fatalf("an empty dashboard should say nothing is deployed:\n%s", empty.body)
	}
	b.deploy("review.bpmn", "caller.bpmn", "picky.bpmn")
	b.start("review", "c-1", nil)
	b.start("review", "c-2", nil)
	b.start("caller", "o-1", nil)

	p := b.mustGet("/")
	row := p.doc.Find(`[data-testid="process-status-row"][data-key="review"]`)
	if got := strings.TrimSpace(row.Find(`[data-testid="count-running"]`).Text()); got != "2" {
		t.Errorf("review running = %q, want 2", got)
	}
	picky := p.doc.Find(`[data-testid="process-status-row"][data-key="picky"]`)
	if got := strings.TrimSpace(picky.Find(`[data-testid="count-failed"]`).Text()); got != "1" {
		t.Errorf("picky failed = %q, want 1", got)
	}
	if got := p.text("card-incidents"); !strings.HasPrefix(got, "1 ") {
		t.Errorf("incident card %q", got)
	}
	if got := p.text("card-tasks"); !strings.HasPrefix(got, "2 ") {
		t.Errorf("task card %q", got)
	}
	if p.testid("incident").Length() != 1 {
		t.Errorf("the dashboard lists the latest open incident")
	}
	if p.testid("live").AttrOr("hx-get", "") != "/" {
		t.Errorf("the live region polls its own page: %q", p.testid("live").AttrOr("hx-get", ""))
	}
	// The nodes sharing the database: this one alone here.
	nodes := p.testid("node-row")
	if nodes.Length() != 1 || nodes.AttrOr("data-id", "") != b.rt.NodeID() || nodes.Find(`[data-testid="node-self"]`).Length() != 1 {
		t.Errorf("nodes table: %d rows, first %q (self %s)", nodes.Length(), nodes.AttrOr("data-id", ""), b.rt.NodeID())
	}
}

func TestProcessesAndDeployByUpload(t *testing.T) {
	t.Parallel()
	b := setup(t)
	p := b.upload(map[string][]byte{"review.bpmn": fixture(t, "review.bpmn")})
	if p.status != http.StatusOK || p.url != "/processes/review?version=1" {
		t.Fatalf("upload: %d at %s", p.status, p.url)
	}
	if got := p.text("flash"); got != "Deployed: review v1." {
		t.Errorf("flash %q", got)
	}
	list := b.mustGet("/processes")
	if list.doc.Find(`[data-testid="process"][data-key="review"] [data-testid="process-version"]`).Length() != 1 {
		t.Errorf("review v1 is listed:\n%s", list.body)
	}

	bad := strings.Replace(string(fixture(t, "review.bpmn")), `targetRef="archive"`, `targetRef="nowhere"`, 1)
	p = b.upload(map[string][]byte{"broken.bpmn": []byte(bad)})
	if p.status != http.StatusUnprocessableEntity {
		t.Fatalf("a refused model: %d", p.status)
	}
	if p.testid("deploy-problem").Length() == 0 || !strings.Contains(p.text("deploy-problems"), "nothing was registered") {
		t.Errorf("the problems are shown in plain words:\n%s", p.body)
	}
	if !strings.Contains(p.text("deploy-problem"), "broken.bpmn") {
		t.Errorf("a problem names its file: %q", p.text("deploy-problem"))
	}
}

func TestProcessPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	b.start("review", "", nil)
	b.start("review", "", nil)

	p := b.mustGet("/processes/review")
	if got := p.testid("diagram").AttrOr("data-xml-url", ""); got != "/processes/review/versions/1/xml" {
		t.Errorf("diagram source %q", got)
	}
	check := p.doc.Find(`[data-testid="element"][data-node="check"]`)
	if got := strings.TrimSpace(check.Find(`[data-testid="element-active"]`).Text()); got != "2" {
		t.Errorf("active tokens at check = %q, want 2", got)
	}
	var state struct {
		Elements []struct {
			ID     string `json:"id"`
			Active int    `json:"active"`
		} `json:"elements"`
	}
	if err := json.Unmarshal([]byte(p.doc.Find("#diagram-state").AttrOr("data-state", "")), &state); err != nil || len(state.Elements) != 1 || state.Elements[0].ID != "check" || state.Elements[0].Active != 2 {
		t.Errorf("overlay state %+v (%v)", state, err)
	}
	xml := b.mustGet("/processes/review/versions/1/xml")
	if !strings.Contains(xml.body, `<process id="review"`) {
		t.Errorf("the XML route serves the deployed model")
	}
	if b.get("/processes/nope").status != http.StatusNotFound || b.get("/processes/review?version=7").status != http.StatusNotFound {
		t.Errorf("unknown key or version is 404")
	}

	// Start through the form.
	p = b.post("/processes/review/instances", url.Values{"version": {"1"}, "businessKey": {"claim-9"}, "variables": {`{"amount": 12}`}})
	if p.status != http.StatusOK || !strings.HasPrefix(p.url, "/instances/") {
		t.Fatalf("start: %d at %s\n%s", p.status, p.url, p.body)
	}
	if p.text("business-key") != "claim-9" {
		t.Errorf("the new instance page shows the business key")
	}
	// A refused start keeps what was typed.
	p = b.post("/processes/review/instances", url.Values{"version": {"1"}, "businessKey": {"bk"}, "variables": {`{"amount": }`}})
	if p.status != http.StatusBadRequest || !strings.Contains(p.text("flash"), "not valid JSON") {
		t.Fatalf("bad JSON: %d %q", p.status, p.text("flash"))
	}
	if got := p.testid("start-variables").Text(); got != `{"amount": }` {
		t.Errorf("the form keeps the typed variables: %q", got)
	}
	p = b.post("/processes/review/instances", url.Values{"variables": {`[1,2]`}})
	if !strings.Contains(p.text("flash"), "must be a JSON object") {
		t.Errorf("a list is refused in plain words: %q", p.text("flash"))
	}
}

func TestInstanceListFiltersAndPaging(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn", "caller.bpmn", "picky.bpmn")
	for i := 0; i < 55; i++ {
		b.start("review", fmt.Sprintf("bk-%d", i), nil)
	}
	parent := b.start("caller", "", nil)

	p := b.mustGet("/instances?process=review")
	if got := p.text("instances-total"); got != "55 instances" {
		t.Errorf("total %q", got)
	}
	if n := p.testid("instance-row").Length(); n != 50 {
		t.Errorf("first page rows = %d, want 50", n)
	}
	next := p.testid("pager-next").AttrOr("href", "")
	if next != "/instances?page=2&process=review" {
		t.Fatalf("next page link %q", next)
	}
	if n := b.mustGet(next).testid("instance-row").Length(); n != 5 {
		t.Errorf("second page rows = %d, want 5", n)
	}
	p = b.mustGet("/instances?businessKey=bk-7")
	if n := p.testid("instance-row").Length(); n != 1 {
		t.Errorf("business key filter: %d rows", n)
	}
	if p.testid("filter-business-key").AttrOr("value", "") != "bk-7" {
		t.Errorf("the filter form keeps its values")
	}
	p = b.mustGet("/instances?parent=" + url.QueryEscape(string(parent.ID)))
	rows := p.testid("instance-row")
	if rows.Length() != 1 || rows.Find(`[data-testid="status"]`).Text() != "incident" {
		t.Errorf("the child of the caller is listed as stopped on its incident:\n%s", p.body)
	}
	p = b.mustGet("/instances?process=caller")
	if row := p.testid("instance-row"); row.Find(`[data-testid="incident-in-tree"]`).Length() != 1 ||
		row.Find(`[data-testid="incident-flag"]`).Length() != 0 || row.Find(`[data-testid="status"]`).Text() != "running" {
		t.Errorf("the caller is running, flagged for its child's incident:\n%s", p.body)
	}
	p = b.mustGet("/instances?status=failed")
	if p.testid("instance-row").Length() != 1 {
		t.Errorf("status filter")
	}
	if bad := b.get("/instances?status=weird"); bad.status != http.StatusBadRequest || !strings.Contains(bad.text("error-message"), "must be running, failed") {
		t.Errorf("a bad filter is explained: %d %q", bad.status, bad.text("error-message"))
	}
	if p := b.mustGet("/instances?businessKey=none"); p.testid("no-instances").Length() != 1 {
		t.Errorf("an empty result says so")
	}
}

func TestInstancePage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	inst := b.start("review", "claim-1", map[string]any{"amount": jsonNumber("42"), "who": "ann"})
	path := "/instances/" + string(inst.ID)

	p := b.mustGet(path)
	if p.text("status") != "running" || p.text("business-key") != "claim-1" {
		t.Errorf("summary: %q %q", p.text("status"), p.text("business-key"))
	}
	if p.testid("diagram").Length() != 1 || p.testid("diagram").Parents().Filter(`[data-testid="live"]`).Length() != 0 {
		t.Errorf("the diagram is drawn outside the live region")
	}
	if got := p.doc.Find(`[data-testid="scope"][data-scope="root"] [data-testid="track"]`).AttrOr("data-node", ""); got != "check" {
		t.Errorf("the root scope holds the token at check: %q", got)
	}
	if got := p.doc.Find(`[data-testid="variables"] [data-name="amount"] [data-testid="variable-value"]`).Text(); got != "42" {
		t.Errorf("variable amount = %q", got)
	}
	if p.doc.Find(`[data-testid="wait"][data-kind="task"][data-node="check"]`).Length() != 1 {
		t.Errorf("the instance waits for the task")
	}
	if p.doc.Find(`[data-testid="fact"][data-kind="instance-started"]`).Length() != 1 {
		t.Errorf("the history starts with instance-started")
	}
	if p.testid("call-trace-panel").Length() != 0 {
		t.Errorf("a root instance that called nothing has no call trace to show")
	}

	// Live poll: only the fragment.
	req, _ := http.NewRequest(http.MethodGet, b.srv.URL+path, nil)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Target", "live")
	frag := b.do(req)
	if strings.Contains(frag.body, "<html") || strings.Contains(frag.body, `id="diagram"`) || frag.testid("summary").Length() != 1 {
		t.Errorf("a live poll answers the live fragment only:\n%s", frag.body)
	}

	// Set variables.
	p = b.post(path+"/variables", url.Values{"scope": {"root"}, "variables": {`{"approved": true, "amount": 43}`}})
	if p.status != http.StatusOK || p.text("flash") != "Set amount, approved." {
		t.Fatalf("set variables: %d %q", p.status, p.text("flash"))
	}
	if got := p.doc.Find(`[data-testid="variables"] [data-name="amount"] [data-testid="variable-value"]`).Text(); got != "43" {
		t.Errorf("amount after the edit = %q", got)
	}
	p = b.post(path+"/variables", url.Values{"scope": {"nope"}, "variables": {`{"x": 1}`}})
	if p.status != http.StatusNotFound || !strings.Contains(p.text("flash"), "has no open scope") {
		t.Errorf("an unknown scope: %d %q", p.status, p.text("flash"))
	}
	if got := p.testid("variables-json").Text(); got != `{"x": 1}` {
		t.Errorf("the refused form keeps its text: %q", got)
	}

	// Cancel, then cancelling again is explained.
	p = b.post(path+"/cancel", nil)
	if p.text("status") != "terminated" || !strings.Contains(p.text("flash"), "cancelled") {
		t.Errorf("cancel: %q %q", p.text("status"), p.text("flash"))
	}
	if p.testid("cancel").Length() != 0 {
		t.Errorf("an ended instance offers no cancel")
	}
	p = b.post(path+"/cancel", nil)
	if p.testid("flash").AttrOr("data-kind", "") != "error" || !strings.Contains(p.text("flash"), "Not possible in the current state") {
		t.Errorf("cancelling twice: %q", p.text("flash"))
	}
	if nf := b.get("/instances/nope"); nf.status != http.StatusNotFound || nf.text("error-message") != "Instance nope not found." {
		t.Errorf("unknown instance: %d %q", nf.status, nf.text("error-message"))
	}
}

func TestTaskInbox(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	inst := b.start("review", "", nil)

	if p := b.mustGet("/tasks"); p.testid("no-user").Length() != 1 {
		t.Errorf("without an identity the inbox asks for one")
	}
	// bob is no clerk: nothing to claim, and claiming anyway is refused by the runtime.
	b.actAs("bob")
	p := b.mustGet("/tasks")
	if p.testid("task").Length() != 0 {
		t.Errorf("bob sees no task:\n%s", p.body)
	}
	task := onlyTask(t, b, inst.ID)
	p = b.post("/tasks/"+url.PathEscape(task.ID)+"/claim", nil)
	if p.testid("flash").AttrOr("data-kind", "") != "error" || !strings.HasPrefix(p.text("flash"), "Not allowed:") {
		t.Errorf("bob's claim: %q", p.text("flash"))
	}

	b.actAs("ann", "clerks")
	p = b.mustGet("/tasks")
	claimable := p.doc.Find(`[data-testid="claimable"] [data-testid="task"][data-node="check"]`)
	if claimable.Length() != 1 || claimable.Find(`[data-testid="claim"]`).Length() != 1 || claimable.Find(`[data-testid="complete-form"]`).Length() != 0 {
		t.Fatalf("ann can claim check:\n%s", p.body)
	}
	p = b.post("/tasks/"+url.PathEscape(task.ID)+"/claim", nil)
	if p.text("flash") != "You claimed “Check the claim”." {
		t.Errorf("claim flash %q", p.text("flash"))
	}
	assigned := p.doc.Find(`[data-testid="assigned"] [data-testid="task"][data-node="check"]`)
	if assigned.Find(`[data-testid="unclaim"]`).Length() != 1 {
		t.Fatalf("the claimed task offers unclaim:\n%s", p.body)
	}
	opened := b.mustGet(assigned.Find(`[data-testid="task-open"]`).AttrOr("href", ""))
	if d := opened.testid("task-detail"); d.Find(`[data-testid="complete-form"]`).Length() != 1 ||
		d.Parents().Filter(`[data-testid="live"]`).Length() != 0 {
		t.Fatalf("the opened task has its complete form, outside the live region:\n%s", opened.body)
	}
	p = b.post("/tasks/"+url.PathEscape(task.ID)+"/complete", url.Values{"variables": {`{"ok": tru}`}})
	if !strings.Contains(p.text("flash"), "not valid JSON") {
		t.Errorf("bad JSON on complete: %q", p.text("flash"))
	}
	p = b.post("/tasks/"+url.PathEscape(task.ID)+"/complete", url.Values{"variables": {`{"ok": true}`}})
	if !strings.HasPrefix(p.text("flash"), "Task completed") {
		t.Fatalf("complete: %q", p.text("flash"))
	}
	v := b.instance(inst.ID)
	if got := activeNodes(v); len(got) != 1 || got[0] != "archive" || v.Variables["ok"] != true {
		t.Errorf("the instance moved on to archive with ok: %v %v", got, v.Variables)
	}
	// archive is open to anyone: bob may complete it without claiming.
	b.actAs("bob")
	p = b.mustGet("/tasks")
	open := p.doc.Find(`[data-testid="claimable"] [data-testid="task"][data-node="archive"]`)
	if b.mustGet(open.Find(`[data-testid="task-open"]`).AttrOr("href", "")).testid("complete-form").Length() != 1 {
		t.Errorf("a task open to anyone can be completed directly:\n%s", p.body)
	}
	p = b.post("/tasks/"+url.PathEscape(task.ID)+"/complete", nil)
	if !strings.Contains(p.text("flash"), "not found") {
		t.Errorf("completing a completed task: %q", p.text("flash"))
	}
}

func onlyTask(t *testing.T, b *bundle, id runtime.InstanceID) runtime.TaskView {
	t.Helper()
	ts, _, err := b.rt.Tasks(context.Background(), runtime.TaskFilter{InstanceID: id})
	if err != nil || len(ts) != 1 {
		t.Fatalf("tasks of %s: %v %+v", id, err, ts)
	}
	return ts[0]
}

func TestCallTraceAndChildIncidents(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("caller.bpmn", "picky.bpmn")
	parent := b.start("caller", "order-1", nil)
	if len(parent.Children) != 1 {
		t.Fatalf("the caller has one child: %+v", parent.Children)
	}
	child := parent.Children[0]

	p := b.mustGet("/instances/" + string(parent.ID))
	row := p.doc.Find(`[data-testid="child"][data-id="` + string(child.InstanceID) + `"]`)
	if row.Length() != 1 || row.Find(`[data-testid="child-incident"]`).Length() != 1 {
		t.Fatalf("the child row carries its incident:\n%s", p.body)
	}
	if p.doc.Find(`[data-testid="child-incident-item"][data-instance="`+string(child.InstanceID)+`"]`).Length() != 1 {
		t.Errorf("the child's incident is listed on the parent")
	}
	if p.testid("trace-item").Find(`[data-testid="incident-flag"]`).Length() != 1 {
		t.Errorf("the parent's own trace item is flagged")
	}
	call := p.doc.Find(`[data-testid="element"][data-node="callPicky"]`)
	if call.Find(`[data-testid="element-child-incidents"]`).Length() != 1 {
		t.Errorf("the call activity is marked with the child's incident:\n%s", p.body)
	}

	c := b.mustGet("/instances/" + string(child.InstanceID))
	items := c.testid("trace-item")
	if items.Length() != 2 || items.Eq(0).AttrOr("data-id", "") != string(parent.ID) || items.Eq(1).AttrOr("data-id", "") != string(child.InstanceID) {
		t.Fatalf("the trace runs root → child:\n%s", c.body)
	}
	if items.Eq(0).Find(`[data-testid="incident-flag"]`).Length() != 1 {
		t.Errorf("the ancestor in the trace is flagged with the child's incident")
	}
	if c.testid("incident").Length() != 1 || c.testid("retry").Length() != 1 {
		t.Errorf("the child shows its incident with Retry")
	}

	// The incidents page lists it; Retry without a fix fails again and says so.
	list := b.mustGet("/incidents")
	in := list.testid("incident")
	if in.Length() != 1 || in.AttrOr("data-instance", "") != string(child.InstanceID) {
		t.Fatalf("incidents page:\n%s", list.body)
	}
	p = b.post(in.Find("form").AttrOr("action", ""), url.Values{"retries": {"1"}, "return": {"/incidents"}})
	if p.url != "/incidents" || p.testid("flash").Length() != 1 {
		t.Errorf("retry answers on the incidents page: %s %q", p.url, p.text("flash"))
	}
	p = b.post("/incidents/nope-i1/retry", url.Values{"return": {"https://evil.example/"}})
	if p.url != "/incidents" || !strings.Contains(p.text("flash"), "not found") {
		t.Errorf("unknown incident, foreign return: %s %q", p.url, p.text("flash"))
	}
}

func TestCrossSiteRequestsAreRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	inst := b.start("review", "", nil)
	path := b.srv.URL + "/instances/" + string(inst.ID) + "/cancel"
	token := b.csrf()

	for _, tc := range []struct {
		name   string
		form   url.Values
		header map[string]string
	}{
		{"no token", url.Values{}, nil},
		{"wrong token", url.Values{cockpit.CSRFField: {wrongToken(token)}}, nil},
		{"cross-site fetch", url.Values{cockpit.CSRFField: {token}}, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"foreign origin", url.Values{cockpit.CSRFField: {token}}, map[string]string{"Origin": "https://evil.example"}},
	} {
		req, _ := http.NewRequest(http.MethodPost, path, strings.NewReader(tc.form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		p := b.do(req)
		if p.status != http.StatusForbidden || !strings.Contains(p.text("error-message"), "refused") {
			t.Errorf("%s: %d %q", tc.name, p.status, p.text("error-message"))
		}
	}
	if v := b.instance(inst.ID); v.Status != runtime.StatusRunning {
		t.Fatalf("a refused request changed the instance: %s", v.Status)
	}
	if get := b.get("/instances/" + string(inst.ID) + "/cancel"); get.status != http.StatusMethodNotAllowed {
		t.Errorf("GET on an action: %d", get.status)
	}
}

// wrongToken changes the first character of a token (whatever it is).
func wrongToken(token string) string {
	if token[0] == 'x' {
		return "y" + token[1:]
	}
	return "x" + token[1:]
}

func TestMountedBesideTheJSONAPI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct {
		path, contentType string
		status            int
	}{
		{"/", "text/html", 200},
		{"/incidents", "text/html", 200},
		{"/static/cockpit.css", "text/css", 200},
		{"/api/v1/processes", "application/json", 200},
		{"/api/v1/nope", "application/problem+json", 404},
		{"/api/nope", "application/problem+json", 404},
		{"/healthz", "application/json", 200},
		{"/nope", "text/html", 404},
	} {
		res, err := b.client.Get(b.srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.status || !strings.HasPrefix(res.Header.Get("Content-Type"), tc.contentType) {
			t.Errorf("%s: %d %s", tc.path, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
}

func TestIdentity(t *testing.T) {
	t.Parallel()
	b := setup(t)
	p := b.post("/identity", url.Values{"user": {" pat "}, "groups": {"warehouse, ,sales"}, "return": {"/incidents"}})
	if p.url != "/incidents" || p.text("flash") != "You are acting as pat in warehouse, sales." {
		t.Errorf("identity: %s %q", p.url, p.text("flash"))
	}
	if p.testid("identity-user").AttrOr("value", "") != "pat" || p.testid("identity-groups").AttrOr("value", "") != "warehouse, sales" {
		t.Errorf("the identity control shows the actor")
	}
	p = b.post("/identity", url.Values{"user": {"a,b"}, "return": {"//evil.example/"}})
	if p.url != "/" || p.testid("flash").AttrOr("data-kind", "") != "error" {
		t.Errorf("a bad name and a foreign return: %s %q", p.url, p.text("flash"))
	}
}
