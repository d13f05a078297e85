package cockpit_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// apiStatus calls the JSON API with a bearer token.
func (b *authBundle) apiStatus(method, path, token string) int {
	b.t.Helper()
	req, _ := http.NewRequest(method, b.srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestAdminUsers(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"ada": auth.RoleAdmin}, nil)
	ada := b.as("ada")
	ctx := context.Background()

	p := ada.mustGet("/admin/users")
	if p.testid("user").Length() != 1 || p.testid("admin-nav").Length() != 1 {
		t.Fatalf("the users page:\n%s", p.body)
	}
	p = ada.post("/admin/users", url.Values{"id": {"cleo"}, "name": {"Cleo Clerk"}, "password": {password}})
	if p.url != "/admin/users/cleo" || !strings.HasPrefix(p.text("flash"), "Created the user cleo.") || p.text("user-state") != "can log in" {
		t.Fatalf("create: %s %q", p.url, p.text("flash"))
	}
	if e := b.lastAudit("cockpit: create user"); e.Actor != "ada" || e.Resource != "user cleo" || e.Outcome != "ok" {
		t.Errorf("create recorded as %+v", e)
	}
	p = ada.post("/admin/users", url.Values{"id": {"cleo"}, "name": {"Again"}, "password": {password}})
	if p.status != http.StatusConflict || p.text("flash") != "There is a user named cleo already." || p.testid("user-name").AttrOr("value", "") != "Again" || p.testid("user-password").AttrOr("value", "") != "" {
		t.Errorf("a second cleo: %d %q", p.status, p.text("flash"))
	}
	if p := ada.post("/admin/users", url.Values{"id": {"no spaces"}}); p.status != http.StatusBadRequest || !strings.HasPrefix(p.text("flash"), "Invalid input") {
		t.Errorf("a bad user name: %d %q", p.status, p.text("flash"))
	}
	if p := ada.post("/admin/users", url.Values{"id": {"worker-1"}}); p.text("user-state") != "tokens only" {
		t.Errorf("a user without a password: %q", p.text("user-state"))
	}
	if es := b.auditTrail(access.AuditFilter{Action: "cockpit: create user", Outcome: "failed"}); len(es) != 2 {
		t.Errorf("the refused creations are recorded: %d", len(es))
	}

	// A new password replaces the old one; disabling locks her out.
	cleo := b.as("cleo")
	p = ada.post("/admin/users/cleo/password", url.Values{"password": {"another good password"}})
	if p.text("flash") != "Set a new password for cleo; their sessions have ended." {
		t.Errorf("password: %q", p.text("flash"))
	}
	if p := b.browserFor().login("cleo", password, ""); p.status != http.StatusUnauthorized {
		t.Errorf("the old password still logs in: %d", p.status)
	}
	if p := b.browserFor().login("cleo", "another good password", ""); p.text("session-user") != "cleo" {
		t.Errorf("the new password does not log in: %q", p.text("flash"))
	}
	p = ada.post("/admin/users/cleo/disable", nil)
	if p.text("user-state") != "disabled" || p.testid("user-enable").Length() != 1 {
		t.Errorf("disable: %q", p.text("flash"))
	}
	if p := cleo.get("/"); !strings.HasPrefix(p.url, "/login") {
		t.Errorf("a disabled user's session still works")
	}
	if p := ada.post("/admin/users/cleo/password", url.Values{"password": {"short"}}); !strings.HasPrefix(p.text("flash"), "Invalid input") {
		t.Errorf("a short password: %q", p.text("flash"))
	}
	if p := b.browserFor().login("cleo", "another good password", ""); p.status != http.StatusUnauthorized {
		t.Errorf("a disabled user logs in: %d", p.status)
	}
	if p := ada.post("/admin/users/cleo/enable", nil); p.text("user-state") != "can log in" {
		t.Errorf("enable: %q", p.text("flash"))
	}

	// Nobody disables or deletes themselves.
	self := ada.mustGet("/admin/users/ada")
	if self.testid("user-disable").Length() != 0 || self.testid("user-delete").Length() != 0 {
		t.Errorf("ada's own page offers to disable or delete her")
	}
	if p := ada.post("/admin/users/ada/delete", nil); !strings.Contains(p.text("flash"), "cannot delete yourself") {
		t.Errorf("self-delete: %q", p.text("flash"))
	}
	if p := ada.post("/admin/users/ada/disable", nil); !strings.Contains(p.text("flash"), "cannot disable yourself") {
		t.Errorf("self-disable: %q", p.text("flash"))
	}
	p = ada.post("/admin/users/cleo/delete", nil)
	if p.url != "/admin/users" || p.doc.Find(`[data-testid="user"][data-id="cleo"]`).Length() != 0 {
		t.Errorf("delete: %s %q", p.url, p.text("flash"))
	}
	if _, err := b.acc.User(ctx, "cleo"); runtime.ErrorCode(err) != runtime.ENOTFOUND {
		t.Errorf("cleo still exists: %v", err)
	}
	if p := ada.get("/admin/users/cleo"); p.status != http.StatusNotFound {
		t.Errorf("a deleted user's page: %d", p.status)
	}
}

