package access_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/clock"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// newService opens a real SQLite store in a temp dir and a builtin-mode
// service over it with a fake clock.
func newService(t *testing.T) (*access.Service, *sqlite.DB, *clock.Manual) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	clk := clock.NewManual(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	svc, err := access.New(ctx, access.Config{Mode: access.ModeBuiltin, Store: db, Params: auth.TestParams(), Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	return svc, db, clk
}

func mustUser(t *testing.T, svc *access.Service, id, password string, role auth.Role) {
	t.Helper()
	ctx := context.Background()
	if _, err := svc.CreateUser(ctx, "", access.NewUser{ID: id, Password: password}); err != nil {
		t.Fatal(err)
	}
	if role != "" {
		if _, err := svc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: id}, Role: role}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLogin(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := context.Background()
	mustUser(t, svc, "ann", "correct horse battery", auth.RoleOperator)
	mustUser(t, svc, "bot", "", auth.RoleWorker)

	cookie, sess, err := svc.Login(ctx, "ann", "correct horse battery", "127.0.0.1")
	if err != nil || sess.User != "ann" {
		t.Fatalf("login: %v %+v", err, sess)
	}
	c, err := svc.Session(ctx, cookie)
	if err != nil || c.User != "ann" || c.Via != "session" || !c.Allowed(auth.PermOperate, auth.KindProcess, "order") {
		t.Fatalf("session caller %+v, %v", c, err)
	}
	for _, tc := range []struct{ user, password string }{
		{"ann", "wrong password"}, {"ghost", "correct horse battery"}, {"bot", "anything at all"},
	} {
		if _, _, err := svc.Login(ctx, tc.user, tc.password, "127.0.0.2"); !errors.Is(err, access.ErrUnauthenticated) {
			t.Errorf("login %s/%s: %v, want ErrUnauthenticated", tc.user, tc.password, err)
		}
	}
	if err := svc.Logout(ctx, cookie); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Session(ctx, cookie); !errors.Is(err, access.ErrUnauthenticated) {
		t.Errorf("session after logout: %v", err)
	}
}

func TestDisablingAUserEndsSessionsAndTokensAtOnce(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := context.Background()
	mustUser(t, svc, "ann", "correct horse battery", auth.RoleViewer)
	cookie, _, err := svc.Login(ctx, "ann", "correct horse battery", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	secret, _, err := svc.MintToken(ctx, access.NewToken{Owner: "ann", Name: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Bearer(ctx, secret); err != nil {
		t.Fatal(err) // resolved and cached
	}
	yes := true
	if _, err := svc.UpdateUser(ctx, "ann", access.UserChange{Disabled: &yes}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Session(ctx, cookie); !errors.Is(err, access.ErrUnauthenticated) {
		t.Errorf("session of a disabled user: %v", err)
	}
	if _, err := svc.Bearer(ctx, secret); !errors.Is(err, access.ErrUnauthenticated) {
		t.Errorf("token of a disabled user: %v", err)
	}
	if _, _, err := svc.Login(ctx, "ann", "correct horse battery", "127.0.0.1"); !errors.Is(err, access.ErrUnauthenticated) {
		t.Errorf("login of a disabled user: %v", err)
	}
}

func TestGrantChangesApplyAtOnce(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := context.Background()
	mustUser(t, svc, "ann", "correct horse battery", "")
	secret, _, err := svc.MintToken(ctx, access.NewToken{Owner: "ann", Name: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := svc.Bearer(ctx, secret)
	if err != nil || c.Allowed(auth.PermRead, auth.KindProcess, "order") {
		t.Fatalf("before any grant: %+v %v", c, err)
	}
	if _, err := svc.CreateGroup(ctx, "clerks", ""); err != nil {
		t.Fatal(err)
	}
	g, err := auth.NewGrant(auth.PermRead, auth.KindProcess, "order-*")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := svc.Grant(ctx, "admin", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectGroup, ID: "clerks"}, Grant: &g})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.SetMember(ctx, "clerks", "ann", true); err != nil {
		t.Fatal(err)
	}
	if c, _ := svc.Bearer(ctx, secret); !c.Allowed(auth.PermRead, auth.KindProcess, "order-eu") || c.Allowed(auth.PermRead, auth.KindProcess, "invoice") {
		t.Errorf("after the group grant: %+v", c.Principal)
	}
	if err := svc.Revoke(ctx, rec.ID); err != nil {
		t.Fatal(err)
	}
	if c, _ := svc.Bearer(ctx, secret); c.Allowed(auth.PermRead, auth.KindProcess, "order-eu") {
		t.Errorf("the revoked grant still applies")
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	svc, _, clk := newService(t)
	ctx := context.Background()
	mustUser(t, svc, "w", "", auth.RoleWorker)
	g, _ := auth.NewGrant(auth.PermWork, auth.KindJobType, "invoice-*")
	secret, tok, err := svc.MintToken(ctx, access.NewToken{Owner: "w", Name: "invoices", Grants: []auth.Grant{g}, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	c, err := svc.Bearer(ctx, secret)
	if err != nil || c.Via != "token:"+string(tok.ID) {
		t.Fatalf("bearer: %+v %v", c, err)
	}
	if !c.Allowed(auth.PermWork, auth.KindJobType, "invoice-check") || c.Allowed(auth.PermWork, auth.KindJobType, "payroll") {
		t.Errorf("restricted token: %+v", c.Principal)
	}
	last := "a"
	if secret[len(secret)-1] == 'a' {
		last = "b"
	}
	if _, err := svc.Bearer(ctx, secret[:len(secret)-1]+last); !errors.Is(err, access.ErrUnauthenticated) {
		t.Errorf("a wrong secret: %v", err)
	}
	if _, err := svc.Bearer(ctx, "not-a-token"); !errors.Is(err, access.ErrUnauthenticated) {
		t.Errorf("garbage: %v", err)
	}
	clk.Advance(2 * time.Hour)
	if _, err := svc.Bearer(ctx, secret); !errors.Is(err, access.ErrUnauthenticated) {
		t.Errorf("an expired token: %v", err)
	}
	secret2, tok2, err := svc.MintToken(ctx, access.NewToken{Owner: "w", Name: "forever"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.RevokeToken(ctx, string(tok2.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Bearer(ctx, secret2); !errors.Is(err, access.ErrUnauthenticated) {
		t.Errorf("a revoked token: %v", err)
	}
	if _, _, err := svc.MintToken(ctx, access.NewToken{Owner: "ghost", Name: "x"}); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("a token for an unknown user: %v", err)
	}
}

func TestFirstRunOnce(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := context.Background()
	tok := svc.SetupToken()
	if tok == "" {
		t.Fatal("no set-up token")
	}
	if _, err := svc.FirstRun(ctx, tok, "ann", "short"); runtime.ErrorCode(err) != runtime.EINVALID {
		t.Fatalf("a short password: %v", err)
	}
	if _, err := svc.FirstRun(ctx, tok, "ann", "correct horse battery"); err != nil {
		t.Fatalf("the token after a corrected form: %v", err)
	}
	if svc.SetupToken() != "" {
		t.Error("the set-up token outlived the first admin")
	}
	if _, err := svc.FirstRun(ctx, tok, "bob", "correct horse battery"); runtime.ErrorCode(err) != runtime.EFORBIDDEN {
		t.Errorf("a used set-up token: %v", err)
	}
	cookie, _, err := svc.Login(ctx, "ann", "correct horse battery", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := svc.Session(ctx, cookie); !c.Unrestricted() {
		t.Errorf("the first user is no admin: %+v", c.Principal)
	}
}

func TestSessionIdleTimeout(t *testing.T) {
	t.Parallel()
	svc, _, clk := newService(t)
	ctx := context.Background()
	mustUser(t, svc, "ann", "correct horse battery", auth.RoleViewer)
	cookie, _, err := svc.Login(ctx, "ann", "correct horse battery", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // used every 50 minutes: stays alive past the idle hour
		clk.Advance(50 * time.Minute)
		if _, err := svc.Session(ctx, cookie); err != nil {
			t.Fatalf("an active session ended: %v", err)
		}
	}
	clk.Advance(61 * time.Minute)
	if _, err := svc.Session(ctx, cookie); !errors.Is(err, access.ErrUnauthenticated) {
		t.Errorf("an idle session: %v", err)
	}
}

func TestActAs(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := context.Background()
	mustUser(t, svc, "inbox", "", "")
	mustUser(t, svc, "ann", "", auth.RoleViewer)
	secret, _, err := svc.MintToken(ctx, access.NewToken{Owner: "inbox", Name: "front-end"})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := svc.Bearer(ctx, secret)
	if _, err := svc.ActAs(ctx, c, "ann"); runtime.ErrorCode(err) != runtime.EFORBIDDEN {
		t.Fatalf("act-as without the permission: %v", err)
	}
	g, _ := auth.NewGrant(auth.PermActAs, auth.KindSystem, "*")
	if _, err := svc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: "inbox"}, Grant: &g}); err != nil {
		t.Fatal(err)
	}
	c, _ = svc.Bearer(ctx, secret)
	as, err := svc.ActAs(ctx, c, "ann")
	if err != nil || as.User != "ann" || as.Actor != "inbox" || !as.Allowed(auth.PermRead, auth.KindProcess, "x") {
		t.Fatalf("act as ann: %+v %v", as, err)
	}
	if as.Allowed(auth.PermActAs, auth.KindSystem, "") {
		t.Error("the acted-for user got the front-end's act-as")
	}
	if _, err := svc.ActAs(ctx, c, "ghost"); runtime.ErrorCode(err) != runtime.EFORBIDDEN {
		t.Errorf("act as an unknown user: %v", err)
	}
}

func TestAuditTrail(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := context.Background()
	for i, e := range []access.AuditEntry{
		{Actor: "ann", Action: "POST /api/v1/instances/{id}/cancel", Resource: "instance 1", Outcome: "ok", Status: 200},
		{Actor: "bob", Action: "login-failed", Resource: "user bob", Outcome: "denied", Status: 401},
		{Actor: "ann", Action: "", Outcome: "weird"}, // repaired, not lost with its batch
	} {
		e.RequestID = string(rune('a' + i))
		svc.Record(e)
	}
	all, err := svc.Audit(ctx, access.AuditFilter{}) // flushes first
	if err != nil || len(all) != 3 {
		t.Fatalf("audit: %d entries, %v", len(all), err)
	}
	if all[0].Action != "unknown" || all[0].Outcome != "error" {
		t.Errorf("the bad entry was stored as %+v", all[0])
	}
	ann, err := svc.Audit(ctx, access.AuditFilter{Actor: "ann"})
	if err != nil || len(ann) != 2 {
		t.Errorf("ann's entries: %d, %v", len(ann), err)
	}
	if _, err := svc.Audit(ctx, access.AuditFilter{Limit: 5000}); runtime.ErrorCode(err) != runtime.EINVALID {
		t.Errorf("limit 5000: %v", err)
	}
}

// TestSetupTokenEndsWhenAnotherProcessCreatesAUser: the admin CLI writes
// to the database directly; the server's set-up token stops working.
func TestSetupTokenEndsWhenAnotherProcessCreatesAUser(t *testing.T) {
	t.Parallel()
	svc, db, _ := newService(t)
	ctx := context.Background()
	tok := svc.SetupToken()
	if tok == "" {
		t.Fatal("no set-up token")
	}
	cli, err := access.New(ctx, access.Config{Mode: access.ModeBuiltin, Store: db, Params: auth.TestParams()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close(ctx)
	mustUser(t, cli, "ann", "correct horse battery", auth.RoleAdmin)
	if got := svc.SetupToken(); got != "" {
		t.Errorf("set-up token after another process created a user: %q", got)
	}
	if _, err := svc.FirstRun(ctx, tok, "eve", "correct horse battery"); runtime.ErrorCode(err) != runtime.EFORBIDDEN {
		t.Errorf("first run after another process created a user: %v", err)
	}
}

// TestPasswordChangeEndsSessions: after a new password, old sessions end.
func TestPasswordChangeEndsSessions(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := context.Background()
	mustUser(t, svc, "ann", "correct horse battery", auth.RoleViewer)
	cookie, _, err := svc.Login(ctx, "ann", "correct horse battery", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	pw := "a brand new passphrase"
	if _, err := svc.UpdateUser(ctx, "ann", access.UserChange{Password: &pw}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Session(ctx, cookie); !errors.Is(err, access.ErrUnauthenticated) {
		t.Errorf("a session from before the password change: %v", err)
	}
	if _, _, err := svc.Login(ctx, "ann", pw, "127.0.0.1"); err != nil {
		t.Errorf("login with the new password: %v", err)
	}
}

// TestNoAuditWithoutAuthentication: in mode none nothing is recorded.
func TestNoAuditWithoutAuthentication(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc, err := access.New(ctx, access.Config{Mode: access.ModeNone, Store: db})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close(ctx)
	svc.Record(access.AuditEntry{Actor: "ann", Action: "POST /api/v1/deployments", Outcome: "ok"})
	if err := svc.FlushAudit(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Audit(ctx, access.AuditFilter{Limit: 10}); err != nil || len(got) != 0 {
		t.Errorf("audit in mode none: %v, %v", got, err)
	}
}
