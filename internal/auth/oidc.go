package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"
)

// OIDCConfig configures an OIDC relying party: the cockpit's login by
// authorization code with PKCE, and the API's JWT bearer tokens.
type OIDCConfig struct {
	// IssuerURL is the provider's issuer, exactly as its discovery document
	// and its tokens spell it. It must be https, except on a loopback host.
	IssuerURL string
	// ClientID is gobpm's client id at the provider; ID tokens must name it
	// in their audience.
	ClientID string
	// ClientSecret authenticates gobpm at the token endpoint; empty for a
	// public client (PKCE alone).
	ClientSecret Secret
	// RedirectURL is the cockpit's callback, registered at the provider. It
	// must be https, except on a loopback host. Needed only for logins.
	RedirectURL string
	// Audience is what bearer tokens must name in their audience; ClientID
	// when empty, which also accepts the cockpit's ID tokens as API
	// credentials. Give the API an audience of its own at the provider to
	// keep the two apart.
	Audience string
	// Scopes are requested at login besides "openid" (e.g. "profile",
	// "email", "groups").
	Scopes []string
	// UserClaim names the claim that becomes the UserID; "sub" when empty.
	// Choose "preferred_username" or "email" only if the provider does not
	// let users change it, or one user can become another.
	UserClaim string
	// GroupsClaim names the claim holding the user's groups or roles, as a
	// dotted path into nested objects ("groups", "realm_access.roles"); the
	// claim is a string or an array of strings. Empty: no groups.
	GroupsClaim string
	// GroupMap maps claim values to gobpm groups; one value may map to
	// several groups.
	GroupMap map[string][]GroupID
	// KeepUnmapped makes a claim value that GroupMap does not mention a
	// gobpm group of the same name; otherwise it is dropped.
	KeepUnmapped bool
	// HTTPClient talks to the provider; one with a 10-second timeout when
	// nil.
	HTTPClient *http.Client `json:"-"`
	// Now is the clock tokens are checked against; time.Now when nil.
	Now func() time.Time `json:"-"`
	// KeyRefresh is the shortest time between two fetches of the
	// provider's signing keys, which happen when a token names a key gobpm
	// does not hold; 30 seconds when zero.
	KeyRefresh time.Duration
}

// LogValue logs the configuration without the client secret.
func (c OIDCConfig) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("issuer", c.IssuerURL),
		slog.String("client_id", c.ClientID),
		slog.Bool("client_secret_set", c.ClientSecret != ""),
		slog.String("redirect_url", c.RedirectURL),
		slog.String("audience", c.Audience),
		slog.String("user_claim", c.UserClaim),
		slog.String("groups_claim", c.GroupsClaim),
	)
}

// Identity is who an OIDC token says the caller is.
type Identity struct {
	// Issuer and Subject identify the user at the provider for good.
	Issuer, Subject string
	// User is the UserClaim's value.
	User UserID
	// Email is the email claim, if any ("" otherwise).
	Email string
	// Groups are the gobpm groups the GroupsClaim maps to, sorted.
	Groups []GroupID
	// Expiry is when the token expires.
	Expiry time.Time
}

// Principal returns the principal of id before authorization: its user and
// groups. Whoever resolves grants adds the roles and grants given to them.
func (id Identity) Principal() Principal {
	return Principal{User: id.User, Groups: slices.Clone(id.Groups)}
}

// OIDC verifies tokens from one OpenID Connect provider and runs the
// cockpit's login against it. Make one with NewOIDC at start-up and share
// it; it is safe for concurrent use. It caches the provider's signing keys
// and fetches them again when a token names a key it does not hold, at most
// once per KeyRefresh.
type OIDC struct {
	cfg    OIDCConfig
	client *http.Client
	oauth  oauth2.Config
	// login verifies ID tokens (audience ClientID); bearer verifies API
	// bearer tokens (audience Audience).
	login, bearer *oidc.IDTokenVerifier
}