func TestAdminGroupsAndGrants(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"ada": auth.RoleAdmin, "cleo": ""}, nil)
	ada := b.as("ada")
	ctx := context.Background()
	b.deploy("review.bpmn")

	p := ada.post("/admin/groups", url.Values{"id": {"clerks"}, "name": {"Clerks"}})
	if p.url != "/admin/groups/clerks" || p.testid("no-members").Length() != 1 {
		t.Fatalf("create group: %s %q", p.url, p.text("flash"))
	}
	if p := ada.post("/admin/groups", url.Values{"id": {"clerks"}}); p.status != http.StatusConflict {
		t.Errorf("a second clerks: %d", p.status)
	}
	p = ada.post("/admin/groups/clerks/members", url.Values{"user": {"cleo"}})
	if p.doc.Find(`[data-testid="member"][data-id="cleo"]`).Length() != 1 {
		t.Errorf("add member: %q", p.text("flash"))
	}
	if p := ada.post("/admin/groups/clerks/members", url.Values{"user": {"nobody"}}); p.text("flash") == "" || p.doc.Find(`[data-testid="flash"][data-kind="error"]`).Length() != 1 {
		t.Errorf("adding an unknown user: %q", p.text("flash"))
	}
	if gs, _ := b.acc.GroupsOf(ctx, "cleo"); len(gs) != 1 || gs[0] != "clerks" {
		t.Errorf("cleo's groups: %v", gs)
	}

	// Give the group a role: cleo may then see the processes.
	cleo := b.as("cleo")
	if cleo.get("/processes").status != http.StatusForbidden {
		t.Fatalf("cleo reads before any grant")
	}
	p = ada.post("/admin/grants", url.Values{"subjectKind": {"group"}, "subjectId": {"clerks"}, "role": {"viewer"}})
	if p.url != "/admin/grants?subjectId=clerks&subjectKind=group" || p.text("flash") != "Gave the role viewer to group clerks." || p.testid("grant").Length() != 1 {
		t.Fatalf("grant a role: %s %q", p.url, p.text("flash"))
	}
	if cleo.mustGet("/processes").testid("process").Length() != 1 {
		t.Errorf("the group's role takes effect at once")
	}
	// A single grant to a user.
	p = ada.post("/admin/grants", url.Values{"subjectKind": {"user"}, "subjectId": {"cleo"}, "permission": {"start"}, "kind": {"process"}, "pattern": {"rev*"}})
	if p.text("flash") != "Gave “start process rev*” to user cleo." {
		t.Errorf("a single grant: %q", p.text("flash"))
	}
	if cleo.mustGet("/processes/review").testid("start-form").Length() != 1 {
		t.Errorf("cleo may start review now")
	}
	for _, bad := range []url.Values{
		{"subjectKind": {"user"}, "subjectId": {"cleo"}, "permission": {"work"}, "kind": {"process"}, "pattern": {"*"}},
		{"subjectKind": {"user"}, "subjectId": {"cleo"}, "role": {"king"}},
		{"subjectKind": {"user"}, "subjectId": {"cleo"}, "role": {"viewer"}, "permission": {"read"}},
		{"subjectKind": {"robot"}, "subjectId": {"cleo"}, "role": {"viewer"}},
		{"subjectKind": {"user"}, "subjectId": {"nobody"}, "role": {"viewer"}},
	} {
		if p := ada.post("/admin/grants", bad); p.status < 400 || p.testid("grant-form").Length() != 1 {
			t.Errorf("grant %v: %d %q", bad, p.status, p.text("flash"))
		}
	}
	grants, _ := b.acc.Grants(ctx, access.Subject{Kind: access.SubjectUser, ID: "cleo"})
	if len(grants) != 1 {
		t.Fatalf("cleo's grants: %v", grants)
	}
	up := ada.mustGet("/admin/users/cleo")
	if up.testid("grant").Length() != 1 || up.text("user-groups") != "clerks" {
		t.Errorf("the user page shows cleo's grants and groups")
	}
	p = ada.post("/admin/grants/"+itoa(grants[0].ID)+"/revoke", nil)
	if p.text("flash") != "Took the grant back; it no longer applies." {
		t.Errorf("revoke: %q", p.text("flash"))
	}
	if cleo.mustGet("/processes/review").testid("start-form").Length() != 0 {
		t.Errorf("the revoked grant still applies")
	}
	if e := b.lastAudit("cockpit: revoke grant"); e.Resource != "grant "+itoa(grants[0].ID) || e.Outcome != "ok" {
		t.Errorf("revoke recorded as %+v", e)
	}

	// Remove the member, delete the group.
	if p := ada.post("/admin/groups/clerks/members/cleo/remove", nil); p.testid("no-members").Length() != 1 {
		t.Errorf("remove member: %q", p.text("flash"))
	}
	if cleo.get("/processes").status != http.StatusForbidden {
		t.Errorf("cleo still reads after leaving the group")
	}
	if p := ada.post("/admin/groups/clerks/delete", nil); p.url != "/admin/groups" || p.testid("group").Length() != 0 {
		t.Errorf("delete group: %s %q", p.url, p.text("flash"))
	}
	if p := ada.get("/admin/groups/clerks"); p.status != http.StatusNotFound {
		t.Errorf("a deleted group's page: %d", p.status)
	}
}

