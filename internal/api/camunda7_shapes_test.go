package api_test

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/camunda7/c7spec"
)

// Camunda 7's own description of engine-rest: every /engine-rest exchange
// a test of this package makes through bundle.do is also checked against
// the OpenAPI document Camunda publishes (package c7spec), and a full run
// fails when a served route was never checked (TestMain).

var loadCamunda7Spec = sync.OnceValues(c7spec.Load)

func mustCamunda7Spec(tb testing.TB) *c7spec.Spec {
	tb.Helper()
	s, err := loadCamunda7Spec()
	if err != nil {
		tb.Fatalf("Camunda 7's OpenAPI document: %v", err)
	}
	return s
}

// validateAgainstCamunda7 checks one /engine-rest exchange against
// Camunda 7's document.
func validateAgainstCamunda7(t *testing.T, req *http.Request, res *response) {
	t.Helper()
	for _, p := range mustCamunda7Spec(t).Check(req, res.Status, res.Header, res.Body) {
		t.Error(p)
	}
}

// servedCamunda7Routes walks the real router for the engine-rest routes,
// as "METHOD /path" relative to /engine-rest.
func servedCamunda7Routes() ([]string, error) {
	var out []string
	err := chi.Walk(api.New(newFake(), nil, api.Options{}).(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if rel, ok := c7spec.Relative(route); ok {
			out = append(out, method+" "+rel)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// TestCamunda7EveryServedRouteIsDocumented walks the real router: every
// engine-rest route gobpm serves is an operation of Camunda 7's document,
// so every answer it gives can be checked against it.
func TestCamunda7EveryServedRouteIsDocumented(t *testing.T) {
	t.Parallel()
	spec := mustCamunda7Spec(t)
	routes, err := servedCamunda7Routes()
	if err != nil {
		t.Fatal(err)
	}
	if len(routes) == 0 {
		t.Fatal("the router serves no engine-rest route")
	}
	for _, r := range routes {
		method, path, _ := strings.Cut(r, " ")
		if !spec.Documents(method, path) {
			t.Errorf("gobpm serves %s, which Camunda 7's document (%s) does not describe", r, c7spec.File)
		}
	}
}

// uncheckedCamunda7Routes are the served engine-rest routes no exchange
// of the run checked against Camunda 7's document.
func uncheckedCamunda7Routes() ([]string, error) {
	spec, err := loadCamunda7Spec()
	if err != nil {
		return nil, err
	}
	served, err := servedCamunda7Routes()
	if err != nil {
		return nil, err
	}
	return spec.Unchecked(served), nil
}
