package cockpit_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/cockpit"
	rt "github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// setupAuthPool is setupAuth with the access service's password hash pool
// given, and one admin, olga.
func setupAuthPool(t *testing.T, pool *auth.HashPool) *authBundle {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rt.New(db, rt.Options{})
	acc, err := access.New(ctx, access.Config{Mode: access.ModeBuiltin, Store: db, Params: auth.TestParams(), HashPool: pool,
		Logger: slog.New(slog.DiscardHandler), AuditFlush: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(r, nil, api.Options{Access: acc, Fallback: cockpit.New(r, nil, cockpit.Options{Access: acc})}))
	jar, _ := cookiejar.New(nil)
	b := &authBundle{bundle: &bundle{t: t, db: db, rt: r, srv: srv, client: &http.Client{Jar: jar}}, acc: acc}
	t.Cleanup(func() {
		r.BeginShutdown()
		srv.Close()
		_ = acc.Close(context.Background())
		_ = r.Close()
		_ = db.Close()
	})
	if _, err := acc.CreateUser(ctx, "", access.NewUser{ID: "olga", Password: password}); err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "olga"}, Role: auth.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	return b
}

// fillPool takes every slot and queue place of pool until the returned
// func is called.
func fillPool(t *testing.T, pool *auth.HashPool, places int) func() {
	t.Helper()
	hold := make(chan struct{})
	var wg sync.WaitGroup
	for range places {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = pool.Do(context.Background(), func() { <-hold })
		}()
	}
	for pool.Running()+pool.Waiting() != places {
		runtime.Gosched()
	}
	return func() { close(hold); wg.Wait() }
}

// TestLoginRefusedWhileHashingIsBusy: the cockpit's login and an admin's
// password change share the API's hash pool; with it full they answer 503
// with Retry-After and say so, checking nothing and counting no failure.
func TestLoginRefusedWhileHashingIsBusy(t *testing.T) {
	t.Parallel()
	pool, err := auth.NewHashPool(auth.HashPoolConfig{Slots: 1, Queue: 1})
	if err != nil {
		t.Fatal(err)
	}
	b := setupAuthPool(t, pool)
	admin := b.as("olga") // before the pool is full
	release := fillPool(t, pool, 2)

	b.get("/login") // the CSRF cookie
	form := url.Values{"user": {"olga"}, "password": {"wrong password!"}, cockpit.CSRFField: {b.csrf()}}
	for range 6 { // more than the 5 failures that lock a name out
		req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		res, err := b.client.Do(req) // a refusal is drawn on the login page, not redirected
		if err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(res.Body)
		_ = res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		flash := strings.Join(strings.Fields(doc.Find(`[data-testid="flash"]`).First().Text()), " ")
		if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" || !strings.Contains(flash, "busy checking other passwords") {
			t.Fatalf("login with the pool full: %d, Retry-After %q, flash %q", res.StatusCode, res.Header.Get("Retry-After"), flash)
		}
	}
	p := admin.post("/admin/users/olga/password", url.Values{"password": {"another horse battery"}})
	if !strings.Contains(p.text("flash"), "busy checking other passwords") {
		t.Errorf("password change with the pool full: %d, flash %q", p.status, p.text("flash"))
	}
	release()

	if e := b.lastAudit("login-failed"); e.Status != http.StatusServiceUnavailable {
		t.Errorf("the refused login is recorded as %+v", e)
	}
	// Not failures: olga is not locked out.
	if p := b.login("olga", password, ""); p.text("session-user") != "olga" {
		t.Errorf("after the pool frees: %d %q", p.status, p.text("flash"))
	}
}
