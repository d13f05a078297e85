package cockpit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/cockpit"
)

// Without a session every page leads to the login page, which leads back;
// a live region's poll sends htmx there; an action answers 401 and changes
// nothing.
func TestPagesNeedALogin(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"olga": auth.RoleOperator}, nil)
	b.deploy("review.bpmn")
	inst := b.start("review", "c-1", nil)

	for _, path := range []string{"/", "/instances?status=running", "/instances/" + string(inst.ID), "/tasks", "/admin/users", "/processes/review/versions/1/xml"} {
		req, _ := http.NewRequest(http.MethodGet, b.srv.URL+path, nil)
		res := b.noFollow(req)
		want := "/login"
		if path != "/" {
			want += "?next=" + url.QueryEscape(path)
		}
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
			t.Errorf("GET %s: %d to %q, want 303 to %q", path, res.StatusCode, res.Header.Get("Location"), want)
		}
	}

	req, _ := http.NewRequest(http.MethodGet, b.srv.URL+"/instances?status=running", nil)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Target", "live")
	if res := b.noFollow(req); res.StatusCode != http.StatusUnauthorized || res.Header.Get("HX-Redirect") != "/login?next=%2Finstances%3Fstatus%3Drunning" {
		t.Errorf("live poll: %d HX-Redirect %q", res.StatusCode, res.Header.Get("HX-Redirect"))
	}

	p := b.post("/instances/"+string(inst.ID)+"/cancel", nil)
	if p.status != http.StatusUnauthorized || p.testid("error-login").Length() != 1 {
		t.Errorf("an action without a session: %d\n%s", p.status, p.text("error-message"))
	}
	if v := b.instance(inst.ID); v.Status != "running" {
		t.Errorf("the instance was %s", v.Status)
	}
	if e := b.lastAudit("cockpit: cancel instance"); e.Outcome != "denied" || e.Status != http.StatusUnauthorized || e.Actor != "" || e.Resource != "instance "+string(inst.ID) {
		t.Errorf("the refused cancel is recorded: %+v", e)
	}

	// Log in from the redirect: back at the page asked for.
	p = b.get("/instances?status=running")
	if p.url != "/login?next=%2Finstances%3Fstatus%3Drunning" || p.testid("login-form").Length() != 1 || p.testid("identity-form").Length() != 0 || p.testid("nav").Length() != 0 {
		t.Fatalf("the login page: %s\n%s", p.url, p.body)
	}
	next := p.testid("login-form").Find(`input[name="next"]`).AttrOr("value", "")
	p = b.login("olga", password, next)
	if p.status != http.StatusOK || p.url != "/instances?status=running" || p.text("session-user") != "olga" || p.testid("instance-row").Length() != 1 {
		t.Fatalf("after the login: %d at %s as %q", p.status, p.url, p.text("session-user"))
	}
	if p.testid("identity-form").Length() != 0 {
		t.Errorf("with logins there is no acting-as box")
	}
	if got := p.text("flash"); got != "You are logged in as olga." {
		t.Errorf("flash %q", got)
	}
	// The login page sends a logged-in person on.
	if p := b.get("/login?next=/tasks"); p.url != "/tasks" {
		t.Errorf("the login page while logged in: %s", p.url)
	}
}

// The page a login returns to stays on this site.
func TestLoginNextStaysOnSite(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"olga": auth.RoleOperator}, nil)
	for _, next := range []string{"//evil.example/", "https://evil.example/", `/\evil.example`, `/./\evil.example`, "/login", "/logout", "/setup?x=1", "javascript:alert(1)", "evil"} {
		nb := b.browserFor()
		nb.get("/login")
		form := url.Values{"user": {"olga"}, "password": {password}, "next": {next}, cockpit.CSRFField: {nb.csrf()}}
		req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if res := nb.noFollow(req); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
			t.Errorf("next %q: %d to %q, want 303 to /", next, res.StatusCode, res.Header.Get("Location"))
		}
		// The login page's form carries nothing else either.
		if p := nb.browserFor().get("/login?next=" + url.QueryEscape(next)); p.testid("login-form").Find(`input[name="next"]`).AttrOr("value", "") != "/" {
			t.Errorf("next %q in the form: %q", next, p.testid("login-form").Find(`input[name="next"]`).AttrOr("value", ""))
		}
	}
}

