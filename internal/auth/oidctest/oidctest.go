// Package oidctest is an OpenID Connect provider for tests, served on
// 127.0.0.1 in the test process: a discovery document, a key set with one
// RSA signing key, an authorization step the test plays, and a token
// endpoint that checks the client's secret and the PKCE verifier. Tests of
// the API, the cockpit and the server sign their own tokens with it.
package oidctest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Client credentials the provider accepts.
const (
	ClientID     = "gobpm"
	ClientSecret = "test-client-secret"
	// Audience is the audience API bearer tokens are issued for.
	Audience = "gobpm-api"
	keyID    = "test-key"
)

// Provider is a running test provider.
type Provider struct {
	tb  testing.TB
	srv *httptest.Server
	key *rsa.PrivateKey

	mu       sync.Mutex
	codes    map[string]pending // guarded by mu
	issued   int                // guarded by mu
	redirect string             // guarded by mu; the registered redirect URL
}

type pending struct{ challenge, idToken string }

// New starts a provider that closes when the test ends.
func New(tb testing.TB) *Provider {
	tb.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	p := &Provider{tb: tb, key: key, codes: map[string]pending{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("POST /token", p.token)
	p.srv = httptest.NewServer(mux)
	tb.Cleanup(p.srv.Close)
	return p
}

// URL is the issuer URL.
func (p *Provider) URL() string { return p.srv.URL }

// Client is an HTTP client that reaches the provider.
func (p *Provider) Client() *http.Client { return p.srv.Client() }

// Register sets the redirect URL the token endpoint accepts.
func (p *Provider) Register(redirect string) {
	p.mu.Lock()
	p.redirect = redirect
	p.mu.Unlock()
}

// Claims returns a valid token's claims for audience, issued now for an
// hour, for user ann in groups, with over applied (a nil value deletes a
// claim).
func (p *Provider) Claims(audience string, now time.Time, over map[string]any) map[string]any {
	c := map[string]any{
		"iss": p.srv.URL, "sub": "sub-ann", "aud": audience, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		"preferred_username": "ann", "groups": []string{"bpm-ops"},
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

// Sign returns claims as a compact RS256 JWT signed with the provider's key.
func (p *Provider) Sign(claims map[string]any) string {
	p.tb.Helper()
	return sign(p.tb, p.key, claims)
}

// SignWithOtherKey signs claims with a key the provider does not publish.
func (p *Provider) SignWithOtherKey(claims map[string]any) string {
	p.tb.Helper()
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		p.tb.Fatal(err)
	}
	return sign(p.tb, other, claims)
}

// Authorize plays the browser at the provider's login page: for the
// authorization URL a relying party built, it issues a code whose exchange
// yields an ID token with claims (the URL's nonce added unless claims
// have one) and returns the redirect back, with state and code.
func (p *Provider) Authorize(loginURL string, claims map[string]any) string {
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
	p.codes[code] = pending{challenge: q.Get("code_challenge"), idToken: sign(p.tb, p.key, claims)}
	p.mu.Unlock()
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		p.tb.Fatal(err)
	}
	bq := back.Query()
	bq.Set("state", q.Get("state"))
	bq.Set("code", code)
	back.RawQuery = bq.Encode()
	return back.String()
}

func (p *Provider) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer": p.srv.URL, "authorization_endpoint": p.srv.URL + "/authorize", "token_endpoint": p.srv.URL + "/token",
		"jwks_uri": p.srv.URL + "/jwks", "response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"},
	})
}

func (p *Provider) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "use": "sig", "alg": "RS256", "kid": keyID,
		"n": b64(p.key.N.Bytes()), "e": b64(big.NewInt(int64(p.key.E)).Bytes()),
	}}})
}

func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	refuse := func(why string) {
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
	p.mu.Lock()
	redirect := p.redirect
	pc, known := p.codes[r.PostForm.Get("code")]
	delete(p.codes, r.PostForm.Get("code"))
	p.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	switch {
	case id != ClientID || secret != ClientSecret:
		refuse("client authentication")
	case r.PostForm.Get("redirect_uri") != redirect:
		refuse("redirect")
	case !known:
		refuse("unknown code")
	case b64(sum[:]) != pc.challenge:
		refuse("PKCE verifier")
	default:
		writeJSON(w, http.StatusOK, map[string]any{"access_token": "opaque", "token_type": "Bearer", "expires_in": 3600, "id_token": pc.idToken})
	}
}

func sign(tb testing.TB, key *rsa.PrivateKey, claims map[string]any) string {
	tb.Helper()
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": keyID})
	payload, err := json.Marshal(claims)
	if err != nil {
		tb.Fatal(err)
	}
	input := b64(header) + "." + b64(payload)
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
	if err != nil {
		tb.Fatal(err)
	}
	return input + "." + b64(sig)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
