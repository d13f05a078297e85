package access

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// Login checks a built-in user's password and opens a cockpit session. It
// returns the cookie value (the session id, shown to nobody else) and the
// session. Repeated failures lock the user name and the client address out
// for a while, and so do too many attempts at once for one name or from one
// address (the error then wraps auth.ErrLockedOut); both are refused before
// any hashing. The hash runs in the service's hash pool: when it is full the
// login is refused with an error wrapping auth.ErrBusy, nothing hashed and
// no failure counted. Every wrong answer — unknown user, wrong password,
// disabled user — is ErrUnauthenticated and takes as long as the others.
func (s *Service) Login(ctx context.Context, user, password, addr string) (string, auth.Session, error) {
	if s.cfg.Mode != ModeBuiltin {
		return "", auth.Session{}, &runtime.Error{Code: runtime.EINVALID, Message: "password logins exist only with --auth=builtin"}
	}
	release, err := s.throttle.Begin(user, addr)
	defer release() // after the outcome is recorded: the attempt counts all along
	if err != nil {
		return "", auth.Session{}, err
	}
	u, err := s.store.User(ctx, auth.UserID(user))
	switch {
	case runtime.ErrorCode(err) == runtime.ENOTFOUND || (err == nil && u.PasswordHash == ""):
		if err := s.hashing.VerifyPassword(ctx, s.dummyHash, password); notTried(err) {
			return "", auth.Session{}, fmt.Errorf("access: login %s: %w", user, err)
		}
		return "", auth.Session{}, s.loginFailed(user, addr, "no such user, or one without a password")
	case err != nil:
		return "", auth.Session{}, fmt.Errorf("access: login %s: %w", user, err)
	}
	if err := s.hashing.VerifyPassword(ctx, u.PasswordHash, password); err != nil {
		if notTried(err) || errors.Is(err, auth.ErrMalformedHash) {
			return "", auth.Session{}, fmt.Errorf("access: login %s: %w", user, err)
		}
		return "", auth.Session{}, s.loginFailed(user, addr, "wrong password")
	}
	if u.Disabled {
		return "", auth.Session{}, s.loginFailed(user, addr, "user disabled")
	}
	s.throttle.Success(user, addr)
	if auth.NeedsRehash(u.PasswordHash, s.cfg.Params) {
		// Best effort: a busy pool leaves the old hash for the next login.
		if h, err := s.hashing.HashPassword(ctx, s.cfg.Rand, password, s.cfg.Params); err == nil {
			u.PasswordHash = h
			if err := s.store.UpdateUser(ctx, u); err != nil {
				return "", auth.Session{}, fmt.Errorf("access: rehash %s: %w", user, err)
			}
		}
	}
	cookie, sess, err := auth.NewSession(s.cfg.Rand, s.now().UTC(), u.ID, nil, s.cfg.Sessions)
	if err != nil {
		return "", auth.Session{}, fmt.Errorf("access: session for %s: %w", user, err)
	}
	if err := s.store.CreateSession(ctx, sess); err != nil {
		return "", auth.Session{}, fmt.Errorf("access: session for %s: %w", user, err)
	}
	return cookie, sess, nil
}

