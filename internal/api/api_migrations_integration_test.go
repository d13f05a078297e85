package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestIntegrationMigration migrates the running instances of version 1 to
// version 2 over the real router, runtime and SQLite: a plan that does not
// fit is refused with the problems of each instance before anything runs,
// a dry run only validates, and the batch moves every instance with its
// waits, the operator named in each history.
func TestIntegrationMigration(t *testing.T) {
	t.Parallel()
	b, rt, _ := setupRealClock(t)
	deployTestdata(t, b, "migrate_v1.bpmn")
	var ids []string
	for i := 1; i <= 3; i++ {
		ids = append(ids, startProcess(t, b, "migr", fmt.Sprintf(`{"orderId":"o-%d"}`, i)))
	}
	b.postJSON("/api/v1/instances/"+ids[2]+"/cancel", "").wantStatus(t, http.StatusOK)
	deployTestdata(t, b, "migrate_v2.bpmn")

	// Refusals name what is wrong and change nothing.
	for _, tc := range []struct {
		name, body string
		status     int
		slug       string
		field, has string
	}{
		{"no key", `{"sourceVersion":1,"targetVersion":2}`, http.StatusBadRequest, "invalid-request", "processKey", "processKey is required"},
		{"no target", `{"processKey":"migr","sourceVersion":1}`, http.StatusBadRequest, "invalid-request", "targetVersion", "targetVersion is required"},
		{"same version", `{"processKey":"migr","sourceVersion":1,"targetVersion":1}`, http.StatusBadRequest, "invalid-request", "targetVersion", "both version 1"},
		{"unknown version", `{"processKey":"migr","sourceVersion":1,"targetVersion":9}`, http.StatusNotFound, "not-found", "", "has no version 9"},
		{"mapping not strings", `{"processKey":"migr","sourceVersion":1,"targetVersion":2,"mapping":{"msg":2}}`, http.StatusBadRequest, "invalid-request", "mapping", "mapping must be an object"},
		{"bad mapping", `{"processKey":"migr","sourceVersion":1,"targetVersion":2,"mapping":{"msg":"nope"}}`, http.StatusBadRequest, "invalid-request", "mapping", `msg maps to "nope", which the target version of migr does not have`},
		{"default mapping", `{"processKey":"migr","sourceVersion":1,"targetVersion":2}`, http.StatusConflict, "conflict", "", "2 of 2 instances cannot be migrated"},
	} {
		p := b.postJSON("/api/v1/migrations", tc.body).problem(t, tc.status, tc.slug)
		if p.Field != tc.field || !strings.Contains(p.Detail, tc.has) {
			t.Errorf("%s: problem %+v, want field %q and %q", tc.name, p, tc.field, tc.has)
		}
	}
	refused := b.postJSON("/api/v1/migrations", `{"processKey":"migr","sourceVersion":1,"targetVersion":2}`).
		wantStatus(t, http.StatusConflict).object(t)
	instances := refused["instances"].([]any)
	if len(instances) != 2 {
		t.Fatalf("refusal lists %s", mustJSON(t, refused))
	}
	for i, in := range instances {
		in := in.(map[string]any)
		problems := in["problems"].([]any)
		if in["instanceId"] != ids[i] || in["valid"] != false || len(problems) != 1 ||
			problems[0].(map[string]any)["element"] != "msg" ||
			!strings.Contains(problems[0].(map[string]any)["message"].(string), `element msg is active and maps to "msg" (the same id)`) {
			t.Errorf("instance %d: %s", i, mustJSON(t, in))
		}
	}
	if v := b.get("/api/v1/instances/"+ids[0]).wantStatus(t, http.StatusOK).object(t)["version"]; fmt.Sprint(v) != "1" {
		t.Fatalf("a refused migration moved the instance to version %v", v)
	}

	plan := `{"processKey":"migr","sourceVersion":1,"targetVersion":2,"mapping":{"msg":"msg2"}`
	dry := b.postJSON("/api/v1/migrations", plan+`,"dryRun":true}`).wantStatus(t, http.StatusOK).object(t)
	if dry["valid"] != true || len(dry["instances"].([]any)) != 2 {
		t.Fatalf("dry run %s", mustJSON(t, dry))
	}
	explicit := b.postJSON("/api/v1/migrations", fmt.Sprintf(`%s,"instanceIds":[%q],"dryRun":true}`, plan, ids[2])).wantStatus(t, http.StatusOK).object(t)
	if explicit["valid"] != false || !strings.Contains(mustJSON(t, explicit), "is terminated") {
		t.Errorf("a terminated instance: %s", mustJSON(t, explicit))
	}

	res := b.as("olga", "", "/api/v1/migrations", plan+`}`).wantStatus(t, http.StatusCreated)
	started := res.object(t)
	id := started["id"].(string)
	if res.Header.Get("Location") != "/api/v1/migrations/"+id || fmt.Sprint(started["total"]) != "2" || started["createdBy"] != "olga" {
		t.Fatalf("started %s (Location %q)", mustJSON(t, started), res.Header.Get("Location"))
	}
	if err := rt.AwaitMigration(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	done := b.get("/api/v1/migrations/"+id).wantStatus(t, http.StatusOK).object(t)
	if done["status"] != "completed" || fmt.Sprint(done["migrated"]) != "2" || fmt.Sprint(done["failed"]) != "0" || fmt.Sprint(done["pending"]) != "0" || done["finishedAt"] == nil {
		t.Fatalf("done %s", mustJSON(t, done))
	}
	for _, inst := range ids[:2] {
		if v := b.get("/api/v1/instances/"+inst).wantStatus(t, http.StatusOK).object(t)["version"]; fmt.Sprint(v) != "2" {
			t.Errorf("%s at version %v", inst, v)
		}
		history := string(b.get("/api/v1/instances/" + inst + "/history").Body)
		for _, want := range []string{`"instance-migrated"`, `"by":"olga"`, `"fromVersion":1`, `"toVersion":2`} {
			if !strings.Contains(history, want) {
				t.Errorf("history of %s lacks %s", inst, want)
			}
		}
	}
	// The waits followed: the jobs have the target's type, the subscription the target's message.
	if jobs := activate(t, b, "pay2", "w1", 60000); len(jobs) != 2 {
		t.Errorf("pay2 jobs: %v", jobs)
	}
	if got := b.postJSON("/api/v1/messages", `{"name":"ping2","correlationKey":"o-1"}`).wantStatus(t, http.StatusOK).object(t)["correlated"]; fmt.Sprint(got) != "1" {
		t.Errorf("ping2 correlated %v", got)
	}
	b.get("/api/v1/migrations/nope").problem(t, http.StatusNotFound, "not-found")
}
