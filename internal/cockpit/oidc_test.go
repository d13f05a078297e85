package cockpit_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/cockpit"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

const idpClientID, idpClientSecret = "gobpm-cockpit", "client-secret-value"

// idp is an OpenID provider in the test process on 127.0.0.1: discovery, a
// key set with one RSA key, an authorization endpoint that logs the
// browser in as whoever claims says at once, and a token endpoint that
// checks the client and the PKCE verifier.
type idp struct {
	t      testing.TB
	srv    *httptest.Server
	key    *rsa.PrivateKey
	mu     sync.Mutex
	claims map[string]any            // who the next login is
	codes  map[string]map[string]any // code → the ID token's claims
	chal   map[string]string         // code → PKCE challenge
	deny   string                    // an error the next authorization answers
}

func newIDP(t testing.TB) *idp {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &idp{t: t, key: key, codes: map[string]map[string]any{}, chal: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		writeJSONTo(w, map[string]any{
			"issuer": p.srv.URL, "authorization_endpoint": p.srv.URL + "/authorize", "token_endpoint": p.srv.URL + "/token",
			"jwks_uri": p.srv.URL + "/jwks", "response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		writeJSONTo(w, map[string]any{"keys": []map[string]string{{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": "k1",
			"n": b64url(key.N.Bytes()), "e": b64url(big.NewInt(int64(key.E)).Bytes())}}})
	})
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *idp) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	back, _ := url.Parse(q.Get("redirect_uri"))
	ans := url.Values{"state": {q.Get("state")}}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.deny != "" {
		ans.Set("error", p.deny)
	} else {
		code := fmt.Sprintf("code-%d", len(p.codes)+1)
		c := map[string]any{"iss": p.srv.URL, "aud": idpClientID, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(), "nonce": q.Get("nonce")}
		for k, v := range p.claims {
			c[k] = v
		}
		p.codes[code], p.chal[code] = c, q.Get("code_challenge")
		ans.Set("code", code)
	}
	back.RawQuery = ans.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (p *idp) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	code := r.PostForm.Get("code")
	p.mu.Lock()
	claims, known := p.codes[code]
	chal := p.chal[code]
	delete(p.codes, code)
	p.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if id != idpClientID || secret != idpClientSecret || !known || b64url(sum[:]) != chal {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
		return
	}
	writeJSONTo(w, map[string]any{"access_token": "opaque", "token_type": "Bearer", "expires_in": 3600, "id_token": p.sign(claims)})
}

func (p *idp) sign(claims map[string]any) string {
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": "k1"})
	payload, _ := json.Marshal(claims)
	input := b64url(header) + "." + b64url(payload)
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(nil, p.key, crypto.SHA256, sum[:])
	if err != nil {
		p.t.Fatal(err)
	}
	return input + "." + b64url(sig)
}

func b64url(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func writeJSONTo(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// setupOIDC starts the cockpit with --auth oidc against a test provider.
func setupOIDC(t *testing.T) (*authBundle, *idp) {
	t.Helper()
	ctx := context.Background()
	p := newIDP(t)
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	o, err := auth.NewOIDC(ctx, auth.OIDCConfig{IssuerURL: p.srv.URL, ClientID: idpClientID, ClientSecret: idpClientSecret,
		RedirectURL: srv.URL + "/login/oidc/callback", UserClaim: "preferred_username", GroupsClaim: "groups", KeepUnmapped: true})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	acc, err := access.New(ctx, access.Config{Mode: access.ModeOIDC, Store: db, OIDC: o, AdminGroups: []auth.GroupID{"bpm-admins"},
		Params: auth.TestParams(), Logger: slog.New(slog.DiscardHandler), AuditFlush: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = acc.Close(context.Background())
		_ = rt.Close()
		_ = db.Close()
	})
	h = api.New(rt, nil, api.Options{Access: acc, Fallback: cockpit.New(rt, nil, cockpit.Options{Access: acc, OIDC: o, OIDCName: "Test IdP"})})
	jar, _ := cookiejar.New(nil)
	return &authBundle{bundle: &bundle{t: t, rt: rt, db: db, srv: srv, client: &http.Client{Jar: jar}}, acc: acc}, p
}

func TestOIDCLogin(t *testing.T) {
	t.Parallel()
	b, p := setupOIDC(t)
	p.claims = map[string]any{"sub": "s-1", "preferred_username": "ann", "groups": []string{"clerks", "bpm-admins"}}

	page := b.get("/tasks")
	if page.url != "/login?next=%2Ftasks" || page.text("oidc-login") != "Log in with Test IdP" || page.testid("login-form").Length() != 0 {
		t.Fatalf("the login page offers the provider: %s %q", page.url, page.text("oidc-login"))
	}
	page = b.post("/login/oidc", url.Values{"next": {"/tasks"}})
	if page.status != http.StatusOK || page.url != "/tasks" || page.text("session-user") != "ann" || page.text("session-groups") != "bpm-admins, clerks" {
		t.Fatalf("after the provider: %d at %s as %q in %q, flash %q", page.status, page.url, page.text("session-user"), page.text("session-groups"), page.text("flash"))
	}
	if page.doc.Find(`[data-testid="nav"] a[href="/admin/users"]`).Length() != 1 {
		t.Errorf("the provider's admin group makes ann an admin")
	}
	if e := b.lastAudit("login"); e.Actor != "ann" || e.Via != "oidc" || e.Outcome != "ok" {
		t.Errorf("the login is recorded as %+v", e)
	}

	// The provider refuses: the login page says so.
	p.deny = "access_denied"
	nb := b.browserFor()
	nb.get("/login")
	if page := nb.post("/login/oidc", url.Values{"next": {"/"}}); page.status != http.StatusUnauthorized || !strings.Contains(page.text("flash"), "access_denied") || page.text("session-user") != "" {
		t.Errorf("a refused login: %d %q", page.status, page.text("flash"))
	}
	p.deny = ""

	// A callback this browser did not start, or one used twice, logs
	// nobody in.
	starter := b.browserFor()
	starter.get("/login")
	form := url.Values{"next": {"/"}, cockpit.CSRFField: {starter.csrf()}}
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/login/oidc", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res := starter.noFollow(req)
	authURL := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(authURL, p.srv.URL+"/authorize?") {
		t.Fatalf("start: %d to %q", res.StatusCode, authURL)
	}
	req, _ = http.NewRequest(http.MethodGet, authURL, nil)
	callback := starter.noFollow(req).Header.Get("Location")
	other := b.browserFor()
	if page := other.get(strings.TrimPrefix(callback, b.srv.URL)); page.status != http.StatusBadRequest || page.text("session-user") != "" || !strings.Contains(page.text("flash"), "not started in this browser") {
		t.Errorf("a stolen callback: %d %q", page.status, page.text("flash"))
	}
	if page := starter.get(strings.TrimPrefix(callback, b.srv.URL)); page.status != http.StatusBadRequest || page.text("session-user") != "" {
		t.Errorf("the callback after its state was spent: %d", page.status)
	}
	if es := b.auditTrail(access.AuditFilter{Action: "login-failed"}); len(es) != 3 {
		t.Errorf("failed logins recorded: %d", len(es))
	}
	if page := b.post("/login", url.Values{"user": {"ann"}, "password": {password}}); page.status != http.StatusBadRequest {
		t.Errorf("a password login with oidc: %d", page.status)
	}
}
