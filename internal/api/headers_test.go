package api_test

import (
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/httpsec"
)

// TestSecurityHeadersOnEveryAnswer: successes, problems, unrouted paths,
// the contract and probes all carry the security headers.
func TestSecurityHeadersOnEveryAnswer(t *testing.T) {
	t.Parallel()
	b := setup(t, newFake(), api.Options{})
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/api/v1/openapi.yaml", "/api/v1/processes",
		"/api/v1/instances/nope", "/api/v1/nowhere", "/nowhere"} {
		res := b.get(path)
		for name, want := range map[string]string{
			"Content-Security-Policy": httpsec.ContentSecurityPolicy,
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "same-origin",
			"X-Frame-Options":         "DENY",
		} {
			if got := res.Header.Get(name); got != want {
				t.Errorf("%s (%d): %s = %q, want %q", path, res.Status, name, got, want)
			}
		}
	}
}

// TestOversizedHeaderIsAProblem: header fields beyond the limit get a 431
// problem+json, not a plain-text answer.
func TestOversizedHeaderIsAProblem(t *testing.T) {
	t.Parallel()
	b := setup(t, newFake(), api.Options{})
	req := httptestRequest("GET", "/api/v1/processes", nil)
	req.Header.Set("X-Padding", strings.Repeat("x", api.MaxHeaderBytes))
	res := b.do(req)
	if res.Status != 431 || res.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("oversized header: %d %s %s", res.Status, res.Header.Get("Content-Type"), res.Body)
	}
}
