package cockpit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/cockpit"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// bundle is the cockpit mounted beside the JSON API, as the server runs
// it, over a real runtime and SQLite file, with a browser-like client
// (cookie jar, redirects followed).
type bundle struct {
	t      testing.TB
	db     *sqlite.DB
	rt     *runtime.Runtime
	srv    *httptest.Server
	client *http.Client
}

func setup(t testing.TB) *bundle {
	return setupWith(t, sqlite.Options{})
}

// setupWith serves the cockpit over a runtime on a SQLite file. SQLite
// only (not testdb): the cockpit reads the runtime's views, never the
// store, and those views run on both stores in the runtime's and API's
// suites; some pages' tests tune the SQLite store (opts).
func setupWith(t testing.TB, opts sqlite.Options) *bundle {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gobpm.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	h := api.New(rt, nil, api.Options{Fallback: cockpit.New(rt, nil, cockpit.Options{})})
	srv := httptest.NewServer(h)
	jar, _ := cookiejar.New(nil)
	b := &bundle{t: t, db: db, rt: rt, srv: srv, client: &http.Client{Jar: jar}}
	t.Cleanup(func() {
		rt.BeginShutdown() // ends the pushed-update streams a browser holds open, as the server's shutdown does
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

// password is every test user's password.
const password = "correct horse battery"

// authBundle is the cockpit with logins (--auth builtin): a real access
// service over the same SQLite file, mounted beside the JSON API as the
// server runs it. Its client is logged in as nobody.
type authBundle struct {
	*bundle
	acc *access.Service
}

// setupAuth starts the cockpit with logins and creates users, each given
// a role ("" for none), plus groups: users maps a user to its role, and
// members a user to its groups.
func setupAuth(t testing.TB, users map[string]auth.Role, members map[string][]string) *authBundle {
	t.Helper()
	return setupAuthWith(t, cockpit.Options{}, users, members)
}

func setupAuthWith(t testing.TB, opts cockpit.Options, users map[string]auth.Role, members map[string][]string) *authBundle {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	acc, err := access.New(ctx, access.Config{Mode: access.ModeBuiltin, Store: db, Params: auth.TestParams(),
		Logger: slog.New(slog.DiscardHandler), AuditFlush: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	opts.Access = acc
	h := api.New(rt, nil, api.Options{Access: acc, Fallback: cockpit.New(rt, nil, opts)})
	srv := httptest.NewServer(h)
	jar, _ := cookiejar.New(nil)
	b := &authBundle{bundle: &bundle{t: t, db: db, rt: rt, srv: srv, client: &http.Client{Jar: jar}}, acc: acc}
	t.Cleanup(func() {
		rt.BeginShutdown() // ends the pushed-update streams a browser holds open, as the server's shutdown does
		srv.Close()
		if err := acc.Close(context.Background()); err != nil {
			t.Error(err)
		}
		if err := rt.Close(); err != nil {
			t.Error(err)
		}
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	groups := map[string]bool{}
	for _, gs := range members {
		for _, g := range gs {
			groups[g] = true
		}
	}
	for g := range groups {
		if _, err := acc.CreateGroup(ctx, g, ""); err != nil {
			t.Fatal(err)
		}
	}
	for u, role := range users {
		if _, err := acc.CreateUser(ctx, "", access.NewUser{ID: u, Password: password}); err != nil {
			t.Fatal(err)
		}
		if role != "" {
			if _, err := acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: u}, Role: role}); err != nil {
				t.Fatal(err)
			}
		}
		for _, g := range members[u] {
			if err := acc.SetMember(ctx, g, u, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b
}

// browserFor returns a bundle with a browser of its own (an empty cookie
// jar), over the same server.
func (b *authBundle) browserFor() *authBundle {
	jar, _ := cookiejar.New(nil)
	nb := *b.bundle
	nb.client = &http.Client{Jar: jar}
	return &authBundle{bundle: &nb, acc: b.acc}
}

// as returns a browser logged in as user.
func (b *authBundle) as(user string) *authBundle {
	b.t.Helper()
	nb := b.browserFor()
	p := nb.login(user, password, "")
	if p.text("session-user") != user {
		b.t.Fatalf("login as %s: %d at %s, flash %q", user, p.status, p.url, p.text("flash"))
	}
	return nb
}

// login posts the login form (next as the form's hidden field) and
// follows the redirect.
func (b *authBundle) login(user, pw, next string) *page {
	b.t.Helper()
	b.get("/login") // the CSRF cookie
	return b.post("/login", url.Values{"user": {user}, "password": {pw}, "next": {next}})
}

// noFollow sends req with the browser's cookies without following a
// redirect.
func (b *bundle) noFollow(req *http.Request) *http.Response {
	b.t.Helper()
	c := &http.Client{Jar: b.client.Jar, Transport: b.client.Transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// auditTrail returns the audit entries matching f, newest first, once
// every entry recorded so far is written.
func (b *authBundle) auditTrail(f access.AuditFilter) []access.AuditEntry {
	b.t.Helper()
	ctx := context.Background()
	if err := b.acc.FlushAudit(ctx); err != nil {
		b.t.Fatal(err)
	}
	if f.Limit == 0 {
		f.Limit = 100
	}
	entries, err := b.acc.Audit(ctx, f)
	if err != nil {
		b.t.Fatal(err)
	}
	return entries
}

// lastAudit returns the newest audit entry of action.
func (b *authBundle) lastAudit(action string) access.AuditEntry {
	b.t.Helper()
	es := b.auditTrail(access.AuditFilter{Action: action, Limit: 1})
	if len(es) == 0 {
		b.t.Fatalf("no audit entry %q", action)
	}
	return es[0]
}
