package httpjson

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"testing"

	"github.com/gobpm/gobpm/internal/bpmn"
)

// TestCamundaExampleModel runs a model of Camunda's connector runtime
// tests (testdata/camunda-connectors, Apache-2.0): a REST connector task
// calling https://httpbin.org/delay/10 with an inbound webhook boundary
// event on it. Its REST connector tasks deploy as they are; the webhook is
// Camunda's inbound connector, which gobpm does not serve yet, so the model
// is refused for that alone — and runs once the boundary's inbound
// properties are taken out, its call sent to a local TLS server that
// stands in for httpbin.org.
func TestCamundaExampleModel(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/camunda-connectors/single-webhook-boundary.bpmn")
	if err != nil {
		t.Fatal(err)
	}
	_, err = bpmn.Parse(raw)
	var verr *bpmn.ValidationError
	if !errors.As(err, &verr) || len(verr.Problems) != 1 || verr.Problems[0].Element != "boundary_event" {
		t.Fatalf("parse = %v, want only the inbound webhook refused", err)
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(echo))
	defer srv.Close()
	local := srv.Listener.Addr().String()
	b := setup(t, Options{AllowHosts: []string{"127.0.0.1"},
		testDial: func(addr string) string {
			if host, _, _ := net.SplitHostPort(addr); host == "httpbin.org" {
				return local
			}
			return addr
		},
		testTLS: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the local stand-in's certificate
	})
	model := regexp.MustCompile(`(?s)<zeebe:properties>.*?</zeebe:properties>`).ReplaceAll(raw, nil)
	v := b.runXML(t, "BoundaryEventTest", model, map[string]any{"myCorrKey": "k1"})
	completed(t, v)
	got := body(t, v, "res0")
	if got["method"] != "GET" || got["path"] != "/delay/10" {
		t.Fatalf("res0.body = %v", got)
	}
}
