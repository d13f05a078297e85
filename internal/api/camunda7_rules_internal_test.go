package api

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/camunda7"
)

// TestEngineRestRouteWithoutRule serves the adapter's real router behind
// engineRestAuth with one route's rule taken away: that route is refused
// with a 500 in Camunda 7's error body, the others pass, and a path the
// adapter does not serve stays its 404.
func TestEngineRestRouteWithoutRule(t *testing.T) {
	t.Parallel()
	s := &server{log: slog.New(slog.DiscardHandler)}
	rules := newEngineRestRuleFinder()
	if _, ok := rules.rules["GET /engine-rest/version"]; !ok {
		t.Fatal("GET /engine-rest/version has no rule to take away")
	}
	delete(rules.rules, "GET /engine-rest/version")
	router := camunda7.New(camunda7.Config{Middlewares: []func(http.Handler) http.Handler{s.engineRestAuth(newBasicCache(), rules)}})
	if err := rules.serve(router); err != nil {
		t.Fatal(err)
	}
	mux := chi.NewMux()
	mux.Mount(EngineRestPrefix, router)
	for _, tt := range []struct {
		method, path string
		status       int
		typ          string
	}{
		{"GET", "/version", http.StatusInternalServerError, camunda7.TypeRestException},
		{"GET", "/engine", http.StatusOK, ""},
		{"GET", "/nothing", http.StatusNotFound, camunda7.TypeRestException},
		{"DELETE", "/version", http.StatusMethodNotAllowed, camunda7.TypeRestException},
	} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(tt.method, EngineRestPrefix+tt.path, nil))
		if rec.Code != tt.status {
			t.Errorf("%s %s = %d %s, want %d", tt.method, tt.path, rec.Code, rec.Body, tt.status)
			continue
		}
		if tt.typ == "" {
			continue
		}
		var e struct{ Type, Message string }
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Type != tt.typ || e.Message == "" ||
			rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: body %s (%v), want Camunda 7's error body of type %s", tt.method, tt.path, rec.Body, err, tt.typ)
		}
	}
}

// TestEngineRestRuleEncodedPath takes a path with an encoded slash
// (x%2Fy): chi routes it on the raw path, so the rule finder must too,
// or a route without a rule would pass unrefused and a route with one
// would lose its rule.
func TestEngineRestRuleEncodedPath(t *testing.T) {
	t.Parallel()
	s := &server{log: slog.New(slog.DiscardHandler)}
	rules := newEngineRestRuleFinder()
	const retries = "PUT /engine-rest/external-task/{id}/retries"
	want, ok := rules.rules[retries]
	if !ok {
		t.Fatalf("%s has no rule", retries)
	}
	router := camunda7.New(camunda7.Config{Middlewares: []func(http.Handler) http.Handler{s.engineRestAuth(newBasicCache(), rules)}})
	if err := rules.serve(router); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("PUT", EngineRestPrefix+"/external-task/x%2Fy/retries", nil)
	if ru, ok := rules.rule(req); !ok || ru != want {
		t.Errorf("rule of %s = %v, %v; want %s's", req.URL.RawPath, ru, ok, retries)
	}
	if route, bad := rules.unruled(req); bad {
		t.Errorf("%s is unruled (%s), yet it has a rule", req.URL.RawPath, route)
	}

	delete(rules.rules, retries)
	if route, bad := rules.unruled(req); !bad || route != retries {
		t.Errorf("with its rule taken away, unruled(%s) = %q, %v; want %q, true", req.URL.RawPath, route, bad, retries)
	}
	mux := chi.NewMux()
	mux.Mount(EngineRestPrefix, router)
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("PUT", EngineRestPrefix+"/external-task/x%2Fy/retries", nil))
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("PUT %s without a rule = %d %s, want 500", req.URL.RawPath, rec.Code, rec.Body)
	}
}
