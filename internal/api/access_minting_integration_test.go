package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/api"
	"github.com/gobpm/gobpm/internal/auth"
)

// Token minting: a minted token is at most its
// minter, and acting for someone yields exactly that person's rights.

// grantTo gives user a single grant, or fails the test.
func grantTo(t *testing.T, acc *access.Service, user string, perm auth.Permission, kind auth.ResourceKind, pattern string) {
	t.Helper()
	g, err := auth.NewGrant(perm, kind, pattern)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acc.Grant(context.Background(), "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: user}, Grant: &g}); err != nil {
		t.Fatal(err)
	}
}

// addUser creates a user with a role (none when "") and mints them an
// unrestricted token, kept in w.tokens under the user's name.
func addUser(t *testing.T, w *authWorld, user string, role auth.Role) {
	t.Helper()
	ctx := context.Background()
	if _, err := w.acc.CreateUser(ctx, "", access.NewUser{ID: user}); err != nil {
		t.Fatal(err)
	}
	if role != "" {
		if _, err := w.acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectUser, ID: user}, Role: role}); err != nil {
			t.Fatal(err)
		}
	}
	secret, _, err := w.acc.MintToken(ctx, access.NewToken{Owner: user, Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	w.tokens[user] = secret
}

// callAs sends a request with the token of name, acting for actAs when it
// is not "", with extra headers.
func (w *authWorld) callAs(name, actAs, method, path, body string, header http.Header) *response {
	w.b.t.Helper()
	var req *http.Request
	if body != "" {
		req = httptestRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	} else {
		req = httptestRequest(method, path, nil)
	}
	req.Header.Set("Authorization", "Bearer "+w.tokens[name])
	if actAs != "" {
		req.Header.Set(api.HeaderUser, actAs)
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	return w.b.do(req)
}

// mintVia mints a token through the API with the token of name and keeps
// the new one in w.tokens under as.
func (w *authWorld) mintVia(t *testing.T, name, body, as string) map[string]any {
	t.Helper()
	minted := w.callAs(name, "", "POST", "/api/v1/tokens", body, nil).wantStatus(t, http.StatusCreated).object(t)
	w.tokens[as] = minted["secret"].(string)
	return minted["token"].(map[string]any)
}

// TestTokenMintingMatrix: POST /api/v1/tokens by restricted, expiring and
// act-as tokens. A minted token is at most its minter: grants within the
// minter's restriction (narrower is fine, wider is 403 naming what
// exceeds, none inherits the minter's), an expiry no later than the
// minter's, act-as never added; acting for someone mints nothing unless
// the acting token itself holds admin.
func TestTokenMintingMatrix(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	w.call("admin", "POST", "/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)
	// inbox may only act as others; boss administers and may act as
	// others too.
	addUser(t, w, "inbox", "")
	grantTo(t, w.acc, "inbox", auth.PermActAs, auth.KindSystem, "*")
	addUser(t, w, "boss", auth.RoleAdmin)
	grantTo(t, w.acc, "boss", auth.PermActAs, auth.KindSystem, "*")

	w.mintVia(t, "admin", `{"owner":"u-operator","name":"orders","grants":[{"permission":"read","kind":"process","pattern":"order-*"}]}`, "read-orders")
	w.mintVia(t, "admin", `{"owner":"u-operator","name":"hour","ttlMs":3600000}`, "expiring")
	w.mintVia(t, "boss", `{"name":"act only","grants":[{"permission":"act-as","kind":"system","pattern":"*"}]}`, "boss-act-only")

	rows := []struct {
		name, token, actAs, body string
		want                     int
		field, detail            string // of a refusal
	}{
		{"restricted: narrower", "read-orders", "", `{"name":"n","grants":[{"permission":"read","kind":"process","pattern":"order-1"}]}`, 201, "", ""},
		{"restricted: the same", "read-orders", "", `{"name":"n","grants":[{"permission":"read","kind":"process","pattern":"order-*"}]}`, 201, "", ""},
		{"restricted: no grants inherits", "read-orders", "", `{"name":"n"}`, 201, "", ""},
		{"restricted: wider pattern", "read-orders", "", `{"name":"n","grants":[{"permission":"read","kind":"process","pattern":"*"}]}`, 403, "grants", "read process *"},
		{"restricted: other permission", "read-orders", "", `{"name":"n","grants":[{"permission":"start","kind":"process","pattern":"order-1"}]}`, 403, "grants", "start process order-1"},
		{"restricted: act-as added", "read-orders", "", `{"name":"n","grants":[{"permission":"read","kind":"process","pattern":"order-1"},{"permission":"act-as","kind":"system","pattern":"*"}]}`, 403, "grants", "act-as system *"},
		{"restricted: for another user", "read-orders", "", `{"owner":"u-viewer","name":"n"}`, 403, "owner", ""},
		{"expiring: sooner", "expiring", "", `{"name":"n","ttlMs":60000}`, 201, "", ""},
		{"expiring: later", "expiring", "", `{"name":"n","ttlMs":7200000}`, 403, "ttlMs", "may not outlive"},
		{"expiring: never", "expiring", "", `{"name":"n"}`, 403, "ttlMs", "may not outlive"},
		{"unrestricted: anything of its own", "operator", "", `{"name":"n","grants":[{"permission":"read","kind":"process","pattern":"*"}]}`, 201, "", ""},
		{"act-as only token acting as an admin", "boss-act-only", "u-admin", `{"name":"n"}`, 403, "owner", "acting"},
		{"act-as token acting as an admin", "inbox", "u-admin", `{"name":"n"}`, 403, "owner", "acting"},
		{"act-as token acting as an admin, for another", "inbox", "u-admin", `{"owner":"u-viewer","name":"n"}`, 403, "owner", "acting"},
		{"admin act-as token acting for a user", "boss", "u-viewer", `{"name":"n"}`, 201, "", ""},
	}
	for _, rw := range rows {
		res := w.callAs(rw.token, rw.actAs, "POST", "/api/v1/tokens", rw.body, nil)
		if rw.want == http.StatusCreated {
			if res.Status != rw.want {
				t.Errorf("%s: %d %s, want 201", rw.name, res.Status, res.Body)
			}
			continue
		}
		if res.Status != rw.want {
			t.Errorf("%s: %d %s, want %d", rw.name, res.Status, res.Body, rw.want)
			continue
		}
		p := res.problem(t, rw.want, "forbidden")
		if p.Field != rw.field || !strings.Contains(p.Detail, rw.detail) {
			t.Errorf("%s: problem field %q detail %q; want field %q naming %q", rw.name, p.Field, p.Detail, rw.field, rw.detail)
		}
	}
}

// TestMintedTokenIsAtMostItsMinter: what the minted tokens can do, not
// only what they say.
func TestMintedTokenIsAtMostItsMinter(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	w.call("admin", "POST", "/api/v1/deployments", authModel).wantStatus(t, http.StatusCreated)
	addUser(t, w, "boss", auth.RoleAdmin)
	grantTo(t, w.acc, "boss", auth.PermActAs, auth.KindSystem, "*")

	w.mintVia(t, "admin", `{"owner":"u-operator","name":"orders","grants":[{"permission":"read","kind":"process","pattern":"order*"}]}`, "read-orders")
	child := w.mintVia(t, "read-orders", `{"name":"child"}`, "child")
	if r, _ := child["restriction"].(map[string]any); r == nil || len(r["grants"].([]any)) != 1 {
		t.Errorf("the inheriting child token's restriction = %v, want the minter's one grant", child["restriction"])
	}
	w.callAs("child", "", "GET", "/api/v1/processes/order/versions", "", nil).wantStatus(t, http.StatusOK)
	w.callAs("child", "", "GET", "/api/v1/processes/invoice/versions", "", nil).wantStatus(t, http.StatusForbidden)
	w.callAs("child", "", "POST", "/api/v1/processes/order/instances", `{}`, nil).wantStatus(t, http.StatusForbidden)

	w.mintVia(t, "admin", `{"owner":"u-operator","name":"hour","ttlMs":3600000}`, "expiring")
	soon := w.mintVia(t, "expiring", `{"name":"soon","ttlMs":60000}`, "soon")
	exp, err := time.Parse(time.RFC3339Nano, soon["expiresAt"].(string))
	if err != nil || exp.After(time.Now().Add(2*time.Minute)) {
		t.Errorf("the shorter-lived token expires at %v (%v)", soon["expiresAt"], err)
	}

	// An admin acting for a user mints a token that is that user's.
	minted := w.callAs("boss", "u-viewer", "POST", "/api/v1/tokens", `{"name":"for viewer"}`, nil).wantStatus(t, http.StatusCreated).object(t)
	tok := minted["token"].(map[string]any)
	if tok["owner"] != "u-viewer" {
		t.Errorf("minted while acting for u-viewer: owner %v", tok["owner"])
	}
	w.tokens["viewer2"] = minted["secret"].(string)
	w.callAs("viewer2", "", "GET", "/api/v1/users", "", nil).wantStatus(t, http.StatusForbidden)
}

// TestActAsTakesTheUsersOwnGroups: acting for a user yields exactly their
// rights: the groups the store has them in, never X-Gobpm-Groups (refused
// with 400), and only for a stored, enabled user.
func TestActAsTakesTheUsersOwnGroups(t *testing.T) {
	t.Parallel()
	w := setupAuth(t)
	ctx := context.Background()
	addUser(t, w, "inbox", "")
	grantTo(t, w.acc, "inbox", auth.PermActAs, auth.KindSystem, "*")
	for _, g := range []string{"powerful", "clerks"} {
		if _, err := w.acc.CreateGroup(ctx, g, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectGroup, ID: "powerful"}, Role: auth.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	if err := w.acc.SetMember(ctx, "clerks", "u-viewer", true); err != nil {
		t.Fatal(err)
	}
	groups := http.Header{api.HeaderGroups: {"powerful"}}

	// The header would have made a viewer an admin.
	p := w.callAs("inbox", "u-viewer", "GET", "/api/v1/users", "", groups).problem(t, http.StatusBadRequest, "invalid-request")
	if p.Field != api.HeaderGroups {
		t.Errorf("refusal names field %q, want %s", p.Field, api.HeaderGroups)
	}
	w.callAs("inbox", "u-viewer", "POST", "/api/v1/users", `{"id":"mallory"}`, groups).wantStatus(t, http.StatusBadRequest)
	// Without it, the viewer's own rights and groups.
	w.callAs("inbox", "u-viewer", "GET", "/api/v1/users", "", nil).wantStatus(t, http.StatusForbidden)
	w.callAs("inbox", "u-viewer", "GET", "/api/v1/processes", "", nil).wantStatus(t, http.StatusOK)
	me := w.callAs("inbox", "u-viewer", "GET", "/api/v1/auth/me", "", nil).wantStatus(t, http.StatusOK).object(t)
	if gs, _ := me["groups"].([]any); len(gs) != 1 || gs[0] != "clerks" || me["actor"] != "inbox" {
		t.Errorf("me acting for u-viewer = %v, want groups [clerks], actor inbox", me)
	}
	// A caller without act-as is refused the headers as before.
	w.callAs("viewer", "", "GET", "/api/v1/auth/me", "", groups).wantStatus(t, http.StatusBadRequest)
	// Only stored, enabled users can be acted for.
	w.callAs("inbox", "ghost", "GET", "/api/v1/auth/me", "", nil).wantStatus(t, http.StatusBadRequest)
	disabled := true
	if _, err := w.acc.UpdateUser(ctx, "u-operator", access.UserChange{Disabled: &disabled}); err != nil {
		t.Fatal(err)
	}
	w.callAs("inbox", "u-operator", "GET", "/api/v1/auth/me", "", nil).wantStatus(t, http.StatusBadRequest)
}
