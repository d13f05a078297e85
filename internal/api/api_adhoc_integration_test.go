package api_test

// These tests drive the ad-hoc, variables and waits routes and the
// parent/child and multi-instance parts of the instance view over the real
// runtime and a real SQLite store.

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// instanceTasks lists the open user tasks of an instance by node id.
func instanceTasks(t *testing.T, b *bundle, id string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, it := range b.get("/api/v1/tasks?instanceId="+id).wantStatus(t, http.StatusOK).items(t) {
		task := it.(map[string]any)
		out[task["nodeId"].(string)] = task["id"].(string)
	}
	return out
}

// scopeByNode returns the first scope of an instance answer on node.
func scopeByNode(t *testing.T, inst map[string]any, node string) map[string]any {
	t.Helper()
	for _, s := range inst["scopes"].([]any) {
		if sc := s.(map[string]any); sc["nodeId"] == node {
			return sc
		}
	}
	t.Fatalf("no scope on %s in %s", node, mustJSON(t, inst["scopes"]))
	return nil
}

func TestIntegrationAdHocManual(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "adhoc_manual.bpmn")
	id := startProcess(t, b, "casework", `{}`)
	inst := "/api/v1/instances/" + id

	regions := b.get(inst+"/adhoc").wantStatus(t, http.StatusOK).object(t)["regions"].([]any)
	if len(regions) != 1 {
		t.Fatalf("regions = %v", regions)
	}
	region := regions[0].(map[string]any)
	scopeID := region["scopeId"].(string)
	if got := mustJSON(t, region); got != `{"candidates":[{"activityId":"A","name":"Check documents"},{"activityId":"B","name":"B"}],`+
		`"completed":{},"nodeId":"region","ordering":"parallel","path":"`+region["path"].(string)+`","router":"standard","running":[],"scopeId":"`+scopeID+`","selection":"manual","stopped":null}` {
		t.Errorf("region = %s", got)
	}
	if sc := scopeByNode(t, b.get(inst).wantStatus(t, http.StatusOK).object(t), "region"); sc["id"] != scopeID || sc["kind"] != nil || sc["index"] != nil {
		t.Errorf("region scope = %v, want id %s", sc, scopeID)
	}
	activate := inst + "/adhoc/" + scopeID + "/activate"

	// Without a user nothing happens.
	p := b.as("", "", activate, `{"activityId":"A"}`).problem(t, http.StatusForbidden, "forbidden")
	if p.Field != "X-Gobpm-User" {
		t.Errorf("problem = %+v", p)
	}
	if tasks := instanceTasks(t, b, id); len(tasks) != 0 {
		t.Fatalf("tasks before any activation = %v", tasks)
	}

	got := b.as("ann", "clerks", activate, `{"activityId":"A"}`).wantStatus(t, http.StatusOK).object(t)
	if mustJSON(t, got["running"]) != `["A"]` || mustJSON(t, got["candidates"]) != `[{"activityId":"B","name":"B"}]` || got["scopeId"] != scopeID {
		t.Errorf("region after activating A = %v", got)
	}
	tasks := instanceTasks(t, b, id)
	if len(tasks) != 1 || tasks["A"] == "" {
		t.Fatalf("tasks = %v", tasks)
	}

	// Refused activations change nothing.
	before := [3]string{string(b.get(inst).Body), string(b.get(inst + "/adhoc").Body), string(b.get(inst + "/history").Body)}
	for _, tc := range []struct{ name, path, body, want string }{
		{"A again", activate, `{"activityId":"A"}`, "not a candidate"},
		{"unknown activity", activate, `{"activityId":"Z"}`, "not a candidate"},
		{"unknown region", inst + "/adhoc/nope/activate", `{"activityId":"B"}`, "no open ad-hoc region"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := b.as("ann", "", tc.path, tc.body).problem(t, http.StatusConflict, "conflict")
			if !strings.Contains(p.Detail, tc.want) || !strings.Contains(p.Detail, "nothing changed") {
				t.Errorf("detail = %q, want it to say %q", p.Detail, tc.want)
			}
			t.Logf("409 detail: %s", p.Detail)
		})
	}
	b.as("ann", "", "/api/v1/instances/nope/adhoc/"+scopeID+"/activate", `{"activityId":"B"}`).problem(t, http.StatusNotFound, "not-found")
	b.get("/api/v1/instances/nope/adhoc").problem(t, http.StatusNotFound, "not-found")
	after := [3]string{string(b.get(inst).Body), string(b.get(inst + "/adhoc").Body), string(b.get(inst + "/history").Body)}
	if after != before {
		t.Errorf("refused activations changed the instance:\nbefore %v\nafter  %v", before, after)
	}

	// The waits show the region's open offer (B) and the task of A.
	waits := b.get(inst+"/waits").wantStatus(t, http.StatusOK).items(t)
	if len(waits) != 2 || waits[0].(map[string]any)["kind"] != "offer" || waits[0].(map[string]any)["name"] != "B" ||
		waits[1].(map[string]any)["kind"] != "task" || waits[1].(map[string]any)["nodeId"] != "A" || waits[1].(map[string]any)["id"] != tasks["A"] {
		t.Errorf("waits = %v", waits)
	}

	// Finish A; B is still offered, A counted once.
	b.as("ann", "", "/api/v1/tasks/"+tasks["A"]+"/complete", `{}`).noContent(t)
	region = b.get(inst+"/adhoc").wantStatus(t, http.StatusOK).object(t)["regions"].([]any)[0].(map[string]any)
	if mustJSON(t, region["running"]) != `[]` || mustJSON(t, region["completed"]) != `{"A":1}` ||
		mustJSON(t, region["candidates"]) != `[{"activityId":"B","name":"B"}]` {
		t.Errorf("region after A = %v", region)
	}

	// Activate and finish B: the region drains and the instance completes.
	b.as("bob", "", activate, `{"activityId":"B"}`).wantStatus(t, http.StatusOK)
	tasks = instanceTasks(t, b, id)
	if len(tasks) != 1 || tasks["B"] == "" {
		t.Fatalf("tasks = %v", tasks)
	}
	b.as("bob", "", "/api/v1/tasks/"+tasks["B"]+"/complete", `{}`).noContent(t)
	if got := string(b.get(inst+"/adhoc").wantStatus(t, http.StatusOK).Body); got != `{"regions":[]}` {
		t.Errorf("regions after the drain = %s", got)
	}
	if st := b.get(inst).object(t)["status"]; st != "completed" {
		t.Errorf("status = %v", st)
	}
	b.as("bob", "", activate, `{"activityId":"B"}`).problem(t, http.StatusConflict, "conflict")
	if w := b.get(inst+"/waits").wantStatus(t, http.StatusOK).items(t); len(w) != 0 {
		t.Errorf("waits of an ended instance = %v", w)
	}

	// The activations are on the record with who did them.
	var by []string
	for _, it := range b.get(inst + "/history").items(t) {
		f := it.(map[string]any)
		if d, ok := f["detail"].(map[string]any); ok && d["by"] != nil {
			by = append(by, f["nodeId"].(string)+":"+d["by"].(string))
		}
	}
	if !slices.Equal(by, []string{"A:ann", "B:bob"}) {
		t.Errorf("activations by = %v", by)
	}
}

