package api_test

// These tests drive ad-hoc regions over HTTP against the real runtime and
// SQLite: a router job's worker round trip (snapshot, answer, lock expiry
// and re-delivery without a second activation), activation with inputs and
// several activities at once, and the explicit complete of a re-offering
// case region.

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestIntegrationRouterJob(t *testing.T) {
	t.Parallel()
	s := setupJobServer(t)
	deployTestdata(t, s.bundle, "adhoc_router.bpmn")
	id := startProcess(t, s.bundle, "triage", `{"ticket":"T-7"}`)
	inst := "/api/v1/instances/" + id

	region := s.get(inst+"/adhoc").wantStatus(t, http.StatusOK).object(t)["regions"].([]any)[0].(map[string]any)
	if region["router"] != "job" || region["deciding"] != true {
		t.Fatalf("region = %v", region)
	}

	// The router job carries the snapshot.
	first := oneOf(t, activate(t, s.bundle, "triage", "w1", 1000), id)
	vars := first["variables"].(map[string]any)
	if got := mustJSON(t, vars["candidates"]); got != `[{"documentation":"Wake the on-call engineer.","id":"page","inputs":[{"name":"urgency"}],"kind":"serviceTask","name":"Page on-call"},`+
		`{"documentation":"","id":"lookup","inputs":[],"kind":"userTask","name":"Look up the customer"}]` {
		t.Errorf("candidates = %s", got)
	}
	if got := mustJSON(t, vars["progress"]); got != `{"completed":{},"running":[],"trigger":null,"triggers":[]}` {
		t.Errorf("progress = %s", got)
	}
	if v := vars["variables"].(map[string]any); v["ticket"] != "T-7" {
		t.Errorf("variables = %v", v)
	}

	// The lock runs out; another worker gets the same job. The first
	// worker's answer is refused, the second's is taken, and a repeat
	// finds no job: nothing is activated twice.
	s.clock.Advance(2 * time.Second)
	second := oneOf(t, activate(t, s.bundle, "triage", "w2", 60_000), id)
	if second["key"] != first["key"] {
		t.Fatalf("re-delivered a different job: %v vs %v", second["key"], first["key"])
	}
	answer := `"activate":[{"activityId":"page","variables":{"urgency":"high"}},{"activityId":"lookup"}],"variables":{"triaged":true}`
	s.postJSON("/api/v1/jobs/"+first["key"].(string)+"/complete", withToken(first, answer)).problem(t, http.StatusConflict, "conflict")
	// Bad answers are refused before anything moves.
	for _, bad := range []struct{ body, field string }{
		{`"activate":{"activityId":"page"}`, "activate"},
		{`"activate":[{"variables":{}}]`, "activate[0].activityId"},
		{`"activate":[{"activityId":"page","variables":[1]}]`, "variables"},
		{`"activate":[7]`, "activate[0]"},
	} {
		p := s.postJSON("/api/v1/jobs/"+second["key"].(string)+"/complete", withToken(second, bad.body)).problem(t, http.StatusBadRequest, "invalid-request")
		if p.Field != bad.field {
			t.Errorf("%s: field %q (%s), want %q", bad.body, p.Field, p.Detail, bad.field)
		}
	}
	p := s.postJSON("/api/v1/jobs/"+second["key"].(string)+"/complete", withToken(second, `"variables":{}`)).problem(t, http.StatusConflict, "conflict")
	if !strings.Contains(p.Detail, "needs activate") {
		t.Errorf("router job completed without an answer: %q", p.Detail)
	}
	s.postJSON("/api/v1/jobs/"+second["key"].(string)+"/complete", withToken(second, answer)).noContent(t)
	s.postJSON("/api/v1/jobs/"+second["key"].(string)+"/complete", withToken(second, answer)).problem(t, http.StatusNotFound, "not-found")

	// The answer started page (with its argument) and lookup.
	page := oneOf(t, activate(t, s.bundle, "page", "w3", 60_000), id)
	if pv := page["variables"].(map[string]any); pv["urgency"] != "high" || pv["triaged"] != true {
		t.Errorf("page sees %v", pv)
	}
	if tasks := instanceTasks(t, s.bundle, id); tasks["lookup"] == "" {
		t.Fatalf("tasks = %v", tasks)
	}
	p = s.postJSON("/api/v1/jobs/"+page["key"].(string)+"/complete", withToken(page, `"activate":[]`)).problem(t, http.StatusConflict, "conflict")
	if !strings.Contains(p.Detail, "not the job of an ad-hoc router") {
		t.Errorf("activate on a task's job: %q", p.Detail)
	}
	s.postJSON("/api/v1/jobs/"+page["key"].(string)+"/complete", withToken(page, ``)).noContent(t)

	// page completed: the router is asked again, with page as the trigger.
	third := oneOf(t, activate(t, s.bundle, "triage", "w2", 60_000), id)
	if got := mustJSON(t, third["variables"].(map[string]any)["progress"]); got != `{"completed":{"page":1},"running":["lookup"],"trigger":"page","triggers":["page"]}` {
		t.Errorf("progress = %s", got)
	}
	s.postJSON("/api/v1/jobs/"+third["key"].(string)+"/complete", withToken(third, `"activate":[]`)).noContent(t)
	s.as("ann", "", "/api/v1/tasks/"+instanceTasks(t, s.bundle, id)["lookup"]+"/complete", `{}`).noContent(t)
	last := oneOf(t, activate(t, s.bundle, "triage", "w2", 60_000), id)
	s.postJSON("/api/v1/jobs/"+last["key"].(string)+"/complete", withToken(last, `"activate":[]`)).noContent(t)
	if st := instanceStatus(t, s.bundle, id); st != "completed" {
		t.Fatalf("status = %s", st)
	}

	// The history names the decider of each activation.
	var by []string
	for _, it := range s.get(inst + "/history?limit=1000").items(t) {
		f := it.(map[string]any)
		if f["kind"] != "adhoc-activity-activated" {
			continue
		}
		d := f["detail"].(map[string]any)
		by = append(by, f["nodeId"].(string)+":"+d["by"].(string)+":"+d["worker"].(string))
	}
	if !slices.Equal(by, []string{"page:router job triage:w2", "lookup:router job triage:w2"}) {
		t.Errorf("activations = %v", by)
	}
}

