package access

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/gobpm/gobpm/internal/auth"
	"github.com/gobpm/gobpm/internal/runtime"
)

// Mode is how a server authenticates its callers.
type Mode string

// The modes of --auth.
const (
	// ModeNone trusts every caller with every right and takes the acting
	// user from the X-Gobpm-User header: one developer on loopback. A
	// server refuses to listen anywhere else in this mode.
	ModeNone Mode = "none"
	// ModeBuiltin authenticates users, groups and API tokens kept in
	// gobpm's store.
	ModeBuiltin Mode = "builtin"
	// ModeOIDC authenticates the users of an OpenID Connect provider
	// (cockpit login and JWT bearer tokens); gobpm's own API tokens work
	// too, for workers.
	ModeOIDC Mode = "oidc"
)

// ParseMode returns the mode named s.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeNone, ModeBuiltin, ModeOIDC:
		return m, nil
	}
	return "", fmt.Errorf("auth mode %q: want none, builtin or oidc", s)
}

// Errors callers branch on besides the runtime's coded errors.
var (
	// ErrUnauthenticated is returned when a request carries no credential,
	// or one that does not authenticate anybody (unknown, wrong, expired,
	// revoked, malformed). The API answers 401 and never says which.
	ErrUnauthenticated = errors.New("access: not authenticated")
)

// Config configures a Service.
type Config struct {
	// Mode is how callers are authenticated. Required.
	Mode Mode
	// Store keeps identities, grants, tokens, sessions and the audit trail.
	// Required.
	Store Store
	// OIDC verifies the provider's tokens in ModeOIDC (required there).
	OIDC *auth.OIDC
	// AdminGroups are groups whose members are admins whatever the store
	// says: how the first admin of an OIDC deployment gets in.
	AdminGroups []auth.GroupID
	// Throttle limits login attempts; one with auth.DefaultThrottleConfig
	// when nil.
	Throttle *auth.Throttle
	// Sessions is the cockpit session policy; auth.DefaultSessionPolicy when
	// zero.
	Sessions auth.SessionPolicy
	// HashPool bounds the password hashes that run at once (logins, set-up,
	// password changes); one with auth.HashPoolConfig's defaults
	// (GOMAXPROCS slots) when nil.
	HashPool *auth.HashPool
	// Params are the argon2id parameters for new password hashes;
	// auth.DefaultParams when zero.
	Params auth.Params
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Rand is the randomness for secrets; crypto/rand when nil.
	Rand io.Reader
	// Logger receives the set-up token and audit write failures;
	// slog.Default() when nil.
	Logger *slog.Logger
	// AuditFlush is how long an audit entry may wait to be written with
	// others; 20 ms when zero.
	AuditFlush time.Duration
}

// principalTTL bounds how long a resolved user's groups and grants are
// reused. Every change made through the Service invalidates them at once;
// the bound covers changes made by another process (the admin CLI).
const principalTTL = 5 * time.Second

// tokenTouchEvery is how often a token's last-use time is written at most.
const tokenTouchEvery = time.Minute

// Service authenticates callers, resolves their rights, manages built-in
// identities and keeps the audit trail. It is safe for concurrent use.
type Service struct {
	cfg      Config
	store    Store
	now      func() time.Time
	throttle *auth.Throttle
	hashing  *auth.HashPool
	log      *slog.Logger
	audit    *auditWriter

	// dummyHash is verified against when a login names an unknown user, so
	// the answer takes as long as a wrong password.
	dummyHash string

	mu         sync.Mutex
	setup      string                        // the one-time set-up token; "" when none
	resolved   map[auth.UserID]resolvedEntry // guarded by mu
	generation uint64                        // guarded by mu; bumped by every change
	touched    map[auth.TokenID]time.Time    // guarded by mu
}

// resolvedEntry is a user's rights as read from the store.
type resolvedEntry struct {
	at         time.Time
	generation uint64
	principal  auth.Principal
	disabled   bool
}