func TestIntegrationCallActivity(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "call_child.bpmn")
	deployTestdata(t, b, "call_parent.bpmn")
	pid := startProcess(t, b, "parent", `{}`)

	parent := b.get("/api/v1/instances/"+pid).wantStatus(t, http.StatusOK).object(t)
	children := parent["children"].([]any)
	if len(children) != 1 {
		t.Fatalf("children = %v", children)
	}
	child := children[0].(map[string]any)
	cid, _ := child["instanceId"].(string)
	if cid == "" || child["nodeId"] != "call" || child["status"] != "running" || parent["parent"] != nil {
		t.Errorf("parent = %v", parent)
	}
	got := b.get("/api/v1/instances/"+cid).wantStatus(t, http.StatusOK).object(t)
	if mustJSON(t, got["parent"]) != `{"instanceId":"`+pid+`","nodeId":"call"}` || got["processKey"] != "child" || mustJSON(t, got["children"]) != `[]` {
		t.Errorf("child = %v", got)
	}
	items := b.get("/api/v1/instances?parentId="+pid).wantStatus(t, http.StatusOK).items(t)
	if len(items) != 1 || items[0].(map[string]any)["id"] != cid || items[0].(map[string]any)["parent"].(map[string]any)["instanceId"] != pid {
		t.Errorf("instances?parentId = %v", items)
	}
	if items := b.get("/api/v1/instances?parentId=" + cid).items(t); len(items) != 0 {
		t.Errorf("the child has children: %v", items)
	}
	waits := b.get("/api/v1/instances/"+pid+"/waits").wantStatus(t, http.StatusOK).items(t)
	if len(waits) != 1 || waits[0].(map[string]any)["kind"] != "call" || waits[0].(map[string]any)["nodeId"] != "call" {
		t.Errorf("parent waits = %v", waits)
	}

	tasks := instanceTasks(t, b, cid)
	if tasks["work"] == "" {
		t.Fatalf("child tasks = %v", tasks)
	}
	b.as("ann", "", "/api/v1/tasks/"+tasks["work"]+"/complete", `{}`).noContent(t)
	if st := b.get("/api/v1/instances/" + cid).object(t)["status"]; st != "completed" {
		t.Errorf("child status = %v", st)
	}
	parent = b.get("/api/v1/instances/" + pid).object(t)
	if parent["status"] != "completed" || mustJSON(t, parent["children"]) != `[{"instanceId":"`+cid+`","nodeId":"call","number":1,"processKey":"child","status":"completed"}]` {
		t.Errorf("parent after the child = %v", parent)
	}
}

