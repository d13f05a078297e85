package cockpit_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/cockpit"
	"github.com/gobpm/gobpm/internal/runtime"
)

// A deployed model may carry XHTML (documentation is free-form), and the XML
// link serves it verbatim: the answer must keep a browser from running it in
// the cockpit's origin.
func TestDeployedXMLIsSandboxed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	scripted := `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="urn:gobpm:test">
  <process id="scripted" isExecutable="true">
    <documentation><script xmlns="http://www.w3.org/1999/xhtml">fetch('/instances')</script></documentation>
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`
	if _, err := b.rt.Deploy(context.Background(), []runtime.File{{Name: "scripted.bpmn", Content: []byte(scripted)}}); err != nil {
		t.Fatal(err)
	}
	res, err := b.client.Get(b.srv.URL + "/processes/scripted/versions/1/xml")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	csp := res.Header.Get("Content-Security-Policy")
	if res.StatusCode != http.StatusOK || !strings.Contains(csp, "sandbox") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("XML: %d, Content-Security-Policy %q; want a sandbox with default-src 'none'", res.StatusCode, csp)
	}
}

// The return target of an action stays on this site even when the form was
// tampered with: path.Clean in http.Redirect turns "/./\host" into "/\host",
// which browsers read as "//host".
func TestActionReturnStaysOnSite(t *testing.T) {
	t.Parallel()
	b := setup(t)
	noFollow := &http.Client{Jar: b.client.Jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	token := b.csrf()
	for _, ret := range []string{`/./\evil.example`, `/a/../\evil.example`, `/.\/evil.example/`, `\\evil.example`, `/\evil.example`, "//evil.example"} {
		form := url.Values{"user": {"pat"}, "return": {ret}, cockpit.CSRFField: {token}}
		req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/identity", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		loc := res.Header.Get("Location")
		if res.StatusCode != http.StatusSeeOther || loc != "/" {
			t.Errorf("return %q: %d Location %q, want 303 to /", ret, res.StatusCode, loc)
		}
	}
	if p := b.post("/identity", url.Values{"user": {"pat"}, "return": {"/incidents?x=1"}}); p.url != "/incidents?x=1" {
		t.Errorf("a local return: %s", p.url)
	}
}

// An upload over the limit is refused as too large, not as a forged form.
func TestOversizeFormIsTooLarge(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField(cockpit.CSRFField, b.csrf())
	fw, _ := mw.CreateFormFile("file", "big.bpmn")
	_, _ = fw.Write(bytes.Repeat([]byte("x"), int(cockpit.DefaultMaxUploadBytes)+1))
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/processes", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	p := b.do(req)
	if p.status != http.StatusRequestEntityTooLarge || !strings.Contains(p.text("error-message"), "larger than") {
		t.Errorf("oversize upload: %d %q", p.status, p.text("error-message"))
	}

	form := url.Values{cockpit.CSRFField: {b.csrf()}, "variables": {strings.Repeat("x", 1<<20)}}
	p = b.post("/processes/review/instances", form)
	if p.status != http.StatusRequestEntityTooLarge || !strings.Contains(p.text("error-message"), "larger than") {
		t.Errorf("oversize form: %d %q", p.status, p.text("error-message"))
	}
}

// A page number so large that its offset overflows is refused, not shown as
// some other page.
func TestHugePageNumber(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deploy("review.bpmn")
	b.start("review", "", nil)
	for _, n := range []string{"9223372036854775807", "184467440737095517", "1000000000"} {
		p := b.get("/instances?page=" + n)
		if p.status != http.StatusBadRequest || p.testid("instance-row").Length() != 0 {
			t.Errorf("page %s: %d with %d rows", n, p.status, p.testid("instance-row").Length())
		}
	}
}

func TestPagesCannotBeFramed(t *testing.T) {
	t.Parallel()
	h := cockpit.New(nil, nil, cockpit.Options{})
	for _, path := range []string{"/static/cockpit.css", "/nope"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Header().Get("X-Frame-Options") != "DENY" || !strings.Contains(rec.Header().Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("%s: headers %v", path, rec.Header())
		}
	}
}

// TestStaticListsNoFolder: /static/ and its folders answer 404, never a
// listing of the embedded files.
func TestStaticListsNoFolder(t *testing.T) {
	t.Parallel()
	h := cockpit.New(nil, nil, cockpit.Options{})
	for _, path := range []string{"/static/", "/static/vendor/"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != http.StatusNotFound || strings.Contains(rec.Body.String(), `href="cockpit.css"`) || strings.Contains(rec.Body.String(), `href="htmx.min.js"`) {
			t.Errorf("GET %s: %d %q", path, rec.Code, rec.Body.String())
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/static/cockpit.css", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("GET /static/cockpit.css: %d", rec.Code)
	}
}
