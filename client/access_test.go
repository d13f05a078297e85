package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"testing"

	"github.com/gobpm/gobpm/client"
	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
)

// MustAuthServer serves the real router with --auth builtin over a real
// runtime and access service on a fresh database (testdb), and
// returns the server with its one-time set-up token.
func MustAuthServer(tb testing.TB) (*httptest.Server, string) {
	tb.Helper()
	ctx := context.Background()
	db := testdb.MustOpen(tb) // SQLite, or PostgreSQL with GOBPM_TEST_DB=postgres
	rt := runtime.New(db, runtime.Options{})
	tb.Cleanup(func() { _ = rt.Close() })
	acc, err := access.New(ctx, access.Config{Mode: access.ModeBuiltin, Store: db, Params: auth.TestParams()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = acc.Close(context.Background()) })
	srv := httptest.NewServer(api.New(rt, nil, api.Options{Access: acc}))
	tb.Cleanup(srv.Close)
	return srv, acc.SetupToken()
}

// MustClient returns a client of srv with opts, failing tb on error.
func MustClient(tb testing.TB, srv *httptest.Server, opts ...client.Option) *client.Client {
	tb.Helper()
	c, err := client.New(srv.URL, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestClientAccess walks the access routes: first run, login, me, users,
// groups, grants, a token used with WithToken, and the audit trail.
func TestClientAccess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, setupToken := MustAuthServer(t)
	anon := MustClient(t, srv)

	var p *client.Problem
	if _, err := anon.Me(ctx); !errors.As(err, &p) || p.Status != http.StatusUnauthorized {
		t.Errorf("me without credentials: %v", err)
	}
	if _, err := anon.Setup(ctx, "wrong", "ann", "correct horse battery"); !errors.As(err, &p) || p.Status != http.StatusForbidden {
		t.Errorf("setup with a wrong token: %v", err)
	}
	if u := must(anon.Setup(ctx, setupToken, "ann", "correct horse battery")); u.ID != "ann" {
		t.Errorf("setup = %+v", u)
	}

	// A session: the cookie jar keeps the gobpm_session cookie.
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	admin := MustClient(t, srv, client.WithHTTPClient(&http.Client{Jar: jar}))
	if _, err := admin.Login(ctx, "ann", "wrong password!"); !errors.As(err, &p) || p.Status != http.StatusUnauthorized {
		t.Errorf("login with a wrong password: %v", err)
	}
	if s := must(admin.Login(ctx, "ann", "correct horse battery")); s.User != "ann" || s.ExpiresAt == "" {
		t.Errorf("login = %+v", s)
	}
	if me := must(admin.Me(ctx)); me.User != "ann" || me.Via != "session" || len(me.Roles) != 1 || me.Roles[0] != "admin" {
		t.Errorf("me = %+v", me)
	}

	// Users, groups, memberships, grants.
	if u := must(admin.CreateUser(ctx, client.NewUser{ID: "w1", Name: "Worker one"})); u.ID != "w1" || u.CreatedAt == "" {
		t.Errorf("user = %+v", u)
	}
	if _, err := admin.CreateUser(ctx, client.NewUser{ID: "w1"}); !errors.As(err, &p) || p.Status != http.StatusConflict {
		t.Errorf("second user w1: %v", err)
	}
	name := "Worker 1"
	if u := must(admin.UpdateUser(ctx, "w1", client.UserUpdate{Name: &name})); u.Name != name {
		t.Errorf("updated user = %+v", u)
	}
	if us := must(admin.Users(ctx, "", 0)); len(us) != 2 {
		t.Errorf("users = %+v", us)
	}
	if g := must(admin.CreateGroup(ctx, "workers", "Workers")); g.ID != "workers" {
		t.Errorf("group = %+v", g)
	}
	if err := admin.AddMember(ctx, "workers", "w1"); err != nil {
		t.Fatal(err)
	}
	if g := must(admin.Group(ctx, "workers")); len(g.Members) != 1 || g.Members[0] != "w1" {
		t.Errorf("members = %+v", g)
	}
	if u := must(admin.User(ctx, "w1")); len(u.Groups) != 1 || u.Groups[0] != "workers" {
		t.Errorf("user w1 = %+v", u)
	}
	if gs := must(admin.Groups(ctx)); len(gs) != 1 {
		t.Errorf("groups = %+v", gs)
	}
	workers := client.Subject{Kind: "group", ID: "workers"}
	gr := must(admin.CreateGrant(ctx, client.GrantRequest{Subject: workers, Role: "worker"}))
	if gr.ID == 0 || gr.Role != "worker" || gr.Subject != workers {
		t.Errorf("grant = %+v", gr)
	}
	extra := must(admin.CreateGrant(ctx, client.GrantRequest{Subject: workers, Grant: &client.Grant{Permission: "read", Kind: "process", Pattern: "order-*"}}))
	if grs := must(admin.Grants(ctx, workers)); len(grs) != 2 {
		t.Errorf("grants = %+v", grs)
	}
	if err := admin.DeleteGrant(ctx, extra.ID); err != nil {
		t.Fatal(err)
	}

	// A token for w1, used as a bearer token.
	minted := must(admin.CreateToken(ctx, client.TokenRequest{Owner: "w1", Name: "ci"}))
	if minted.Secret == "" || minted.Token.Owner != "w1" {
		t.Fatalf("token = %+v", minted)
	}
	worker := MustClient(t, srv, client.WithToken(minted.Secret))
	if me := must(worker.Me(ctx)); me.User != "w1" || me.Via != "token:"+minted.Token.ID || len(me.Groups) != 1 {
		t.Errorf("token me = %+v", me)
	}
	if _, err := worker.Users(ctx, "", 0); !errors.As(err, &p) || p.Status != http.StatusForbidden {
		t.Errorf("worker lists users: %v", err)
	}
	if ts := must(admin.Tokens(ctx, "w1")); len(ts) != 1 || ts[0].ID != minted.Token.ID {
		t.Errorf("tokens = %+v", ts)
	}
	if err := admin.RevokeToken(ctx, minted.Token.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := worker.Me(ctx); !errors.As(err, &p) || p.Status != http.StatusUnauthorized {
		t.Errorf("revoked token: %v", err)
	}

	// The audit trail names what happened.
	page := must(admin.Audit(ctx, client.AuditFilter{Actor: "ann", Limit: 100}))
	actions := map[string]bool{}
	for _, e := range page.Items {
		actions[e.Action+" "+e.Outcome] = true
	}
	for _, want := range []string{"login ok", "POST /api/v1/users ok", "POST /api/v1/tokens ok"} {
		if !actions[want] {
			t.Errorf("audit lacks %q: %v", want, actions)
		}
	}
	if fails := must(admin.Audit(ctx, client.AuditFilter{Action: "login-failed", Outcome: "denied"})); len(fails.Items) != 1 {
		t.Errorf("failed logins = %+v", fails.Items)
	}

	// Clean-up routes, then log out.
	if err := admin.RemoveMember(ctx, "workers", "w1"); err != nil {
		t.Fatal(err)
	}
	if err := admin.DeleteGroup(ctx, "workers"); err != nil {
		t.Fatal(err)
	}
	if err := admin.DeleteUser(ctx, "w1"); err != nil {
		t.Fatal(err)
	}
	if err := admin.Logout(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Me(ctx); !errors.As(err, &p) || p.Status != http.StatusUnauthorized {
		t.Errorf("me after logout: %v", err)
	}
}
