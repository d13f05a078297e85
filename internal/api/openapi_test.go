package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/gobpm/gobpm/internal/api"
)

// TestEveryRouteIsDocumented keeps the router and openapi.yaml in step: every
// chi route is a documented operation with that method, and every documented
// operation is routed.
func TestEveryRouteIsDocumented(t *testing.T) {
	t.Parallel()
	c := MustContract(t)

	routes, ok := api.New(newFake(), nil, api.Options{}).(chi.Routes)
	if !ok {
		t.Fatal("api.New does not return a chi router")
	}
	routed := map[string]bool{}
	err := chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		routed[method+" "+route] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	documented := map[string]bool{}
	for path, item := range c.doc.Paths.Map() {
		for method := range item.Operations() {
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}

	for _, op := range sortedKeys(routed) {
		if !documented[op] {
			t.Errorf("route %s is not documented in openapi.yaml", op)
		}
	}
	for _, op := range sortedKeys(documented) {
		if !routed[op] {
			t.Errorf("openapi.yaml documents %s but nothing routes it", op)
		}
	}
	if len(routed) < 12 {
		t.Errorf("only %d routes walked: %v", len(routed), sortedKeys(routed))
	}
}

// TestProblemTypesAreDocumented checks that every problem type the API can
// answer is listed in the document's description.
func TestProblemTypesAreDocumented(t *testing.T) {
	t.Parallel()
	desc := MustContract(t).doc.Info.Description
	for _, slug := range []string{"not-found", "method-not-allowed", "malformed-json", "invalid-request", "invalid-model", "decision-failed",
		"conflict", "forbidden", "payload-too-large", "unsupported-media-type", "internal"} {
		if !strings.Contains(desc, "`"+slug+"`") {
			t.Errorf("problem type %s is not documented", slug)
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