// NewOIDC checks cfg, fetches the provider's discovery document from
// IssuerURL/.well-known/openid-configuration (the issuer in it must equal
// IssuerURL) and returns the relying party. Errors wrap ErrInvalidConfig for
// a configuration that cannot work; anything else is the provider's
// discovery failing.
func NewOIDC(ctx context.Context, cfg OIDCConfig) (*OIDC, error) {
	if err := checkProviderURL("issuer URL", cfg.IssuerURL); err != nil {
		return nil, err
	}
	if cfg.RedirectURL != "" {
		if err := checkProviderURL("redirect URL", cfg.RedirectURL); err != nil {
			return nil, err
		}
	}
	if cfg.ClientID == "" {
		return nil, fmt.Errorf("oidc %s: no client id: %w", cfg.IssuerURL, ErrInvalidConfig)
	}
	if cfg.Audience == "" {
		cfg.Audience = cfg.ClientID
	}
	if cfg.UserClaim == "" {
		cfg.UserClaim = "sub"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.KeyRefresh <= 0 {
		cfg.KeyRefresh = 30 * time.Second
	}
	provider, err := oidc.NewProvider(oidc.ClientContext(ctx, client), cfg.IssuerURL)
	if err != nil {
		return nil, fmt.Errorf("oidc %s: discovery: %w", cfg.IssuerURL, err)
	}
	var meta struct {
		JWKSURL string   `json:"jwks_uri"`
		Algs    []string `json:"id_token_signing_alg_values_supported"`
	}
	if err := provider.Claims(&meta); err != nil {
		return nil, fmt.Errorf("oidc %s: discovery document: %w", cfg.IssuerURL, err)
	}
	if err := checkProviderURL("jwks_uri", meta.JWKSURL); err != nil {
		return nil, fmt.Errorf("oidc %s: discovery document: %w", cfg.IssuerURL, err)
	}
	// Accept the asymmetric algorithms the provider says it signs with
	// (RS256, which every provider must support, if it says none).
	var algs []string
	for _, a := range signingAlgs() {
		if slices.Contains(meta.Algs, string(a)) {
			algs = append(algs, string(a))
		}
	}
	if len(algs) == 0 {
		algs = []string{oidc.RS256}
	}
	keys := &keySet{url: meta.JWKSURL, client: client, now: cfg.Now, minRefresh: cfg.KeyRefresh}
	for _, a := range algs {
		keys.algs = append(keys.algs, jose.SignatureAlgorithm(a))
	}
	scopes := []string{oidc.ScopeOpenID}
	for _, s := range cfg.Scopes {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	verifier := func(audience string) *oidc.IDTokenVerifier {
		return oidc.NewVerifier(cfg.IssuerURL, keys, &oidc.Config{ClientID: audience, SupportedSigningAlgs: algs, Now: cfg.Now})
	}
	return &OIDC{
		cfg:    cfg,
		client: client,
		oauth: oauth2.Config{
			ClientID: cfg.ClientID, ClientSecret: string(cfg.ClientSecret),
			Endpoint: provider.Endpoint(), RedirectURL: cfg.RedirectURL, Scopes: scopes,
		},
		login:  verifier(cfg.ClientID),
		bearer: verifier(cfg.Audience),
	}, nil
}

// checkProviderURL refuses a URL that is not absolute https, allowing http
// only on a loopback host (a provider or cockpit on the same machine).
func checkProviderURL(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("oidc %s %q: not an absolute URL: %w", what, raw, ErrInvalidConfig)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
	}
	return fmt.Errorf("oidc %s %q: must be https (http only on loopback): %w", what, raw, ErrInvalidConfig)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// VerifyBearer verifies rawJWT, an access token the provider issued for the
// API: its signature against the provider's published keys, its issuer,
// that its audience names Audience, and that it has not expired (nor starts
// more than five minutes from now). It returns the identity it carries, or
// an error wrapping ErrTokenRejected (and ErrExpired for an expired token).
func (o *OIDC) VerifyBearer(ctx context.Context, rawJWT string) (Identity, error) {
	tok, err := o.bearer.Verify(oidc.ClientContext(ctx, o.client), rawJWT)
	if err != nil {
		return Identity{}, fmt.Errorf("verify bearer token: %w", rejected(err))
	}
	id, err := o.identity(tok)
	if err != nil {
		return Identity{}, fmt.Errorf("verify bearer token: %w", err)
	}
	return id, nil
}

// rejected wraps a go-oidc verification error so callers can branch on it.
func rejected(err error) error {
	if expired := (*oidc.TokenExpiredError)(nil); errors.As(err, &expired) {
		return fmt.Errorf("%w: %w: %w", ErrTokenRejected, ErrExpired, err)
	}
	return fmt.Errorf("%w: %w", ErrTokenRejected, err)
}

// LoginRequest is one login in progress: what StartLogin made and
// FinishLogin needs back. The caller keeps it between the two (in a
// short-lived, HttpOnly, encrypted or server-side cookie) and sends the
// browser to URL.
type LoginRequest struct {
	// URL is the provider's authorization URL to redirect the browser to.
	URL string
	// State ties the provider's answer to this login (CSRF protection).
	State string
	// Nonce ties the ID token to this login (replay protection).
	Nonce string
	// Verifier is the PKCE code verifier; only its S256 challenge is in URL.
	Verifier Secret
}

// StartLogin begins a login by authorization code with PKCE: it draws a
// state, a nonce and a code verifier from rand (crypto/rand when nil) and
// builds the authorization URL carrying state, nonce and the S256 code
// challenge. It needs RedirectURL.
func (o *OIDC) StartLogin(rand io.Reader) (LoginRequest, error) {
	if o.cfg.RedirectURL == "" {
		return LoginRequest{}, fmt.Errorf("start oidc login: no redirect URL: %w", ErrInvalidConfig)
	}
	b, err := randomBytes(rand, 3*32)
	if err != nil {
		return LoginRequest{}, fmt.Errorf("start oidc login: %w", err)
	}
	enc := base64.RawURLEncoding
	lr := LoginRequest{
		State:    enc.EncodeToString(b[:32]),
		Nonce:    enc.EncodeToString(b[32:64]),
		Verifier: Secret(enc.EncodeToString(b[64:])), // 43 characters, RFC 7636's minimum
	}
	lr.URL = o.oauth.AuthCodeURL(lr.State, oidc.Nonce(lr.Nonce), oauth2.S256ChallengeOption(string(lr.Verifier)))
	return lr, nil
}

// S256Challenge returns the PKCE S256 code challenge for verifier:
// base64url(SHA-256(verifier)), unpadded (RFC 7636 §4.2).
func S256Challenge(verifier Secret) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// FinishLogin completes login with the state and code the provider sent
// back to RedirectURL: it checks state (ErrStateMismatch), exchanges code
// with the PKCE verifier at the token endpoint, verifies the ID token in
// the answer like VerifyBearer does but against ClientID (ErrTokenRejected,
// ErrExpired) and checks its nonce (ErrNonceMismatch).
func (o *OIDC) FinishLogin(ctx context.Context, login LoginRequest, state, code string) (Identity, error) {
	if login.State == "" || subtle.ConstantTimeCompare([]byte(state), []byte(login.State)) != 1 {
		return Identity{}, fmt.Errorf("finish oidc login: %w", ErrStateMismatch)
	}
	ctx = oidc.ClientContext(ctx, o.client)
	tok, err := o.oauth.Exchange(ctx, code, oauth2.VerifierOption(string(login.Verifier)))
	if err != nil {
		return Identity{}, fmt.Errorf("finish oidc login: exchange code: %w", err)
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return Identity{}, fmt.Errorf("finish oidc login: no id_token in the token response: %w", ErrTokenRejected)
	}
	idt, err := o.login.Verify(ctx, raw)
	if err != nil {
		return Identity{}, fmt.Errorf("finish oidc login: id token: %w", rejected(err))
	}
	if login.Nonce == "" || subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(login.Nonce)) != 1 {
		return Identity{}, fmt.Errorf("finish oidc login: %w", ErrNonceMismatch)
	}
	id, err := o.identity(idt)
	if err != nil {
		return Identity{}, fmt.Errorf("finish oidc login: %w", err)
	}
	return id, nil
}

// identity reads the user and groups out of a verified token's claims.
func (o *OIDC) identity(tok *oidc.IDToken) (Identity, error) {
	var claims map[string]any
	if err := tok.Claims(&claims); err != nil {
		return Identity{}, fmt.Errorf("read claims: %w: %w", ErrTokenRejected, err)
	}
	user, _ := claims[o.cfg.UserClaim].(string)
	if user == "" {
		return Identity{}, fmt.Errorf("claim %q: missing or not a string: %w", o.cfg.UserClaim, ErrTokenRejected)
	}
	email, _ := claims["email"].(string)
	groups, err := o.groups(claims)
	if err != nil {
		return Identity{}, err
	}
	return Identity{
		Issuer: tok.Issuer, Subject: tok.Subject, User: UserID(user), Email: email,
		Groups: groups, Expiry: tok.Expiry.UTC(),
	}, nil
}

// groups maps the GroupsClaim's values to gobpm groups, sorted and without
// duplicates. A missing claim means no groups; a claim of another shape is
// an error, so a misconfigured claim fails loudly rather than silently
// dropping everyone's groups.
func (o *OIDC) groups(claims map[string]any) ([]GroupID, error) {
	if o.cfg.GroupsClaim == "" {
		return nil, nil
	}
	var v any = claims
	for _, step := range strings.Split(o.cfg.GroupsClaim, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil
		}
		if v, ok = m[step]; !ok {
			return nil, nil
		}
	}
	var values []string
	switch v := v.(type) {
	case string:
		values = []string{v}
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("claim %q: holds a %T, want strings: %w", o.cfg.GroupsClaim, e, ErrTokenRejected)
			}
			values = append(values, s)
		}
	case nil:
	default:
		return nil, fmt.Errorf("claim %q: is a %T, want a string or strings: %w", o.cfg.GroupsClaim, v, ErrTokenRejected)
	}
	var groups []GroupID
	for _, s := range values {
		if mapped, ok := o.cfg.GroupMap[s]; ok {
			groups = append(groups, mapped...)
		} else if o.cfg.KeepUnmapped && s != "" {
			groups = append(groups, GroupID(s))
		}
	}
	slices.Sort(groups)
	return slices.Compact(groups), nil
}
