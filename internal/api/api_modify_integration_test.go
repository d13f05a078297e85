package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestIntegrationModify moves a token over the real router, runtime and
// SQLite: out of an incident, into a sub-process opened for it, with the
// operator named in the history; refusals change nothing.
func TestIntegrationModify(t *testing.T) {
	t.Parallel()
	b, _, _ := setupRealClock(t)
	deployTestdata(t, b, "modify.bpmn")
	id := startProcess(t, b, "modify", `{}`)
	inst := "/api/v1/instances/" + id
	modify := inst + "/modify"

	// Task a fails for good: an incident.
	jobs := activate(t, b, "a", "w1", 60000)
	if len(jobs) != 1 {
		t.Fatalf("jobs = %v", jobs)
	}
	j := jobs[0]
	b.postJSON("/api/v1/jobs/"+j["key"].(string)+"/fail", `{"lockToken":"`+j["lockToken"].(string)+`","retries":0,"errorMessage":"broken"}`).wantStatus(t, http.StatusNoContent)
	if got := b.get(inst).wantStatus(t, http.StatusOK).object(t)["status"]; got != "failed" {
		t.Fatalf("status after the failure = %v", got)
	}

	// Refusals name what is wrong and change nothing.
	before := [2]string{string(b.get(inst).Body), string(b.get(inst + "/history").Body)}
	for _, tc := range []struct {
		name, body string
		status     int
		field, has string
	}{
		{"no instructions", `{}`, http.StatusBadRequest, "instructions", "instructions is required"},
		{"empty list", `{"instructions":[]}`, http.StatusBadRequest, "instructions", "at least one"},
		{"both", `{"instructions":[{"cancel":{"nodeId":"a"},"activate":{"nodeId":"c"}}]}`, http.StatusBadRequest, "instructions[0]", "exactly one of cancel and activate"},
		{"two targets", `{"instructions":[{"cancel":{"nodeId":"a","trackId":"t1"}}]}`, http.StatusBadRequest, "instructions[0].cancel", "exactly one of nodeId"},
		{"no node", `{"instructions":[{"activate":{"scopeId":"root"}}]}`, http.StatusBadRequest, "instructions[0].activate.nodeId", "nodeId is required"},
		{"variables not an object", `{"instructions":[{"activate":{"nodeId":"c","variables":[1]}}]}`, http.StatusBadRequest, "instructions[0].activate.variables", "must be a JSON object"},
		{"unknown element", `{"instructions":[{"cancel":{"nodeId":"a"}},{"activate":{"nodeId":"nope"}}]}`, http.StatusBadRequest, "", `instruction 2: activate: process modify has no element "nope"`},
		{"boundary event", `{"instructions":[{"activate":{"nodeId":"late"}}]}`, http.StatusBadRequest, "", "boundary event of a"},
	} {
		p := b.postJSON(modify, tc.body).problem(t, tc.status, "invalid-request")
		if p.Field != tc.field || !strings.Contains(p.Detail, tc.has) {
			t.Errorf("%s: problem %+v, want field %q and %q", tc.name, p, tc.field, tc.has)
		}
	}
	if after := [2]string{string(b.get(inst).Body), string(b.get(inst + "/history").Body)}; after != before {
		t.Fatalf("a refused modification changed the instance")
	}

	// Out of the incident, into b (its sub-process opens around it).
	got := b.as("ops", "", modify, `{"instructions":[{"cancel":{"nodeId":"a"}},{"activate":{"nodeId":"b","variables":{"fixed":true}}}]}`).
		wantStatus(t, http.StatusOK).object(t)
	if got["status"] != "running" {
		t.Fatalf("instance after the modification = %s", mustJSON(t, got))
	}
	if sc := scopeByNode(t, got, "sub"); mustJSON(t, sc["variables"]) != `{"fixed":true}` {
		t.Errorf("sub scope = %s", mustJSON(t, sc))
	}
	if open := b.get("/api/v1/incidents?instanceId="+id).wantStatus(t, http.StatusOK).items(t); len(open) != 0 {
		t.Errorf("open incidents = %v", open)
	}
	history := string(b.get(inst + "/history").Body)
	for _, want := range []string{`"instance-modified"`, `"by":"ops"`, `"element-terminated"`} {
		if !strings.Contains(history, want) {
			t.Errorf("history lacks %s: %s", want, history)
		}
	}

	// b then c complete the instance as if it had run its course.
	for _, typ := range []string{"b", "c"} {
		jobs := activate(t, b, typ, "w1", 60000)
		if len(jobs) != 1 {
			t.Fatalf("%s jobs = %v", typ, jobs)
		}
		j := jobs[0]
		b.postJSON("/api/v1/jobs/"+j["key"].(string)+"/complete", `{"lockToken":"`+j["lockToken"].(string)+`"}`).wantStatus(t, http.StatusNoContent)
	}
	if got := b.get(inst).wantStatus(t, http.StatusOK).object(t)["status"]; got != "completed" {
		t.Fatalf("status at the end = %v", got)
	}
	b.postJSON(modify, `{"instructions":[{"activate":{"nodeId":"c"}}]}`).problem(t, http.StatusConflict, "conflict")
	b.postJSON("/api/v1/instances/nope/modify", `{"instructions":[{"activate":{"nodeId":"c"}}]}`).problem(t, http.StatusNotFound, "not-found")
}
