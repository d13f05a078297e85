package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/api"
)

// dmnModel is a DMN document declaring the given decisions (the fake reads
// only their ids and names).
func dmnModel(ids ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="defs" name="d" namespace="urn:test">`)
	for _, id := range ids {
		b.WriteString(`<decision id="` + id + `" name="Decision ` + id + `"><literalExpression><text>1</text></literalExpression></decision>`)
	}
	b.WriteString(`</definitions>`)
	return b.String()
}

// withDecisions returns a bundle over a fake with the given decisions
// deployed from rates.dmn.
func withDecisions(t *testing.T, ids ...string) (*bundle, *fakeService) {
	t.Helper()
	b, f := deployed(t)
	b.postMultipart("/api/v1/deployments", part{filename: "rates.dmn", content: dmnModel(ids...)}).wantStatus(t, http.StatusCreated)
	return b, f
}

func TestDeployDecisions(t *testing.T) {
	t.Parallel()

	t.Run("a .dmn alone", func(t *testing.T) {
		t.Parallel()
		b, f := deployed(t)
		got := b.postMultipart("/api/v1/deployments", part{filename: "rates.dmn", content: dmnModel("discount", "fee")}).
			wantStatus(t, http.StatusCreated).object(t)
		want := `{"decisions":[{"key":"discount","version":1},{"key":"fee","version":1}],"id":"dep-1","processes":[],"warnings":[]}`
		if s := mustJSON(t, got); s != want {
			t.Errorf("answer = %s, want %s", s, want)
		}
		if name := f.decisions.versions["fee"][0].ResourceName; name != "rates.dmn" {
			t.Errorf("file name = %q, want rates.dmn", name)
		}
	})

	t.Run("a .bpmn and a .dmn together", func(t *testing.T) {
		t.Parallel()
		b, _ := deployed(t)
		got := b.postMultipart("/api/v1/deployments",
			part{filename: "order.bpmn", content: model("order")},
			part{filename: "rates.dmn", content: dmnModel("discount")},
		).wantStatus(t, http.StatusCreated).object(t)
		want := `{"decisions":[{"key":"discount","version":1}],"id":"dep-1","processes":[{"key":"order","version":1}],"warnings":[]}`
		if s := mustJSON(t, got); s != want {
			t.Errorf("answer = %s, want %s", s, want)
		}
	})

	t.Run("a changed document mints a new version", func(t *testing.T) {
		t.Parallel()
		b, _ := withDecisions(t, "discount")
		same := b.postMultipart("/api/v1/deployments", part{filename: "rates.dmn", content: dmnModel("discount")}).wantStatus(t, http.StatusCreated).object(t)
		if s := mustJSON(t, same["decisions"]); s != `[{"key":"discount","version":1}]` {
			t.Errorf("redeploy decisions = %s, want version 1 again", s)
		}
		changed := b.postMultipart("/api/v1/deployments", part{filename: "rates.dmn", content: dmnModel("discount", "fee")}).wantStatus(t, http.StatusCreated).object(t)
		if s := mustJSON(t, changed["decisions"]); s != `[{"key":"discount","version":2},{"key":"fee","version":1}]` {
			t.Errorf("changed decisions = %s", s)
		}
	})
}

func TestDecisions(t *testing.T) {
	t.Parallel()
	b, _ := withDecisions(t, "discount", "fee")
	v2 := dmnModel("discount") + "\n<!-- v2 -->"
	b.postXML("/api/v1/deployments?name=rates.dmn", v2).wantStatus(t, http.StatusCreated)

	t.Run("latest of each key", func(t *testing.T) {
		t.Parallel()
		items := b.get("/api/v1/decisions").wantStatus(t, http.StatusOK).items(t)
		want := `[{"deployedAt":"2025-03-01T11:00:00.123456789Z","key":"discount","name":"Decision discount","version":2},` +
			`{"deployedAt":"2025-03-01T11:00:00.123456789Z","key":"fee","name":"Decision fee","version":1}]`
		if got := mustJSON(t, items); got != want {
			t.Errorf("items = %s\nwant    %s", got, want)
		}
	})

	t.Run("none deployed", func(t *testing.T) {
		t.Parallel()
		empty, _ := deployed(t, "order")
		if got := string(empty.get("/api/v1/decisions").wantStatus(t, http.StatusOK).Body); got != `{"items":[]}` {
			t.Errorf("answer = %s, want an empty items array", got)
		}
	})

	t.Run("versions", func(t *testing.T) {
		t.Parallel()
		items := b.get("/api/v1/decisions/discount/versions").wantStatus(t, http.StatusOK).items(t)
		want := `[{"deployedAt":"2025-03-01T11:00:00.123456789Z","deploymentId":"dep-1","key":"discount","name":"Decision discount","version":1},` +
			`{"deployedAt":"2025-03-01T11:00:00.123456789Z","deploymentId":"dep-2","key":"discount","name":"Decision discount","version":2}]`
		if got := mustJSON(t, items); got != want {
			t.Errorf("items = %s\nwant    %s", got, want)
		}
	})

	t.Run("versions of an unknown key", func(t *testing.T) {
		t.Parallel()
		b.get("/api/v1/decisions/nope/versions").problem(t, http.StatusNotFound, "not-found")
	})

	t.Run("XML verbatim", func(t *testing.T) {
		t.Parallel()
		res := b.get("/api/v1/decisions/discount/versions/2/xml").wantStatus(t, http.StatusOK)
		if ct := res.Header.Get("Content-Type"); ct != "application/xml" {
			t.Errorf("Content-Type = %q", ct)
		}
		if string(res.Body) != v2 {
			t.Errorf("XML = %s, want the deployed bytes", res.Body)
		}
		if old := b.get("/api/v1/decisions/discount/versions/1/xml").wantStatus(t, http.StatusOK); string(old.Body) != dmnModel("discount", "fee") {
			t.Errorf("version 1 XML = %s", old.Body)
		}
	})

	for _, tc := range []struct {
		path   string
		status int
		slug   string
	}{
		{"/api/v1/decisions/discount/versions/3/xml", http.StatusNotFound, "not-found"},
		{"/api/v1/decisions/nope/versions/1/xml", http.StatusNotFound, "not-found"},
		{"/api/v1/decisions/discount/versions/0/xml", http.StatusBadRequest, "invalid-request"},
		{"/api/v1/decisions/discount/versions/latest/xml", http.StatusBadRequest, "invalid-request"},
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

func TestEvaluateDecision(t *testing.T) {
	t.Parallel()

	t.Run("result and matched rules, numbers exact", func(t *testing.T) {
		t.Parallel()
		b, f := withDecisions(t, "discount")
		got := b.postJSON("/api/v1/decisions/discount/evaluate", `{"variables":{"amount":0.1000000000000000000000000000000001,"customer":"vip"}}`).
			wantStatus(t, http.StatusOK).object(t)
		want := `{"key":"discount","matchedRules":["r1"],"result":{"rate":0.15,"seen":{"amount":0.1000000000000000000000000000000001,"customer":"vip"}},"version":1}`
		if s := mustJSON(t, got); s != want {
			t.Errorf("answer = %s\nwant     %s", s, want)
		}
		if n, ok := f.decisions.lastVars["amount"].(json.Number); !ok || n.String() != "0.1000000000000000000000000000000001" {
			t.Errorf("amount reached the runtime as %#v, want an exact json.Number", f.decisions.lastVars["amount"])
		}
	})

	t.Run("an empty body evaluates with no variables", func(t *testing.T) {
		t.Parallel()
		b, f := withDecisions(t, "discount")
		b.send(http.MethodPost, "/api/v1/decisions/discount/evaluate", "", "").wantStatus(t, http.StatusOK)
		if f.decisions.lastVars == nil || len(f.decisions.lastVars) != 0 {
			t.Errorf("variables = %#v, want an empty map", f.decisions.lastVars)
		}
		b.postJSON("/api/v1/decisions/discount/evaluate", `{"variables":null}`).wantStatus(t, http.StatusOK)
	})

	t.Run("nothing matched: null result, empty rules", func(t *testing.T) {
		t.Parallel()
		b, _ := withDecisions(t, "discount")
		got := b.postJSON("/api/v1/decisions/discount/evaluate", `{"variables":{"none":true}}`).wantStatus(t, http.StatusOK)
		if s := string(got.Body); s != `{"key":"discount","version":1,"result":null,"matchedRules":[]}` {
			t.Errorf("answer = %s", s)
		}
	})

	t.Run("a failed evaluation is 422 decision-failed with the reasons", func(t *testing.T) {
		t.Parallel()
		b, _ := withDecisions(t, "discount")
		p := b.postJSON("/api/v1/decisions/discount/evaluate", `{"variables":{"clash":1}}`).problem(t, http.StatusUnprocessableEntity, "decision-failed")
		if !strings.Contains(p.Detail, "discount") || !strings.Contains(p.Detail, "UNIQUE") || !strings.Contains(p.Detail, "r1 and r2") {
			t.Errorf("detail = %q, want the decision and the reasons", p.Detail)
		}
		if p.Field != "variables" || p.Title != "Decision failed" {
			t.Errorf("problem = %+v", p)
		}
	})

	t.Run("an unknown key is 404", func(t *testing.T) {
		t.Parallel()
		b, _ := withDecisions(t, "discount")
		p := b.postJSON("/api/v1/decisions/nope/evaluate", `{}`).problem(t, http.StatusNotFound, "not-found")
		if !strings.Contains(p.Detail, "nope") {
			t.Errorf("detail = %q", p.Detail)
		}
	})

	t.Run("an internal failure leaks nothing", func(t *testing.T) {
		t.Parallel()
		b, _ := withDecisions(t, "discount")
		p := b.postJSON("/api/v1/decisions/explode/evaluate", `{}`).problem(t, http.StatusInternalServerError, "internal")
		if strings.Contains(p.Detail, "secret") || strings.Contains(p.Detail, "corrupt") {
			t.Errorf("internal cause leaked: %q", p.Detail)
		}
	})

	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		slug, field             string
	}{
		{"variables not an object", "application/json", `{"variables":[1]}`, http.StatusBadRequest, "invalid-request", "variables"},
		{"body not an object", "application/json", `[]`, http.StatusBadRequest, "invalid-request", ""},
		{"malformed JSON", "application/json", `{"variables":`, http.StatusBadRequest, "malformed-json", ""},
		{"wrong media type", "text/plain", `{}`, http.StatusUnsupportedMediaType, "unsupported-media-type", ""},
		{"too large", "application/json", `{"variables":{"x":"` + strings.Repeat("a", 2048) + `"}}`, http.StatusRequestEntityTooLarge, "payload-too-large", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake()
			b := setup(t, f, api.Options{MaxJSONBytes: 1024})
			b.postMultipart("/api/v1/deployments", part{filename: "rates.dmn", content: dmnModel("discount")}).wantStatus(t, http.StatusCreated)
			p := b.send(http.MethodPost, "/api/v1/decisions/discount/evaluate", tc.contentType, tc.body).problem(t, tc.status, tc.slug)
			if p.Field != tc.field {
				t.Errorf("field = %q, want %q", p.Field, tc.field)
			}
			if f.decisions.lastVars != nil {
				t.Errorf("the runtime was called with %v", f.decisions.lastVars)
			}
		})
	}

	t.Run("GET is 405 with Allow", func(t *testing.T) {
		t.Parallel()
		b, _ := withDecisions(t, "discount")
		res := b.get("/api/v1/decisions/discount/evaluate")
		res.problem(t, http.StatusMethodNotAllowed, "method-not-allowed")
		if allow := res.Header.Get("Allow"); allow != "POST" {
			t.Errorf("Allow = %q, want POST", allow)
		}
	})
}
