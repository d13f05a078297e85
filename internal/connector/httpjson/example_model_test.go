package httpjson

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/connector/webhook"
	"github.com/gobpm/gobpm/internal/runtime"
)

// TestCamundaExampleModel runs a model of Camunda's connector runtime
// tests (testdata/camunda-connectors, Apache-2.0) unchanged: a REST
// connector task calling https://httpbin.org/delay/10 with an inbound
// webhook boundary event on it (path "destroy", correlated by the body's
// val1). The calls go to a local TLS server that stands in for
// httpbin.org; it holds the delayed call until the webhook has been
// delivered, so the boundary event interrupts the task and the model
// continues on its path, calling /anything/anything.
func TestCamundaExampleModel(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/camunda-connectors/single-webhook-boundary.bpmn")
	if err != nil {
		t.Fatal(err)
	}
	delivered := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/delay/") {
			select {
			case <-delivered:
			case <-r.Context().Done():
				return
			}
		}
		echo(w, r)
	}))
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
	ctx := context.Background()
	if _, err := b.rt.Deploy(ctx, []runtime.File{{Name: "single-webhook-boundary.bpmn", Content: raw}}); err != nil {
		t.Fatalf("deploy: %v", err)
	}
	v, err := b.rt.StartInstance(ctx, runtime.StartRequest{ProcessKey: "BoundaryEventTest", Variables: map[string]any{"myCorrKey": "k1"}})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	hooks, err := webhook.New(b.rt, webhook.Options{Secrets: NewSecrets(nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	// The boundary subscribes when the task is entered, within the start.
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/webhooks/destroy", strings.NewReader(`{"val1":"k1","reason":"stop"}`))
		req.Header.Set("Content-Type", "application/json")
		err := hooks.Serve(rec, req, "destroy")
		if err == nil && rec.Code == http.StatusOK && strings.Contains(rec.Body.String(), `"correlated":1`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook: %v, %d %s", err, rec.Code, rec.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(delivered)
	v = b.await(t, v.ID, func(v runtime.InstanceView) bool { return v.Status != "running" || openIncidents(v) > 0 })
	completed(t, v)
	if got := body(t, v, "res2"); got["method"] != "GET" || got["path"] != "/anything/anything" {
		t.Fatalf("res2.body = %v", got)
	}
	if _, ok := v.Variables["res0"]; ok {
		t.Fatalf("res0 = %v: the interrupted call must not complete its task", v.Variables["res0"])
	}
	req, _ := v.Variables["res1"].(map[string]any)["request"].(map[string]any)
	if rb, _ := req["body"].(map[string]any); rb["reason"] != "stop" {
		t.Fatalf("res1 = %v, want the webhook request", v.Variables["res1"])
	}
}
