package cockpit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/cockpit"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store"
)

// bundle is the cockpit mounted beside the JSON API, as the server runs
// it, over a real runtime and SQLite file, with a browser-like client
// (cookie jar, redirects followed).
type bundle struct {
	t      testing.TB
	db     *store.DB
	rt     *runtime.Runtime
	srv    *httptest.Server
	client *http.Client
}

func setup(t testing.TB) *bundle {
	return setupWith(t, store.Options{})
}

func setupWith(t testing.TB, opts store.Options) *bundle {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "gobpm.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	h := api.New(rt, nil, api.Options{Fallback: cockpit.New(rt, nil, cockpit.Options{})})
	srv := httptest.NewServer(h)
	jar, _ := cookiejar.New(nil)
	b := &bundle{t: t, db: db, rt: rt, srv: srv, client: &http.Client{Jar: jar}}
	t.Cleanup(func() {
		srv.Close()
		if err := rt.Close(); err != nil {
			t.Error(err)
		}
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return b
}

// page is one answer of the cockpit, parsed.
type page struct {
	status int
	url    string
	body   string
	doc    *goquery.Document
}

// testid selects the elements with a data-testid.
func (p *page) testid(id string) *goquery.Selection {
	return p.doc.Find(`[data-testid="` + id + `"]`)
}

// text is the trimmed text of the first element with a data-testid.
func (p *page) text(id string) string {
	return strings.Join(strings.Fields(p.testid(id).First().Text()), " ")
}

func (b *bundle) do(req *http.Request) *page {
	b.t.Helper()
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	return &page{status: res.StatusCode, url: res.Request.URL.RequestURI(), body: string(body), doc: doc}
}

// get fetches a page.
func (b *bundle) get(path string) *page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.srv.URL+path, nil)
	return b.do(req)
}

// mustGet fetches a page that must answer 200.
func (b *bundle) mustGet(path string) *page {
	b.t.Helper()
	p := b.get(path)
	if p.status != http.StatusOK {
		b.t.Fatalf("GET %s: %d\n%s", path, p.status, p.body)
	}
	return p
}

// csrf returns the browser's CSRF token, fetching a page first if needed.
func (b *bundle) csrf() string {
	b.t.Helper()
	u, _ := url.Parse(b.srv.URL)
	for i := 0; i < 2; i++ {
		for _, c := range b.client.Jar.Cookies(u) {
			if c.Name == cockpit.CookieCSRF {
				return c.Value
			}
		}
		b.get("/")
	}
	b.t.Fatal("no CSRF cookie")
	return ""
}

// post sends a form as the browser would (CSRF token included, same-origin
// Sec-Fetch-Site) and follows the redirect.
func (b *bundle) post(path string, form url.Values) *page {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if form.Get(cockpit.CSRFField) == "" {
		form.Set(cockpit.CSRFField, b.csrf())
	}
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return b.do(req)
}

// upload posts files to the deployment form.
func (b *bundle) upload(files map[string][]byte) *page {
	b.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField(cockpit.CSRFField, b.csrf())
	for name, data := range files {
		fw, _ := mw.CreateFormFile("file", name)
		_, _ = fw.Write(data)
	}
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/processes", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return b.do(req)
}

// actAs sets the acting identity through the identity form.
func (b *bundle) actAs(user string, groups ...string) {
	b.t.Helper()
	p := b.post("/identity", url.Values{"user": {user}, "groups": {strings.Join(groups, ",")}, "return": {"/tasks"}})
	if p.status != http.StatusOK {
		b.t.Fatalf("identity: %d %s", p.status, p.body)
	}
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func (b *bundle) deploy(names ...string) {
	b.t.Helper()
	var files []runtime.File
	for _, n := range names {
		files = append(files, runtime.File{Name: n, Content: fixture(b.t, n)})
	}
	if _, err := b.rt.Deploy(context.Background(), files); err != nil {
		b.t.Fatalf("deploy: %v", err)
	}
}

func (b *bundle) start(key, businessKey string, vars map[string]any) runtime.InstanceView {
	b.t.Helper()
	v, err := b.rt.StartInstance(context.Background(), runtime.StartRequest{ProcessKey: key, BusinessKey: businessKey, Variables: vars})
	if err != nil {
		b.t.Fatalf("start %s: %v", key, err)
	}
	return v
}

func (b *bundle) instance(id runtime.InstanceID) runtime.InstanceView {
	b.t.Helper()
	v, err := b.rt.Instance(context.Background(), id)
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

// activeNodes lists the nodes holding tokens.
func activeNodes(v runtime.InstanceView) []string {
	var out []string
	for _, t := range v.Tracks {
		out = append(out, t.NodeID)
	}
	return out
}

// jsonNumber builds a json.Number for variables.
func jsonNumber(s string) json.Number { return json.Number(s) }
