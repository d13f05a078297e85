package access

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// Caller is who a request comes from: the principal whose rights apply and
// how they were authenticated.
type Caller struct {
	// Principal carries the user, groups, roles, grants and token
	// restrictions.
	auth.Principal
	// Via says how the caller was authenticated: "none", "session",
	// "token:<id>" or "oidc".
	Via string
	// Actor is who authenticated when the request acts as another user
	// (act-as); "" otherwise. Principal.User is then the user acted for.
	Actor auth.UserID
	// TokenExpiresAt is when the gobpm API token that authenticated the
	// caller expires (zero: it never does, or no such token authenticated
	// the caller). A token the caller mints may not outlive it.
	TokenExpiresAt time.Time

	// actor is the authenticated principal itself while the caller acts
	// for another user (Actor set): what the act-as token may do on its
	// own account, which acting for someone never adds to.
	actor auth.Principal
}

// ActorAllowed reports whether whoever authenticated may do perm on the
// resource of kind whose key is key on their own account: the caller's own
// rights, or, while it acts for another user, the acting token's.
func (c Caller) ActorAllowed(perm auth.Permission, kind auth.ResourceKind, key string) bool {
	if c.Actor == "" {
		return c.Allowed(perm, kind, key)
	}
	return auth.Allowed(c.actor, perm, kind, key)
}

// Authenticated reports whether the caller is somebody.
func (c Caller) Authenticated() bool { return c.User != "" }

// Allowed reports whether the caller may do perm on the resource of kind
// whose key is key.
func (c Caller) Allowed(perm auth.Permission, kind auth.ResourceKind, key string) bool {
	return auth.Allowed(c.Principal, perm, kind, key)
}

// AllowedAny reports whether the caller may do perm on at least one
// resource of kind (a list it may call, filtered to what it may see).
func (c Caller) AllowedAny(perm auth.Permission, kind auth.ResourceKind) bool {
	return !c.Filter(perm, kind).None()
}

// Unrestricted reports whether the caller holds every right: the admin
// role with no token restriction. Checks that need a lookup to find the
// resource's key can be skipped for it.
func (c Caller) Unrestricted() bool {
	return c.User != "" && slices.Contains(c.Roles, auth.RoleAdmin) && len(c.Restrictions) == 0
}

// ActorAndOnBehalf returns who acted, for the audit trail: the authenticated user,
// and the user acted for when they differ.
func (c Caller) ActorAndOnBehalf() (actor, onBehalf auth.UserID) {
	if c.Actor != "" {
		return c.Actor, c.User
	}
	return c.User, ""
}

// Anonymous is the caller of a server without authentication (ModeNone):
// every right, acting as user (the X-Gobpm-User header; "" when none is
// named: nobody in particular, so history records no person) with groups.
// Its Via is "none", which authorization lets through.
func Anonymous(user string, groups []string) Caller {
	gs := make([]auth.GroupID, 0, len(groups))
	for _, g := range groups {
		gs = append(gs, auth.GroupID(g))
	}
	return Caller{Principal: auth.Principal{User: auth.UserID(user), Groups: gs, Roles: []auth.Role{auth.RoleAdmin}}, Via: "none"}
}

// Bearer authenticates an Authorization: Bearer credential: a gobpm API
// token, or in ModeOIDC the provider's JWT. Any failure is
// ErrUnauthenticated (wrapped with the reason, which the API logs but
// does not answer).
func (s *Service) Bearer(ctx context.Context, credential string) (Caller, error) {
	if s.cfg.Mode == ModeNone {
		return Caller{}, fmt.Errorf("%w: this server does not authenticate (auth mode none)", ErrUnauthenticated)
	}
	if auth.HasTokenPrefix(credential) {
		return s.tokenCaller(ctx, credential)
	}
	if s.cfg.Mode != ModeOIDC {
		return Caller{}, fmt.Errorf("%w: not a gobpm API token", ErrUnauthenticated)
	}
	id, err := s.cfg.OIDC.VerifyBearer(ctx, credential)
	if err != nil {
		return Caller{}, fmt.Errorf("%w: %w", ErrUnauthenticated, err)
	}
	p, disabled, _, err := s.resolve(ctx, id.User, id.Groups)
	if err != nil {
		return Caller{}, err
	}
	if disabled {
		return Caller{}, fmt.Errorf("%w: user %s is disabled", ErrUnauthenticated, id.User)
	}
	return Caller{Principal: p, Via: "oidc"}, nil
}

// tokenCaller authenticates a gobpm API token.
func (s *Service) tokenCaller(ctx context.Context, credential string) (Caller, error) {
	presented, err := auth.ParseToken(credential)
	if err != nil {
		return Caller{}, fmt.Errorf("%w: %w", ErrUnauthenticated, err)
	}
	t, err := s.store.Token(ctx, presented.ID())
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return Caller{}, fmt.Errorf("%w: unknown token %s", ErrUnauthenticated, presented.ID())
	}
	if err != nil {
		return Caller{}, fmt.Errorf("access: token %s: %w", presented.ID(), err)
	}
	now := s.now()
	if err := t.Verify(presented, now); err != nil {
		return Caller{}, fmt.Errorf("%w: %w", ErrUnauthenticated, err)
	}
	owner, disabled, known, err := s.resolve(ctx, t.Owner, nil)
	if err != nil {
		return Caller{}, err
	}
	if !known || disabled {
		return Caller{}, fmt.Errorf("%w: the owner of token %s is disabled or gone", ErrUnauthenticated, t.ID)
	}
	s.touchToken(ctx, t.ID)
	return Caller{Principal: t.Principal(owner), Via: "token:" + string(t.ID), TokenExpiresAt: t.ExpiresAt}, nil
}