// notTried reports whether err means a password was not checked at all:
// the hash pool was busy, or the request ended while it waited. Such an
// attempt is passed on as it is (the API answers 503) and not counted as a
// failure.
func notTried(err error) bool {
	return errors.Is(err, auth.ErrBusy) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// loginFailed counts a failed login and returns the error to answer.
func (s *Service) loginFailed(user, addr, why string) error {
	if err := s.throttle.Failure(user, addr); err != nil {
		return err
	}
	return fmt.Errorf("%w: login %s: %s", ErrUnauthenticated, user, why)
}

// OpenSession opens a cockpit session for a user whose identity was
// established elsewhere (an OIDC login), with the groups it brought.
func (s *Service) OpenSession(ctx context.Context, user auth.UserID, groups []auth.GroupID) (string, auth.Session, error) {
	cookie, sess, err := auth.NewSession(s.cfg.Rand, s.now().UTC(), user, groups, s.cfg.Sessions)
	if err != nil {
		return "", auth.Session{}, fmt.Errorf("access: session for %s: %w", user, err)
	}
	if err := s.store.CreateSession(ctx, sess); err != nil {
		return "", auth.Session{}, fmt.Errorf("access: session for %s: %w", user, err)
	}
	return cookie, sess, nil
}

// Logout ends the session of cookie. A cookie that names no session is
// not an error.
func (s *Service) Logout(ctx context.Context, cookie string) error {
	key, err := auth.SessionKey(cookie)
	if err != nil {
		return nil
	}
	if err := s.store.DeleteSession(ctx, key); err != nil {
		return fmt.Errorf("access: logout: %w", err)
	}
	return nil
}

// FirstRun exchanges the one-time set-up token for the first admin: it
// creates user with password and the admin role, and the token stops
// working. It fails with EFORBIDDEN when the token is wrong or already
// used.
func (s *Service) FirstRun(ctx context.Context, setupToken, user, password string) (User, error) {
	current := s.SetupToken() // "" once any user exists, whoever made them
	s.mu.Lock()
	ok := current != "" && s.setup == current && constantTimeEqual(current, setupToken)
	if ok {
		s.setup = "" // one use, even if what follows fails
	}
	s.mu.Unlock()
	if !ok {
		return User{}, &runtime.Error{Code: runtime.EFORBIDDEN, Field: "setupToken", Message: "the set-up token is wrong or was used already"}
	}
	u, err := s.CreateUser(ctx, "", NewUser{ID: user, Password: password})
	if err != nil {
		s.mu.Lock()
		s.setup = setupToken // the token was right: let the person correct the form
		s.mu.Unlock()
		return User{}, err
	}
	if _, err := s.Grant(ctx, "", GrantRecord{Subject: Subject{Kind: SubjectUser, ID: user}, Role: auth.RoleAdmin}); err != nil {
		return User{}, err
	}
	return u, nil
}

// NewUser says what user to create.
type NewUser struct {
	// ID is the login name.
	ID string `json:"id"`
	// Name is the display name (optional).
	Name string `json:"name,omitempty"`
	// Password is the initial password; empty for a user who only owns
	// tokens (a worker).
	Password string `json:"password,omitempty"`
}

// CreateUser creates a built-in user. by is who does it (for the record).
func (s *Service) CreateUser(ctx context.Context, by auth.UserID, req NewUser) (User, error) {
	if err := checkID("id", req.ID); err != nil {
		return User{}, err
	}
	u := User{ID: auth.UserID(req.ID), Name: req.Name, CreatedAt: s.now().UTC()}
	if req.Password != "" {
		h, err := s.hashNewPassword(ctx, req.Password)
		if err != nil {
			return User{}, err
		}
		u.PasswordHash = h
	}
	if err := s.store.CreateUser(ctx, u); err != nil {
		return User{}, fmt.Errorf("access: create user %s: %w", req.ID, err)
	}
	s.clearSetup()
	s.invalidate()
	return u, nil
}

// clearSetup ends the set-up token once any user exists.
func (s *Service) clearSetup() {
	s.mu.Lock()
	s.setup = ""
	s.mu.Unlock()
}

// hashNewPassword applies the password policy and hashes password in the
// hash pool (an error wrapping auth.ErrBusy when it is full).
func (s *Service) hashNewPassword(ctx context.Context, password string) (string, error) {
	if err := auth.CheckPasswordPolicy(password); err != nil {
		return "", &runtime.Error{Code: runtime.EINVALID, Field: "password",
			Message: fmt.Sprintf("the password must be %d to %d characters long", auth.MinPasswordRunes, auth.MaxPasswordBytes), Err: err}
	}
	h, err := s.hashing.HashPassword(ctx, s.cfg.Rand, password, s.cfg.Params)
	if err != nil {
		return "", fmt.Errorf("access: hash password: %w", err)
	}
	return h, nil
}

// UserChange says what to change about a user; nil fields stay.
type UserChange struct {
	Name     *string `json:"name,omitempty"`
	Password *string `json:"password,omitempty"`
	Disabled *bool   `json:"disabled,omitempty"`
}

// UpdateUser changes a user. Changing their password ends their sessions;
// disabling them stops their sessions and tokens at the next request (for
// as long as they are disabled).
func (s *Service) UpdateUser(ctx context.Context, id string, ch UserChange) (User, error) {
	u, err := s.store.User(ctx, auth.UserID(id))
	if err != nil {
		return User{}, fmt.Errorf("access: user %s: %w", id, err)
	}
	if ch.Name != nil {
		u.Name = *ch.Name
	}
	if ch.Password != nil {
		if *ch.Password == "" {
			u.PasswordHash = ""
		} else if u.PasswordHash, err = s.hashNewPassword(ctx, *ch.Password); err != nil {
			return User{}, err
		}
	}
	if ch.Disabled != nil {
		u.Disabled = *ch.Disabled
	}
	if err := s.store.UpdateUser(ctx, u); err != nil {
		return User{}, fmt.Errorf("access: update user %s: %w", id, err)
	}
	if ch.Password != nil {
		// Whoever knew the old password is logged out with it.
		if err := s.store.DeleteSessionsOf(ctx, u.ID); err != nil {
			return User{}, fmt.Errorf("access: end the sessions of %s: %w", id, err)
		}
	}
	s.invalidate()
	return u, nil
}

// User returns a built-in user.
func (s *Service) User(ctx context.Context, id string) (User, error) {
	u, err := s.store.User(ctx, auth.UserID(id))
	if err != nil {
		return User{}, fmt.Errorf("access: user %s: %w", id, err)
	}
	return u, nil
}

// Users lists built-in users after the given id.
func (s *Service) Users(ctx context.Context, after string, limit int) ([]User, error) {
	return s.store.Users(ctx, auth.UserID(after), limit)
}

// DeleteUser removes a user with everything that is theirs.
func (s *Service) DeleteUser(ctx context.Context, id string) error {
	if err := s.store.DeleteUser(ctx, auth.UserID(id)); err != nil {
		return fmt.Errorf("access: delete user %s: %w", id, err)
	}
	s.invalidate()
	return nil
}

// CreateGroup creates a group.
func (s *Service) CreateGroup(ctx context.Context, id, name string) (Group, error) {
	if err := checkID("id", id); err != nil {
		return Group{}, err
	}
	g := Group{ID: auth.GroupID(id), Name: name, CreatedAt: s.now().UTC()}
	if err := s.store.CreateGroup(ctx, g); err != nil {
		return Group{}, fmt.Errorf("access: create group %s: %w", id, err)
	}
	return g, nil
}

// Groups lists the groups.
func (s *Service) Groups(ctx context.Context) ([]Group, error) { return s.store.Groups(ctx) }

// DeleteGroup removes a group with its memberships and grants.
func (s *Service) DeleteGroup(ctx context.Context, id string) error {
	if err := s.store.DeleteGroup(ctx, auth.GroupID(id)); err != nil {
		return fmt.Errorf("access: delete group %s: %w", id, err)
	}
	s.invalidate()
	return nil
}

// SetMember adds user to group or removes them.
func (s *Service) SetMember(ctx context.Context, group, user string, member bool) error {
	if err := s.store.SetMember(ctx, auth.GroupID(group), auth.UserID(user), member); err != nil {
		return fmt.Errorf("access: membership of %s in %s: %w", user, group, err)
	}
	s.invalidate()
	return nil
}

// Members lists the users of a group.
func (s *Service) Members(ctx context.Context, group string) ([]auth.UserID, error) {
	return s.store.Members(ctx, auth.GroupID(group))
}

// GroupsOf lists the groups of a user.
func (s *Service) GroupsOf(ctx context.Context, user string) ([]auth.GroupID, error) {
	return s.store.GroupsOf(ctx, auth.UserID(user))
}

// Grant gives a role or a single grant to a user or group.
func (s *Service) Grant(ctx context.Context, by auth.UserID, g GrantRecord) (GrantRecord, error) {
	switch g.Subject.Kind {
	case SubjectUser, SubjectGroup:
	default:
		return GrantRecord{}, &runtime.Error{Code: runtime.EINVALID, Field: "subject.kind", Message: "subject kind must be user or group"}
	}
	switch {
	case g.Role != "" && g.Grant != nil:
		return GrantRecord{}, &runtime.Error{Code: runtime.EINVALID, Field: "role", Message: "give either a role or a grant, not both"}
	case g.Role != "":
		if _, err := auth.ParseRole(string(g.Role)); err != nil {
			return GrantRecord{}, &runtime.Error{Code: runtime.EINVALID, Field: "role", Message: err.Error()}
		}
	case g.Grant != nil:
		if err := g.Grant.Validate(); err != nil {
			return GrantRecord{}, &runtime.Error{Code: runtime.EINVALID, Field: "grant", Message: err.Error()}
		}
	default:
		return GrantRecord{}, &runtime.Error{Code: runtime.EINVALID, Field: "role", Message: "give a role or a grant"}
	}
	g.CreatedAt = s.now().UTC()
	g.CreatedBy = by
	out, err := s.store.AddGrant(ctx, g)
	if err != nil {
		return GrantRecord{}, fmt.Errorf("access: grant to %s %s: %w", g.Subject.Kind, g.Subject.ID, err)
	}
	s.invalidate()
	return out, nil
}

// Revoke removes a grant.
func (s *Service) Revoke(ctx context.Context, id int64) error {
	if err := s.store.RemoveGrant(ctx, id); err != nil {
		return fmt.Errorf("access: revoke grant %d: %w", id, err)
	}
	s.invalidate()
	return nil
}

// Grants lists grants, of one subject or all.
func (s *Service) Grants(ctx context.Context, subject Subject) ([]GrantRecord, error) {
	return s.store.Grants(ctx, subject)
}

// NewToken says what API token to mint.
type NewToken struct {
	// Owner is the user the token acts as.
	Owner string `json:"owner"`
	// Name labels the token.
	Name string `json:"name"`
	// Grants, when given, restrict the token to them (it never exceeds its
	// owner either).
	Grants []auth.Grant `json:"grants,omitempty"`
	// TTL is how long the token lives; zero: until revoked.
	TTL time.Duration `json:"-"`
}

// MintTokenBy mints an API token for a request by minter (an API or
// cockpit caller): the token is at most its minter. It refuses with
// runtime.EFORBIDDEN, minting nothing:
//
//   - a token for another user, unless minter may administer (admin);
//   - any token while minter acts for another user (act-as), unless the
//     acting token itself holds admin: acting for someone never yields a
//     lasting credential of theirs;
//   - grants that minter's token restrictions do not allow (Field
//     "grants", naming each grant that exceeds them); a request without
//     grants from a restricted minter gets the minter's restriction;
//   - a lifetime beyond the minting token's expiry, or none when it
//     expires (Field "ttlMs"; refused, not shortened, so the client learns
//     what it got).
//
// Otherwise it is MintToken.
func (s *Service) MintTokenBy(ctx context.Context, minter Caller, req NewToken) (string, auth.Token, error) {
	if !minter.Authenticated() {
		return "", auth.Token{}, &runtime.Error{Code: runtime.EFORBIDDEN, Message: "minting a token needs an authenticated caller"}
	}
	if req.Owner == "" {
		req.Owner = string(minter.User)
	}
	if err := mayMintFor(minter, req.Owner); err != nil {
		return "", auth.Token{}, err
	}
	grants, err := grantsWithin(minter, req.Grants)
	if err != nil {
		return "", auth.Token{}, err
	}
	req.Grants = grants
	now := s.now()
	if err := lifetimeWithin(minter, req.TTL, now); err != nil {
		return "", auth.Token{}, err
	}
	return s.mint(ctx, req, now)
}

// mayMintFor refuses a minter who may not mint a token owned by owner.
func mayMintFor(minter Caller, owner string) error {
	admin := minter.ActorAllowed(auth.PermAdmin, auth.KindSystem, "")
	switch {
	case minter.Actor != "" && !admin:
		return &runtime.Error{Code: runtime.EFORBIDDEN, Field: "owner",
			Message: fmt.Sprintf("%s acts for %s and may not mint tokens while acting for someone: that needs admin on the acting token itself", minter.Actor, minter.User)}
	case owner != string(minter.User) && !minter.Allowed(auth.PermAdmin, auth.KindSystem, ""):
		return &runtime.Error{Code: runtime.EFORBIDDEN, Field: "owner", Message: "only an admin may mint a token for another user"}
	}
	return nil
}

// grantsWithin returns the grants a token minted by minter gets for the
// requested ones: those requested, when the minter's restrictions allow
// each; the minter's own restriction when none are requested; nil (all the
// owner may do) from an unrestricted minter.
func grantsWithin(minter Caller, want []auth.Grant) ([]auth.Grant, error) {
	rs := minter.Restrictions
	if len(rs) == 0 {
		return want, nil
	}
	if want == nil {
		// At most the minter: the grants of its first restriction that all
		// the others allow too.
		return append([]auth.Grant{}, auth.Within(rs[0].Grants, rs[1:])...), nil
	}
	var excess []string
	for _, g := range want {
		if len(auth.Within([]auth.Grant{g}, rs)) == 0 {
			excess = append(excess, g.String())
		}
	}
	if len(excess) > 0 {
		return nil, &runtime.Error{Code: runtime.EFORBIDDEN, Field: "grants",
			Message: fmt.Sprintf("a minted token is at most its minter: %s exceed what this token may do (%s)",
				strings.Join(excess, ", "), describeRestrictions(rs))}
	}
	return want, nil
}

// describeRestrictions lists what restrictions allow, for a refusal.
func describeRestrictions(rs []auth.Restriction) string {
	var parts []string
	for _, r := range rs {
		var gs []string
		for _, g := range r.Grants {
			gs = append(gs, g.String())
		}
		if len(gs) == 0 {
			gs = []string{"nothing"}
		}
		parts = append(parts, strings.Join(gs, ", "))
	}
	return strings.Join(parts, "; and ")
}

// lifetimeWithin refuses a token lifetime (ttl, zero: forever) that would
// outlive the token minter authenticated with, for a token minted at now.
func lifetimeWithin(minter Caller, ttl time.Duration, now time.Time) error {
	limit := minter.TokenExpiresAt
	if limit.IsZero() || (ttl > 0 && !now.Add(ttl).After(limit)) {
		return nil
	}
	return &runtime.Error{Code: runtime.EFORBIDDEN, Field: "ttlMs",
		Message: fmt.Sprintf("a minted token may not outlive its minter, which expires at %s: ask for a lifetime of at most %d ms",
			limit.UTC().Format(time.RFC3339), limit.Sub(now).Milliseconds())}
}

// MintToken mints an API token for an existing, enabled user and stores
// its hash, with no minter's bounds: for the operator's command line and
// set-up code. Requests from API or cockpit callers go through
// MintTokenBy. The returned secret is shown once and never again.
func (s *Service) MintToken(ctx context.Context, req NewToken) (string, auth.Token, error) {
	return s.mint(ctx, req, s.now())
}

// mint mints and stores a token for req at now.
func (s *Service) mint(ctx context.Context, req NewToken, now time.Time) (string, auth.Token, error) {
	u, err := s.store.User(ctx, auth.UserID(req.Owner))
	if err != nil {
		return "", auth.Token{}, fmt.Errorf("access: token owner %s: %w", req.Owner, err)
	}
	if u.Disabled {
		return "", auth.Token{}, &runtime.Error{Code: runtime.EINVALID, Field: "owner", Message: fmt.Sprintf("user %s is disabled", req.Owner)}
	}
	tr := auth.TokenRequest{Owner: u.ID, Name: req.Name, TTL: req.TTL}
	if req.Grants != nil {
		tr.Restriction = &auth.Restriction{Grants: req.Grants}
	}
	secret, t, err := auth.MintToken(s.cfg.Rand, now.UTC(), tr)
	if err != nil {
		return "", auth.Token{}, &runtime.Error{Code: runtime.EINVALID, Message: err.Error(), Err: err}
	}
	if err := s.store.CreateToken(ctx, t); err != nil {
		return "", auth.Token{}, fmt.Errorf("access: store token: %w", err)
	}
	return secret, t, nil
}

// Token returns a token's metadata.
func (s *Service) Token(ctx context.Context, id string) (auth.Token, error) {
	return s.store.Token(ctx, auth.TokenID(id))
}

// Tokens lists the tokens of owner ("" for all).
func (s *Service) Tokens(ctx context.Context, owner string) ([]auth.Token, error) {
	return s.store.Tokens(ctx, auth.UserID(owner))
}

// RevokeToken revokes a token; it stops working at the next request.
func (s *Service) RevokeToken(ctx context.Context, id string) error {
	if err := s.store.RevokeToken(ctx, auth.TokenID(id), s.now().UTC()); err != nil {
		return fmt.Errorf("access: revoke token %s: %w", id, err)
	}
	return nil
}
