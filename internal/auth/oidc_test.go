package auth_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
)

const (
	testClientID     = "gobpm-cockpit"
	testClientSecret = "s3cret-client-value"
	testAudience     = "gobpm-api"
	testKID          = "key-1"
)

// testIDP is an OpenID provider in the test process, on 127.0.0.1: a
// discovery document, a JWKS with one RSA key, and a token endpoint that
// checks the client's secret and the PKCE verifier of codes the test
// issued.
type testIDP struct {
	tb       testing.TB
	srv      *httptest.Server
	key      *rsa.PrivateKey
	redirect string

	mu        sync.Mutex
	codes     map[string]pendingCode // code → what it was issued for
	issuer    string                 // what discovery claims; the server's URL unless changed
	exchanges []string               // outcome of each token request
	jwksHits  int                    // key set fetches
	published []publishedKey         // what the key set serves
	issued    int                    // codes issued so far
}

type publishedKey struct {
	kid string
	key *rsa.PublicKey
}

type pendingCode struct {
	challenge, idToken string
}

func newTestIDP(tb testing.TB) *testIDP {
	tb.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	p := &testIDP{tb: tb, key: key, codes: map[string]pendingCode{}}
	p.published = []publishedKey{{testKID, &key.PublicKey}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("POST /token", p.token)
	p.srv = httptest.NewServer(mux) // binds 127.0.0.1
	tb.Cleanup(p.srv.Close)
	if !strings.HasPrefix(p.srv.URL, "http://127.0.0.1:") {
		tb.Fatalf("test provider on %s, want loopback", p.srv.URL)
	}
	p.issuer = p.srv.URL
	p.redirect = "http://127.0.0.1:8080/auth/callback"
	return p
}

func (p *testIDP) discovery(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	iss := p.issuer
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                iss,
		"authorization_endpoint":                p.srv.URL + "/authorize",
		"token_endpoint":                        p.srv.URL + "/token",
		"jwks_uri":                              p.srv.URL + "/jwks",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported":      []string{"S256"},
	})
}