// touchToken records a token's use, at most once per tokenTouchEvery, in
// the background: a request never waits for it.
func (s *Service) touchToken(ctx context.Context, id auth.TokenID) {
	now := s.now()
	s.mu.Lock()
	last, ok := s.touched[id]
	if ok && now.Sub(last) < tokenTouchEvery {
		s.mu.Unlock()
		return
	}
	s.touched[id] = now
	s.mu.Unlock()
	s.audit.do(func(ctx context.Context) error {
		if err := s.store.TouchToken(ctx, id, now.UTC()); err != nil && runtime.ErrorCode(err) != runtime.ENOTFOUND {
			return fmt.Errorf("touch token %s: %w", id, err)
		}
		return nil
	})
}

// Session authenticates a cockpit session cookie.
func (s *Service) Session(ctx context.Context, cookie string) (Caller, error) {
	if s.cfg.Mode == ModeNone {
		return Caller{}, fmt.Errorf("%w: this server does not authenticate (auth mode none)", ErrUnauthenticated)
	}
	key, err := auth.SessionKey(cookie)
	if err != nil {
		return Caller{}, fmt.Errorf("%w: %w", ErrUnauthenticated, err)
	}
	sess, err := s.store.Session(ctx, key)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return Caller{}, fmt.Errorf("%w: no such session", ErrUnauthenticated)
	}
	if err != nil {
		return Caller{}, fmt.Errorf("access: session: %w", err)
	}
	now := s.now()
	if err := sess.Check(cookie, now, s.cfg.Sessions); err != nil {
		return Caller{}, fmt.Errorf("%w: %w", ErrUnauthenticated, err)
	}
	p, disabled, known, err := s.resolve(ctx, sess.User, sess.Groups)
	if err != nil {
		return Caller{}, err
	}
	if disabled || (!known && s.cfg.Mode == ModeBuiltin) {
		return Caller{}, fmt.Errorf("%w: user %s is disabled or gone", ErrUnauthenticated, sess.User)
	}
	if now.Sub(sess.LastSeenAt) > sessionTouchEvery(s.cfg.Sessions) {
		if err := s.store.TouchSession(ctx, key, now.UTC()); err != nil {
			return Caller{}, fmt.Errorf("access: touch session: %w", err)
		}
	}
	via := "session"
	if s.cfg.Mode == ModeOIDC && !known {
		via = "oidc"
	}
	return Caller{Principal: p, Via: via}, nil
}

// sessionTouchEvery is how stale a session's last-seen time may get
// before a request writes it: a tenth of the idle timeout, at most a
// minute.
func sessionTouchEvery(p auth.SessionPolicy) time.Duration {
	if p.Idle <= 0 {
		return time.Minute
	}
	return min(p.Idle/10, time.Minute)
}

// ActAs returns the caller acting for user (the X-Gobpm-User header of an
// inbox front-end). The caller needs the act-as permission
// (runtime.EFORBIDDEN otherwise), and user must be a stored user who is
// enabled (runtime.EFORBIDDEN for an unknown or disabled one, in every
// mode: gobpm knows nobody else's groups). The result has exactly the
// rights of user — their own roles and grants and those of the groups the
// store has them in, never groups a request names — narrowed further by
// the acting token's restrictions, and remembers the caller as Actor.
func (s *Service) ActAs(ctx context.Context, c Caller, user string) (Caller, error) {
	if !c.Allowed(auth.PermActAs, auth.KindSystem, "") {
		return Caller{}, &runtime.Error{Code: runtime.EFORBIDDEN, Field: "X-Gobpm-User",
			Message: fmt.Sprintf("%s may not act as another user: that needs the act-as permission", c.User)}
	}
	if err := checkID("user", user); err != nil {
		return Caller{}, err
	}
	p, disabled, known, err := s.resolve(ctx, auth.UserID(user), nil)
	if err != nil {
		return Caller{}, err
	}
	if disabled || !known {
		return Caller{}, &runtime.Error{Code: runtime.EFORBIDDEN, Field: "X-Gobpm-User",
			Message: fmt.Sprintf("user %s does not exist or is disabled", user)}
	}
	// The acting token's restrictions still apply: it cannot reach more
	// through another user than it could itself.
	p.Restrictions = slices.Concat(p.Restrictions, c.Restrictions)
	acting := Caller{Principal: p, Via: c.Via, Actor: c.User, TokenExpiresAt: c.TokenExpiresAt, actor: c.Principal}
	if c.Actor != "" {
		acting.Actor, acting.actor = c.Actor, c.actor
	}
	return acting, nil
}

// randomText returns n random bytes as lowercase unpadded base32.
func randomText(r io.Reader, n int) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b)), nil
}