// New checks cfg and returns a running Service. In ModeBuiltin with no
// user yet it mints a one-time set-up token (SetupToken), which the
// cockpit's first-run page exchanges for the first admin.
func New(ctx context.Context, cfg Config) (*Service, error) {
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, err
	}
	if cfg.Store == nil {
		return nil, errors.New("access: no store")
	}
	if cfg.Mode == ModeOIDC && cfg.OIDC == nil {
		return nil, errors.New("access: oidc mode needs an OIDC provider")
	}
	s := &Service{cfg: cfg, store: cfg.Store, now: cfg.Now, throttle: cfg.Throttle, hashing: cfg.HashPool, log: cfg.Logger,
		resolved: map[auth.UserID]resolvedEntry{}, touched: map[auth.TokenID]time.Time{}}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.cfg.Sessions == (auth.SessionPolicy{}) {
		s.cfg.Sessions = auth.DefaultSessionPolicy()
	}
	if s.cfg.Params == (auth.Params{}) {
		s.cfg.Params = auth.DefaultParams()
	}
	if s.throttle == nil {
		tc := auth.DefaultThrottleConfig()
		tc.Now = s.now
		t, err := auth.NewThrottle(tc)
		if err != nil {
			return nil, fmt.Errorf("access: throttle: %w", err)
		}
		s.throttle = t
	}
	if s.hashing == nil {
		p, err := auth.NewHashPool(auth.HashPoolConfig{})
		if err != nil {
			return nil, fmt.Errorf("access: hash pool: %w", err)
		}
		s.hashing = p
	}
	if cfg.Mode != ModeNone {
		h, err := auth.HashPassword(cfg.Rand, "no user has this password", s.cfg.Params)
		if err != nil {
			return nil, fmt.Errorf("access: dummy hash: %w", err)
		}
		s.dummyHash = h
	}
	if cfg.Mode == ModeBuiltin {
		n, err := s.store.CountUsers(ctx)
		if err != nil {
			return nil, fmt.Errorf("access: count users: %w", err)
		}
		if n == 0 {
			tok, err := randomText(cfg.Rand, 20)
			if err != nil {
				return nil, fmt.Errorf("access: set-up token: %w", err)
			}
			s.setup = tok
		}
	}
	flush := cfg.AuditFlush
	if flush <= 0 {
		flush = 20 * time.Millisecond
	}
	s.audit = newAuditWriter(s.store, flush, s.log, func(ctx context.Context) error {
		_, err := s.store.DeleteExpiredSessions(ctx, s.now().UTC())
		return err
	})
	return s, nil
}

// Mode returns how the service authenticates.
func (s *Service) Mode() Mode { return s.cfg.Mode }

// SessionPolicy returns the cockpit session policy in force.
func (s *Service) SessionPolicy() auth.SessionPolicy { return s.cfg.Sessions }

// SetupToken returns the one-time set-up token while no user exists in
// ModeBuiltin, and "" otherwise. Users created by another process (the
// admin CLI) end it too: while a token is out, each call asks the store.
func (s *Service) SetupToken() string {
	s.mu.Lock()
	tok := s.setup
	s.mu.Unlock()
	if tok == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if n, err := s.store.CountUsers(ctx); err != nil || n > 0 {
		if err == nil {
			s.clearSetup()
		}
		return ""
	}
	return tok
}

// Close writes the audit entries still waiting and stops the writer.
func (s *Service) Close(ctx context.Context) error { return s.audit.close(ctx) }

// Record appends e to the audit trail. It does not wait for the write:
// entries are written together every few milliseconds (Config.AuditFlush);
// Close writes what is left. In ModeNone nothing is recorded: nobody is
// authenticated (the acting user is whatever a header claims) and the
// trail cannot be read (GET /api/v1/audit exists only with
// authentication), so it would cost every request a write for nothing.
func (s *Service) Record(e AuditEntry) {
	if s.cfg.Mode == ModeNone {
		return
	}
	if e.At.IsZero() {
		e.At = s.now().UTC()
	}
	// One bad entry must not cost its batch: the store refuses an empty
	// action or an unknown outcome.
	if e.Action == "" {
		e.Action = "unknown"
	}
	switch e.Outcome {
	case "ok", "denied", "failed", "error":
	default:
		e.Outcome = "error"
	}
	s.audit.add(e)
}

// FlushAudit writes every entry recorded so far and returns once they are
// stored (for tests and for reading one's own writes).
func (s *Service) FlushAudit(ctx context.Context) error { return s.audit.flush(ctx) }

