package httpjson

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// oauthServer is a token endpoint that counts its fetches and issues
// tok-1, tok-2, … (each valid for expiresIn seconds), and a service that
// accepts only the token valid names.
type oauthServer struct {
	*httptest.Server
	fetches atomic.Int32
	calls   atomic.Int32
	valid   atomic.Value // string: the token the service accepts; "*" any
	refuse  atomic.Bool  // the service refuses every token
}

func newOAuthServer(t *testing.T, expiresIn int) *oauthServer {
	t.Helper()
	s := &oauthServer{}
	s.valid.Store("*")
	mux := http.NewServeMux()
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.PostForm.Get("client_secret") != "s3cret" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		tok := fmt.Sprintf("tok-%d", s.fetches.Add(1))
		if s.valid.Load() != "*" {
			s.valid.Store(tok)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":%d}`, tok, expiresIn)
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		s.calls.Add(1)
		if v := s.valid.Load().(string); s.refuse.Load() || v != "*" && r.Header.Get("Authorization") != "Bearer "+v {
			http.Error(w, "token refused", http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, r.Header.Get("Authorization"))
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// oauthTask calls the service with a token of the client (secret,
// scopes).
func (s *oauthServer) oauthTask(secret, scopes string) task {
	return task{retries: 1, inputs: [][2]string{{"GET", "method"}, {s.URL + "/api", "url"},
		{"oauth-client-credentials-flow", "authentication.type"}, {s.URL + "/token", "authentication.oauthTokenEndpoint"},
		{"client", "authentication.clientId"}, {secret, "authentication.clientSecret"}, {scopes, "authentication.scopes"}},
		headers: [][2]string{{"resultVariable", "r"}}}
}

func TestOAuthTokenCached(t *testing.T) {
	t.Parallel()
	s := newOAuthServer(t, 60)
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	b := setup(t, Options{AllowHosts: []string{"127.0.0.1"}, testNow: clk.now})
	for range 3 {
		completed(t, b.run(t, s.oauthTask("s3cret", "read"), nil))
	}
	if n := s.fetches.Load(); n != 1 {
		t.Fatalf("%d token fetches for three calls of one client, want 1", n)
	}
	completed(t, b.run(t, s.oauthTask("s3cret", "write"), nil))
	if n := s.fetches.Load(); n != 2 {
		t.Fatalf("%d token fetches after other scopes, want 2", n)
	}
	// A wrong secret never gets the cached token.
	v := b.run(t, s.oauthTask("wrong", "read"), nil)
	if msg := incident(t, v); !strings.Contains(msg, "oauth token: HTTP 401") {
		t.Fatalf("incident = %q", msg)
	}
	// Shortly before expires_in (60 s, less a tenth) the token is fetched
	// anew.
	clk.advance(53 * time.Second)
	completed(t, b.run(t, s.oauthTask("s3cret", "read"), nil))
	if n := s.fetches.Load(); n != 2 {
		t.Fatalf("%d token fetches 53 s later, want 2", n)
	}
	clk.advance(2 * time.Second)
	v = b.run(t, s.oauthTask("s3cret", "read"), nil)
	completed(t, v)
	if n := s.fetches.Load(); n != 3 || v.Variables["r"].(map[string]any)["body"] != "Bearer tok-3" {
		t.Fatalf("%d token fetches 55 s later, want 3; answer %v", n, v.Variables["r"])
	}
}

func TestOAuthTokenRefetchedOn401(t *testing.T) {
	t.Parallel()
	s := newOAuthServer(t, 3600)
	s.valid.Store("")
	b := setup(t, loopback)
	completed(t, b.run(t, s.oauthTask("s3cret", ""), nil))
	// The service revokes the cached token: the call is refused once, the
	// token fetched anew and the call made again.
	s.valid.Store("revoked")
	v := b.run(t, s.oauthTask("s3cret", ""), nil)
	completed(t, v)
	if f, c := s.fetches.Load(), s.calls.Load(); f != 2 || c != 3 {
		t.Fatalf("%d fetches and %d calls, want 2 and 3", f, c)
	}
	if got := v.Variables["r"].(map[string]any)["body"]; got != "Bearer tok-2" {
		t.Fatalf("answer = %v", got)
	}
	// A service that refuses every token: the cached one is refused, one
	// fetched anew too, and the call fails with the 401 (no loop).
	s.refuse.Store(true)
	s.fetches.Store(0)
	s.calls.Store(0)
	v = b.run(t, s.oauthTask("s3cret", ""), nil)
	if msg := incident(t, v); !strings.Contains(msg, "HTTP 401") {
		t.Fatalf("incident = %q", msg)
	}
	if f, c := s.fetches.Load(), s.calls.Load(); f != 1 || c != 2 {
		t.Fatalf("%d fetches and %d calls, want 1 and 2", f, c)
	}
	// The refused fresh token was dropped: the next call fetches one, and
	// a refused fresh token is not fetched again.
	v = b.run(t, s.oauthTask("s3cret", ""), nil)
	incident(t, v)
	if f, c := s.fetches.Load(), s.calls.Load(); f != 2 || c != 3 {
		t.Fatalf("%d fetches and %d calls, want 2 and 3", f, c)
	}
}

func TestTokenCacheBounded(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := newTokenCache(clk.now)
	c.put("short", "s", time.Second)
	for i := range maxCachedTokens - 1 {
		c.put(fmt.Sprint("k", i), "t", time.Duration(i+10)*time.Minute)
	}
	if len(c.tokens) != maxCachedTokens {
		t.Fatalf("%d tokens", len(c.tokens))
	}
	clk.advance(2 * time.Second)
	c.put("new", "n", time.Hour)
	if _, ok := c.tokens["short"]; ok || len(c.tokens) != maxCachedTokens {
		t.Fatalf("the expired token stays (%d tokens)", len(c.tokens))
	}
	c.put("newer", "n", time.Hour)
	if _, ok := c.tokens["k0"]; ok || len(c.tokens) != maxCachedTokens {
		t.Fatalf("the first to expire stays (%d tokens)", len(c.tokens))
	}
	if tok, ok := c.get("newer"); !ok || tok != "n" {
		t.Fatalf("get = %q %v", tok, ok)
	}
	c.put("none", "x", 0)
	if _, ok := c.get("none"); ok {
		t.Fatal("a token without a lifetime was kept")
	}
}