func TestAdminTokens(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"ada": auth.RoleAdmin, "w": auth.RoleWorker}, nil)
	ada := b.as("ada")

	p := ada.post("/admin/tokens", url.Values{"owner": {"w"}, "name": {"invoice worker"}, "days": {"30"}, "restriction": {"work job-type invoice\n\n"}})
	secret := p.text("token-secret")
	if p.status != http.StatusCreated || !strings.HasPrefix(secret, auth.TokenPrefix) {
		t.Fatalf("mint: %d %q %q", p.status, secret, p.text("flash"))
	}
	if b.apiStatus(http.MethodGet, "/api/v1/auth/me", secret) != http.StatusOK {
		t.Errorf("the minted token does not authenticate")
	}
	list := ada.mustGet("/admin/tokens")
	row := list.doc.Find(`[data-testid="token"][data-owner="w"]`)
	if row.Length() != 1 || !strings.Contains(row.Text(), "work job-type invoice") || strings.Contains(list.body, secret) {
		t.Fatalf("the token list shows the token, its restriction, and never its secret:\n%s", row.Text())
	}
	id := row.AttrOr("data-id", "")
	if e := b.lastAudit("cockpit: mint token"); e.Resource != "token "+id || e.Actor != "ada" || strings.Contains(e.Resource, secret) {
		t.Errorf("mint recorded as %+v", e)
	}
	for _, bad := range []url.Values{
		{"owner": {"w"}, "name": {""}},
		{"owner": {"nobody"}, "name": {"x"}},
		{"owner": {"w"}, "name": {"x"}, "days": {"0"}},
		{"owner": {"w"}, "name": {"x"}, "restriction": {"work process invoice"}},
		{"owner": {"w"}, "name": {"x"}, "restriction": {"work"}},
	} {
		if p := ada.post("/admin/tokens", bad); p.status < 400 || p.testid("token-form").Length() != 1 || p.testid("token-secret").Length() != 0 {
			t.Errorf("mint %v: %d %q", bad, p.status, p.text("flash"))
		}
	}
	if ada.mustGet("/admin/tokens?owner=w").testid("token").Length() != 1 || ada.mustGet("/admin/tokens?owner=ada").testid("token").Length() != 0 {
		t.Errorf("tokens by owner")
	}
	p = ada.post("/admin/tokens/"+id+"/revoke", nil)
	if !strings.HasPrefix(p.text("flash"), "Revoked the token “invoice worker” of w") || p.testid("token-revoked").Length() != 1 {
		t.Errorf("revoke: %q", p.text("flash"))
	}
	if b.apiStatus(http.MethodGet, "/api/v1/auth/me", secret) != http.StatusUnauthorized {
		t.Errorf("the revoked token still authenticates")
	}
}

