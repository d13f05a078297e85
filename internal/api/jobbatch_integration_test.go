package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// batchModel holds two processes, each at one job: "pay" (which the
// worker may work on) and "payroll" (which it may not).
const batchModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:gobpm="urn:gobpm:1" targetNamespace="urn:test">
  <process id="shop" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="pay"/>
    <serviceTask id="pay" gobpm:type="pay"/>
    <sequenceFlow id="f2" sourceRef="pay" targetRef="e"/>
    <endEvent id="e"/>
  </process>
  <process id="hr" isExecutable="true">
    <startEvent id="hs"/>
    <sequenceFlow id="h1" sourceRef="hs" targetRef="payroll"/>
    <serviceTask id="payroll" gobpm:type="payroll"/>
    <sequenceFlow id="h2" sourceRef="payroll" targetRef="he"/>
    <endEvent id="he"/>
  </process>
</definitions>`

// TestCompleteJobsBatch: POST /api/v1/jobs/complete answers each item as
// the single completion route would — completed (204), a wrong lock token
// (409), an unknown key and a job of a type the worker may not work on
// (the same 404, revealing nothing), a key repeated in the batch (409
// for the repeat), a malformed item (400 naming its field) — through the
// real router, access control and SQLite; the completed jobs' instances
// end with the variables sent. A batch over the limit is 413.
func TestCompleteJobsBatch(t *testing.T) {
	t.Parallel()
	rt, acc := openAccess(t, access.ModeBuiltin, nil)
	w := &authWorld{b: setup(t, rt, api.Options{Access: acc}), acc: acc, rt: rt, tokens: map[string]string{}}
	ctx := context.Background()
	mint := func(user string, grant func(access.Subject) access.GrantRecord) {
		t.Helper()
		if _, err := acc.CreateUser(ctx, "", access.NewUser{ID: user, Password: "correct horse battery"}); err != nil {
			t.Fatal(err)
		}
		if _, err := acc.Grant(ctx, "", grant(access.Subject{Kind: access.SubjectUser, ID: user})); err != nil {
			t.Fatal(err)
		}
		secret, _, err := acc.MintToken(ctx, access.NewToken{Owner: user, Name: "test"})
		if err != nil {
			t.Fatal(err)
		}
		w.tokens[user] = secret
	}
	mint("admin", func(s access.Subject) access.GrantRecord { return access.GrantRecord{Subject: s, Role: "admin"} })
	mint("paybot", func(s access.Subject) access.GrantRecord {
		g, err := auth.NewGrant(auth.PermWork, auth.KindJobType, "pay")
		if err != nil {
			t.Fatal(err)
		}
		return access.GrantRecord{Subject: s, Grant: &g}
	})
	w.call("admin", "POST", "/api/v1/deployments", batchModel).wantStatus(t, http.StatusCreated)
	var instances []string
	for range 4 {
		in := w.call("admin", "POST", "/api/v1/processes/shop/instances", `{}`).wantStatus(t, http.StatusCreated).object(t)
		instances = append(instances, in["id"].(string))
	}
	w.call("admin", "POST", "/api/v1/processes/hr/instances", `{}`).wantStatus(t, http.StatusCreated)
	activate := func(user, typ string, n int) (keys, tokens []string) {
		t.Helper()
		got := w.call(user, "POST", "/api/v1/jobs/activate", fmt.Sprintf(`{"type":%q,"worker":"w","maxJobs":%d,"lockDurationMs":60000}`, typ, n)).
			wantStatus(t, http.StatusOK).object(t)
		for _, j := range got["jobs"].([]any) {
			job := j.(map[string]any)
			keys, tokens = append(keys, job["key"].(string)), append(tokens, job["lockToken"].(string))
		}
		if len(keys) != n {
			t.Fatalf("activated %d %s jobs, want %d", len(keys), typ, n)
		}
		return keys, tokens
	}
	keys, tokens := activate("paybot", "pay", 4)
	hrKeys, hrTokens := activate("admin", "payroll", 1)

	body := fmt.Sprintf(`{"completions":[
		{"key":%q,"lockToken":%q,"variables":{"paid":1}},
		{"key":%q,"lockToken":%q,"variables":{"paid":2}},
		{"key":%q,"lockToken":%q},
		{"key":"no-such-job","lockToken":"x"},
		{"key":%q,"lockToken":%q},
		{"key":%q,"lockToken":%q},
		{"key":%q},
		{"key":%q,"lockToken":%q,"variables":{"paid":4}}]}`,
		keys[0], tokens[0], keys[1], tokens[1], keys[2], tokens[3], hrKeys[0], hrTokens[0], keys[0], tokens[0], keys[3], keys[3], tokens[3])
	got := w.call("paybot", "POST", "/api/v1/jobs/complete", body).wantStatus(t, http.StatusOK).object(t)
	results := got["results"].([]any)
	want := []struct {
		status int
		slug   string
	}{{204, ""}, {204, ""}, {409, "conflict"}, {404, "not-found"}, {404, "not-found"}, {409, "conflict"}, {400, "invalid-request"}, {204, ""}}
	if len(results) != len(want) {
		t.Fatalf("%d results, want %d: %v", len(results), len(want), results)
	}
	var notFound []string
	for i, wt := range want {
		res := results[i].(map[string]any)
		if fmt.Sprint(res["status"]) != fmt.Sprint(wt.status) {
			t.Errorf("item %d: status %v, want %d (%v)", i, res["status"], wt.status, res)
			continue
		}
		p, _ := res["problem"].(map[string]any)
		if wt.slug == "" {
			if p != nil {
				t.Errorf("item %d: a problem on success: %v", i, p)
			}
			continue
		}
		if p == nil || p["type"] != "https://gobpm.dev/problems/"+wt.slug || fmt.Sprint(p["status"]) != fmt.Sprint(wt.status) {
			t.Errorf("item %d: problem %v, want %s", i, p, wt.slug)
		}
		if wt.status == 404 {
			notFound = append(notFound, strings.ReplaceAll(p["detail"].(string), res["key"].(string), "KEY"))
		}
	}
	if len(notFound) == 2 && notFound[0] != notFound[1] {
		t.Errorf("the unknown key and the job paybot may not work on are told apart: %q vs %q", notFound[0], notFound[1])
	}
	if p := results[6].(map[string]any)["problem"].(map[string]any); p["field"] != "completions[6].lockToken" {
		t.Errorf("the malformed item names field %v, want completions[6].lockToken", p["field"])
	}
	for i, id := range instances {
		in, err := rt.Instance(ctx, runtime.InstanceID(id))
		if err != nil {
			t.Fatal(err)
		}
		if wantEnded := i != 2; (in.Status == "completed") != wantEnded {
			t.Errorf("instance %d: %s, ended want %v", i, in.Status, wantEnded)
		}
	}
	// The payroll job is still open and its holder completes it.
	w.call("admin", "POST", "/api/v1/jobs/"+hrKeys[0]+"/complete", fmt.Sprintf(`{"lockToken":%q}`, hrTokens[0])).wantStatus(t, http.StatusNoContent)

	// A caller with no work on any job type is refused as on activate.
	mint("reader", func(s access.Subject) access.GrantRecord { return access.GrantRecord{Subject: s, Role: "viewer"} })
	w.call("reader", "POST", "/api/v1/jobs/complete", `{"completions":[]}`).problem(t, http.StatusForbidden, "forbidden")

	// Too many items; no list.
	many := `{"completions":[` + strings.Repeat(`{"key":"k","lockToken":"t"},`, runtime.MaxJobCompletions) + `{"key":"k","lockToken":"t"}]}`
	w.call("paybot", "POST", "/api/v1/jobs/complete", many).problem(t, http.StatusRequestEntityTooLarge, "payload-too-large")
	w.call("paybot", "POST", "/api/v1/jobs/complete", `{"completions":{}}`).problem(t, http.StatusBadRequest, "invalid-request")
	w.call("paybot", "POST", "/api/v1/jobs/complete", `{}`).problem(t, http.StatusBadRequest, "invalid-request")
}
