package cockpit_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/cockpit"
)

// countingBody is a request body that counts the bytes the server read.
type countingBody struct {
	r    io.Reader
	read atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read.Add(int64(n))
	return n, err
}

func (c *countingBody) Close() error { return nil }

// upload builds a multipart deployment body: the CSRF field first (when
// csrf is not ""), then a file of size bytes.
func upload(csrf string, size int) (*bytes.Buffer, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if csrf != "" {
		_ = mw.WriteField(cockpit.CSRFField, csrf)
	}
	fw, _ := mw.CreateFormFile("file", "big.bpmn")
	_, _ = fw.Write(bytes.Repeat([]byte("x"), size))
	_ = mw.Close()
	return &buf, mw.FormDataContentType()
}

// cookiesOf returns the cookies b's browser holds for its server.
func cookiesOf(b *authBundle) []*http.Cookie {
	u, _ := url.Parse(b.srv.URL)
	return b.client.Jar.Cookies(u)
}

// An upload is read only once its sender is logged in, allowed to deploy
// and has sent the right CSRF token first: a request failing any of them
// is refused having read (almost) nothing of its 8 MiB body.
func TestUploadsAreReadOnlyAfterLoginAndToken(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"dev": auth.RoleDeveloper, "vic": auth.RoleViewer}, nil)
	h := cockpit.New(b.rt, nil, cockpit.Options{Access: b.acc})
	dev, vic := b.as("dev"), b.as("vic")
	const size = 8 << 20
	send := func(cookies []*http.Cookie, csrf string) (int, int64) {
		buf, ct := upload(csrf, size)
		body := &countingBody{r: buf}
		req := httptest.NewRequest(http.MethodPost, "/processes", body)
		req.Header.Set("Content-Type", ct)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, body.read.Load()
	}
	csrfOf := func(bb *authBundle) string { return bb.csrf() }

	for _, tc := range []struct {
		name    string
		cookies []*http.Cookie
		csrf    string
		want    int
	}{
		{"anonymous", nil, "forged", http.StatusUnauthorized},
		{"anonymous with a CSRF cookie", []*http.Cookie{{Name: cockpit.CookieCSRF, Value: "forged-token-forged-token-forged-token"}}, "forged-token-forged-token-forged-token", http.StatusUnauthorized},
		{"a viewer", cookiesOf(vic), csrfOf(vic), http.StatusForbidden},
		{"a developer with a wrong token", cookiesOf(dev), "wrong", http.StatusForbidden},
		{"a developer with no token first", cookiesOf(dev), "", http.StatusForbidden},
	} {
		status, read := send(tc.cookies, tc.csrf)
		if status != tc.want || read > 64<<10 {
			t.Errorf("%s: %d having read %d bytes of %d; want %d, unread", tc.name, status, read, size, tc.want)
		}
	}
	// The developer's real upload is read (and refused as no model: the
	// bytes are not BPMN).
	if status, read := send(cookiesOf(dev), csrfOf(dev)); status == http.StatusUnauthorized || status == http.StatusForbidden || read < size {
		t.Errorf("the developer's upload: %d having read %d bytes", status, read)
	}
}

// Uploads are read in a few slots: with every slot taken by an upload
// still arriving, another is refused at once (503, Retry-After) unread.
func TestConcurrentUploadsAreCapped(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"dev": auth.RoleDeveloper}, nil)
	h := cockpit.New(b.rt, nil, cockpit.Options{Access: b.acc, MaxConcurrentUploads: 2})
	dev := b.as("dev")
	cookies, token := cookiesOf(dev), dev.csrf()
	request := func(body io.ReadCloser) *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/processes", body)
		req.Header.Set("Content-Type", "multipart/form-data; boundary=B")
		for _, c := range cookies {
			req.AddCookie(c)
		}
		return req
	}
	var writers []*io.PipeWriter
	done := make(chan int, 2)
	for range 2 {
		pr, pw := io.Pipe()
		writers = append(writers, pw)
		go func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, request(pr))
			done <- rec.Code
		}()
		// The write returns once the handler reads it: it holds a slot.
		if _, err := pw.Write([]byte("--B\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n" + token + "\r\n--B\r\n")); err != nil {
			t.Fatal(err)
		}
	}
	buf, ct := upload(token, 1<<20)
	body := &countingBody{r: buf}
	req := request(body)
	req.Header.Set("Content-Type", ct)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || body.read.Load() != 0 {
		t.Errorf("a third upload: %d (Retry-After %q) having read %d bytes; want 503 unread", rec.Code, rec.Header().Get("Retry-After"), body.read.Load())
	}
	for _, pw := range writers {
		_ = pw.CloseWithError(io.ErrUnexpectedEOF)
	}
	for range 2 {
		if code := <-done; code != http.StatusBadRequest {
			t.Errorf("a broken upload: %d, want 400", code)
		}
	}
	// The slots are free again.
	buf, ct = upload(token, 1<<10)
	req = request(io.NopCloser(buf))
	req.Header.Set("Content-Type", ct)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code == http.StatusServiceUnavailable {
		t.Errorf("an upload after the others ended: %d", rec.Code)
	}
}