func TestAdminAudit(t *testing.T) {
	t.Parallel()
	b := setupAuth(t, map[string]auth.Role{"ada": auth.RoleAdmin, "olga": auth.RoleOperator}, nil)
	b.deploy("review.bpmn")
	olga := b.as("olga")
	var ids []runtime.InstanceID
	for range 3 {
		v := b.start("review", "", nil)
		ids = append(ids, v.ID)
		olga.post("/instances/"+string(v.ID)+"/cancel", nil)
	}
	b.login("olga", "wrong password!", "")
	ada := b.as("ada")

	p := ada.mustGet("/admin/audit")
	if p.testid("audit-entry").Length() != 6 {
		t.Fatalf("the audit page shows %d entries", p.testid("audit-entry").Length())
	}
	if first := p.testid("audit-entry").First(); first.AttrOr("data-action", "") != "login" || !strings.Contains(first.Find(`[data-testid="audit-entry-actor"]`).Text(), "ada") {
		t.Errorf("newest first: %q", first.AttrOr("data-action", ""))
	}
	p = ada.mustGet("/admin/audit?" + url.Values{"actor": {"olga"}, "action": {"cockpit: cancel instance"}}.Encode())
	if p.testid("audit-entry").Length() != 3 || p.testid("audit-actor").AttrOr("value", "") != "olga" {
		t.Errorf("filtered by actor and action: %d", p.testid("audit-entry").Length())
	}
	p = ada.mustGet("/admin/audit?" + url.Values{"resource": {"instance " + string(ids[1])}}.Encode())
	if p.testid("audit-entry").Length() != 1 || p.text("audit-entry-resource") != "instance "+string(ids[1]) {
		t.Errorf("filtered by resource: %d", p.testid("audit-entry").Length())
	}
	if p := ada.mustGet("/admin/audit?outcome=denied"); p.testid("audit-entry").Length() != 1 || p.testid("audit-entry").AttrOr("data-action", "") != "login-failed" {
		t.Errorf("filtered by outcome: %d", p.testid("audit-entry").Length())
	}
	if p := ada.get("/admin/audit?outcome=maybe"); p.status != http.StatusBadRequest {
		t.Errorf("an unknown outcome: %d", p.status)
	}
	// Paging: before= the oldest entry shown.
	all := b.auditTrail(access.AuditFilter{})
	p = ada.mustGet("/admin/audit?before=" + itoa(all[2].Seq))
	if p.testid("audit-entry").Length() != len(all)-3 || p.testid("audit-newest").Length() != 1 || p.testid("audit-older").Length() != 0 {
		t.Errorf("the page before %d: %d entries", all[2].Seq, p.testid("audit-entry").Length())
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
