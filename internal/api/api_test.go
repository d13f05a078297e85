package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	gobpm "github.com/gobpm/gobpm"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/runtime"
)

// model returns a minimal BPMN document declaring the given process ids.
func model(ids ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="urn:test">`)
	for _, id := range ids {
		b.WriteString(`<process id="` + id + `" name="Process ` + id + `"><startEvent id="Start_1"/></process>`)
	}
	b.WriteString(`</definitions>`)
	return b.String()
}

// deployed returns a bundle over a fake with the given processes deployed.
func deployed(t *testing.T, ids ...string) (*bundle, *fakeService) {
	t.Helper()
	f := newFake()
	b := setup(t, f, api.Options{})
	if len(ids) > 0 {
		b.postXML("/api/v1/deployments", model(ids...)).wantStatus(t, http.StatusCreated)
	}
	return b, f
}

func TestHealthz(t *testing.T) {
	t.Parallel()
	b, _ := deployed(t)
	got := b.get("/healthz").wantStatus(t, http.StatusOK).object(t)
	if got["status"] != "ok" {
		t.Errorf("healthz = %v", got)
	}
}

func TestOpenAPIDocumentIsServed(t *testing.T) {
	t.Parallel()
	b, _ := deployed(t)
	res := b.get("/api/v1/openapi.yaml").wantStatus(t, http.StatusOK)
	if string(res.Body) != string(gobpm.OpenAPI) {
		t.Error("served document differs from openapi.yaml")
	}
}

func TestUnroutedRequestsAnswerProblems(t *testing.T) {
	t.Parallel()
	b, _ := deployed(t)
	for _, path := range []string{"/", "/api/v1", "/api/v1/nope", "/api/v2/processes", "/api/v1/instances/x/y/z"} {
		t.Run("404 "+path, func(t *testing.T) {
			b.get(path).problem(t, http.StatusNotFound, "not-found")
		})
	}
	tests := []struct {
		method, path, allow string
	}{
		{http.MethodDelete, "/api/v1/processes", "GET"},
		{http.MethodGet, "/api/v1/deployments", "POST"},
		{http.MethodPut, "/api/v1/instances/inst-1", "GET, DELETE"},
		{http.MethodGet, "/api/v1/instances/inst-1/cancel", "POST"},
		{http.MethodPost, "/healthz", "GET"},
	}
	for _, tc := range tests {
		t.Run("405 "+tc.method+" "+tc.path, func(t *testing.T) {
			res := b.send(tc.method, tc.path, "", "")
			res.problem(t, http.StatusMethodNotAllowed, "method-not-allowed")
			if got := res.Header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow = %q, want %q", got, tc.allow)
			}
		})
	}
}

func TestDeploy(t *testing.T) {
	t.Parallel()

	t.Run("raw XML", func(t *testing.T) {
		t.Parallel()
		b, f := deployed(t)
		got := b.postXML("/api/v1/deployments?name=orders/order.bpmn", model("order", "invoice")).wantStatus(t, http.StatusCreated).object(t)
		want := `{"decisions":[],"id":"dep-1","processes":[{"key":"order","version":1},{"key":"invoice","version":1}],"warnings":[]}`
		if s := mustJSON(t, got); s != want {
			t.Errorf("answer = %s, want %s", s, want)
		}
		if name := f.versions["order"][0].ResourceName; name != "order.bpmn" {
			t.Errorf("file name = %q, want order.bpmn (directories stripped)", name)
		}
	})

	t.Run("raw XML default name and text/xml", func(t *testing.T) {
		t.Parallel()
		b, f := deployed(t)
		b.send(http.MethodPost, "/api/v1/deployments", "text/xml; charset=utf-8", model("order")).wantStatus(t, http.StatusCreated)
		if name := f.versions["order"][0].ResourceName; name != "deployment.bpmn" {
			t.Errorf("file name = %q, want deployment.bpmn", name)
		}
	})

	t.Run("identical content mints no new version", func(t *testing.T) {
		t.Parallel()
		b, _ := deployed(t, "order")
		got := b.postXML("/api/v1/deployments", model("order")).wantStatus(t, http.StatusCreated).object(t)
		if v := got["processes"].([]any)[0].(map[string]any)["version"]; v != json.Number("1") {
			t.Errorf("version = %v, want 1", v)
		}
	})

	t.Run("multipart with several files", func(t *testing.T) {
		t.Parallel()
		b, f := deployed(t)
		res := b.postMultipart("/api/v1/deployments",
			part{filename: "a.bpmn", content: model("a")},
			part{field: "comment", content: "ignored"},
			part{filename: "b.bpmn", content: model("b1", "b2")},
		).wantStatus(t, http.StatusCreated)
		if n := len(res.object(t)["processes"].([]any)); n != 3 {
			t.Errorf("deployed %d processes, want 3", n)
		}
		if name := f.versions["b2"][0].ResourceName; name != "b.bpmn" {
			t.Errorf("file name = %q, want b.bpmn", name)
		}
	})

	t.Run("invalid model is 422 with every problem", func(t *testing.T) {
		t.Parallel()
		b, _ := deployed(t)
		p := b.postMultipart("/api/v1/deployments",
			part{filename: "good.bpmn", content: model("good")},
			part{filename: "bad.bpmn", content: model("bad") + "<!-- invalid -->"},
		).problem(t, http.StatusUnprocessableEntity, "invalid-model")
		want := []api.ModelError{
			{Element: "Flow_3", Rule: "flow-crosses-boundary", Detail: "sequence flow Flow_3 crosses the boundary of sub-process Sub_1", Resource: "bad.bpmn"},
			{Element: "Timer_1", Rule: "unsupported-element", Detail: "timer events are not supported yet", Resource: "bad.bpmn"},
		}
		if mustJSON(t, p.Errors) != mustJSON(t, want) {
			t.Errorf("errors = %+v, want %+v", p.Errors, want)
		}
		// Nothing was registered.
		if items := b.get("/api/v1/processes").items(t); len(items) != 0 {
			t.Errorf("processes after a refused deployment: %v", items)
		}
	})

	errTests := []struct {
		name        string
		contentType string
		body        string
		status      int
		slug        string
		field       string
	}{
		{"empty raw body", "application/xml", "", http.StatusBadRequest, "invalid-request", ""},
		{"no content type", "", model("x"), http.StatusUnsupportedMediaType, "unsupported-media-type", ""},
		{"JSON body", "application/json", `{"xml":"<definitions/>"}`, http.StatusUnsupportedMediaType, "unsupported-media-type", ""},
		{"form body (curl -d default)", "application/x-www-form-urlencoded", model("x"), http.StatusUnsupportedMediaType, "unsupported-media-type", ""},
		{"multipart without boundary", "multipart/form-data", "--x--", http.StatusBadRequest, "invalid-request", ""},
		{"multipart with broken framing", "multipart/form-data; boundary=zz", "--zz\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n<definitions/>", http.StatusBadRequest, "invalid-request", ""},
	}
	for _, tc := range errTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, _ := deployed(t)
			p := b.send(http.MethodPost, "/api/v1/deployments", tc.contentType, tc.body).problem(t, tc.status, tc.slug)
			if p.Field != tc.field {
				t.Errorf("field = %q, want %q", p.Field, tc.field)
			}
		})
	}

	t.Run("multipart without file parts", func(t *testing.T) {
		t.Parallel()
		b, _ := deployed(t)
		p := b.postMultipart("/api/v1/deployments", part{field: "comment", content: "hi"}).problem(t, http.StatusBadRequest, "invalid-request")
		if p.Field != "file" {
			t.Errorf("field = %q, want file", p.Field)
		}
	})

	t.Run("multipart with an empty file", func(t *testing.T) {
		t.Parallel()
		b, _ := deployed(t)
		b.postMultipart("/api/v1/deployments", part{filename: "empty.bpmn"}).problem(t, http.StatusBadRequest, "invalid-request")
	})

	t.Run("oversize bodies are 413", func(t *testing.T) {
		t.Parallel()
		b := setup(t, newFake(), api.Options{MaxDeploymentBytes: 1024})
		big := model("big") + "<!--" + strings.Repeat("x", 2048) + "-->"
		p := b.postXML("/api/v1/deployments", big).problem(t, http.StatusRequestEntityTooLarge, "payload-too-large")
		if !strings.Contains(p.Detail, "1 KiB") {
			t.Errorf("detail %q does not name the limit", p.Detail)
		}
		b.postMultipart("/api/v1/deployments", part{filename: "big.bpmn", content: big}).problem(t, http.StatusRequestEntityTooLarge, "payload-too-large")
		b.postXML("/api/v1/deployments", model("small")).wantStatus(t, http.StatusCreated)
	})
}

func TestProcesses(t *testing.T) {
	t.Parallel()
	b, _ := deployed(t, "order", "invoice")
	v2 := strings.Replace(model("order"), "Process order", "Order v2", 1)
	b.postXML("/api/v1/deployments?name=order.bpmn", v2).wantStatus(t, http.StatusCreated)

	t.Run("latest of each key", func(t *testing.T) {
		t.Parallel()
		items := b.get("/api/v1/processes").wantStatus(t, http.StatusOK).items(t)
		want := `[{"deployedAt":"2025-03-01T11:00:00.123456789Z","key":"invoice","name":"Process invoice","version":1},` +
			`{"deployedAt":"2025-03-01T11:00:00.123456789Z","key":"order","name":"Order v2","version":2}]`
		if got := mustJSON(t, items); got != want {
			t.Errorf("items = %s\nwant    %s", got, want)
		}
	})

	t.Run("versions", func(t *testing.T) {
		t.Parallel()
		items := b.get("/api/v1/processes/order/versions").wantStatus(t, http.StatusOK).items(t)
		if len(items) != 2 {
			t.Fatalf("versions = %v", items)
		}
		if got := items[1].(map[string]any)["deploymentId"]; got != "dep-2" {
			t.Errorf("deploymentId = %v, want dep-2", got)
		}
	})

	t.Run("versions of an unknown key", func(t *testing.T) {
		t.Parallel()
		b.get("/api/v1/processes/nope/versions").problem(t, http.StatusNotFound, "not-found")
	})

	t.Run("XML verbatim", func(t *testing.T) {
		t.Parallel()
		res := b.get("/api/v1/processes/order/versions/2/xml").wantStatus(t, http.StatusOK)
		if ct := res.Header.Get("Content-Type"); ct != "application/xml" {
			t.Errorf("Content-Type = %q", ct)
		}
		if string(res.Body) != v2 {
			t.Errorf("XML = %s, want the deployed bytes", res.Body)
		}
	})

	for _, tc := range []struct {
		path   string
		status int
		slug   string
	}{
		{"/api/v1/processes/order/versions/3/xml", http.StatusNotFound, "not-found"},
		{"/api/v1/processes/nope/versions/1/xml", http.StatusNotFound, "not-found"},
		{"/api/v1/processes/order/versions/0/xml", http.StatusBadRequest, "invalid-request"},
		{"/api/v1/processes/order/versions/latest/xml", http.StatusBadRequest, "invalid-request"},
	} {
		t.Run("XML error "+tc.path, func(t *testing.T) {
			t.Parallel()
			p := b.get(tc.path).problem(t, tc.status, tc.slug)
			if tc.status == http.StatusBadRequest && p.Field != "version" {
				t.Errorf("field = %q, want version", p.Field)
			}
		})
	}
}

func TestStartInstance(t *testing.T) {
	t.Parallel()

	t.Run("created with Location, exact numbers", func(t *testing.T) {
		t.Parallel()
		b, f := deployed(t, "order")
		body := `{"variables":{"amount":12345678901234567890.000000000000000001,"tags":["a"],"nested":{"n":1e300}},"businessKey":"B-1","extra":"ignored"}`
		res := b.postJSON("/api/v1/processes/order/instances", body).wantStatus(t, http.StatusCreated)
		if loc := res.Header.Get("Location"); loc != "/api/v1/instances/inst-1" {
			t.Errorf("Location = %q", loc)
		}
		if got := f.lastStart.Variables["amount"]; got != json.Number("12345678901234567890.000000000000000001") {
			t.Errorf("runtime got amount %#v, want the exact json.Number", got)
		}
		if !strings.Contains(string(res.Body), `"amount":12345678901234567890.000000000000000001`) ||
			!strings.Contains(string(res.Body), `"n":1e300`) {
			t.Errorf("numbers not echoed exactly: %s", res.Body)
		}
		got := res.object(t)
		for k, want := range map[string]any{"id": "inst-1", "processKey": "order", "version": json.Number("1"), "status": "running", "businessKey": "B-1", "parent": nil} {
			if got[k] != want {
				t.Errorf("%s = %#v, want %#v", k, got[k], want)
			}
		}
		scopes := got["scopes"].([]any)
		root := scopes[0].(map[string]any)
		if root["path"] != "/" || root["parentId"] != nil || root["nodeId"] != nil || mustJSON(t, root["variables"]) != "{}" {
			t.Errorf("root scope = %v", root)
		}
		if _, ok := got["endedAt"]; ok {
			t.Error("a running instance has endedAt")
		}
	})

	t.Run("empty body, straight-through, version pinned", func(t *testing.T) {
		t.Parallel()
		b, f := deployed(t, "straight")
		b.postXML("/api/v1/deployments", model("straight")+" ").wantStatus(t, http.StatusCreated) // version 2
		got := b.send(http.MethodPost, "/api/v1/processes/straight/instances", "", "").wantStatus(t, http.StatusCreated).object(t)
		if got["status"] != "completed" || got["version"] != json.Number("2") || got["endedAt"] == nil {
			t.Errorf("instance = %v", got)
		}
		for _, k := range []string{"children", "scopes", "tracks", "incidents"} {
			if a, ok := got[k].([]any); !ok || len(a) != 0 {
				t.Errorf("%s = %#v, want []", k, got[k])
			}
		}
		if mustJSON(t, got["variables"]) != "{}" {
			t.Errorf("variables = %v, want {}", got["variables"])
		}
		b.postJSON("/api/v1/processes/straight/instances", `{"version":1,"variables":null}`).wantStatus(t, http.StatusCreated)
		if f.lastStart.Version != 1 {
			t.Errorf("version passed = %d, want 1", f.lastStart.Version)
		}
	})

	errTests := []struct {
		name, key, contentType, body string
		status                       int
		slug, field                  string
	}{
		{"malformed JSON", "order", "application/json", `{"variables":`, 400, "malformed-json", ""},
		{"syntax error", "order", "application/json", `{"variables":{]}`, 400, "malformed-json", ""},
		{"trailing data", "order", "application/json", `{} {}`, 400, "malformed-json", ""},
		{"invalid UTF-8", "order", "application/json", "{\"variables\":{\"name\":\"caf\xe9\"}}", 400, "malformed-json", ""},
		{"not an object", "order", "application/json", `[1,2]`, 400, "invalid-request", ""},
		{"variables not an object", "order", "application/json", `{"variables":[1]}`, 400, "invalid-request", "variables"},
		{"variables a string", "order", "application/json", `{"variables":"{}"}`, 400, "invalid-request", "variables"},
		{"businessKey a number", "order", "application/json", `{"businessKey":7}`, 400, "invalid-request", "businessKey"},
		{"version a string", "order", "application/json", `{"version":"1"}`, 400, "invalid-request", "version"},
		{"version a fraction", "order", "application/json", `{"version":1.5}`, 400, "invalid-request", "version"},
		{"version zero", "order", "application/json", `{"version":0}`, 400, "invalid-request", "version"},
		{"version huge", "order", "application/json", `{"version":1e30}`, 400, "invalid-request", "version"},
		{"runtime rejects input", "order", "application/json", `{"variables":{"__bad":1}}`, 400, "invalid-request", "variables.__bad"},
		{"unknown key", "nope", "application/json", `{}`, 404, "not-found", ""},
		{"unknown version", "order", "application/json", `{"version":9}`, 404, "not-found", ""},
		{"text body", "order", "text/plain", `{}`, 415, "unsupported-media-type", ""},
		{"form body", "order", "application/x-www-form-urlencoded", `a=b`, 415, "unsupported-media-type", ""},
		{"oversize", "order", "application/json", `{"variables":{"s":"` + strings.Repeat("x", 2<<20) + `"}}`, 413, "payload-too-large", ""},
	}
	for _, tc := range errTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, _ := deployed(t, "order")
			p := b.send(http.MethodPost, "/api/v1/processes/"+tc.key+"/instances", tc.contentType, tc.body).problem(t, tc.status, tc.slug)
			if p.Field != tc.field {
				t.Errorf("field = %q, want %q (detail %q)", p.Field, tc.field, p.Detail)
			}
		})
	}

	t.Run("JSON cap is configurable", func(t *testing.T) {
		t.Parallel()
		f := newFake()
		b := setup(t, f, api.Options{MaxJSONBytes: 64})
		b.postXML("/api/v1/deployments", model("order")).wantStatus(t, http.StatusCreated)
		b.postJSON("/api/v1/processes/order/instances", `{"variables":{"s":"`+strings.Repeat("x", 64)+`"}}`).problem(t, http.StatusRequestEntityTooLarge, "payload-too-large")
		b.postJSON("/api/v1/processes/order/instances", `{}`).wantStatus(t, http.StatusCreated)
	})
}

func TestInternalErrorsAndPanics(t *testing.T) {
	t.Parallel()
	b, _ := deployed(t)

	p := b.postJSON("/api/v1/processes/explode/instances", `{}`).problem(t, http.StatusInternalServerError, "internal")
	if strings.Contains(p.Detail, "disk") || strings.Contains(p.Detail, "secret") {
		t.Errorf("internal cause leaked to the client: %q", p.Detail)
	}
	b.postJSON("/api/v1/processes/panic/instances", `{}`).problem(t, http.StatusInternalServerError, "internal")

	// Each failure is logged exactly once, at error level, with its cause.
	var errorLines []map[string]any
	for _, rec := range b.logs.records(t) {
		if rec["level"] == "ERROR" {
			errorLines = append(errorLines, rec)
		}
	}
	if len(errorLines) != 2 {
		t.Fatalf("error log lines = %v, want 2", errorLines)
	}
	if e, _ := errorLines[0]["error"].(string); !strings.Contains(e, "disk on fire") || errorLines[0]["request_id"] != p.RequestID && p.RequestID == "" {
		t.Errorf("first error line = %v", errorLines[0])
	}
	if e, _ := errorLines[1]["error"].(string); !strings.Contains(e, "panic: boom") || errorLines[1]["stack"] == nil {
		t.Errorf("panic line = %v", errorLines[1])
	}
}

func TestRequestLogLevels(t *testing.T) {
	t.Parallel()
	b, _ := deployed(t)
	b.get("/healthz")
	b.get("/api/v1/processes")
	b.get("/api/v1/nope")
	levels := map[string]string{}
	for _, rec := range b.logs.records(t) {
		levels[rec["path"].(string)] = rec["level"].(string)
	}
	want := map[string]string{"/healthz": "DEBUG", "/api/v1/processes": "INFO", "/api/v1/nope": "WARN"}
	if mustJSON(t, levels) != mustJSON(t, want) {
		t.Errorf("levels = %v, want %v", levels, want)
	}
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	b, _ := deployed(t)

	req := httptest.NewRequest(http.MethodGet, "/api/v1/nope", nil)
	req.Header.Set(api.HeaderRequestID, "trace-42")
	res := b.do(req)
	if got := res.Header.Get(api.HeaderRequestID); got != "trace-42" {
		t.Errorf("echoed id = %q, want trace-42", got)
	}
	if p := res.problem(t, http.StatusNotFound, "not-found"); p.RequestID != "trace-42" {
		t.Errorf("problem requestId = %q", p.RequestID)
	}

	req = httptest.NewRequest(http.MethodGet, "/healthz", nil)
	req.Header.Set(api.HeaderRequestID, "bad id\nwith newline")
	if got := b.do(req).Header.Get(api.HeaderRequestID); got == "" || strings.ContainsAny(got, " \n") {
		t.Errorf("minted id = %q", got)
	}
}

func TestInstances(t *testing.T) {
	t.Parallel()
	b, f := deployed(t, "order", "straight")
	b.postJSON("/api/v1/processes/order/instances", `{"businessKey":"B-1"}`).wantStatus(t, http.StatusCreated)                // inst-1 running
	b.postJSON("/api/v1/processes/straight/instances", `{"businessKey":"B-2"}`).wantStatus(t, http.StatusCreated)             // inst-2 completed
	b.postJSON("/api/v1/processes/order/instances", `{"businessKey":"incident"}`).wantStatus(t, http.StatusCreated)           // inst-3 with incident
	b.postJSON("/api/v1/processes/order/instances", `{"businessKey":"to-cancel"}`).wantStatus(t, http.StatusCreated)          // inst-4
	b.postJSON("/api/v1/processes/straight/instances", `{"businessKey":"B-5","version":1}`).wantStatus(t, http.StatusCreated) // inst-5

	t.Run("list all with defaults", func(t *testing.T) {
		page := b.get("/api/v1/instances").wantStatus(t, http.StatusOK).object(t)
		if page["total"] != json.Number("5") || page["limit"] != json.Number("50") || page["offset"] != json.Number("0") {
			t.Errorf("page = %v", page)
		}
		if items := page["items"].([]any); len(items) != 5 || items[0].(map[string]any)["id"] != "inst-5" {
			t.Errorf("items = %v", items)
		}
	})

	t.Run("filters and paging", func(t *testing.T) {
		page := b.get("/api/v1/instances?processKey=order&version=1&status=running&businessKey=B-1&parentId=p&limit=2&offset=1&unknown=x").wantStatus(t, http.StatusOK).object(t)
		want := runtime.InstanceFilter{ProcessKey: "order", ProcessVersion: 1, Status: "running", BusinessKey: "B-1", ParentID: "p", Limit: 2, Offset: 1}
		f.mu.Lock()
		got := f.lastFilter
		f.mu.Unlock()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("filter = %+v, want %+v", got, want)
		}
		if page["limit"] != json.Number("2") || page["offset"] != json.Number("1") {
			t.Errorf("page = %v", page)
		}
		items := b.get("/api/v1/instances?status=completed").items(t)
		if len(items) != 2 {
			t.Errorf("completed = %v", items)
		}
	})

	for _, q := range []struct{ query, field string }{
		{"status=done", "status"},
		{"limit=0", "limit"},
		{"limit=501", "limit"},
		{"limit=ten", "limit"},
		{"offset=-1", "offset"},
		{"version=v1", "version"},
		{"version=0", "version"},
	} {
		t.Run("bad query "+q.query, func(t *testing.T) {
			p := b.get("/api/v1/instances?"+q.query).problem(t, http.StatusBadRequest, "invalid-request")
			if p.Field != q.field {
				t.Errorf("field = %q, want %q", p.Field, q.field)
			}
		})
	}

	t.Run("get", func(t *testing.T) {
		got := b.get("/api/v1/instances/inst-3").wantStatus(t, http.StatusOK).object(t)
		incs := got["incidents"].([]any)
		if len(incs) != 1 || incs[0].(map[string]any)["nodeId"] != "Gateway_1" {
			t.Errorf("incidents = %v", incs)
		}
		tracks := got["tracks"].([]any)
		if len(tracks) != 1 || tracks[0].(map[string]any)["nodeId"] != "Task_1" {
			t.Errorf("tracks = %v", tracks)
		}
		if got["createdAt"] != "2025-03-01T11:00:00.123456789Z" {
			t.Errorf("createdAt = %v, want RFC 3339 UTC", got["createdAt"])
		}
	})

	t.Run("get unknown", func(t *testing.T) {
		b.get("/api/v1/instances/nope").problem(t, http.StatusNotFound, "not-found")
	})

	t.Run("history", func(t *testing.T) {
		items := b.get("/api/v1/instances/inst-1/history").wantStatus(t, http.StatusOK).items(t)
		if len(items) != 3 {
			t.Fatalf("history = %v", items)
		}
		first, second := items[0].(map[string]any), items[1].(map[string]any)
		if first["nodeId"] != nil || mustJSON(t, first["detail"]) != `{"version":1}` || second["detail"] != nil || second["nodeId"] != "Start_1" {
			t.Errorf("facts = %v", items)
		}
		items = b.get("/api/v1/instances/inst-1/history?after=1&limit=1").items(t)
		if len(items) != 1 || items[0].(map[string]any)["seq"] != json.Number("2") {
			t.Errorf("paged history = %v", items)
		}
		f.mu.Lock()
		got := f.lastHistory
		f.mu.Unlock()
		if got != [2]int64{1, 1} {
			t.Errorf("after, limit = %v", got)
		}
	})

	t.Run("history errors", func(t *testing.T) {
		b.get("/api/v1/instances/nope/history").problem(t, http.StatusNotFound, "not-found")
		if p := b.get("/api/v1/instances/inst-1/history?after=-1").problem(t, http.StatusBadRequest, "invalid-request"); p.Field != "after" {
			t.Errorf("field = %q", p.Field)
		}
		b.get("/api/v1/instances/inst-1/history?limit=0").problem(t, http.StatusBadRequest, "invalid-request")
	})

	t.Run("cancel twice", func(t *testing.T) {
		got := b.send(http.MethodPost, "/api/v1/instances/inst-4/cancel", "", "").wantStatus(t, http.StatusOK).object(t)
		if got["status"] != "terminated" || got["endedAt"] == nil {
			t.Errorf("cancelled = %v", got)
		}
		b.send(http.MethodPost, "/api/v1/instances/inst-4/cancel", "", "").problem(t, http.StatusConflict, "conflict")
		b.send(http.MethodPost, "/api/v1/instances/inst-2/cancel", "", "").problem(t, http.StatusConflict, "conflict")
		b.send(http.MethodPost, "/api/v1/instances/nope/cancel", "", "").problem(t, http.StatusNotFound, "not-found")
	})

	t.Run("incidents", func(t *testing.T) {
		items := b.get("/api/v1/incidents").wantStatus(t, http.StatusOK).items(t)
		if len(items) != 1 || items[0].(map[string]any)["instanceId"] != "inst-3" {
			t.Errorf("incidents = %v", items)
		}
		if items := b.get("/api/v1/incidents?instanceId=inst-1&open=false").items(t); len(items) != 0 {
			t.Errorf("incidents of inst-1 = %v", items)
		}
		f.mu.Lock()
		open := *f.lastOpen
		f.mu.Unlock()
		if open {
			t.Error("open=false was not passed on")
		}
		if p := b.get("/api/v1/incidents?open=maybe").problem(t, http.StatusBadRequest, "invalid-request"); p.Field != "open" {
			t.Errorf("field = %q", p.Field)
		}
	})
}

// TestInstanceScopeHandlers checks the scope tree's wire shape: state,
// handlers (never null, an empty name as null) for each scope.
func TestInstanceScopeHandlers(t *testing.T) {
	t.Parallel()
	b, _ := deployed(t, "order")
	id := b.postJSON("/api/v1/processes/order/instances", `{"businessKey":"scoped"}`).wantStatus(t, http.StatusCreated).object(t)["id"].(string)
	got := b.get("/api/v1/instances/"+id).wantStatus(t, http.StatusOK).object(t)
	want := `[{"handlers":[],"id":"sc-1","index":null,"kind":null,"nodeId":null,"parentId":null,"path":"/","state":"active","variables":{}},` +
		`{"handlers":[` +
		`{"interrupting":true,"kind":"boundary","name":"cancel","nodeId":"OnCancel","trigger":"message"},` +
		`{"interrupting":true,"kind":"event-subprocess","name":null,"nodeId":"OnAnyError","trigger":"error"},` +
		`{"interrupting":false,"kind":"event-subprocess","name":null,"nodeId":"Reminder","trigger":"timer"}],` +
		`"id":"sc-2","index":null,"kind":null,"nodeId":"Sub_1","parentId":"sc-1","path":"/Sub_1","state":"interrupted","variables":{"local":1}}]`
	if s := mustJSON(t, got["scopes"]); s != want {
		t.Errorf("scopes =\n%s\nwant\n%s", s, want)
	}
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