func TestLoginRefusedAndLockedOut(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"olga": auth.RoleOperator}, nil)

	p := b.login("olga", "wrong password!", "")
	if p.status != http.StatusUnauthorized || p.text("flash") != "Wrong user name or password." || p.text("session-user") != "" {
		t.Fatalf("a wrong password: %d %q", p.status, p.text("flash"))
	}
	if p.testid("login-user").AttrOr("value", "") != "olga" || p.testid("login-password").AttrOr("value", "") != "" {
		t.Errorf("the form keeps the user name, never the password")
	}
	if p := b.login("nobody", "wrong password!", ""); p.status != http.StatusUnauthorized || p.text("flash") != "Wrong user name or password." {
		t.Errorf("an unknown user is told the same: %d %q", p.status, p.text("flash"))
	}
	if p := b.login("olga", "", ""); p.status != http.StatusBadRequest {
		t.Errorf("an empty password: %d", p.status)
	}
	// Five failures in a row lock the name out, the right password too.
	for range 3 {
		b.login("olga", "wrong password!", "")
	}
	p = b.login("olga", "wrong password!", "")
	if p.status != http.StatusTooManyRequests || !strings.HasPrefix(p.text("flash"), "Too many failed logins") {
		t.Fatalf("the fifth failure: %d %q", p.status, p.text("flash"))
	}
	p = b.login("olga", password, "")
	if p.status != http.StatusTooManyRequests || !strings.Contains(p.text("flash"), "refused for a minute") || p.text("session-user") != "" {
		t.Errorf("locked out: %d %q", p.status, p.text("flash"))
	}
	failed := b.auditTrail(access.AuditFilter{Action: "login-failed"})
	if len(failed) != 7 || failed[0].Status != http.StatusTooManyRequests || failed[0].Resource != "user olga" || failed[0].Outcome != "denied" || failed[0].Addr != "127.0.0.1" {
		t.Errorf("failed logins recorded: %d, newest %+v", len(failed), failed[0])
	}
	if len(b.auditTrail(access.AuditFilter{Action: "login"})) != 0 {
		t.Errorf("no login succeeded")
	}
}

func TestLogout(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"olga": auth.RoleOperator}, nil)
	olga := b.as("olga")
	u, _ := url.Parse(b.srv.URL)
	var sessionCookie string
	for _, c := range olga.client.Jar.Cookies(u) {
		if c.Name == cockpit.CookieSession {
			sessionCookie = c.Value
		}
	}
	if sessionCookie == "" {
		t.Fatal("no session cookie")
	}
	p := olga.post("/logout", nil)
	if p.url != "/login" || p.text("flash") != "You are logged out." || p.text("session-user") != "" {
		t.Fatalf("logout: %s %q", p.url, p.text("flash"))
	}
	if p := olga.get("/"); p.url != "/login" {
		t.Errorf("after the logout the dashboard asks for a login: %s", p.url)
	}
	// The old cookie no longer works anywhere.
	req, _ := http.NewRequest(http.MethodGet, b.srv.URL+"/", nil)
	req.AddCookie(&http.Cookie{Name: cockpit.CookieSession, Value: sessionCookie})
	res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Errorf("the ended session still opens the dashboard: %d", res.StatusCode)
	}
	e := b.lastAudit("logout")
	if e.Actor != "olga" || e.Via != "session" || e.Outcome != "ok" {
		t.Errorf("logout recorded as %+v", e)
	}
	if e := b.lastAudit("login"); e.Actor != "olga" || e.Resource != "user olga" || e.RequestID == "" {
		t.Errorf("login recorded as %+v", e)
	}
	// A forged logout (no CSRF token) is refused.
	olga = b.as("olga")
	req, _ = http.NewRequest(http.MethodPost, b.srv.URL+"/logout", strings.NewReader(""))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if res := olga.noFollow(req); res.StatusCode != http.StatusForbidden {
		t.Errorf("a logout without the form's token: %d", res.StatusCode)
	}
	if p := olga.mustGet("/"); p.text("session-user") != "olga" {
		t.Errorf("the forged logout ended the session")
	}
}