func TestIntegrationActivateWithInputsAndComplete(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "adhoc_reoffer.bpmn")
	id := startProcess(t, b, "case", `{}`)
	inst := "/api/v1/instances/" + id
	scopeID := b.get(inst+"/adhoc").wantStatus(t, http.StatusOK).object(t)["regions"].([]any)[0].(map[string]any)["scopeId"].(string)
	base := inst + "/adhoc/" + scopeID

	for _, bad := range []struct{ body, field string }{
		{`{"variables":{"a":1}}`, "variables"},
		{`{"activities":[{"activityId":" "}]}`, "activities[0].activityId"},
		{`{"activityId":"call","variables":"x"}`, "variables"},
	} {
		p := b.as("ann", "", base+"/activate", bad.body).problem(t, http.StatusBadRequest, "invalid-request")
		if p.Field != bad.field {
			t.Errorf("%s: field %q (%s), want %q", bad.body, p.Field, p.Detail, bad.field)
		}
	}
	// All or nothing: a non-candidate refuses the whole request.
	p := b.as("ann", "", base+"/activate", `{"activityId":"call","activities":[{"activityId":"nope"}]}`).problem(t, http.StatusConflict, "conflict")
	if !strings.Contains(p.Detail, "call, nope were not activated") {
		t.Errorf("detail = %q", p.Detail)
	}
	if tasks := instanceTasks(t, b, id); len(tasks) != 0 {
		t.Fatalf("a refused activation created tasks: %v", tasks)
	}

	got := b.as("ann", "", base+"/activate", `{"activityId":"call","variables":{"phone":"+49 30 1234"},"activities":[{"activityId":"note","variables":{"topic":"refund"}}]}`).
		wantStatus(t, http.StatusOK).object(t)
	if mustJSON(t, got["running"]) != `["call","note"]` {
		t.Errorf("region = %v", got)
	}
	view := b.get(inst).wantStatus(t, http.StatusOK).object(t)
	if v := scopeByNode(t, view, "call")["variables"].(map[string]any); v["phone"] != "+49 30 1234" {
		t.Errorf("call's scope = %v", v)
	}
	if v := scopeByNode(t, view, "note")["variables"].(map[string]any); v["topic"] != "refund" {
		t.Errorf("note's scope = %v", v)
	}
	if v := view["variables"].(map[string]any); v["phone"] != nil {
		t.Errorf("an activation variable reached the root: %v", v)
	}

	// Completing the region while its activities run is refused.
	b.as("ann", "", base+"/complete", `{}`).problem(t, http.StatusConflict, "conflict")
	b.as("", "", base+"/complete", `{}`).problem(t, http.StatusForbidden, "forbidden")
	tasks := instanceTasks(t, b, id)
	b.as("ann", "", "/api/v1/tasks/"+tasks["call"]+"/complete", `{}`).noContent(t)
	b.as("ann", "", "/api/v1/tasks/"+tasks["note"]+"/complete", `{}`).noContent(t)
	// Re-offered: both are candidates again.
	region := b.get(inst+"/adhoc").wantStatus(t, http.StatusOK).object(t)["regions"].([]any)[0].(map[string]any)
	if mustJSON(t, region["candidates"]) != `[{"activityId":"call","name":"Call the customer"},{"activityId":"note","name":"Write a note"}]` {
		t.Fatalf("region after both = %v", region)
	}
	done := b.as("bob", "", base+"/complete", ``).wantStatus(t, http.StatusOK).object(t)
	if done["stopped"] != "completed by bob" || done["nodeId"] != "region" || mustJSON(t, done["completed"]) != `{"call":1,"note":1}` {
		t.Errorf("completed region = %v", done)
	}
	if st := instanceStatus(t, b, id); st != "completed" {
		t.Fatalf("status = %s", st)
	}
	b.as("bob", "", base+"/complete", `{}`).problem(t, http.StatusConflict, "conflict")
}