func TestIntegrationMultiInstanceScopes(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "mi_people.bpmn")
	id := startProcess(t, b, "approvals", `{"people":["ann","bob"]}`)

	inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	body := scopeByNode(t, inst, "approve")
	if body["kind"] != "body" || body["index"] != nil {
		t.Fatalf("first scope on approve = %v; scopes %s", body, mustJSON(t, inst["scopes"]))
	}
	var iterations []string
	for _, s := range inst["scopes"].([]any) {
		sc := s.(map[string]any)
		switch sc["kind"] {
		case "iteration":
			if sc["parentId"] != body["id"] {
				t.Errorf("iteration %v is not under the body %v", sc["id"], body["id"])
			}
			iterations = append(iterations, mustJSON(t, []any{sc["index"], sc["variables"].(map[string]any)["p"]}))
		case nil:
			if sc["index"] != nil {
				t.Errorf("scope %v has an index", sc)
			}
		}
	}
	slices.Sort(iterations)
	if !slices.Equal(iterations, []string{`[1,"ann"]`, `[2,"bob"]`}) {
		t.Errorf("iterations (index, p) = %v; scopes %s", iterations, mustJSON(t, inst["scopes"]))
	}

	var taskIDs []string
	for _, it := range b.get("/api/v1/tasks?instanceId=" + id).items(t) {
		taskIDs = append(taskIDs, it.(map[string]any)["id"].(string))
	}
	if len(taskIDs) != 2 {
		t.Fatalf("tasks = %v", taskIDs)
	}
	for _, tid := range taskIDs {
		b.as("ann", "", "/api/v1/tasks/"+tid+"/complete", `{}`).noContent(t)
	}
	if st := b.get("/api/v1/instances/" + id).object(t)["status"]; st != "completed" {
		t.Errorf("status = %v", st)
	}
}