func TestFirstRun(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, nil, nil)
	token := b.acc.SetupToken()
	if token == "" {
		t.Fatal("a server without users has a set-up token")
	}
	for _, path := range []string{"/", "/login", "/tasks"} {
		if p := b.get(path); p.url != "/setup" || p.testid("setup-form").Length() != 1 {
			t.Errorf("GET %s leads to %s, want /setup", path, p.url)
		}
	}
	form := func(tok, user, pw, repeat string) url.Values {
		return url.Values{"token": {tok}, "user": {user}, "password": {pw}, "repeat": {repeat}}
	}
	p := b.post("/setup", form("wrong", "ada", password, password))
	if p.status != http.StatusForbidden || !strings.Contains(p.text("flash"), "set-up token is wrong") || p.testid("setup-user").AttrOr("value", "") != "ada" {
		t.Errorf("a wrong token: %d %q", p.status, p.text("flash"))
	}
	if p := b.post("/setup", form(token, "ada", password, password+"x")); p.status != http.StatusBadRequest || !strings.Contains(p.text("flash"), "differ") {
		t.Errorf("two different passwords: %d %q", p.status, p.text("flash"))
	}
	if p := b.post("/setup", form(token, "ada", "short", "short")); p.status != http.StatusBadRequest || !strings.Contains(p.text("flash"), "password") {
		t.Errorf("a short password: %d %q", p.status, p.text("flash"))
	}
	p = b.post("/setup", form(token, "ada", password, password))
	if p.status != http.StatusOK || p.url != "/admin/users" || p.text("session-user") != "ada" || p.testid("user").Length() != 1 {
		t.Fatalf("set-up: %d at %s as %q, flash %q", p.status, p.url, p.text("session-user"), p.text("flash"))
	}
	if b.acc.SetupToken() != "" {
		t.Errorf("the set-up token is used up")
	}
	if p := b.browserFor().get("/setup"); p.url != "/login" {
		t.Errorf("once set up, /setup leads to the login: %s", p.url)
	}
	if p := b.browserFor().post("/setup", form(token, "eve", password, password)); p.url != "/login" || p.text("session-user") != "" {
		t.Errorf("a second set-up: %s %q", p.url, p.text("flash"))
	}
	if e := b.lastAudit("cockpit: first-run set-up"); e.Actor != "ada" || e.Outcome != "ok" || e.Resource != "user ada" {
		t.Errorf("set-up recorded as %+v", e)
	}
	if es := b.auditTrail(access.AuditFilter{Action: "cockpit: first-run set-up", Outcome: "denied"}); len(es) != 1 {
		t.Errorf("the wrong token is recorded: %d", len(es))
	}
}

// The session cookie is the JSON API's: logged in to the cockpit, a page's
// API calls are the same person. It is HttpOnly, SameSite=Lax, and Secure
// over TLS or when told.
func TestSessionCookie(t *testing.T) {
	t.Parallel()
	if cockpit.CookieSession != api.SessionCookie {
		t.Fatalf("the cockpit's session cookie %q is not the API's %q", cockpit.CookieSession, api.SessionCookie)
	}
	b := setupAuth(t, map[string]auth.Role{"olga": auth.RoleOperator}, nil)
	olga := b.as("olga")
	res, err := olga.client.Get(b.srv.URL + "/api/v1/auth/me")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("the API does not know the cockpit's session: %d", res.StatusCode)
	}

	check := func(name string, srv *httptest.Server, client *http.Client, secure bool) {
		t.Helper()
		nb := b.browserFor()
		nb.srv, nb.client.Transport = srv, client.Transport
		nb.get("/login")
		form := url.Values{"user": {"olga"}, "password": {password}, cockpit.CSRFField: {nb.csrf()}}
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res := nb.noFollow(req)
		var got *http.Cookie
		for _, c := range res.Cookies() {
			if c.Name == cockpit.CookieSession {
				got = c
			}
		}
		if got == nil || !got.HttpOnly || got.SameSite != http.SameSiteLaxMode || got.Secure != secure || got.Path != "/" {
			t.Errorf("%s: session cookie %+v, want HttpOnly, Lax, Secure %v", name, got, secure)
		}
	}
	check("plain HTTP", b.srv, http.DefaultClient, false)

	tlsSrv := httptest.NewTLSServer(api.New(b.rt, nil, api.Options{Access: b.acc, Fallback: cockpit.New(b.rt, nil, cockpit.Options{Access: b.acc})}))
	defer tlsSrv.Close()
	check("HTTPS", tlsSrv, tlsSrv.Client(), true)

	behind := httptest.NewServer(api.New(b.rt, nil, api.Options{Access: b.acc, Fallback: cockpit.New(b.rt, nil, cockpit.Options{Access: b.acc, SecureCookies: true})}))
	defer behind.Close()
	check("SecureCookies", behind, http.DefaultClient, true)
}

// A user disabled while logged in is logged out at their next request.
func TestDisabledUserLosesTheSession(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"olga": auth.RoleOperator}, nil)
	olga := b.as("olga")
	yes := true
	if _, err := b.acc.UpdateUser(context.Background(), "olga", access.UserChange{Disabled: &yes}); err != nil {
		t.Fatal(err)
	}
	if p := olga.get("/tasks"); p.url != "/login?next=%2Ftasks" {
		t.Errorf("a disabled user's page: %s", p.url)
	}
}

// Without logins the login routes and the admin pages do not exist.
func TestNoLoginsWithoutAuthentication(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, path := range []string{"/login", "/setup", "/admin/users", "/admin/audit"} {
		if p := b.get(path); p.status != http.StatusNotFound {
			t.Errorf("GET %s without logins: %d", path, p.status)
		}
	}
	if p := b.post("/logout", nil); p.status != http.StatusNotFound {
		t.Errorf("POST /logout without logins: %d", p.status)
	}
	p := b.mustGet("/")
	if p.testid("identity-form").Length() != 1 || p.testid("session").Length() != 0 || p.doc.Find(`[data-testid="nav"] a`).Length() != 6 {
		t.Errorf("without logins the header keeps the acting-as box and the six pages")
	}
}