// Audit lists audit entries.
func (s *Service) Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	if f.Limit < 0 || f.Limit > 1000 {
		return nil, &runtime.Error{Code: runtime.EINVALID, Message: "limit must be between 1 and 1000", Field: "limit"}
	}
	if f.Limit == 0 {
		f.Limit = 100
	}
	if err := s.audit.flush(ctx); err != nil {
		return nil, err
	}
	return s.store.Audit(ctx, f)
}

// invalidate forgets every resolved principal: grants, memberships or a
// user changed.
func (s *Service) invalidate() {
	s.mu.Lock()
	s.generation++
	clear(s.resolved)
	s.mu.Unlock()
}

// idPattern is the rule for user and group ids.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// checkID reports whether id is a valid user or group id.
func checkID(field, id string) error {
	if !idPattern.MatchString(id) {
		return &runtime.Error{Code: runtime.EINVALID, Field: field,
			Message: fmt.Sprintf("%s %q must be 1–64 characters: letters, digits and . _ @ -, starting with a letter or digit", field, id)}
	}
	return nil
}

// resolve returns the principal of a built-in or OIDC user: their groups
// (the store's, plus extra ones an OIDC token brought) and the roles and
// grants given to them and their groups. disabled reports a disabled
// built-in user; known is false for a user the store does not have.
func (s *Service) resolve(ctx context.Context, user auth.UserID, extra []auth.GroupID) (p auth.Principal, disabled, known bool, err error) {
	now := s.now()
	s.mu.Lock()
	e, ok := s.resolved[user]
	gen := s.generation
	s.mu.Unlock()
	if !ok || e.generation != gen || now.Sub(e.at) > principalTTL {
		e, ok, err = s.load(ctx, user, gen, now)
		if err != nil {
			return auth.Principal{}, false, false, err
		}
		if ok {
			s.mu.Lock()
			if s.generation == gen {
				s.resolved[user] = e
			}
			s.mu.Unlock()
		}
	}
	p = e.principal
	p.User = user
	if len(extra) > 0 {
		// An OIDC user's groups come with their token; grants given to
		// those groups apply too.
		p.Groups = sortedUnion(p.Groups, extra)
		grants, err := s.store.GrantsFor(ctx, "", extra)
		if err != nil {
			return auth.Principal{}, false, false, fmt.Errorf("access: grants of %s's groups: %w", user, err)
		}
		addGrants(&p, grants)
	}
	for _, g := range p.Groups {
		if slices.Contains(s.cfg.AdminGroups, g) && !slices.Contains(p.Roles, auth.RoleAdmin) {
			p.Roles = append(p.Roles, auth.RoleAdmin)
		}
	}
	return p, e.disabled, ok, nil
}

// load reads user's entry from the store; ok is false for an unknown user
// (whose entry then holds no rights).
func (s *Service) load(ctx context.Context, user auth.UserID, gen uint64, now time.Time) (resolvedEntry, bool, error) {
	u, err := s.store.User(ctx, user)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return resolvedEntry{}, false, nil
	}
	if err != nil {
		return resolvedEntry{}, false, fmt.Errorf("access: user %s: %w", user, err)
	}
	groups, err := s.store.GroupsOf(ctx, user)
	if runtime.ErrorCode(err) == runtime.ENOTFOUND {
		return resolvedEntry{}, false, nil // deleted since it was read
	}
	if err != nil {
		return resolvedEntry{}, false, fmt.Errorf("access: groups of %s: %w", user, err)
	}
	grants, err := s.store.GrantsFor(ctx, user, groups)
	if err != nil {
		return resolvedEntry{}, false, fmt.Errorf("access: grants of %s: %w", user, err)
	}
	p := auth.Principal{User: user, Groups: groups}
	addGrants(&p, grants)
	return resolvedEntry{at: now, generation: gen, principal: p, disabled: u.Disabled}, true, nil
}

// addGrants adds stored grants (roles and single grants) to p, once each.
func addGrants(p *auth.Principal, grants []GrantRecord) {
	for _, g := range grants {
		switch {
		case g.Role != "":
			if !slices.Contains(p.Roles, g.Role) {
				p.Roles = append(p.Roles, g.Role)
			}
		case g.Grant != nil:
			if !slices.Contains(p.Grants, *g.Grant) {
				p.Grants = append(p.Grants, *g.Grant)
			}
		}
	}
}

// sortedUnion returns the sorted union of two group lists.
func sortedUnion(a, b []auth.GroupID) []auth.GroupID {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