func TestIntegrationSetVariables(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "variables.bpmn")
	id := startProcess(t, b, "vars", `{"owner":"ann"}`)
	path := "/api/v1/instances/" + id + "/variables"
	sub := scopeByNode(t, b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t), "sub")["id"].(string)

	// Into the root.
	got := b.postJSON(path, `{"variables":{"amount":10.50,"tags":["a"]}}`).wantStatus(t, http.StatusOK).object(t)
	if got["id"] != id || got["variables"].(map[string]any)["amount"] != json.Number("10.50") {
		t.Errorf("after root write = %v", got["variables"])
	}
	// Into the sub-process scope by the write rule (docs/scopes.md#variables): an existing
	// variable is updated where it lives, a new name lands at the root; with
	// local the names are written into the scope itself (shadowing).
	b.postJSON(path, `{"variables":{"owner":"bob","note":"n"},"scopeId":"`+sub+`"}`).wantStatus(t, http.StatusOK)
	got = b.postJSON(path, `{"variables":{"amount":1},"scopeId":"`+sub+`","local":true}`).wantStatus(t, http.StatusOK).object(t)
	if s := mustJSON(t, got["variables"]); s != `{"amount":10.50,"note":"n","owner":"bob","tags":["a"]}` {
		t.Errorf("root variables = %s", s)
	}
	inst := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	if s := mustJSON(t, scopeByNode(t, inst, "sub")["variables"]); s != `{"amount":1}` {
		t.Errorf("sub-process variables = %s", s)
	}
	var set []string
	for _, it := range b.get("/api/v1/instances/" + id + "/history").items(t) {
		if f := it.(map[string]any); f["kind"] == "variable-set" {
			d := f["detail"].(map[string]any)
			set = append(set, d["name"].(string)+"@"+f["scopePath"].(string)+" by "+d["by"].(string))
		}
	}
	subPath := scopeByNode(t, inst, "sub")["path"].(string)
	if want := []string{"amount@/ by operator", "tags@/ by operator", "note@/ by operator", "owner@/ by operator", "amount@" + subPath + " by operator"}; !slices.Equal(set, want) {
		t.Errorf("variable-set facts = %v, want %v", set, want)
	}

	p := b.postJSON(path, `{"variables":{"a":1},"scopeId":"nope"}`).problem(t, http.StatusNotFound, "not-found")
	if !strings.Contains(p.Detail, "nope") {
		t.Errorf("detail = %q", p.Detail)
	}
	b.postJSON("/api/v1/instances/nope/variables", `{"variables":{"a":1}}`).problem(t, http.StatusNotFound, "not-found")
	b.postJSON(path, `{"variables":{}}`).problem(t, http.StatusBadRequest, "invalid-request")
	b.get("/api/v1/instances/nope/waits").problem(t, http.StatusNotFound, "not-found")

	b.postJSON("/api/v1/instances/"+id+"/cancel", ``).wantStatus(t, http.StatusOK)
	b.postJSON(path, `{"variables":{"a":1}}`).problem(t, http.StatusConflict, "conflict")
}

// TestIntegrationAdHocActivationDrains activates a straight-through activity
// that drains its region at once: the answer still describes the region.
func TestIntegrationAdHocActivationDrains(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "adhoc_straight.bpmn")
	id := startProcess(t, b, "quickcase", `{}`)
	regions := b.get("/api/v1/instances/"+id+"/adhoc").wantStatus(t, http.StatusOK).object(t)["regions"].([]any)
	if len(regions) != 1 {
		t.Fatalf("regions = %v", regions)
	}
	region := regions[0].(map[string]any)
	scopeID := region["scopeId"].(string)
	got := b.as("ann", "", "/api/v1/instances/"+id+"/adhoc/"+scopeID+"/activate", `{"activityId":"note"}`).wantStatus(t, http.StatusOK).object(t)
	if got["scopeId"] != scopeID || got["nodeId"] != "region" || got["path"] != region["path"] || got["selection"] != "manual" ||
		got["ordering"] != "parallel" || got["stopped"] != "drained" || mustJSON(t, got["candidates"]) != `[]` || mustJSON(t, got["running"]) != `[]` {
		t.Errorf("region = %v", got)
	}
	if st := b.get("/api/v1/instances/" + id).object(t)["status"]; st != "completed" {
		t.Errorf("status = %v", st)
	}
}
