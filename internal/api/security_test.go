package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/runtime"
)

// Without credentials the API trusts whoever reaches the loopback port, so a
// web page the operator visits must not be able to act through it: browsers
// send state-changing requests to other origins without a CORS preflight
// when they look like forms (a form post to /cancel, a typeless body to a
// JSON route, a multipart deployment). Such requests carry Sec-Fetch-Site or
// Origin and are refused with a 403 problem; clients (no such headers) and
// same-origin pages pass.
func TestCrossSiteBrowserRequestsAreRefused(t *testing.T) {
	t.Parallel()
	b, f := deployed(t, "order")
	b.postJSON("/api/v1/processes/order/instances", `{}`).wantStatus(t, http.StatusCreated) // inst-1

	for _, tc := range []struct {
		name, method, path, contentType, body string
		header                                map[string]string
	}{
		{"form post to cancel", http.MethodPost, "/api/v1/instances/inst-1/cancel", "application/x-www-form-urlencoded", "",
			map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}},
		{"typeless fetch body to start", http.MethodPost, "/api/v1/processes/order/instances", "", `{}`,
			map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"same-site page (another port)", http.MethodPost, "/api/v1/signals", "", `{"name":"go"}`,
			map[string]string{"Sec-Fetch-Site": "same-site"}},
		{"foreign origin, no fetch metadata", http.MethodPost, "/api/v1/messages", "", `{"name":"paid"}`,
			map[string]string{"Origin": "https://evil.example"}},
		{"multipart deployment", http.MethodPost, "/api/v1/deployments", "multipart/form-data; boundary=x",
			"--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bpmn\"\r\n\r\n<process id=\"evil\"/>\r\n--x--\r\n",
			map[string]string{"Sec-Fetch-Site": "cross-site"}},
	} {
		req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
		if tc.contentType != "" {
			req.Header.Set("Content-Type", tc.contentType)
		}
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		b.do(req).problem(t, http.StatusForbidden, "forbidden")
	}
	if v, err := f.Instance(t.Context(), "inst-1"); err != nil || v.Status != runtime.StatusRunning {
		t.Fatalf("a refused request changed the instance: %v %v", v.Status, err)
	}
	if _, err := f.ProcessVersions(t.Context(), "evil"); err == nil {
		t.Fatal("a refused deployment was registered")
	}

	// Reads stay open to any origin, and clients and the same origin act.
	req := httptest.NewRequest(http.MethodGet, "/api/v1/instances/inst-1", nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	b.do(req).wantStatus(t, http.StatusOK)
	req = httptest.NewRequest(http.MethodPost, "/api/v1/instances/inst-1/cancel", nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	b.do(req).wantStatus(t, http.StatusOK)
}

// scriptedBPMN is a valid model that carries an XHTML script element: the
// validator accepts it (documentation is free-form), and a browser that
// navigates to the XML runs the script in the server's origin unless the
// answer forbids it.
const scriptedBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="urn:gobpm:test">
  <process id="scripted" isExecutable="true">
    <documentation><script xmlns="http://www.w3.org/1999/xhtml">fetch('/api/v1/instances')</script></documentation>
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`

// The deployed documents are served verbatim, so a browser must never run
// what they contain: the answer sandboxes them and forbids every resource.
func TestDeployedXMLIsSandboxed(t *testing.T) {
	t.Parallel()
	b := setupReal(t)
	b.postXML("/api/v1/deployments?name=scripted.bpmn", scriptedBPMN).wantStatus(t, http.StatusCreated)
	b.postMultipart("/api/v1/deployments", part{filename: "discount.dmn", content: readTestdata(t, "discount.dmn")}).wantStatus(t, http.StatusCreated)
	for _, path := range []string{"/api/v1/processes/scripted/versions/1/xml", "/api/v1/decisions/discount/versions/1/xml"} {
		res := b.get(path).wantStatus(t, http.StatusOK)
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "sandbox") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: Content-Security-Policy = %q, want a sandbox with default-src 'none'", path, csp)
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no X-Content-Type-Options: nosniff", path)
		}
	}
}