func (p *testIDP) jwks(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	p.jwksHits++
	published := p.published
	p.mu.Unlock()
	keys := []map[string]string{
		// Keys a relying party must skip: one for encryption, an HMAC secret.
		{"kty": "RSA", "use": "enc", "kid": "enc-1", "n": b64(p.key.N.Bytes()), "e": "AQAB"},
		{"kty": "oct", "kid": "hmac-1", "k": b64([]byte("shared-secret"))},
	}
	for _, k := range published {
		keys = append(keys, map[string]string{
			"kty": "RSA", "use": "sig", "alg": "RS256", "kid": k.kid,
			"n": b64(k.key.N.Bytes()), "e": b64(big.NewInt(int64(k.key.E)).Bytes()),
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": keys})
}

func (p *testIDP) keyFetches() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.jwksHits
}

func (p *testIDP) token(w http.ResponseWriter, r *http.Request) {
	refuse := func(why string) {
		p.mu.Lock()
		p.exchanges = append(p.exchanges, "refused: "+why)
		p.mu.Unlock()
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": why})
	}
	if err := r.ParseForm(); err != nil {
		refuse("form")
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != testClientID || secret != testClientSecret {
		refuse("client authentication")
		return
	}
	if r.PostForm.Get("grant_type") != "authorization_code" || r.PostForm.Get("redirect_uri") != p.redirect {
		refuse("grant type or redirect")
		return
	}
	p.mu.Lock()
	pc, ok := p.codes[r.PostForm.Get("code")]
	delete(p.codes, r.PostForm.Get("code"))
	p.mu.Unlock()
	if !ok {
		refuse("unknown code")
		return
	}
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if b64(sum[:]) != pc.challenge {
		refuse("PKCE verifier")
		return
	}
	p.mu.Lock()
	p.exchanges = append(p.exchanges, "ok")
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": "opaque-access-token", "token_type": "Bearer", "expires_in": 3600,
		"id_token": pc.idToken,
	})
}

// authorize plays the browser and the provider's login page: it reads the
// authorization URL the relying party built and issues a code bound to its
// code challenge, for an ID token with claims (nonce added from the URL
// unless claims set one).
func (p *testIDP) authorize(loginURL string, claims map[string]any) string {
	p.tb.Helper()
	u, err := url.Parse(loginURL)
	if err != nil {
		p.tb.Fatal(err)
	}
	q := u.Query()
	if _, ok := claims["nonce"]; !ok {
		claims["nonce"] = q.Get("nonce")
	}
	p.mu.Lock()
	p.issued++
	code := fmt.Sprintf("code-%d", p.issued)
	p.codes[code] = pendingCode{challenge: q.Get("code_challenge"), idToken: p.sign(p.key, "RS256", claims)}
	p.mu.Unlock()
	return code
}

// claims returns a valid token's claims for audience, with over applied
// (a nil value deletes a claim).
func (p *testIDP) claims(audience any, over map[string]any) map[string]any {
	c := map[string]any{
		"iss": p.srv.URL, "sub": "u-123", "aud": audience,
		"iat": t0.Unix(), "exp": t0.Add(time.Hour).Unix(),
		"preferred_username": "ann", "email": "ann@example.test",
		"groups": []string{"bpm-ops", "bpm-devs", "unrelated"},
	}
	for k, v := range over {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

// sign makes a compact JWS of claims with key (alg RS256 or none), naming
// testKID.
func (p *testIDP) sign(key *rsa.PrivateKey, alg string, claims map[string]any) string {
	p.tb.Helper()
	return p.signKID(key, testKID, alg, claims)
}

// signKID is sign naming key id kid ("" names none).
func (p *testIDP) signKID(key *rsa.PrivateKey, kid, alg string, claims map[string]any) string {
	p.tb.Helper()
	h := map[string]string{"alg": alg, "typ": "JWT"}
	if kid != "" {
		h["kid"] = kid
	}
	header, _ := json.Marshal(h)
	payload, err := json.Marshal(claims)
	if err != nil {
		p.tb.Fatal(err)
	}
	input := b64(header) + "." + b64(payload)
	if alg == "none" {
		return input + "."
	}
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
	if err != nil {
		p.tb.Fatal(err)
	}
	return input + "." + b64(sig)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (p *testIDP) config(mutate func(*auth.OIDCConfig)) auth.OIDCConfig {
	cfg := auth.OIDCConfig{
		IssuerURL:    p.srv.URL,
		ClientID:     testClientID,
		ClientSecret: testClientSecret,
		RedirectURL:  p.redirect,
		Audience:     testAudience,
		Scopes:       []string{"profile", "email", "openid"},
		UserClaim:    "preferred_username",
		GroupsClaim:  "groups",
		GroupMap: map[string][]auth.GroupID{
			"bpm-ops":  {"operators"},
			"bpm-devs": {"developers", "staff"},
		},
		HTTPClient: p.srv.Client(),
		Now:        func() time.Time { return t0.Add(time.Minute) },
	}
	if mutate != nil {
		mutate(&cfg)
	}
	return cfg
}

func (p *testIDP) relyingParty(mutate func(*auth.OIDCConfig)) *auth.OIDC {
	p.tb.Helper()
	o, err := auth.NewOIDC(context.Background(), p.config(mutate))
	if err != nil {
		p.tb.Fatalf("NewOIDC: %v", err)
	}
	return o
}

func TestOIDCVerifyBearer(t *testing.T) {
	t.Parallel()
	idp := newTestIDP(t)
	rp := idp.relyingParty(nil)
	otherKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	valid := idp.sign(idp.key, "RS256", idp.claims(testAudience, nil))
	parts := strings.Split(valid, ".")
	forged, _ := json.Marshal(idp.claims(testAudience, map[string]any{"preferred_username": "admin"}))
	tampered := parts[0] + "." + b64(forged) + "." + parts[2]
	want := auth.Identity{
		Issuer: idp.srv.URL, Subject: "u-123", User: "ann", Email: "ann@example.test",
		Groups: []auth.GroupID{"developers", "operators", "staff"}, Expiry: t0.Add(time.Hour),
	}
	tests := []struct {
		name    string
		raw     string
		want    *auth.Identity
		wantErr []error
	}{
		{"valid", valid, &want, nil},
		{"audience among several", idp.sign(idp.key, "RS256", idp.claims([]string{"other", testAudience}, nil)), &want, nil},
		{"expired", idp.sign(idp.key, "RS256", idp.claims(testAudience, map[string]any{"exp": t0.Unix()})),
			nil, []error{auth.ErrTokenRejected, auth.ErrExpired}},
		{"no expiry", idp.sign(idp.key, "RS256", idp.claims(testAudience, map[string]any{"exp": nil})),
			nil, []error{auth.ErrTokenRejected}},
		{"not yet valid", idp.sign(idp.key, "RS256", idp.claims(testAudience, map[string]any{"nbf": t0.Add(10 * time.Minute).Unix()})),
			nil, []error{auth.ErrTokenRejected}},
		{"wrong audience (an ID token)", idp.sign(idp.key, "RS256", idp.claims(testClientID, nil)),
			nil, []error{auth.ErrTokenRejected}},
		{"no audience", idp.sign(idp.key, "RS256", idp.claims(testAudience, map[string]any{"aud": nil})),
			nil, []error{auth.ErrTokenRejected}},
		{"wrong issuer", idp.sign(idp.key, "RS256", idp.claims(testAudience, map[string]any{"iss": "http://127.0.0.1:1/evil"})),
			nil, []error{auth.ErrTokenRejected}},
		{"bad signature (other key, same kid)", idp.sign(otherKey, "RS256", idp.claims(testAudience, nil)),
			nil, []error{auth.ErrTokenRejected}},
		{"tampered claims", tampered, nil, []error{auth.ErrTokenRejected}},
		{"alg none", idp.sign(nil, "none", idp.claims(testAudience, nil)), nil, []error{auth.ErrTokenRejected}},
		{"not a JWT", "gobpm_notajwt", nil, []error{auth.ErrTokenRejected}},
		{"no user claim", idp.sign(idp.key, "RS256", idp.claims(testAudience, map[string]any{"preferred_username": nil})),
			nil, []error{auth.ErrTokenRejected}},
		{"groups claim of the wrong shape", idp.sign(idp.key, "RS256", idp.claims(testAudience, map[string]any{"groups": 42})),
			nil, []error{auth.ErrTokenRejected}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := rp.VerifyBearer(context.Background(), tt.raw)
			if tt.want != nil {
				if err != nil {
					t.Fatalf("VerifyBearer: %v", err)
				}
				if !reflect.DeepEqual(got, *tt.want) {
					t.Fatalf("VerifyBearer = %+v, want %+v", got, *tt.want)
				}
				return
			}
			for _, e := range tt.wantErr {
				if !errors.Is(err, e) {
					t.Errorf("VerifyBearer = %v, want %v", err, e)
				}
			}
			if got.User != "" {
				t.Errorf("a rejected token gave user %q", got.User)
			}
		})
	}
	// The clock is the injected one: the same token is expired an hour on.
	late := idp.relyingParty(func(c *auth.OIDCConfig) { c.Now = func() time.Time { return t0.Add(2 * time.Hour) } })
	if _, err := late.VerifyBearer(context.Background(), valid); !errors.Is(err, auth.ErrExpired) {
		t.Errorf("VerifyBearer two hours on = %v, want ErrExpired", err)
	}
}

func TestOIDCGroupMapping(t *testing.T) {
	t.Parallel()
	idp := newTestIDP(t)
	tests := []struct {
		name   string
		mutate func(*auth.OIDCConfig)
		claims map[string]any
		want   []auth.GroupID
	}{
		{"mapped only", nil, nil, []auth.GroupID{"developers", "operators", "staff"}},
		{"keep unmapped", func(c *auth.OIDCConfig) { c.KeepUnmapped = true }, nil,
			[]auth.GroupID{"developers", "operators", "staff", "unrelated"}},
		{"two values, one group", nil, map[string]any{"groups": []string{"bpm-devs", "bpm-devs-2"}},
			[]auth.GroupID{"developers", "staff"}},
		{"single string", nil, map[string]any{"groups": "bpm-ops"}, []auth.GroupID{"operators"}},
		{"missing claim", nil, map[string]any{"groups": nil}, nil},
		{"null claim", func(c *auth.OIDCConfig) { c.KeepUnmapped = true }, map[string]any{"groups": []any{}}, nil},
		{"no groups claim configured", func(c *auth.OIDCConfig) { c.GroupsClaim = "" }, nil, nil},
		{"nested roles", func(c *auth.OIDCConfig) {
			c.GroupsClaim = "realm_access.roles"
			c.GroupMap = map[string][]auth.GroupID{"bpm-admin": {"admins"}}
		}, map[string]any{"realm_access": map[string]any{"roles": []string{"bpm-admin", "offline_access"}}},
			[]auth.GroupID{"admins"}},
		{"nested path missing", func(c *auth.OIDCConfig) { c.GroupsClaim = "realm_access.roles" },
			map[string]any{"realm_access": "x"}, nil},
		{"sub as user", func(c *auth.OIDCConfig) { c.UserClaim = "" }, nil, []auth.GroupID{"developers", "operators", "staff"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rp := idp.relyingParty(tt.mutate)
			id, err := rp.VerifyBearer(context.Background(), idp.sign(idp.key, "RS256", idp.claims(testAudience, tt.claims)))
			if err != nil {
				t.Fatalf("VerifyBearer: %v", err)
			}
			if !reflect.DeepEqual(id.Groups, tt.want) {
				t.Errorf("groups = %v, want %v", id.Groups, tt.want)
			}
			p := id.Principal()
			if p.User != id.User || !reflect.DeepEqual(p.Groups, id.Groups) || p.Roles != nil || p.Grants != nil {
				t.Errorf("Principal() = %+v", p)
			}
		})
	}
	sub := idp.relyingParty(func(c *auth.OIDCConfig) { c.UserClaim = "" })
	if id, _ := sub.VerifyBearer(context.Background(), idp.sign(idp.key, "RS256", idp.claims(testAudience, nil))); id.User != "u-123" {
		t.Errorf("default user claim gave %q, want the subject", id.User)
	}
}

func TestOIDCLogin(t *testing.T) {
	t.Parallel()
	idp := newTestIDP(t)
	rp := idp.relyingParty(nil)
	start := func(t *testing.T, seed byte) auth.LoginRequest {
		t.Helper()
		lr, err := rp.StartLogin(seeded(seed))
		if err != nil {
			t.Fatalf("StartLogin: %v", err)
		}
		return lr
	}

	t.Run("authorization URL", func(t *testing.T) {
		t.Parallel()
		lr := start(t, 1)
		u, err := url.Parse(lr.URL)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		checks := map[string]string{
			"response_type": "code", "client_id": testClientID, "redirect_uri": idp.redirect,
			"scope": "openid profile email", "state": lr.State, "nonce": lr.Nonce,
			"code_challenge": auth.S256Challenge(lr.Verifier), "code_challenge_method": "S256",
		}
		for k, want := range checks {
			if got := q.Get(k); got != want {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
		if u.Scheme+"://"+u.Host+u.Path != idp.srv.URL+"/authorize" {
			t.Errorf("URL %s is not the provider's authorization endpoint", lr.URL)
		}
		if len(string(lr.Verifier)) != 43 || lr.State == lr.Nonce || strings.Contains(lr.URL, string(lr.Verifier)) {
			t.Errorf("state %q, nonce %q, verifier of %d characters, in URL: %v",
				lr.State, lr.Nonce, len(string(lr.Verifier)), strings.Contains(lr.URL, string(lr.Verifier)))
		}
		if again := start(t, 1); again.URL != lr.URL {
			t.Error("the same seed gave another login")
		}
		if other := start(t, 2); other.State == lr.State || other.Verifier == lr.Verifier {
			t.Error("another seed gave the same state or verifier")
		}
		assertNoLeak(t, lr, string(lr.Verifier))
	})

	tests := []struct {
		name    string
		claims  map[string]any // ID token claims over the defaults
		tamper  func(lr *auth.LoginRequest) (state string)
		want    error  // nil: success
		outcome string // the token endpoint's answer, "" if never asked
	}{
		{name: "success", outcome: "ok"},
		{name: "wrong state", tamper: func(lr *auth.LoginRequest) string { return lr.State + "x" }, want: auth.ErrStateMismatch},
		{name: "empty state", tamper: func(lr *auth.LoginRequest) string { lr.State = ""; return "" }, want: auth.ErrStateMismatch},
		{name: "wrong nonce", claims: map[string]any{"nonce": "replayed"}, want: auth.ErrNonceMismatch, outcome: "ok"},
		{name: "no nonce", claims: map[string]any{"nonce": ""}, want: auth.ErrNonceMismatch, outcome: "ok"},
		{name: "wrong verifier", tamper: func(lr *auth.LoginRequest) string { lr.Verifier += "x"; return lr.State },
			want: errAny, outcome: "refused: PKCE verifier"},
		{name: "ID token for another client", claims: map[string]any{"aud": testAudience}, want: auth.ErrTokenRejected, outcome: "ok"},
		{name: "expired ID token", claims: map[string]any{"exp": t0.Unix()}, want: auth.ErrExpired, outcome: "ok"},
		{name: "ID token from another issuer", claims: map[string]any{"iss": "http://127.0.0.1:1"}, want: auth.ErrTokenRejected, outcome: "ok"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Not parallel: each case reads the provider's exchange log.
			lr := start(t, byte(10+i))
			claims := idp.claims(testClientID, tt.claims)
			code := idp.authorize(lr.URL, claims)
			state := lr.State
			if tt.tamper != nil {
				state = tt.tamper(&lr)
			}
			idp.mu.Lock()
			before := len(idp.exchanges)
			idp.mu.Unlock()
			id, err := rp.FinishLogin(context.Background(), lr, state, code)
			idp.mu.Lock()
			log := idp.exchanges[before:]
			idp.mu.Unlock()
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("FinishLogin: %v", err)
			case tt.want == nil:
				if id.User != "ann" || id.Subject != "u-123" || len(id.Groups) != 3 {
					t.Errorf("identity = %+v", id)
				}
			case tt.want == errAny && err == nil, tt.want != errAny && !errors.Is(err, tt.want):
				t.Fatalf("FinishLogin = %v, want %v", err, tt.want)
			}
			if tt.want != nil && id.User != "" {
				t.Errorf("a failed login gave user %q", id.User)
			}
			got := ""
			if len(log) > 0 {
				got = log[0]
			}
			if len(log) > 1 || got != tt.outcome {
				t.Errorf("token endpoint said %q, want %q", log, tt.outcome)
			}
		})
	}
}

func TestOIDCKeyFetching(t *testing.T) {
	t.Parallel()
	idp := newTestIDP(t)
	clock := newFakeClock()
	rp := idp.relyingParty(func(c *auth.OIDCConfig) { c.Now = clock.Now; c.KeyRefresh = 30 * time.Second })
	verify := func(raw string) error {
		_, err := rp.VerifyBearer(context.Background(), raw)
		return err
	}
	claims := idp.claims(testAudience, nil)
	if err := verify(idp.sign(idp.key, "RS256", claims)); err != nil {
		t.Fatalf("first token: %v", err)
	}
	if n := idp.keyFetches(); n != 1 {
		t.Fatalf("%d key fetches for the first token, want 1", n)
	}
	// Garbage does not make gobpm hammer the provider: a bad signature
	// under a known key id never fetches, unknown ids at most once per
	// KeyRefresh.
	forger, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		for _, raw := range []string{
			idp.sign(forger, "RS256", claims),
			idp.signKID(forger, fmt.Sprintf("unknown-%d", i), "RS256", claims),
			idp.signKID(forger, "", "RS256", claims),
			idp.signKID(forger, "enc-1", "RS256", claims),
			idp.signKID(forger, "hmac-1", "RS256", claims),
		} {
			if err := verify(raw); !errors.Is(err, auth.ErrTokenRejected) {
				t.Fatalf("forged token: %v, want ErrTokenRejected", err)
			}
		}
	}
	if n := idp.keyFetches(); n != 1 {
		t.Fatalf("%d key fetches after 100 forged tokens, want still 1", n)
	}
	// The provider rotates to a new key. A token under it is refused until
	// KeyRefresh has passed since the last fetch, then the new key is
	// fetched once and accepted; the old key is gone.
	rotated, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	idp.mu.Lock()
	idp.published = []publishedKey{{"key-2", &rotated.PublicKey}}
	idp.mu.Unlock()
	fresh := idp.signKID(rotated, "key-2", "RS256", claims)
	clock.Advance(29 * time.Second)
	if err := verify(fresh); !errors.Is(err, auth.ErrTokenRejected) {
		t.Fatalf("new key within KeyRefresh: %v, want ErrTokenRejected", err)
	}
	clock.Advance(time.Second)
	for range 3 {
		if err := verify(fresh); err != nil {
			t.Fatalf("new key after KeyRefresh: %v", err)
		}
	}
	if n := idp.keyFetches(); n != 2 {
		t.Fatalf("%d key fetches after the rotation, want 2", n)
	}
	if err := verify(idp.sign(idp.key, "RS256", claims)); !errors.Is(err, auth.ErrTokenRejected) {
		t.Fatalf("token under the retired key: %v, want ErrTokenRejected", err)
	}
	// A token without key id is tried against every key held.
	if err := verify(idp.signKID(rotated, "", "RS256", claims)); err != nil {
		t.Fatalf("token without key id: %v", err)
	}
	// Long after, a bad signature under a key id we hold still fetches
	// nothing; an unknown key id does.
	clock.Advance(time.Hour)
	if err := verify(idp.signKID(forger, "key-2", "RS256", claims)); !errors.Is(err, auth.ErrTokenRejected) {
		t.Fatalf("forged token under a held key id: %v", err)
	}
	if n := idp.keyFetches(); n != 2 {
		t.Fatalf("%d key fetches after a forged token under a held key id, want 2", n)
	}
	if err := verify(idp.signKID(forger, "key-3", "RS256", claims)); !errors.Is(err, auth.ErrTokenRejected) {
		t.Fatalf("forged token under an unknown key id: %v", err)
	}
	if n := idp.keyFetches(); n != 3 {
		t.Fatalf("%d key fetches after an unknown key id, want 3", n)
	}
}

// errAny stands for "some error" in a table.
var errAny = errors.New("any error")

func TestNewOIDCRefuses(t *testing.T) {
	t.Parallel()
	idp := newTestIDP(t)
	tests := []struct {
		name   string
		mutate func(*auth.OIDCConfig)
		want   error
	}{
		{"http issuer off loopback", func(c *auth.OIDCConfig) { c.IssuerURL = "http://idp.example.test" }, auth.ErrInvalidConfig},
		{"relative issuer", func(c *auth.OIDCConfig) { c.IssuerURL = "/realms/x" }, auth.ErrInvalidConfig},
		{"http redirect off loopback", func(c *auth.OIDCConfig) { c.RedirectURL = "http://gobpm.example.test/cb" }, auth.ErrInvalidConfig},
		{"no client id", func(c *auth.OIDCConfig) { c.ClientID = "" }, auth.ErrInvalidConfig},
		{"issuer differs from discovery", func(c *auth.OIDCConfig) { c.IssuerURL += "/" }, errAny},
		{"nothing there", func(c *auth.OIDCConfig) { c.IssuerURL = idp.srv.URL + "/nowhere" }, errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, err := auth.NewOIDC(context.Background(), idp.config(tt.mutate))
			if o != nil || err == nil || (tt.want != errAny && !errors.Is(err, tt.want)) {
				t.Fatalf("NewOIDC = %v, %v; want %v", o, err, tt.want)
			}
		})
	}
	// Without a redirect URL the relying party verifies bearers but cannot log in.
	rp := idp.relyingParty(func(c *auth.OIDCConfig) { c.RedirectURL = "" })
	if _, err := rp.StartLogin(seeded(1)); !errors.Is(err, auth.ErrInvalidConfig) {
		t.Errorf("StartLogin without redirect URL = %v, want ErrInvalidConfig", err)
	}
	if _, err := idp.relyingParty(nil).StartLogin(failingReader{}); err == nil {
		t.Error("StartLogin with a failing reader succeeded")
	}
}
