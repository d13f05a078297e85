package cockpit

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/auth/oidctest"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// oidcHandler is the cockpit's handler with --auth oidc against a test
// provider, for calling its login handlers directly.
func oidcHandler(t *testing.T) *handler {
	t.Helper()
	ctx := context.Background()
	p := oidctest.New(t)
	o, err := auth.NewOIDC(ctx, auth.OIDCConfig{IssuerURL: p.URL(), ClientID: oidctest.ClientID, ClientSecret: oidctest.ClientSecret,
		RedirectURL: "http://127.0.0.1/login/oidc/callback", HTTPClient: p.Client()})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	acc, err := access.New(ctx, access.Config{Mode: access.ModeOIDC, Store: db, OIDC: o, Params: auth.TestParams(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = acc.Close(context.Background())
		_ = db.Close()
	})
	return &handler{log: slog.New(slog.DiscardHandler), opts: Options{Access: acc, OIDC: o}, pending: newPendingLogins(time.Now)}
}

// startLogin posts the login button from addr and returns the state the
// provider is sent with.
func startLogin(t *testing.T, h *handler, addr string) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/login/oidc", strings.NewReader("next=%2Ftasks"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.RemoteAddr = addr + ":40000"
	rec := httptest.NewRecorder()
	h.loginOIDC(rec, req)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("login start from %s: %d %s", addr, rec.Code, rec.Body)
	}
	u, err := url.Parse(rec.Header().Get("Location"))
	if err != nil || u.Query().Get("state") == "" {
		t.Fatalf("redirect %q: %v", rec.Header().Get("Location"), err)
	}
	return u.Query().Get("state")
}

// Login starts need no credential, so one client address may keep only
// maxOIDCLoginsPerAddr of them: a flood from one address drops its own
// oldest starts, never the logins others started, and the table stays
// small.
func TestOIDCLoginStartsBoundedPerAddress(t *testing.T) {
	t.Parallel()
	h := oidcHandler(t)
	other := startLogin(t, h, "198.51.100.7")
	var flood []string
	for range 10 * maxOIDCLoginsPerAddr {
		flood = append(flood, startLogin(t, h, "203.0.113.9"))
	}
	if n := h.pending.addrLen("203.0.113.9"); n != maxOIDCLoginsPerAddr {
		t.Errorf("one address keeps %d login starts, want %d", n, maxOIDCLoginsPerAddr)
	}
	if n := h.pending.len(); n != maxOIDCLoginsPerAddr+1 {
		t.Errorf("%d login starts kept in all, want %d", n, maxOIDCLoginsPerAddr+1)
	}
	if _, _, ok := h.pending.take(flood[0]); ok {
		t.Errorf("the flood's oldest start was kept")
	}
	if _, next, ok := h.pending.take(flood[len(flood)-1]); !ok || next != "/tasks" {
		t.Errorf("the flood's newest start was dropped")
	}
	if _, _, ok := h.pending.take(other); !ok {
		t.Errorf("another address's login was pushed out by the flood")
	}
	if n := h.pending.len(); n != maxOIDCLoginsPerAddr-1 {
		t.Errorf("after two takes %d kept, want %d", n, maxOIDCLoginsPerAddr-1)
	}
}
