package cockpit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// TestInboxStartsAProcess: "Start a process" lists the deployed
// processes; a process whose start event links a Camunda Form offers that
// form, and the start's variables are its values; one without a form takes
// a business key and JSON variables; after the start the page links the
// new instance and the first task it offers the starter.
func TestInboxStartsAProcess(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn", "request.bpmn", "request.form")
	b.actAs("ann", "clerks")

	p := b.mustGet("/tasks/start")
	if p.testid("startable-process").Length() != 2 || p.doc.Find(`[data-key="request"] [data-testid="startable-form"]`).Length() != 1 ||
		p.doc.Find(`[data-key="review"] [data-testid="startable-form"]`).Length() != 0 {
		t.Fatalf("startable: %q", p.testid("startable").Text())
	}
	p = b.mustGet(p.doc.Find(`[data-key="request"] [data-testid="startable-open"]`).AttrOr("href", ""))
	var schema map[string]any
	if err := json.Unmarshal([]byte(p.testid("start-form").AttrOr("data-schema", "")), &schema); err != nil || schema["id"] != "request-form" {
		t.Fatalf("the start form's schema: %v %v", schema, err)
	}
	if action := p.testid("start-form-submit").AttrOr("action", ""); action != "/tasks/start/request" {
		t.Fatalf("the start form posts to %q", action)
	}
	if v := p.testid("start-form-submit").Find(`input[name="version"]`).AttrOr("value", ""); v != "1" {
		t.Errorf("the start form pins version %q, want 1", v)
	}
	if bad := b.post("/tasks/start/request", url.Values{"version": {"x"}}); bad.status != http.StatusBadRequest || !strings.Contains(bad.text("flash"), "version") {
		t.Errorf("a bad version: %d %q", bad.status, bad.text("flash"))
	}

	p = b.post("/tasks/start/request", url.Values{"version": {"1"}, "businessKey": {"L-7"}, "variables": {`{"who":"Ann","days":3}`}})
	if !strings.HasPrefix(p.text("flash"), "Started request v1") || p.testid("started").Length() != 1 {
		t.Fatalf("after the start: %d %q", p.status, p.text("flash"))
	}
	href := p.testid("started-instance").AttrOr("href", "")
	id := runtime.InstanceID(strings.TrimPrefix(href, "/instances/"))
	v := b.instance(id)
	if v.BusinessKey != "L-7" || v.Variables["who"] != "Ann" || v.Variables["days"] != jsonNumber("3") {
		t.Fatalf("the started instance: %q %v", v.BusinessKey, v.Variables)
	}
	task := p.testid("started-task")
	if !strings.Contains(task.Text(), "Handle the request") {
		t.Fatalf("the first task: %q", task.Text())
	}
	if d := b.mustGet(task.AttrOr("href", "")); d.testid("task-detail").Length() != 1 || d.testid("complete-form").Length() != 1 {
		t.Errorf("the first task's link opens it: %d", d.testid("task-detail").Length())
	}

	// Without a form: a business key and JSON variables; bad JSON is refused
	// with what was typed kept.
	p = b.mustGet("/tasks/start/review")
	if p.testid("start-json-form").Length() != 1 || p.testid("start-form").Length() != 0 {
		t.Fatalf("review's start form: %q", p.testid("start-choice").Text())
	}
	bad := b.post("/tasks/start/review", url.Values{"businessKey": {"C-1"}, "variables": {`{"amount":`}})
	if bad.status != http.StatusBadRequest || !strings.Contains(bad.text("flash"), "not valid JSON") ||
		bad.testid("start-variables").Text() != `{"amount":` || bad.testid("start-business-key").AttrOr("value", "") != "C-1" {
		t.Errorf("bad JSON: %d %q %q", bad.status, bad.text("flash"), bad.testid("start-variables").Text())
	}
	p = b.post("/tasks/start/review", url.Values{"businessKey": {"C-1"}, "variables": {`{"amount":42}`}})
	if !strings.HasPrefix(p.text("flash"), "Started review v1") {
		t.Fatalf("start review: %q", p.text("flash"))
	}
	if !strings.Contains(p.text("started-task"), "Check the claim") {
		t.Errorf("the clerk is offered the first review task: %q", p.text("started"))
	}
	if p := b.get("/tasks/start/nope"); p.status != http.StatusNotFound {
		t.Errorf("an unknown process: %d", p.status)
	}
}

// TestInboxStartNeedsTheStartPermission: the list shows only the
// processes the person may start; another's start form and start are
// refused.
func TestInboxStartNeedsTheStartPermission(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"sam": ""}, nil)
	g, err := auth.NewGrant(auth.PermStart, auth.KindProcess, "request")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.acc.Grant(context.Background(), "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "sam"}, Grant: &g}); err != nil {
		t.Fatal(err)
	}
	b.deploy("review.bpmn", "request.bpmn", "request.form")
	sam := b.as("sam")
	p := sam.mustGet("/tasks/start")
	if p.testid("startable-process").Length() != 1 || p.testid("startable-process").AttrOr("data-key", "") != "request" {
		t.Fatalf("sam may start: %q", p.testid("startable").Text())
	}
	if p := sam.get("/tasks/start/review"); p.status != http.StatusForbidden {
		t.Errorf("review's start form: %d", p.status)
	}
	if p := sam.post("/tasks/start/review", url.Values{"variables": {"{}"}}); p.status != http.StatusForbidden {
		t.Errorf("starting review: %d", p.status)
	}
	p = sam.post("/tasks/start/request", url.Values{"variables": {`{"who":"Sam","days":1}`}})
	if !strings.HasPrefix(p.text("flash"), "Started request") || p.testid("started-task").Length() != 1 {
		t.Errorf("sam starts request: %d %q", p.status, p.text("flash"))
	}
}
