package auth

import (
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"
)

// sessionIDBytes random bytes make a session id: 256 bits.
const sessionIDBytes = 32

// SessionPolicy says how long a cockpit session lives.
type SessionPolicy struct {
	// TTL is the session's absolute lifetime from login.
	TTL time.Duration
	// Idle ends the session when no request used it for this long; zero
	// means only TTL applies.
	Idle time.Duration
}

// DefaultSessionPolicy returns the defaults: 12 hours from login, ended
// after 1 idle hour.
func DefaultSessionPolicy() SessionPolicy {
	return SessionPolicy{TTL: 12 * time.Hour, Idle: time.Hour}
}

// Session is what the store keeps about a cockpit login: the hash of the
// session id, never the id, so a copy of the store logs nobody in. The
// cookie carries the id; the store looks the session up by SessionKey of
// the cookie and Check confirms it.
type Session struct {
	// IDHash is the SHA-256 of the session id.
	IDHash SecretHash
	// User is who logged in.
	User UserID
	// Groups are the groups the login brought with it (OIDC: mapped from
	// claims at login, since the store does not know them). Built-in logins
	// leave it empty and read memberships from the store on each request.
	Groups []GroupID
	// CreatedAt is when the user logged in.
	CreatedAt time.Time
	// ExpiresAt is when the session ends whatever happens.
	ExpiresAt time.Time
	// LastSeenAt is when a request last used the session; the store updates
	// it (at most every few minutes is enough for Idle).
	LastSeenAt time.Time
}

// NewSession starts a session for user at now under policy, reading
// randomness from rand (crypto/rand when nil). It returns the cookie value
// (43 characters of unpadded base64url) and the Session to store.
func NewSession(rand io.Reader, now time.Time, user UserID, groups []GroupID, policy SessionPolicy) (string, Session, error) {
	if user == "" {
		return "", Session{}, fmt.Errorf("new session: no user: %w", ErrInvalidConfig)
	}
	if policy.TTL <= 0 || policy.Idle < 0 {
		return "", Session{}, fmt.Errorf("new session for %s: policy %+v: %w", user, policy, ErrInvalidConfig)
	}
	id, err := randomBytes(rand, sessionIDBytes)
	if err != nil {
		return "", Session{}, fmt.Errorf("new session for %s: %w", user, err)
	}
	s := Session{
		IDHash: HashSecret(id), User: user, Groups: slices.Clone(groups),
		CreatedAt: now, ExpiresAt: now.Add(policy.TTL), LastSeenAt: now,
	}
	return base64.RawURLEncoding.EncodeToString(id), s, nil
}

// SessionKey returns the hash a session is stored under, for the cookie
// value a request presented, or an error wrapping ErrMalformedCredential.
func SessionKey(cookie string) (SecretHash, error) {
	id, err := base64.RawURLEncoding.Strict().DecodeString(cookie)
	if err != nil || len(id) != sessionIDBytes {
		return SecretHash{}, fmt.Errorf("session key: cookie is not a session id: %w", ErrMalformedCredential)
	}
	return HashSecret(id), nil
}

// Check confirms that cookie is s's id (compared in constant time, whatever
// the store's lookup did) and that s is live at now under policy. It
// returns an error wrapping ErrMalformedCredential, ErrMismatch or
// ErrExpired (past ExpiresAt, or idle longer than policy.Idle).
func (s Session) Check(cookie string, now time.Time, policy SessionPolicy) error {
	h, err := SessionKey(cookie)
	if err != nil {
		return fmt.Errorf("check session: %w", err)
	}
	if s.IDHash.IsZero() || !s.IDHash.Equal(h) {
		return fmt.Errorf("check session: %w", ErrMismatch)
	}
	if !now.Before(s.ExpiresAt) {
		return fmt.Errorf("check session of %s: ended at %s: %w", s.User, s.ExpiresAt.Format(time.RFC3339), ErrExpired)
	}
	if policy.Idle > 0 && !now.Before(s.LastSeenAt.Add(policy.Idle)) {
		return fmt.Errorf("check session of %s: idle since %s: %w", s.User, s.LastSeenAt.Format(time.RFC3339), ErrExpired)
	}
	return nil
}

// String describes the session by user and times; the hash is left out.
func (s Session) String() string {
	return fmt.Sprintf("session of %s (created %s, expires %s)", s.User,
		s.CreatedAt.Format(time.RFC3339), s.ExpiresAt.Format(time.RFC3339))
}

// GoString is String, so %#v cannot print the hash's bytes either.
func (s Session) GoString() string { return s.String() }

// Format writes String for every verb, so no verb can reach the hash.
func (s Session) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, s.String()) }

// LogValue logs the session's user and times; the hash is left out.
func (s Session) LogValue() slog.Value {
	return slog.GroupValue(slog.String("user", string(s.User)),
		slog.Time("created_at", s.CreatedAt), slog.Time("expires_at", s.ExpiresAt))
}
