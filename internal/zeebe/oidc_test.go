package zeebe_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/camunda/zeebe/clients/go/v8/pkg/zbc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gobpm/gobpm/internal/access"
	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/auth/oidctest"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/testdb"
	"github.com/gobpm/gobpm/internal/zeebe"
)

// oidcGateway is a gateway with --auth oidc over a real runtime: the test
// provider's JWTs are bearer credentials, its group bpm-ops maps to a
// group holding the operator and worker roles.
type oidcGateway struct {
	idp  *oidctest.Provider
	rt   *runtime.Runtime
	addr string
}

func setupOIDCGateway(t *testing.T) *oidcGateway {
	t.Helper()
	ctx := context.Background()
	idp := oidctest.New(t)
	provider, err := auth.NewOIDC(ctx, auth.OIDCConfig{
		IssuerURL: idp.URL(), ClientID: oidctest.ClientID, ClientSecret: oidctest.ClientSecret, Audience: oidctest.Audience,
		RedirectURL: "http://127.0.0.1/login/oidc/callback", UserClaim: "preferred_username", GroupsClaim: "groups",
		GroupMap: map[string][]auth.GroupID{"bpm-ops": {"ops"}}, HTTPClient: idp.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	db, err := testdb.Open(ctx, testdb.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	acc, err := access.New(ctx, access.Config{Mode: access.ModeOIDC, Store: db, OIDC: provider, Params: auth.TestParams()})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	t.Cleanup(func() {
		_ = rt.Close()
		_ = acc.Close(context.Background())
		_ = db.Close()
	})
	if _, err := acc.CreateGroup(ctx, "ops", ""); err != nil {
		t.Fatal(err)
	}
	for _, role := range []auth.Role{auth.RoleOperator, auth.RoleWorker} {
		if _, err := acc.Grant(ctx, "", access.GrantRecord{Subject: access.Subject{Kind: access.SubjectGroup, ID: "ops"}, Role: role}); err != nil {
			t.Fatal(err)
		}
	}
	return &oidcGateway{idp: idp, rt: rt, addr: serve(t, zeebe.Options{Service: rt, Credentials: acc})}
}

// TestGatewayAcceptsOIDCBearerTokens: with --auth oidc the provider's JWT
// is a bearer credential of the Zeebe gateway with the permissions of its
// user's groups (as on /api/v1): it starts an instance and works its job
// through the real Zeebe Go client, and is refused what the roles do not
// allow; a JWT that is expired, for another audience or issuer, signed
// with another key, or no JWT at all is UNAUTHENTICATED.
func TestGatewayAcceptsOIDCBearerTokens(t *testing.T) {
	t.Parallel()
	g := setupOIDCGateway(t)
	ctx := context.Background()
	now := time.Now()
	zc := client(t, g.addr, g.idp.Sign(g.idp.Claims(oidctest.Audience, now, nil)))

	if _, err := zc.NewTopologyCommand().Send(ctx); err != nil {
		t.Fatalf("Topology with a valid JWT: %v", err)
	}
	_, err := zc.NewDeployResourceCommand().AddResource([]byte("<x/>"), "x.bpmn").Send(ctx)
	wantStatus(t, "DeployResource as an operator and worker", err, codes.PermissionDenied)
	if _, err := g.rt.DeployC8(ctx, []runtime.File{payFile(t)}); err != nil {
		t.Fatal(err)
	}
	k := start(t, zc, "c8-pay", nil)
	jobs := activate(t, zc, "c8-charge")
	if len(jobs) != 1 || jobs[0].ProcessInstanceKey != k {
		t.Fatalf("jobs = %v", jobs)
	}
	cmd, err := zc.NewFailJobCommand().JobKey(jobs[0].Key).Retries(1).VariablesFromMap(map[string]any{"tries": 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.Send(ctx); err != nil {
		t.Fatalf("FailJob with variables as the JWT's user: %v", err)
	}
	jobs = activate(t, zc, "c8-charge")
	if len(jobs) != 1 {
		t.Fatalf("after the failure: %v", jobs)
	}
	if _, err := zc.NewCompleteJobCommand().JobKey(jobs[0].Key).Send(ctx); err != nil {
		t.Fatalf("CompleteJob as the JWT's user: %v", err)
	}
	v, err := g.rt.InstanceByC8Key(ctx, k)
	if err != nil || v.Status != runtime.StatusCompleted {
		t.Fatalf("instance %d: %s, %v", k, v.Status, err)
	}

	for name, token := range map[string]string{
		"an expired JWT":                g.idp.Sign(g.idp.Claims(oidctest.Audience, now.Add(-2*time.Hour), nil)),
		"a JWT for another audience":    g.idp.Sign(g.idp.Claims("someone-else", now, nil)),
		"a JWT of another issuer":       g.idp.Sign(g.idp.Claims(oidctest.Audience, now, map[string]any{"iss": "https://evil.example.test"})),
		"a JWT signed with another key": g.idp.SignWithOtherKey(g.idp.Claims(oidctest.Audience, now, nil)),
		"no JWT":                        "not.a.jwt",
		"no credential":                 "",
	} {
		_, err := client(t, g.addr, token).NewTopologyCommand().Send(ctx)
		if status.Code(err) != codes.Unauthenticated {
			t.Errorf("Topology with %s: %v, want UNAUTHENTICATED", name, err)
		}
	}
}

// TestGatewayWithTheZeebeClientsOAuthProvider runs the Zeebe Go client's
// own OAuth credentials provider (client credentials grant) against a
// token endpoint on loopback that issues the test provider's JWTs: the
// client fetches a token once and works a job with it.
func TestGatewayWithTheZeebeClientsOAuthProvider(t *testing.T) {
	t.Parallel()
	g := setupOIDCGateway(t)
	ctx := context.Background()
	const clientID, clientSecret = "zeebe-worker", "worker-secret"
	var issued atomic.Int32
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.Method != http.MethodPost || r.PostForm.Get("grant_type") != "client_credentials" ||
			r.PostForm.Get("client_id") != clientID || r.PostForm.Get("client_secret") != clientSecret || r.PostForm.Get("audience") != oidctest.Audience {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		issued.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"access_token": g.idp.Sign(g.idp.Claims(oidctest.Audience, time.Now(), map[string]any{"preferred_username": "zeebe-worker"})),
			"token_type":   "Bearer", "expires_in": 3600,
		})
	}))
	t.Cleanup(tokens.Close)

	// The client's token cache goes to the test's directory, not $HOME.
	cache, err := zbc.NewOAuthYamlCredentialsCache(filepath.Join(t.TempDir(), "credentials"))
	if err != nil {
		t.Fatal(err)
	}
	provider, err := zbc.NewOAuthCredentialsProvider(&zbc.OAuthProviderConfig{
		ClientID: clientID, ClientSecret: clientSecret, Audience: oidctest.Audience,
		AuthorizationServerURL: tokens.URL + "/oauth/token", Cache: cache,
	})
	if err != nil {
		t.Fatal(err)
	}
	zc, err := zbc.NewClient(&zbc.ClientConfig{GatewayAddress: g.addr, UsePlaintextConnection: true, CredentialsProvider: provider})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = zc.Close() })

	if _, err := g.rt.DeployC8(ctx, []runtime.File{payFile(t)}); err != nil {
		t.Fatal(err)
	}
	k := start(t, zc, "c8-pay", nil)
	jobs := activate(t, zc, "c8-charge")
	if len(jobs) != 1 || jobs[0].ProcessInstanceKey != k {
		t.Fatalf("jobs = %v", jobs)
	}
	if _, err := zc.NewCompleteJobCommand().JobKey(jobs[0].Key).Send(ctx); err != nil {
		t.Fatalf("CompleteJob through the OAuth provider: %v", err)
	}
	if v, err := g.rt.InstanceByC8Key(ctx, k); err != nil || v.Status != runtime.StatusCompleted {
		t.Fatalf("instance %d: %s, %v", k, v.Status, err)
	}
	if n := issued.Load(); n != 1 {
		t.Errorf("the token endpoint issued %d tokens, want 1 (the client caches it)", n)
	}

	// A client whose secret the endpoint refuses gets no token and no call.
	bad, err := zbc.NewOAuthCredentialsProvider(&zbc.OAuthProviderConfig{
		ClientID: clientID, ClientSecret: "wrong", Audience: oidctest.Audience,
		AuthorizationServerURL: tokens.URL + "/oauth/token", Cache: cache2(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	zb, err := zbc.NewClient(&zbc.ClientConfig{GatewayAddress: g.addr, UsePlaintextConnection: true, CredentialsProvider: bad})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = zb.Close() })
	if _, err := zb.NewTopologyCommand().Send(ctx); err == nil {
		t.Error("Topology without a token succeeded")
	}
}

// payFile is testdata's c8-pay.bpmn, deployed through the runtime (the
// JWT's roles may not deploy).
func payFile(t *testing.T) runtime.File {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "c8-pay.bpmn"))
	if err != nil {
		t.Fatal(err)
	}
	return runtime.File{Name: "c8-pay.bpmn", Content: data}
}

// cache2 is a fresh token cache in the test's directory.
func cache2(t *testing.T) zbc.OAuthCredentialsCache {
	t.Helper()
	c, err := zbc.NewOAuthYamlCredentialsCache(filepath.Join(t.TempDir(), "credentials"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
