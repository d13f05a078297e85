package auth

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors that callers branch on. Every function in this package
// wraps one of these with the operation and, where there is one, the ID it
// concerned, so errors.Is works through the wrapping.
var (
	// ErrPasswordEmpty is returned for an empty password.
	ErrPasswordEmpty = errors.New("auth: empty password")
	// ErrPasswordTooLong is returned for a password longer than MaxPasswordBytes.
	ErrPasswordTooLong = errors.New("auth: password too long")
	// ErrPasswordTooShort is returned by CheckPasswordPolicy for a password
	// shorter than MinPasswordRunes.
	ErrPasswordTooShort = errors.New("auth: password too short")
	// ErrMismatch is returned when a password, token secret or session id
	// does not match what is stored. Callers answer it like an unknown user
	// or token, so that the answer does not tell which part was wrong.
	ErrMismatch = errors.New("auth: credentials do not match")
	// ErrMalformedHash is returned for a stored password hash or secret hash
	// that cannot be parsed: stored data is damaged, an internal error.
	ErrMalformedHash = errors.New("auth: malformed stored hash")
	// ErrMalformedCredential is returned for a presented token or session
	// cookie that is not well formed: the caller's error, not ours.
	ErrMalformedCredential = errors.New("auth: malformed credential")
	// ErrRevoked is returned for a revoked token.
	ErrRevoked = errors.New("auth: credential revoked")
	// ErrExpired is returned for an expired token, session or OIDC token.
	ErrExpired = errors.New("auth: credential expired")
	// ErrInvalidPattern is returned for a resource pattern that breaks the
	// pattern rule (see ParsePattern).
	ErrInvalidPattern = errors.New("auth: invalid resource pattern")
	// ErrInvalidGrant is returned for a grant whose permission, resource kind
	// and pattern do not fit together, and for unknown permissions and roles.
	ErrInvalidGrant = errors.New("auth: invalid grant")
	// ErrLockedOut is returned (inside a *LockedOutError) while login
	// attempts for a user name or client address are refused.
	ErrLockedOut = errors.New("auth: too many failed attempts")
	// ErrInvalidConfig is returned for a configuration that cannot work.
	ErrInvalidConfig = errors.New("auth: invalid configuration")
	// ErrTokenRejected is returned when an OIDC token (bearer or ID token)
	// fails verification: signature, issuer, audience, expiry or claims.
	ErrTokenRejected = errors.New("auth: oidc token rejected")
	// ErrStateMismatch is returned when the state that comes back from the
	// identity provider is not the one the login started with.
	ErrStateMismatch = errors.New("auth: oidc state mismatch")
	// ErrNonceMismatch is returned when an ID token's nonce is not the one
	// the login started with (a replayed or injected ID token).
	ErrNonceMismatch = errors.New("auth: oidc nonce mismatch")
)

// LockedOutError reports that login attempts are refused until Until. It
// matches ErrLockedOut with errors.Is. It does not say whether the user name
// or the client address is locked, so it is safe to show.
type LockedOutError struct {
	// Until is when attempts are accepted again.
	Until time.Time
	// RetryAfter is Until minus the time of the check, for a Retry-After
	// header.
	RetryAfter time.Duration
}

// Error reports the lock-out and when it ends.
func (e *LockedOutError) Error() string {
	return fmt.Sprintf("auth: too many failed attempts, retry after %s", e.RetryAfter.Round(time.Second))
}

// Is reports whether target is ErrLockedOut.
func (e *LockedOutError) Is(target error) bool { return target == ErrLockedOut }
